#!/usr/bin/env bash
# Random differential testing for as long as asked (docs/difftest.md): builds the ci preset, then
# runs tk-difftest from a seed on, reducing every failing kernel into difftest-failures/.
#
#   bash scripts/difftest.sh                          one hour from seed 1000
#   bash scripts/difftest.sh SECONDS [SEED [KINDS]]   SECONDS from seed SEED, of KINDS
#                                                     (tk-difftest --kinds: classic, new, ...)
#
# Exits non-zero if a kernel failed; the reduced kernel is difftest-failures/k<seed>.tk, which
# `build/ci/tools/difftest/tk-difftest difftest-failures/k<seed>.tk` replays. Move it to
# tests/difftest/ (with a comment saying what went wrong) once the bug is fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in -h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
seconds="${1:-3600}"
seed="${2:-1000}"
kinds="${3:-classic}"
bash scripts/build.sh ci >/dev/null
exec build/ci/tools/difftest/tk-difftest --seeds "$seed..$seed" --seconds "$seconds" \
  --kinds "$kinds" --out difftest-failures
