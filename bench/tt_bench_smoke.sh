#!/usr/bin/env bash
# Smoke test of the TT benchmark table (ctest e2e.tt_bench_smoke): the driver on one small shape
# (the generated matmul, the bfp8-weight matmul_w8 and reuse_mcast at 256x256x256) through bench/tt_bench.py; every row must
# be timed and checked with sane figures (projected cycles at or above both bounds, utilisation in
# (0, 1], PCC >= 0.999) and index.html must hold the table and the roofline's <svg>.
# Usage: tt_bench_smoke.sh TK_TT_BENCH_EXE WORK_DIR
set -euo pipefail
exe="$1"
work="$2"
here="$(cd "$(dirname "$0")" && pwd)"
rm -rf "$work"
mkdir -p "$work"
python3 "$here/tt_bench.py" --exe "$exe" --out "$work" --case matmul,matmul_w8,reuse_mcast@256x256x256
python3 - "$work" <<'PY'
import json, pathlib, sys
work = pathlib.Path(sys.argv[1])
rows = [json.loads(l) for l in (work / "rows.jsonl").read_text().splitlines() if l.strip()]
if [r["program"] for r in rows] != ["matmul", "matmul_w8", "reuse_mcast"]:
    sys.exit(f"rows: {[r.get('program') for r in rows]}")
for r in rows:
    name = f"{r['program']} {r['shape']}"
    if "error" in r:
        sys.exit(f"{name}: {r['error']}")
    for bound in ("compute_bound_cycles", "dram_bound_cycles"):
        if not r["device_cycles"] >= r[bound] > 0:
            sys.exit(f"{name}: device_cycles {r['device_cycles']} vs {bound} {r[bound]}")
    if not 0 < r["utilization"] <= 1:
        sys.exit(f"{name}: utilization {r['utilization']} outside (0, 1]")
    if not 0 < r["tflops"] <= r["peak_tflops"] or not 0 < r["dram_gbps"] <= r["dram_roofline_gbps"]:
        sys.exit(f"{name}: {r['tflops']} TFLOPS, {r['dram_gbps']} GB/s beyond the roofs")
    if abs(r["flops"] - 2 * 256**3) > 0 or r["matmul_tiles"] != 8**3:
        sys.exit(f"{name}: {r['flops']} flops, {r['matmul_tiles']} tile products")
    c = r["check"]
    if c["rows_checked"] != 256 or c["pcc"] < 0.999 or c["nonfinite"]:
        sys.exit(f"{name}: check {c}")
page = (work / "index.html").read_text()
for needle in ("<table>", "<td>matmul *</td>", "<td>reuse_mcast</td>", "<svg", "</svg>"):
    if needle not in page:
        sys.exit(f"index.html lacks {needle}")
print(f"{len(rows)} rows sane; index.html has the table and the roofline")
PY
