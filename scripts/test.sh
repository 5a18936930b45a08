#!/usr/bin/env bash
# The README's test command: install, build once, run every test with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${PRESET:-ci}"
bash scripts/build.sh "$preset"
ctest --preset "$preset"
