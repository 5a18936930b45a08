#!/usr/bin/env bash
# Configures and builds TileKit after installing what it needs:
#   scripts/build.sh [CONFIGURE_PRESET [BUILD_PRESET]]   (default: ci ci)
# The build preset defaults to the configure preset's name; asan-unit builds only the unit tests of
# the asan configuration.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-ci}"
build="${2:-$preset}"
bash scripts/setup.sh
cmake --preset "$preset" >/dev/null
start=$(date +%s)
cmake --build --preset "$build"
echo "build: preset $build built in $(( $(date +%s) - start )) s"
