#!/usr/bin/env bash
# Configures and builds TileKit with a CMake preset (default: ci) after installing what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-ci}"
bash scripts/setup.sh
cmake --preset "$preset" >/dev/null
start=$(date +%s)
cmake --build --preset "$preset"
echo "build: preset $preset built in $(( $(date +%s) - start )) s"
