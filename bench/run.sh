#!/bin/sh
# Runs the CPU matmul benchmark against OpenBLAS. OpenBLAS 0.3.21 does not know Zen 5 and would
# pick its AVX2 (Haswell) kernels; the core type is read when the library loads, so it must be in
# the environment before the benchmark starts (toolchain.md section 7).
#   bench/run.sh [build-dir] [benchmark flags...]    (build dir default: build/default, the
#   default preset, which builds the benchmarks)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=$here/build/default
case "${1:-}" in
  -*|'') ;;                  # only benchmark flags
  *) build=$1; shift ;;
esac
# Forced where the CPU has AVX-512 (some machines' environment presets OPENBLAS_CORETYPE=Haswell);
# on a CPU without it SkylakeX's kernels stop with "Illegal instruction", so OpenBLAS keeps its
# own choice there. TK_OPENBLAS_CORETYPE overrides both for an experiment.
if [ -n "${TK_OPENBLAS_CORETYPE:-}" ]; then
  export OPENBLAS_CORETYPE=$TK_OPENBLAS_CORETYPE
elif grep -qw avx512f /proc/cpuinfo 2>/dev/null; then
  export OPENBLAS_CORETYPE=SkylakeX
fi
# The benchmark sets 1 or 2 threads per case with openblas_set_num_threads; this is the maximum.
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-2}
echo "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset} OPENBLAS_NUM_THREADS=$OPENBLAS_NUM_THREADS" \
  "OPENBLAS_L2_SIZE=${OPENBLAS_L2_SIZE:-unset}"
exe=$build/bench/tk_cpu_matmul_bench
if [ ! -x "$exe" ]; then
  echo "error: $exe not found; build it with: cmake --preset default &&" \
    "cmake --build --preset default --target tk_cpu_matmul_bench" >&2
  exit 1
fi
exec "$exe" "$@"
