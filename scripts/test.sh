#!/usr/bin/env bash
# The README's test command: install, build once per configuration, check the formatting, run
# every test with ctest, then the unit layer again under AddressSanitizer + UBSan, then each
# libFuzzer harness for 10 s (docs/fuzzing.md; it replays every reproducer in fuzz/regressions).
#
# The sanitizer step covers every test under tests/unit (label `unit`: parser, checker, IR,
# lowering, Jinja, the emulator with its fibers, the interpreter, the CPU runtime); the
# end-to-end layer (label `e2e`) runs once, in the ci preset, to keep the command within 30 minutes
# on 2 cores. `ctest --preset asan` after `scripts/build.sh asan` runs all of it sanitized.
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
  bash scripts/fuzz.sh --seconds 10
fi
