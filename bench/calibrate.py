#!/usr/bin/env python3
"""Calibration of the emulator's timing model against Tenstorrent's published N150 matmul figures.

Runs the SDK's matmul_multicore_reuse_mcast port (baselines/, `tk-baseline-matmul`) with ttnn's
block rule (`--blocks ttnn`: one block per core of the 8x8 grid, as ttnn's matmul benchmark
configures it) under the timing model, at every DRAM-interleaved bf16 shape that
tech_reports/GEMM_FLOPS/GEMM_FLOPS.md (tenstorrent/tt-metal) publishes for the N150 from 1024^3 to
4096^3, and prints one Markdown table: the published device-based utilisation next to the
projected one, and the error. Nothing is fitted: the model's parameters come from documents
(docs/timing.md); this script only reads its reports.

The published "device based utilization" is ideal cycles / the average TRISC1 (math) kernel
duration measured by the device profiler; the projection uses the same quantity, the compute
kernel's projected duration (busy + stalled cycles) averaged over the cores.

  bench/calibrate.py [--exe build/ci/baselines/tk-baseline-matmul] [--quick]
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

# (M, K, N, fidelity, configuration, published device-based utilisation %), from GEMM_FLOPS.md:
# "N150 Manually Tuned Configurations" rows with in0, in1 and out in DRAM, and "N150 Out of Box
# Results" bf16 rows without trace (the out-of-box rows use ttnn's automatic program config, which
# this port approximates with the same ttnn block rule).
PUBLISHED = [
    (3072, 3072, 4096, "HiFi4", "hand-tuned", 91.69),
    (3072, 4096, 4096, "HiFi4", "hand-tuned", 92.18),
    (3328, 2560, 2560, "HiFi4", "hand-tuned", 89.41),
    (4096, 4096, 4096, "HiFi4", "hand-tuned", 83.21),
    (3072, 3072, 4096, "HiFi2", "hand-tuned", 74.19),
    (3072, 4096, 4096, "HiFi2", "hand-tuned", 75.09),
    (3328, 2560, 2560, "HiFi2", "hand-tuned", 63.14),
    (4096, 4096, 4096, "HiFi2", "hand-tuned", 59.50),
    (1024, 1024, 1024, "HiFi2", "out-of-box", 41.69),
    (1024, 1024, 2048, "HiFi2", "out-of-box", 56.83),
    (1024, 2048, 2048, "HiFi2", "out-of-box", 60.52),
    (2048, 2048, 2048, "HiFi2", "out-of-box", 66.74),
    (2048, 2048, 3072, "HiFi2", "out-of-box", 70.08),
    (2048, 3072, 3072, "HiFi2", "out-of-box", 71.31),
    (3072, 3072, 3072, "HiFi2", "out-of-box", 58.18),
    (3072, 3072, 4096, "HiFi2", "out-of-box", 60.97),
    (3072, 4096, 4096, "HiFi2", "out-of-box", 59.36),
    (4096, 4096, 4096, "HiFi2", "out-of-box", 59.49),
]
CYCLES_PER_TILE = {"LoFi": 16, "HiFi2": 32, "HiFi3": 48, "HiFi4": 64}  # GEMM_FLOPS.md
CORES = 64
CLOCK_GHZ = 1.0


def project(exe, m, k, n, fidelity):
    """Runs one shape in timing mode; returns (projected math-kernel cycles, the report)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = pathlib.Path(tmp) / "report.json"
        env = dict(os.environ, TK_EMULATOR_REPORT=str(report))
        cmd = [exe, "--algo", "reuse_mcast", "--shape", f"{m},{k},{n}", "--fidelity", fidelity,
               "--blocks", "ttnn", "--no-check"]
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
    ap.add_argument("--quick", action="store_true", help="only the shapes up to 2048 (~15 s)")
    args = ap.parse_args()
    if not os.access(args.exe, os.X_OK):
        sys.exit(f"calibrate: {args.exe} not found; build it: cmake --build --preset ci "
                 "--target tk-baseline-matmul")
    rows = [p for p in PUBLISHED if not args.quick or max(p[:3]) <= 2048]
    cache = {}
    print("| M×K×N | fidelity | published config | published | projected | error | "
          "projected program µs | blocks |")
    print("|---|---|---|---|---|---|---|---|")
    errors = []
    start = time.time()
    for m, k, n, fid, config, published in rows:
        key = (m, k, n, fid)
        if key not in cache:
            cache[key] = project(args.exe, m, k, n, fid)
        kernel, r, plan = cache[key]
        ideal = m * k * n / 32**3 * CYCLES_PER_TILE[fid] / CORES
        projected = 100 * ideal / kernel
        err = projected - published
        errors.append(abs(err))
        blocks = plan.split(": ", 1)[1].split(" (")[0] if ": " in plan else plan
        print(f"| {m}×{k}×{n} | {fid} | {config} | {published:.1f}% | {projected:.1f}% | "
              f"{err:+.1f} pts ({100 * err / published:+.0f}%) | "
              f"{r['device_cycles'] / CLOCK_GHZ / 1000:.1f} | {blocks} |")
        sys.stdout.flush()
    print(f"\n{len(rows)} points, {len(cache)} projections in {time.time() - start:.0f} s; "
          f"mean |error| {sum(errors) / len(errors):.1f} points, largest {max(errors):.1f}.")


if __name__ == "__main__":
    main()
