#!/usr/bin/env bash
# The README's test command: install, build once, check the formatting, run every test with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${PRESET:-ci}"
bash scripts/build.sh "$preset"
bash scripts/format.sh --check
ctest --preset "$preset"
