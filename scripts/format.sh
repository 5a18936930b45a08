#!/usr/bin/env bash
# Formats every C++ source TileKit owns with the root .clang-format and clang-format 19 (the
# version ttgen links, so hand-written and generated code look alike). `--check` changes nothing
# and exits non-zero, listing the files, when any file is not formatted.
set -euo pipefail
cd "$(dirname "$0")/.."
fmt="${CLANG_FORMAT:-clang-format-19}"
command -v "$fmt" >/dev/null || { echo "format: $fmt not found (bash scripts/setup.sh installs it)" >&2; exit 2; }
# generated/ is ttgen's output (formatted by ttgen itself, checked byte for byte by a test).
mapfile -t files < <(git ls-files -- '*.cpp' '*.hpp' '*.h' ':!generated/**')
if [ "${1:-}" = "--check" ]; then
  bad=()
  for f in "${files[@]}"; do
    "$fmt" --style=file "$f" | cmp -s - "$f" || bad+=("$f")
  done
  if [ ${#bad[@]} -ne 0 ]; then
    printf 'format: %d file(s) differ from clang-format 19 (run bash scripts/format.sh):\n' "${#bad[@]}"
    printf '  %s\n' "${bad[@]}"
    exit 1
  fi
  echo "format: ${#files[@]} files formatted"
  exit 0
fi
"$fmt" --style=file -i "${files[@]}"
echo "format: formatted ${#files[@]} files"
