#!/usr/bin/env python3
"""Calibration of the emulator's timing model against Tenstorrent's published N150 matmul figures.

Runs the TTNN-configuration baseline (baselines/, `tk-baseline-matmul --algo ttnn_mcast`: ttnn's
2D-multicast matmul with packer L1 accumulation, in the configuration each published row used)
under the timing model at every Wormhole n150 point of tech_reports/GEMM_FLOPS/GEMM_FLOPS.md
(tenstorrent/tt-metal) with in0, in1 and the output interleaved in DRAM from 1024^3 to 4096^3, and
prints one Markdown table: the published device-based utilisation, the projected one and the error.

Calibration rows: bf16 at HiFi4 and HiFi2, hand-tuned and out-of-box tables, with and without trace
(trace changes the host's dispatch, not the device time the utilisation measures). Held-out rows:
bfp8_b and bfp4_b at LoFi (and bfp8_b at HiFi2), never used to set a parameter; the baseline moves
bf16 only, so they are listed with no projection (projected_util null) until it moves block floats.

The published "device based utilization" is ideal cycles / the average duration of the TRISC1
(math) kernel measured by the device profiler (tests/ttnn/unit_tests/benchmarks/test_benchmark.py);
the projection is the same quotient with the compute kernel's projected duration (busy + stalled
cycles) averaged over the 64 cores.

  bench/calibrate.py [--exe build/ci/baselines/tk-baseline-matmul] [--quick] [--json FILE]
                     [--jobs N] [--cache FILE]
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

# The configuration of each hand-tuned shape: test_benchmark.py's matmul_shapes_bfloat16 (scaled
# by the 8x8 grid): in0_block_w_div, num_out_blocks_h, num_out_blocks_w.
HAND_TUNED = {
    (3072, 3072, 4096): (2, 1, 1),
    (3072, 4096, 4096): (2, 1, 1),
    (3328, 2560, 2560): (1, 1, 1),
    (4096, 4096, 4096): (1, 2, 2),
}
# Out of box: ttnn picks the config (create_simple_matmul_program_config, all DRAM interleaved:
# the 2D multicast, per_core = M/32/8 x N/32/8, in0_block_w = K/32/8, packer_l1_acc on for bf16,
# HiFi2); where its CBs do not fit L1, ttnn shrinks the block (get_multi_dim_per_core_factor, not
# ported) and the baseline halves in0_block_w instead (div 0).
OUT_OF_BOX = (0, 1, 1)

# (table, trace, M, K, N, dtype, fidelity, published device-based utilisation %), GEMM_FLOPS.md:
# "N150 Manually Tuned Configurations" rows with in0, in1 and out in DRAM, and "N150 Out of Box
# Results", from 1024^3 to 4096^3.
PUBLISHED = [
    ("hand_tuned", False, 3072, 3072, 4096, "bf16", "HiFi4", 91.69),
    ("hand_tuned", False, 3072, 4096, 4096, "bf16", "HiFi4", 92.18),
    ("hand_tuned", False, 3328, 2560, 2560, "bf16", "HiFi4", 89.41),
    ("hand_tuned", False, 4096, 4096, 4096, "bf16", "HiFi4", 83.21),
    ("hand_tuned", False, 3072, 3072, 4096, "bf16", "HiFi2", 74.19),
    ("hand_tuned", False, 3072, 4096, 4096, "bf16", "HiFi2", 75.09),
    ("hand_tuned", False, 3328, 2560, 2560, "bf16", "HiFi2", 63.14),
    ("hand_tuned", False, 4096, 4096, 4096, "bf16", "HiFi2", 59.50),
    ("hand_tuned", True, 3072, 3072, 4096, "bf16", "HiFi2", 74.19),
    ("hand_tuned", True, 3072, 4096, 4096, "bf16", "HiFi2", 75.09),
    ("hand_tuned", True, 3328, 2560, 2560, "bf16", "HiFi2", 63.13),
    ("hand_tuned", True, 4096, 4096, 4096, "bf16", "HiFi2", 59.45),
    ("out_of_box", False, 1024, 1024, 1024, "bf16", "HiFi2", 41.69),
    ("out_of_box", False, 1024, 1024, 2048, "bf16", "HiFi2", 56.83),
    ("out_of_box", False, 1024, 2048, 2048, "bf16", "HiFi2", 60.52),
    ("out_of_box", False, 2048, 2048, 2048, "bf16", "HiFi2", 66.74),
    ("out_of_box", False, 2048, 2048, 3072, "bf16", "HiFi2", 70.08),
    ("out_of_box", False, 2048, 3072, 3072, "bf16", "HiFi2", 71.31),
    ("out_of_box", False, 3072, 3072, 3072, "bf16", "HiFi2", 58.18),
    ("out_of_box", False, 3072, 3072, 4096, "bf16", "HiFi2", 60.97),
    ("out_of_box", False, 3072, 4096, 4096, "bf16", "HiFi2", 59.36),
    ("out_of_box", False, 4096, 4096, 4096, "bf16", "HiFi2", 59.49),
    ("out_of_box", True, 1024, 1024, 1024, "bf16", "HiFi2", 41.64),
    ("out_of_box", True, 1024, 1024, 2048, "bf16", "HiFi2", 56.61),
    ("out_of_box", True, 1024, 2048, 2048, "bf16", "HiFi2", 60.49),
    ("out_of_box", True, 2048, 2048, 2048, "bf16", "HiFi2", 66.74),
    ("out_of_box", True, 2048, 2048, 3072, "bf16", "HiFi2", 70.07),
    ("out_of_box", True, 2048, 3072, 3072, "bf16", "HiFi2", 71.30),
    ("out_of_box", True, 3072, 3072, 3072, "bf16", "HiFi2", 58.19),
    ("out_of_box", True, 3072, 3072, 4096, "bf16", "HiFi2", 60.97),
    ("out_of_box", True, 3072, 4096, 4096, "bf16", "HiFi2", 59.41),
    ("out_of_box", True, 4096, 4096, 4096, "bf16", "HiFi2", 59.46),
    # Held out.
    ("hand_tuned", False, 3328, 2560, 2560, "bfp8_b", "HiFi2", 85.08),
    ("hand_tuned", False, 4096, 4096, 4096, "bfp8_b", "HiFi2", 79.43),
    ("hand_tuned", False, 3328, 2560, 2560, "bfp8_b", "LoFi", 58.62),
    ("hand_tuned", False, 4096, 4096, 4096, "bfp8_b", "LoFi", 58.88),
    ("hand_tuned", False, 3328, 2560, 2560, "bfp4_b", "LoFi", 81.62),
    ("out_of_box", False, 1024, 1024, 1024, "bfp8_b", "LoFi", 33.86),
    ("out_of_box", False, 2048, 2048, 2048, "bfp8_b", "LoFi", 63.83),
    ("out_of_box", False, 4096, 4096, 4096, "bfp8_b", "LoFi", 64.38),
    ("out_of_box", False, 1024, 1024, 1024, "bfp4_b", "LoFi", 47.96),
    ("out_of_box", False, 2048, 2048, 2048, "bfp4_b", "LoFi", 73.96),
    ("out_of_box", False, 4096, 4096, 4096, "bfp4_b", "LoFi", 82.25),
]
CYCLES_PER_TILE = {"LoFi": 16, "HiFi2": 32, "HiFi3": 48, "HiFi4": 64}  # GEMM_FLOPS.md
CORES = 64
CLOCK_GHZ = 1.0


def held_out(row):
    return row[5] != "bf16"


L1_CB_TILES = 1395424 // 2048  # arch::ArchSpec::l1_cb_budget() of Wormhole B0, in bf16 tiles


def config_of(row):
    """The (in0_block_w, out blocks down, across) the baseline runs for a row (ttnn_config)."""
    table, _, m, k, n = row[:5]
    div, obh, obw = HAND_TUNED[(m, k, n)] if table == "hand_tuned" else OUT_OF_BOX
    bh, bw, kc = m // 32 // 8 // obh, n // 32 // 8 // obw, k // 32 // 8
    w = kc // div if div else kc
    while not div and 2 * w * (bh + bw) + bh * bw > L1_CB_TILES and w % 2 == 0:
        w //= 2
    return (kc // w, obh, obw)  # as --in0-block-w-div, --out-blocks


def project(exe, m, k, n, fidelity, config):
    """Runs one configuration in timing mode; returns (math-kernel cycles, the report, the plan)."""
    div, obh, obw = config
    with tempfile.TemporaryDirectory() as tmp:
        report = pathlib.Path(tmp) / "report.json"
        env = dict(os.environ, TK_EMULATOR_REPORT=str(report))
        cmd = [exe, "--algo", "ttnn_mcast", "--shape", f"{m},{k},{n}", "--fidelity", fidelity,
               "--in0-block-w-div", str(div), "--out-blocks", f"{obh}x{obw}", "--no-check"]
        run = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"calibrate: {' '.join(cmd)} failed:\n{run.stdout}{run.stderr}")
        plan = run.stdout.splitlines()[0]
        r = json.loads(report.read_text())
    math = [c for c in r["cores"] if c["risc"] == "trisc"]
    kernel = sum(c["busy_cycles"] + c["stalled_cycles"] for c in math) / len(math)
    return kernel, r, plan


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = pathlib.Path(__file__).resolve().parent.parent
    ap.add_argument("--exe", default=str(here / "build/ci/baselines/tk-baseline-matmul"))
    ap.add_argument("--quick", action="store_true", help="only the shapes up to 2048")
    ap.add_argument("--json", metavar="FILE", help="also write every point as a JSON array")
    ap.add_argument("--jobs", type=int, default=1, help="projections run at once")
    ap.add_argument("--cache", metavar="FILE",
                    help="keep each projection in FILE and reuse those it holds (same model only)")
    args = ap.parse_args()
    if not os.access(args.exe, os.X_OK):
        sys.exit(f"calibrate: {args.exe} not found; build it: cmake --build --preset ci "
                 "--target tk-baseline-matmul")
    rows = [p for p in PUBLISHED if not args.quick or max(p[2:5]) <= 2048]
    keys = []
    for p in rows:  # hand-tuned first, in table order
        key = (p[2], p[3], p[4], p[6], config_of(p))
        if not held_out(p) and key not in keys:
            keys.append(key)
    # The hand-tuned configurations first (4096^3 first: it takes longest), then the out-of-box
    # ones, smallest first.
    keys.sort(key=lambda key: (min(p[0] != "hand_tuned" for p in rows
                                   if (p[2], p[3], p[4], p[6], config_of(p)) == key),
                               -key[0] * key[1] * key[2] if key[0] == key[1] == key[2]
                               else key[0] * key[1] * key[2]))
    store = {}
    if args.cache and pathlib.Path(args.cache).exists():
        store = json.loads(pathlib.Path(args.cache).read_text())
    start = time.time()
    cache = {}

    def run(key):
        name = json.dumps(key)
        if name not in store:
            kernel, r, plan = project(args.exe, *key)
            store[name] = [kernel, {"device_cycles": r["device_cycles"],
                                    "host_us": r["host_us"]}, plan]
            if args.cache:
                pathlib.Path(args.cache).write_text(json.dumps(store, indent=1) + "\n")
            print(f"calibrate: {key} projected ({time.time() - start:.0f} s)", file=sys.stderr,
                  flush=True)
        return store[name]

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {key: pool.submit(run, key) for key in keys}
        cache = {key: f.result() for key, f in futures.items()}
    print("| M×K×N | dtype | fidelity | table | trace | published | projected | error | "
          "projected device µs | host µs | configuration |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    points, errors = [], []
    for row in rows:
        table, trace, m, k, n, dtype, fid, published = row
        point = {"arch": "wormhole_b0", "M": m, "K": k, "N": n, "dtype": dtype,
                 "fidelity": fid, "table": table, "trace": trace, "published_util": published,
                 "projected_util": None, "held_out": held_out(row)}
        if held_out(row):
            print(f"| {m}×{k}×{n} | {dtype} | {fid} | {table} | {trace} | {published:.1f}% | "
                  "— | held out, not projected | | | the baseline moves bf16 only |")
            points.append(point)
            continue
        kernel, r, plan = cache[(m, k, n, fid, config_of(row))]
        ideal = m * k * n / 32**3 * CYCLES_PER_TILE[fid] / CORES
        projected = 100 * ideal / kernel
        point["projected_util"] = round(projected, 2)
        points.append(point)
        err = projected - published
        errors.append(abs(err))
        blocks = plan.split(": ", 1)[1].split(", packer")[0] if ": " in plan else plan
        print(f"| {m}×{k}×{n} | {dtype} | {fid} | {table} | {trace} | {published:.1f}% | "
              f"{projected:.1f}% | {err:+.1f} pts | {r['device_cycles'] / CLOCK_GHZ / 1000:.1f} | "
              f"{r['host_us']:.1f} | {blocks} |")
    print(f"\n{len(rows)} points ({len(errors)} calibration, {len(rows) - len(errors)} held out), "
          f"{len(cache)} projections in {time.time() - start:.0f} s; calibration mean |error| "
          f"{sum(errors) / max(len(errors), 1):.1f} points, largest {max(errors, default=0):.1f}.")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(points, indent=1) + "\n")


if __name__ == "__main__":
    main()
