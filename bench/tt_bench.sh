#!/usr/bin/env bash
# The TT benchmark table (docs/bench.md): the generated matmul example against the SDK's four
# matmul programming examples at six shapes and the other generated examples at one or two
# shapes each, on the emulator with its timing model on. Installs what it needs
# (scripts/setup.sh, which includes gnuplot for the roofline plot), builds the driver tk_tt_bench
# with the ci preset, runs bench/tt_bench.py, which prints the table and writes DIR/index.html
# (the table and the roofline plot, SVG inline).
#   bench/tt_bench.sh [--quick] [--out DIR]      (DIR default: build/bench-tt)
# --quick leaves out 4096^3 (about a minute instead of about four). Any other argument goes to
# bench/tt_bench.py (--help lists them). The figures are the timing model's projections, not
# hardware measurements.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
log=build/ci/tt-bench-build.log
mkdir -p build/ci
echo "== building tk_tt_bench (preset ci; log: $log)" >&2
if ! { bash scripts/setup.sh && cmake --preset ci >/dev/null &&
       cmake --build --preset ci --target tk_tt_bench; } >"$log" 2>&1; then
  tail -n 40 "$log" >&2
  echo "tt_bench: the build failed; see $log" >&2
  exit 1
fi
# The kernels JIT-compiled by the emulator are cached with the tests'.
cache="${TT_METAL_EMULATOR_CACHE_DIR:-$PWD/build/ci/emulator_kernel_cache}"
export TT_METAL_EMULATOR_CACHE_DIR="$cache"
exec python3 bench/tt_bench.py --exe build/ci/bench/tk_tt_bench "$@"
