#!/usr/bin/env bash
# Builds and runs tt-metal's own programming examples against an installed TileKit (the emulator
# as TT::Metalium through find_package(TT-Metalium)), each with its own CMakeLists.txt, unmodified,
# and runs `ttgen check` on its kernels (docs/sdk_examples.md):
#
#   scripts/sdk_examples.sh TT_METAL_DIR [TILEKIT_PREFIX]
#
# TT_METAL_DIR is a tt-metal source tree (it holds tt_metal/programming_examples); nothing of it is
# copied into this repository. TILEKIT_PREFIX is an installed TileKit; without it, build/ci of this
# tree is installed into a scratch directory first. One line per example, then
# "N/M examples passed, E expected failures; with the watcher off K/M passed": an expected failure
# is run once more with TK_EMULATOR_WATCHER=off (docs/emulator.md), which lets the violations
# silicon tolerates through, as the chip does without tt-metal's watcher. Exit status 0 when every
# example that is not an expected failure passed. SDK_EXAMPLES_ONLY=REGEX runs only the examples
# whose name matches.
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
tt_metal="$(cd "${1:?usage: scripts/sdk_examples.sh TT_METAL_DIR [TILEKIT_PREFIX]}" && pwd)"
examples="$tt_metal/tt_metal/programming_examples"
[[ -d "$examples" ]] || { echo "sdk_examples: $examples: no such directory" >&2; exit 2; }
work="${SDK_EXAMPLES_WORK:-$(mktemp -d /tmp/tk_sdk_examples.XXXXXX)}"
mkdir -p "$work"
prefix="${2:-}"
if [[ -z "$prefix" ]]; then
  prefix="$work/prefix"
  cmake --install "$here/build/ci" --prefix "$prefix" > "$work/install.log" 2>&1 ||
    { echo "sdk_examples: cmake --install build/ci failed (see $work/install.log)" >&2; exit 2; }
fi
ttgen="$prefix/bin/ttgen"
# Relative kernel paths of the examples resolve here (docs/emulator.md): most are relative to
# programming_examples ("loopback/kernels/..."), some to the tt-metal root
# ("tt_metal/programming_examples/pad_multi_core/kernels/...").
export TT_METAL_KERNEL_PATH="$examples" TT_METAL_HOME="$tt_metal"
export TT_METAL_EMULATOR_CACHE_DIR="$work/kernel_cache"

# Shipped bugs the emulator names: example -> the text its error must contain.
declare -A expected_failure=(
  # packs and pushes c_16 with no cb_reserve_back
  [add_2_integers_in_compute]="cb_reserve_back"
  # add_multi_core.cpp calls release_dst() after tile_regs_release(), with no acquire_dst()
  [vecadd_multi_core]="release_dst: DST was not acquired with acquire_dst"
  # reads its DRAM buffer at NoC (1,0), Grayskull's DRAM 0; on a Wormhole n150 an Ethernet core
  [hello_world_datatypes_kernel]="NoC (1,0) is not a DRAM bank or a worker core of the grid"
  # reserves its 16-byte CB and reads the second stick 32 bytes into it (padded_offset_bytes)
  [shard_data_rm]="is outside any circular buffer, semaphore or L1 buffer"
  # add_sharding.cpp adds and pops its sharded input CBs without cb_wait_front (no kernel pushes
  # them) and packs without cb_reserve_back, relying on the hardware not checking the counts
  [vecadd_sharding]="add_tiles: reads tile 0 of c_0 but only 0 pages were waited for with cb_wait_front"
  # coordinator_kernel.cpp reads a DRAM tile into get_write_ptr(c_0) with no cb_reserve_back
  [multicast]="outside the pages reserved with cb_reserve_back"
  # tt_metal/kernels/compute/eltwise_binary.cpp reads runtime arg 2 (acc_to_dst, unused), the host
  # sets 2; tt-metal's watcher asserts the same (DebugAssertRtaOutOfBounds, api/compute/common.h)
  [4_distributed_trace_and_events]="runtime arg 2 was never set"
)

passed=0 total=0 xfail=0 watcher_off_passed=0
# Builds the CMake project in $2 (a directory) for example $1; prints nothing, logs in $work/$1.
build() {
  local name="$1" src="$2"
  cmake -S "$src" -B "$work/$name/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
    > "$work/$name/configure.log" 2>&1 &&
    nice -n 10 cmake --build "$work/$name/build" -j 2 > "$work/$name/build.log" 2>&1
}

# The compile-time args the example's host gave kernel file $1, as the emulator's JIT compiled it
# (compile.cmd beside each kernel.so in the kernel cache; docs/emulator.md): a --compile-args
# option for ttgen check, or nothing when the kernel did not run. A kernel created with several
# sets of args is checked with the first (in cache order).
compile_args_of() {
  local file="$1" entry cmd
  entry="$(grep -lF "#include \"$file\"" "$TT_METAL_EMULATOR_CACHE_DIR"/*/kernel.cpp 2>/dev/null | head -1)"
  [[ -n "$entry" ]] || return 0
  cmd="$(dirname "$entry")/compile.cmd"
  [[ -f "$cmd" ]] || return 0
  local values
  values="$(sed -n 's/^-DKERNEL_COMPILE_TIME_ARGS=//p' "$cmd" | head -1)"
  echo "--compile-args $file=$values"
}

# `ttgen check` on an example's kernels: all together when they are at most a reader, a compute
# and a writer, else each alone, each with the compile-time args its host gave it. Prints a short
# summary.
check_kernels() {
  local dir="$1" files=() summary="" out
  [[ -d "$dir" ]] || { echo "no kernels"; return; }
  mapfile -t files < <(find "$dir" -name '*.cpp' | sort)
  ((${#files[@]} > 0)) || { echo "no kernels"; return; }
  local groups=()
  if ((${#files[@]} <= 3)); then groups=("${files[*]}"); else groups=("${files[@]}"); fi
  for g in "${groups[@]}"; do
    local ct="" f
    for f in $g; do ct+=" $(compile_args_of "$f")"; done
    # shellcheck disable=SC2086
    out="$("$ttgen" check $ct $g 2>&1)"
    case $? in
      0) if grep -q "warning" <<< "$out"; then summary+="proved with $(grep -c ': warning:' <<< "$out") warning(s); "; else summary+="proved; "; fi ;;
      1) summary+="$(grep -c ': error:' <<< "$out") bug(s): $(grep -m1 ': error:' <<< "$out" | sed 's/.*error: //'); " ;;
      *) summary+="does not compile: $(grep -m1 'error' <<< "$out" | sed 's/.*error: //'); " ;;
    esac
  done
  echo "${summary%; }"
}

# Runs executable $2 in example $1's directory with its output in log $3; returns its exit status.
run_exe() {
  # An inner shell, so that its report of a crash ("Aborted") lands in the log.
  (cd "$work/$1" && bash -c '"$@"; exit $?' _ timeout 900 "$2") > "$3" 2>&1
}

# Runs an expected failure once more with the watcher off; sets watcher_off to its result: PASS
# (with the number of warnings), or FAIL with its first error.
watcher_off=""
run_watcher_off() {
  local name="$1" exe="$2" log="$work/$1/run_watcher_off.log" rc
  TK_EMULATOR_WATCHER=off run_exe "$name" "$exe" "$log"
  rc=$?
  if ((rc == 0)); then
    watcher_off_passed=$((watcher_off_passed + 1))
    watcher_off="PASS ($(grep -c '^watcher off: ' "$log") warning(s))"
  else
    # The emulator's words (an uncaught EmulatorError's what()), else the first line naming one.
    local first
    first="$(grep -m1 'what():' "$log" | sed 's/^ *what(): *//')"
    [[ -n "$first" ]] || first="$(grep -v '^watcher off: ' "$log" | grep -m1 -i 'error\|fail')"
    watcher_off="FAIL: exit $rc: $(cut -c1-200 <<< "$first")"
  fi
}

# Runs executable $2 of example $1 and prints its line.
run() {
  local name="$1" exe="$2" kernels="$3" log="$work/$1/run.log" rc
  total=$((total + 1))
  run_exe "$name" "$exe" "$log"
  rc=$?
  local check
  check="$(check_kernels "$kernels")"
  if [[ -n "${expected_failure[$name]:-}" ]]; then
    if ((rc != 0)) && grep -q "${expected_failure[$name]}" "$log"; then
      xfail=$((xfail + 1))
      run_watcher_off "$name" "$exe"
      echo "XFAIL $name: $(grep -m1 "${expected_failure[$name]}" "$log" | cut -c1-200) · watcher off: $watcher_off [check: $check]"
    else
      echo "FAIL  $name: expected the emulator to name '${expected_failure[$name]}' (exit $rc) [check: $check]"
    fi
  elif ((rc == 0)); then
    passed=$((passed + 1))
    watcher_off_passed=$((watcher_off_passed + 1))
    echo "PASS  $name [check: $check]"
  else
    echo "FAIL  $name: exit $rc: $(grep -m1 -i 'error\|fail\|what' "$log" | cut -c1-200) [check: $check]"
  fi
}

# One example: a folder with its own CMake project, or (no project() of its own) a scratch project
# that adds it as a subdirectory, or (no CMakeLists.txt at all) one that builds its sources.
example() {
  local name="$1" dir="$2" kernels="${3:-$2/kernels}"
  mkdir -p "$work/$name"
  local src="$dir"
  if [[ ! -f "$dir/CMakeLists.txt" ]]; then
    src="$work/$name/project"
    mkdir -p "$src"
    printf 'cmake_minimum_required(VERSION 3.22)\nproject(%s LANGUAGES CXX)\nfind_package(TT-Metalium REQUIRED)\nadd_executable(%s %s)\ntarget_link_libraries(%s PRIVATE TT::Metalium TT::STL)\n' \
      "$name" "$name" "$(ls "$dir"/*.cpp | tr '\n' ' ')" "$name" > "$src/CMakeLists.txt"
  elif ! grep -q '^project' "$dir/CMakeLists.txt"; then
    src="$work/$name/project"
    mkdir -p "$src"
    # Such folders (distributed/*) link tt-metal's in-tree library target, tt_metal.
    printf 'cmake_minimum_required(VERSION 3.22)\nproject(%s LANGUAGES CXX)\nfind_package(TT-Metalium REQUIRED)\nadd_library(tt_metal ALIAS TT::Metalium)\nadd_subdirectory(%s example)\n' \
      "$name" "$dir" > "$src/CMakeLists.txt"
  fi
  if ! build "$name" "$src"; then
    total=$((total + 1))
    echo "FAIL  $name: does not build: $(grep -m1 'error' "$work/$name/configure.log" "$work/$name/build.log" 2>/dev/null | sed 's/^[^:]*:[0-9]*://' | cut -c1-200)"
    return
  fi
  local exes=() exe
  mapfile -t exes < <(find "$work/$name/build" -type f -executable -newer "$work/$name/configure.log" \
           ! -name '*.so' ! -path '*/CMakeFiles/*' | sort)
  exe="${exes[0]:-}"
  if ((${#exes[@]} > 1)); then
    # A folder with several programs (tests/): each in turn; the example passes when all do.
    exe="$work/$name/run_all.sh"
    { echo 'set -e'; printf '"%s"\n' "${exes[@]}"; } > "$exe"
    chmod +x "$exe"
  fi
  run "$name" "$exe" "$kernels"
}

for d in "$examples"/*/ "$examples"/contributed/*/ "$examples"/distributed/*/; do
  d="${d%/}"
  name="$(basename "$d")"
  [[ "$name" =~ ${SDK_EXAMPLES_ONLY:-.} ]] || continue
  case "$name" in
    contributed | distributed) continue ;; # their examples are listed one by one
    custom_sfpi_*) echo "SKIP  $name: custom SFPI code runs only on the Tensix vector unit"; continue ;;
    profiler) echo "SKIP  $name: the device profiler is not emulated"; continue ;;
    matmul)
      # One CMake project (matmul/) with four examples sharing matmul_common.
      mkdir -p "$work/matmul"
      if ! build matmul "$d"; then
        for m in matmul_single_core matmul_multi_core matmul_multicore_reuse matmul_multicore_reuse_mcast; do
          total=$((total + 1))
          echo "FAIL  $m: does not build: $(grep -m1 'error' "$work/matmul/configure.log" "$work/matmul/build.log" 2>/dev/null | cut -c1-200)"
        done
        continue
      fi
      for m in matmul_single_core matmul_multi_core matmul_multicore_reuse matmul_multicore_reuse_mcast; do
        mkdir -p "$work/$m"
        k="$d/$m/kernels"
        [[ -d "$k" ]] || k="$d/matmul_common/kernels"
        run "$m" "$(find "$work/matmul/build" -type f -executable -name "metal_example_$m")" "$k"
      done
      continue ;;
  esac
  example "$name" "$d"
done
echo "$passed/$total examples passed, $xfail expected failures; with the watcher off $watcher_off_passed/$total passed"
((passed + xfail == total))
