#!/usr/bin/env python3
"""The held-out check of the Blackhole timing model: Tenstorrent's published P150 matmuls.

arch/blackhole.hpp's timing table is built from documents only (docs/arch.md); the P150 rows of
tech_reports/GEMM_FLOPS/GEMM_FLOPS.md (tenstorrent/tt-metal a8c5af0f5a26) were not used to set
it. This module lists them and projects each one the way bench/calibrate.py projects the N150
rows: the SDK's matmul_multicore_reuse_mcast port (baselines/, `tk-baseline-matmul --algo
reuse_mcast --blocks ttnn`, one block per core) on an emulated P150 (TK_EMULATOR_ARCH=blackhole)
on the row's grid, under the timing model; projected utilisation = GEMM's ideal cycles (tiles x
cycles per tile / cores of the grid) over the compute kernel's projected duration averaged over
the cores, as the published "device based utilization" is over the measured TRISC1 duration.

For bench/calibrate.py --json: ROWS, and project_row(row, exe) -> dict with the same fields
(arch "blackhole", held_out True).

  bench/gemm_flops_p150.py [--exe build/ci/baselines/tk-baseline-matmul] [--max-dim 2560]
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

# (M, K, N, fidelity, configuration, grid (x, y), published device-based utilisation %): every
# GEMM_FLOPS.md P150 row with bf16 operands, in0, in1 and out in DRAM, and no trace, from the
# tables "P150 Out of Box Results (13x10 grid)" / "(11x10 grid)" and "P150 Manually Tuned
# Configurations (13x10 grid)" / "(11x10 grid)".
ROWS = [
    (640, 832, 832, "HiFi2", "out-of-box", (13, 10), 19.30),
    (640, 1664, 1664, "HiFi2", "out-of-box", (13, 10), 41.21),
    (640, 1664, 3328, "HiFi2", "out-of-box", (13, 10), 51.05),
    (1280, 1664, 1664, "HiFi2", "out-of-box", (13, 10), 61.93),
    (1280, 1664, 3328, "HiFi2", "out-of-box", (13, 10), 76.81),
    (1280, 3328, 3328, "HiFi2", "out-of-box", (13, 10), 81.07),
    (2560, 3328, 3328, "HiFi2", "out-of-box", (13, 10), 85.65),
    (2560, 3328, 4992, "HiFi2", "out-of-box", (13, 10), 86.52),
    (2560, 4992, 4992, "HiFi2", "out-of-box", (13, 10), 87.42),
    (3840, 4992, 4992, "HiFi2", "out-of-box", (13, 10), 80.25),
    (3840, 4992, 6656, "HiFi2", "out-of-box", (13, 10), 80.79),
    (3840, 6656, 6656, "HiFi2", "out-of-box", (13, 10), 80.00),
    (5120, 6656, 6656, "HiFi2", "out-of-box", (13, 10), 80.37),
    (640, 704, 704, "HiFi2", "out-of-box", (11, 10), 18.53),
    (640, 1408, 1408, "HiFi2", "out-of-box", (11, 10), 41.77),
    (640, 1408, 2816, "HiFi2", "out-of-box", (11, 10), 51.42),
    (1280, 1408, 1408, "HiFi2", "out-of-box", (11, 10), 61.41),
    (1280, 1408, 2816, "HiFi2", "out-of-box", (11, 10), 75.98),
    (1280, 2816, 2816, "HiFi2", "out-of-box", (11, 10), 80.39),
    (2560, 2816, 2816, "HiFi2", "out-of-box", (11, 10), 85.08),
    (2560, 2816, 4224, "HiFi2", "out-of-box", (11, 10), 86.13),
    (2560, 4224, 4224, "HiFi2", "out-of-box", (11, 10), 87.02),
    (3840, 4224, 4224, "HiFi2", "out-of-box", (11, 10), 80.39),
    (3840, 4224, 5632, "HiFi2", "out-of-box", (11, 10), 80.62),
    (3840, 5632, 5632, "HiFi2", "out-of-box", (11, 10), 80.26),
    (5120, 5632, 5632, "HiFi2", "out-of-box", (11, 10), 80.51),
    (3840, 4992, 6656, "HiFi2", "hand-tuned", (13, 10), 89.61),
    (3840, 6656, 6656, "HiFi2", "hand-tuned", (13, 10), 90.25),
    (4160, 4160, 4160, "HiFi2", "hand-tuned", (13, 10), 88.30),
    (5120, 6656, 6656, "HiFi2", "hand-tuned", (13, 10), 80.36),
    (10240, 13312, 13312, "HiFi2", "hand-tuned", (13, 10), 85.15),
    (20480, 26624, 26624, "HiFi2", "hand-tuned", (13, 10), 88.66),
    (3840, 4992, 6656, "HiFi4", "hand-tuned", (13, 10), 94.53),
    (3840, 6656, 6656, "HiFi4", "hand-tuned", (13, 10), 94.88),
    (4160, 4160, 4160, "HiFi4", "hand-tuned", (13, 10), 93.81),
    (5120, 6656, 6656, "HiFi4", "hand-tuned", (13, 10), 90.35),
    (10240, 13312, 13312, "HiFi4", "hand-tuned", (13, 10), 92.99),
    (20480, 26624, 26624, "HiFi4", "hand-tuned", (13, 10), 94.44),
    (3840, 4224, 5632, "HiFi2", "hand-tuned", (11, 10), 89.47),
    (3840, 5632, 5632, "HiFi2", "hand-tuned", (11, 10), 90.05),
    (4160, 3520, 3520, "HiFi2", "hand-tuned", (11, 10), 87.62),
    (5120, 5632, 5632, "HiFi2", "hand-tuned", (11, 10), 80.51),
    (10240, 11264, 11264, "HiFi2", "hand-tuned", (11, 10), 85.14),
    (20480, 22528, 22528, "HiFi2", "hand-tuned", (11, 10), 88.62),
    (3840, 4224, 5632, "HiFi4", "hand-tuned", (11, 10), 94.46),
    (3840, 5632, 5632, "HiFi4", "hand-tuned", (11, 10), 94.78),
    (4160, 3520, 3520, "HiFi4", "hand-tuned", (11, 10), 93.43),
    (5120, 5632, 5632, "HiFi4", "hand-tuned", (11, 10), 90.37),
    (10240, 11264, 11264, "HiFi4", "hand-tuned", (11, 10), 92.94),
    (20480, 22528, 22528, "HiFi4", "hand-tuned", (11, 10), 94.40),
]
CYCLES_PER_TILE = {"LoFi": 16, "HiFi2": 32, "HiFi3": 48, "HiFi4": 64}  # GEMM_FLOPS.md
CLOCK_GHZ = 1.35  # GEMM_FLOPS.md: "At 1.35GHz (BH)"; arch/blackhole.hpp
DEFAULT_EXE = pathlib.Path(__file__).resolve().parent.parent / "build/ci/baselines/tk-baseline-matmul"


def project_row(row, exe=DEFAULT_EXE):
    """Projects one row on an emulated P150; returns the row's record for calibrate.py --json."""
    m, k, n, fid, config, (gx, gy), published = row
    with tempfile.TemporaryDirectory() as tmp:
        report = pathlib.Path(tmp) / "report.json"
        env = dict(os.environ, TK_EMULATOR_ARCH="blackhole", TK_EMULATOR_REPORT=str(report))
        cmd = [str(exe), "--algo", "reuse_mcast", "--shape", f"{m},{k},{n}", "--fidelity", fid,
               "--blocks", "ttnn", "--grid", f"{gx}x{gy}", "--no-check"]
        run = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{run.stdout}{run.stderr}")
        r = json.loads(report.read_text())
    if not r["arch"].startswith("blackhole"):
        raise RuntimeError(f"the run was not on a P150: {r['arch']}")
    math = [c for c in r["cores"] if c["risc"] == "trisc"]
    kernel = sum(c["busy_cycles"] + c["stalled_cycles"] for c in math) / len(math)
    ideal = m * k * n / 32**3 * CYCLES_PER_TILE[fid] / (gx * gy)
    projected = 100 * ideal / kernel
    return {"m": m, "k": k, "n": n, "fidelity": fid, "config": config, "grid": f"{gx}x{gy}",
            "published": published, "projected": round(projected, 2),
            "error": round(projected - published, 2),
            "device_us": round(r["device_cycles"] / CLOCK_GHZ / 1000, 1),
            "plan": run.stdout.splitlines()[0] if run.stdout else "",
            "arch": "blackhole", "held_out": True}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exe", default=str(DEFAULT_EXE))
    ap.add_argument("--max-dim", type=int, default=2560,
                    help="only rows whose largest dimension is at most this (the emulator runs "
                         "every product; 0 = all rows)")
    ap.add_argument("--json", action="store_true", help="one JSON record per row")
    args = ap.parse_args()
    if not os.access(args.exe, os.X_OK):
        sys.exit(f"gemm_flops_p150: {args.exe} not found; build tk-baseline-matmul")
    rows = [r for r in ROWS if not args.max_dim or max(r[:3]) <= args.max_dim]
    if not args.json:
        print("| M×K×N | grid | fidelity | published config | published | projected | error |")
        print("|---|---|---|---|---|---|---|")
    errors, start = [], time.time()
    for row in rows:
        rec = project_row(row, args.exe)
        errors.append(abs(rec["error"]))
        if args.json:
            print(json.dumps(rec))
        else:
            print(f"| {rec['m']}×{rec['k']}×{rec['n']} | {rec['grid']} | {rec['fidelity']} | "
                  f"{rec['config']} | {rec['published']:.1f}% | {rec['projected']:.1f}% | "
                  f"{rec['error']:+.1f} pts |")
        sys.stdout.flush()
    if errors and not args.json:
        print(f"\n{len(rows)} held-out P150 points in {time.time() - start:.0f} s; mean |error| "
              f"{sum(errors) / len(errors):.1f} points, largest {max(errors):.1f}.")


if __name__ == "__main__":
    main()
