#!/usr/bin/env bash
# The README's main command: install, build (the ci preset, the same build as scripts/test.sh),
# run ttgen on every example, then run every example on both targets against a reference.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${PRESET:-ci}"
build="build/$preset"
mkdir -p "$build"
log="$build/demo-build.log"
echo "== building (preset $preset; log: $log)"
if ! bash scripts/build.sh "$preset" >"$log" 2>&1; then
  tail -n 40 "$log"
  echo "demo: the build failed; see $log" >&2
  exit 1
fi
tail -n 1 "$log"

ttgen="$build/tools/ttgen/ttgen"
out="$build/demo"
rm -rf "$out"
status=0
echo
echo "== ttgen on every example (the targets tilekit_add_kernel generates, from $build/examples/targets.txt)"
while read -r stem targets; do
  tk="examples/$stem.tk"
  target="cpu"
  if [ "$targets" = "tt;cpu" ] || [ "$targets" = "cpu;tt" ]; then target="all"; elif [ "$targets" = "tt" ]; then target="tt"; fi
  echo "--- ttgen $tk --target=$target -o $out/$stem"
  if ! "$ttgen" "$tk" --target="$target" -o "$out/$stem"; then status=1; continue; fi
  (cd "$out/$stem" && find . -type f | sort | while read -r f; do
     printf '    %-28s %5d lines\n' "${f#./}" "$(wc -l <"$f")"
   done)
  # The entry points the header declares, each joined onto one line.
  awk '/void run_/ { d = "" ; p = 1 } p { d = d " " $0 } p && /\);/ { print d; p = 0 }' \
    "$out/$stem/$stem.hpp" | sed 's/  */ /g; s/^ /    /'
done <"$build/examples/targets.txt"

echo
echo "== every example on both targets, against a double-precision reference and the interpreter"
if ! "$build/tests/e2e/tilekit_demo"; then status=1; fi

echo
echo "== both architectures: the generated matmul at 4096^3 by ttgen report (no run; docs/timing.md),"
echo "   then P150 code (@options(arch = blackhole)) on an emulated P150 (tests/e2e/blackhole.tk)"
for arch in wormhole_b0 blackhole; do
  if ! "$ttgen" report examples/matmul.tk --arch="$arch" --shape M=4096,K=4096,N=4096 |
      sed -n '1p;/^compute bound/,$p'; then status=1; fi
done
if ! "$build/tests/e2e/blackhole_tests" --gtest_brief=1 --gtest_filter='*/tt'; then status=1; fi

if [ -d "$build/python/tilekit" ]; then
  echo
  echo "== from PyTorch: a GPT block from tilekit.nn against torch.nn (examples/python/gpt_block.py, docs/python.md)"
  for target in cpu tt; do
    if ! PYTHONPATH="$build/python" TILEKIT_CACHE_DIR="$build/python/cache" \
        /usr/bin/python3 examples/python/gpt_block.py --target "$target"; then status=1; fi
  done
fi
exit $status
