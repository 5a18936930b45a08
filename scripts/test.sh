#!/usr/bin/env bash
# The README's test command: install, build once per configuration, check the formatting, run
# every test with ctest, then the unit layer again under AddressSanitizer + UBSan.
#
# The sanitizer step covers every test under tests/unit (label `unit`: parser, checker, IR,
# lowering, Jinja, the emulator with its fibers, the interpreter, the CPU runtime, and each
# libFuzzer harness replayed on its seeds and every reproducer in fuzz/regressions); the
# end-to-end layer (label `e2e`) runs once, in the ci preset, to keep the command within 30 minutes
# on 2 cores. `ctest --preset asan` after `scripts/build.sh asan` runs all of it sanitized;
# `scripts/fuzz.sh` fuzzes (docs/fuzzing.md): a clang build of its own, four minutes of CI for a
# 10 s run that got through lower_fuzzer's seeds about once, which the replay now does.
# PRESET=<preset> runs that preset's build and tests alone.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${PRESET:-ci}"
bash scripts/build.sh "$preset"
bash scripts/format.sh --check
ctest --preset "$preset"
if [ -z "${PRESET:-}" ]; then
  bash scripts/build.sh asan asan-unit
  ctest --preset asan-unit
fi
