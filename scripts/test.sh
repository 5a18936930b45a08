#!/usr/bin/env bash
# The README's test command: install, build once per configuration, check the formatting, run
# every test with ctest, then the unit layer again under AddressSanitizer + UBSan.
#
# The sanitizer step, built by clang 19 (twice as fast as g++ at -O0 with the sanitizers), covers
# every test under tests/unit (label `unit`: parser, checker, IR,
# lowering, Jinja, the emulator with its fibers, the interpreter, the CPU runtime, and each
# libFuzzer harness replayed on its seeds and every reproducer in fuzz/regressions), but for
# tk_generated_kernels_tests (label `unit-unsanitized`: generated text parsed by the uninstrumented
# libclang, through the checker code the sanitized TtgenCheck tests run anyway); the
# end-to-end layer (label `e2e`) runs once, in the ci preset, to keep the command within 30 minutes
# on 2 cores. `ctest --preset asan` after `scripts/build.sh asan` runs all of it sanitized;
# `scripts/fuzz.sh` fuzzes (docs/fuzzing.md): a clang build of its own, four minutes of CI for a
# 10 s run that got through lower_fuzzer's seeds about once, which the replay now does.
#
# The sanitizer build starts with the ci build and runs beside it and its tests at the lowest
# priority (nice 19): it takes only the CPU they leave idle (the tail of a build, where the last
# large files and links run alone; the tail of ctest, where its longest tests finish alone), which
# was about a third of the two cores during ctest. Its log is printed when it is done.
# Both builds link with LLD and compile the test files with a precompiled header (TILEKIT_LLD,
# TILEKIT_PCH; docs/cmake.md, "TileKit's own build"): a quarter to a seventh of GNU ld's CPU per
# link, 58-72% of a unit test file's compile time: about 4 minutes of CPU less in all, 2 of the wall.
# PRESET=<preset> runs that preset's build and tests alone.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${PRESET:-ci}"
bash scripts/setup.sh
asan_pid=""
if [ -z "${PRESET:-}" ]; then
  mkdir -p build
  asan_log=build/asan-unit-build.log
  # A session of its own, so that a failure here stops the whole build (its process group). With
  # the kernel's autogroups (Debian's default) a new session is a scheduling group of its own, in
  # which nice alone changes nothing against the ci build: the session sets its group's nice to 19
  # itself, once it exists.
  setsid bash -c '{ echo 19 >/proc/self/autogroup; } 2>/dev/null || true
                  exec nice -n 19 bash scripts/build.sh asan asan-unit' >"$asan_log" 2>&1 &
  asan_pid=$!
  trap 'if [ -n "$asan_pid" ]; then kill -- -"$asan_pid" 2>/dev/null || true; fi' EXIT
fi
bash scripts/build.sh "$preset"
bash scripts/format.sh --check
ctest --preset "$preset"
if [ -n "$asan_pid" ]; then
  start=$(date +%s)
  status=0
  wait "$asan_pid" || status=$?
  asan_pid=""
  echo "asan-unit build: waited $(( $(date +%s) - start )) s for it after the ci tests; its log:"
  tail -n 40 "$asan_log"
  if [ "$status" -ne 0 ]; then
    echo "asan-unit build failed (exit $status): the whole log is $asan_log"
    exit "$status"
  fi
  # The readers' nesting limits are sized for the 8 MiB default stack and an optimised build;
  # clang's unoptimised, instrumented frames are larger (README.md, "Presets").
  (ulimit -s 65536 && ctest --preset asan-unit)
fi
