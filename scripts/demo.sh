#!/usr/bin/env bash
# The README's main command: install, build, then run every example through ttgen.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${PRESET:-ci}"
bash scripts/build.sh "$preset" >/dev/null
ttgen="build/$preset/tools/ttgen/ttgen"
status=0
for tk in examples/*.tk; do
  echo "=== $tk"
  if ! "$ttgen" "$tk" --emit=ast; then status=1; fi
done
exit $status
