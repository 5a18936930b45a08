#!/usr/bin/env bash
# Every example through the demo with the emulator's timing model on: the same numeric checks must
# pass, and every run's report must show a projected time at or above its roofline bounds
# (docs/timing.md). Usage: timed_examples.sh DEMO_EXE WORK_DIR
set -euo pipefail
demo="$1"
work="$2"
rm -rf "$work"
mkdir -p "$work"
TK_EMULATOR_REPORT="$work/report.json" "$demo"
python3 - "$work" <<'PY'
import json, pathlib, sys
reports = sorted(pathlib.Path(sys.argv[1]).glob("report*.json"))
if not reports:
    sys.exit("no timing report was written")
for path in reports:
    r = json.loads(path.read_text())
    for bound in ("dram_bound_cycles", "compute_bound_cycles"):
        if r["device_cycles"] < r[bound]:
            sys.exit(f"{path.name}: device_cycles {r['device_cycles']} < {bound} {r[bound]}")
    if r["device_cycles"] <= 0 or r["dram_bytes_read"] <= 0:
        sys.exit(f"{path.name}: nothing was timed")
print(f"{len(reports)} timed runs, each at or above its roofline bounds")
PY
