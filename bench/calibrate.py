#!/usr/bin/env python3
"""Calibration of the emulator's timing model against Tenstorrent's published matmul figures.

Runs the TTNN-configuration baseline (baselines/, `tk-baseline-matmul --algo ttnn_mcast`: ttnn's
2D-multicast matmul with packer L1 accumulation, in the configuration each published row used)
under the timing model, without the arithmetic (TK_EMULATOR_MATH=off: the same projection, docs/
timing.md), at every point of tech_reports/GEMM_FLOPS/GEMM_FLOPS.md (tenstorrent/tt-metal) with
in0, in1 and the output interleaved in DRAM, and prints one Markdown table: the published
device-based utilisation, the projected one and the error.

Wormhole n150 (8x8), from 1024^3 to 4096^3. Calibration rows: bf16 at HiFi4 and HiFi2,
hand-tuned and out-of-box tables, with and without trace (trace changes the host's dispatch, not
the device time the utilisation measures). Held-out rows: bfp8_b and bfp4_b at LoFi (and bfp8_b at
HiFi2), never used to set a parameter; they run the baseline with Bfp8_b (1088 B pages) or
Bfp4_b (576 B pages) A, B and C, partial sums in Float16_b, as ttnn keeps them.

Blackhole P150 (bench/gemm_flops_p150.py's 50 rows, 13x10 and 11x10 grids, bf16, no trace): all
held out; arch/blackhole.hpp's timing table is built from documents only. Each row runs on an
emulated P150 (TK_EMULATOR_ARCH=blackhole) on the row's grid.

The published "device based utilization" is ideal cycles / the TRISC1 (math) kernel duration the
device profiler reports (tests/ttnn/unit_tests/benchmarks/test_benchmark.py: the analysis
device_trisc1_kernel_duration, averaged over the op's runs), ideal cycles = M*K*N / 32^3 * cycles
per tile / the cores of the grid used. That duration is "op_first_last" over core ANY
(tools/tracy/device_post_proc_config.py, process_device_log.py first_last_analysis): from the first
TRISC1 kernel start on any core to the last TRISC1 kernel end on any core, the span of the op, not
a per-core average. The projection is the same quotient with the span of the compute kernels the
run projects (the earliest start to the latest end; a compute kernel's projected duration is its
busy + stalled cycles); the per-core mean is printed beside it (the figure this script used until
2026-11-28). The cores and the clock are the run's (its timing report: the compute kernels and
`clock_ghz`, i.e. the architecture's table, arch/).

  bench/calibrate.py [--exe build/ci/baselines/tk-baseline-matmul] [--arch all|wormhole_b0|blackhole]
                     [--quick] [--max-dim N] [--dtype D] [--json FILE] [--jobs N] [--cache FILE]
  bench/calibrate.py --self-test   # the rows and their configurations, nothing run (ctest)
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import gemm_flops_p150  # noqa: E402  (the P150 rows)

# The configuration of each hand-tuned shape: test_benchmark.py's matmul_shapes_bfloat16, given for
# a 1x1 grid and scaled by the grid ("M will be scaled by Y (num cols), N and K will be scaled by
# X"): base (m, k, n) -> (in0_block_w_div, num_out_blocks_h, num_out_blocks_w).
HAND_TUNED = {
    (384, 384, 512): (2, 1, 1),
    (384, 512, 512): (2, 1, 1),
    (416, 320, 320): (1, 1, 1),
    (512, 512, 512): (1, 2, 2),
    (1024, 1024, 1024): (2, 4, 4),
    (2048, 2048, 2048): (4, 8, 8),
}
# Out of box: `in0 @ in1` with no program config; ttnn picks it (create_simple_matmul_program_config,
# all DRAM interleaved: the 2D multicast, per_core = M/32/rows x N/32/columns, in0_block_w =
# K/32/columns, out block and in0_block_w shrunk by get_multi_dim_per_core_factor until ttnn's CB
# estimate fits L1; packer_l1_acc on, fp32 accumulation off, HiFi2 for bf16 and LoFi for block
# floats). The baseline's div 0 is that rule, ported (baselines/matmul_ttnn_auto.cpp, with the L1
# of the device's architecture; tested in tests/e2e/test_baselines.cpp, AutoConfigIsTtnns).
# The compute settings, checked against tt-metal a8c5af0f5a26: test_benchmark.py's
# test_matmul_2d_host_perf_out_of_box calls `in0_t @ in1_t` with no compute_kernel_config (its
# math_fidelity only sets the cycles per tile of the utilisation), so matmul_device_operation.cpp's
# create_matmul_attributes picks them: HiFi2 unless both inputs are Bfp8_b/Bfp4_b (then LoFi), and
# init_device_compute_kernel_config(default_fp32_acc = is_float_32, default_l1_acc = !is_float_32,
# dst_full_sync_en false: 8 tiles of DST per half); the 2D factory keeps packer_l1_acc when there
# are more than 2 K blocks (matmul_multicore_reuse_mcast_2d_program_factory.cpp, packer_l1_acc_en),
# and every out-of-box row has 8. The device's compute_with_storage_grid_size (8x8 on an n150) is
# the grid. So the ported rule and these settings are what each out-of-box row ran.
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
# GEMM_FLOPS.md's "Grid Size" of every N150 row above (its text: "the full grid size (8×8 in
# Wormhole ...)"): published data, like M, K and N. The rows run on the grid of the architecture's
# table (arch_grid); --self-test checks that the two agree, and each run that its compute kernels
# ran on every core of it.
PUBLISHED_N150_GRID = (8, 8)
ROOT = pathlib.Path(__file__).resolve().parent.parent


def arch_grid(name):
    """The (x, y) grid of arch/<name>.hpp (`.grid_x`, `.grid_y`): the one table of chip facts."""
    text = (ROOT / "arch" / f"{name}.hpp").read_text()
    sides = [re.search(rf"\.grid_{axis} = (\d+),", text) for axis in "xy"]
    if not all(sides):
        raise RuntimeError(f"calibrate: no .grid_x / .grid_y in arch/{name}.hpp")
    return tuple(int(m.group(1)) for m in sides)


N150_GRID = arch_grid("wormhole_b0")


def all_rows():
    """Every published point as a dict: the N150 rows, then the P150 ones."""
    rows = [{"arch": "wormhole_b0", "table": t, "trace": tr, "M": m, "K": k, "N": n, "dtype": d,
             "fidelity": f, "published": pub, "grid": N150_GRID, "held_out": d != "bf16"}
            for (t, tr, m, k, n, d, f, pub) in PUBLISHED]
    rows += [{"arch": "blackhole", "table": cfg.replace("-", "_"), "trace": False, "M": m, "K": k,
              "N": n, "dtype": "bf16", "fidelity": f, "published": pub, "grid": grid,
              "held_out": True}
             for (m, k, n, f, cfg, grid, pub) in gemm_flops_p150.ROWS]
    return rows


def config_of(row):
    """The (--in0-block-w-div, out blocks down, across) the baseline runs for a row."""
    if row["table"] != "hand_tuned":
        return OUT_OF_BOX
    gx, gy = row["grid"]
    return HAND_TUNED[(row["M"] // gy, row["K"] // gx, row["N"] // gx)]


def key_of(row):
    return (row["arch"], row["M"], row["K"], row["N"], row["fidelity"], tuple(row["grid"]),
            config_of(row), row["dtype"])


def project(exe, arch, m, k, n, fidelity, grid, config, dtype):
    """Runs one configuration in timing mode without the arithmetic; returns (math-kernel cycles,
    the cores that ran it, the clock in GHz, the device cycles, host µs, the plan)."""
    div, obh, obw = config
    with tempfile.TemporaryDirectory() as tmp:
        report = pathlib.Path(tmp) / "report.json"
        env = dict(os.environ, TK_EMULATOR_REPORT=str(report), TK_EMULATOR_MATH="off",
                   TK_EMULATOR_ARCH=arch)
        cmd = [exe, "--algo", "ttnn_mcast", "--shape", f"{m},{k},{n}", "--fidelity", fidelity,
               "--grid", f"{grid[0]}x{grid[1]}", "--in0-block-w-div", str(div), "--out-blocks",
               f"{obh}x{obw}", "--dtype", dtype, "--no-check"]
        run = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"calibrate: {' '.join(cmd)} failed:\n{run.stdout}{run.stderr}")
        plan = run.stdout.splitlines()[0]
        r = json.loads(report.read_text())
    if not r["arch"].startswith(arch):
        raise RuntimeError(f"calibrate: the run was on {r['arch']}, not {arch}")
    math = [c for c in r["cores"] if c["risc"] == "trisc"]
    if len(math) != grid[0] * grid[1]:
        raise RuntimeError(f"calibrate: {len(math)} compute cores ran, not the {grid} grid's")
    kernel = sum(c["busy_cycles"] + c["stalled_cycles"] for c in math) / len(math)
    # The profiler's device_trisc1_kernel_duration (tools/tracy/device_post_proc_config.py,
    # "op_first_last" on core ANY): the first TRISC1 kernel start of any core to the last end.
    span = (max(c["end_cycle"] for c in math)
            - min(c["end_cycle"] - c["busy_cycles"] - c["stalled_cycles"] for c in math))
    return {"kernel": kernel, "span": span, "cores": len(math), "clock_ghz": r["clock_ghz"],
            "device_cycles": r["device_cycles"], "host_us": r["host_us"], "plan": plan}


def self_test():
    """Checks the rows and the configuration each resolves to, without running anything (ctest
    bench.calibrate_configs): test_benchmark.py's table scaled by each row's grid."""
    rows = all_rows()
    want = {  # (arch, M, K, N): (in0_block_w_div, num_out_blocks_h, num_out_blocks_w)
        ("wormhole_b0", 3072, 3072, 4096): (2, 1, 1),
        ("wormhole_b0", 3072, 4096, 4096): (2, 1, 1),
        ("wormhole_b0", 3328, 2560, 2560): (1, 1, 1),
        ("wormhole_b0", 4096, 4096, 4096): (1, 2, 2),
        ("blackhole", 3840, 4992, 6656): (2, 1, 1),
        ("blackhole", 3840, 5632, 5632): (2, 1, 1),
        ("blackhole", 4160, 4160, 4160): (1, 1, 1),
        ("blackhole", 4160, 3520, 3520): (1, 1, 1),
        ("blackhole", 5120, 6656, 6656): (1, 2, 2),
        ("blackhole", 10240, 11264, 11264): (2, 4, 4),
        ("blackhole", 20480, 26624, 26624): (4, 8, 8),
    }
    failures = []
    if N150_GRID != PUBLISHED_N150_GRID:
        failures.append(f"arch/wormhole_b0.hpp's grid {N150_GRID} is not the {PUBLISHED_N150_GRID} "
                        "GEMM_FLOPS.md's N150 rows ran on")
    bx, by = arch_grid("blackhole")
    for r in rows:
        if r["arch"] == "blackhole" and (r["grid"][0] > bx or r["grid"][1] > by):
            failures.append(f"{r}: its grid is larger than arch/blackhole.hpp's {bx}x{by}")
    for r in rows:
        got = config_of(r)  # a hand-tuned shape missing from HAND_TUNED raises KeyError
        w = want.get((r["arch"], r["M"], r["K"], r["N"]))
        if r["table"] == "hand_tuned" and w is not None and got != w:
            failures.append(f"{r}: {got}, want {w}")
        if r["table"] == "out_of_box" and got != OUT_OF_BOX:
            failures.append(f"{r}: {got}, want {OUT_OF_BOX}")
    count = {a: sum(r["arch"] == a for r in rows) for a in ("wormhole_b0", "blackhole")}
    if count != {"wormhole_b0": 43, "blackhole": 50}:
        failures.append(f"rows: {count}, want 43 wormhole_b0 and 50 blackhole")
    if not all(r["held_out"] for r in rows if r["arch"] == "blackhole"):
        failures.append("a blackhole row is not held out")
    if sum(r["held_out"] for r in rows if r["arch"] == "wormhole_b0") != 11:
        failures.append("want the 11 block-float wormhole_b0 rows held out")
    for f in failures:
        print(f"calibrate: self-test: {f}", file=sys.stderr)
    print(f"calibrate: self-test: {len(rows)} rows, {len(failures)} failures")
    return 1 if failures else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = pathlib.Path(__file__).resolve().parent.parent
    ap.add_argument("--exe", default=str(here / "build/ci/baselines/tk-baseline-matmul"))
    ap.add_argument("--arch", default="all", choices=["all", "wormhole_b0", "blackhole"])
    ap.add_argument("--quick", action="store_true", help="only the shapes up to 2048")
    ap.add_argument("--max-dim", type=int, default=0,
                    help="only the rows whose largest dimension is at most this (0: all)")
    ap.add_argument("--dtype", default="all", choices=["all", "bf16", "bfp8_b", "bfp4_b"],
                    help="only the rows of this dtype")
    ap.add_argument("--json", metavar="FILE", help="also write every point as a JSON array")
    ap.add_argument("--jobs", type=int, default=1, help="projections run at once")
    ap.add_argument("--cache", metavar="FILE",
                    help="keep each projection in FILE and reuse those it holds (same model only)")
    args = ap.parse_args()
    if not os.access(args.exe, os.X_OK):
        sys.exit(f"calibrate: {args.exe} not found; build it: cmake --build --preset ci "
                 "--target tk-baseline-matmul")
    limit = 2048 if args.quick else args.max_dim
    rows = [r for r in all_rows() if (args.arch in ("all", r["arch"]))
            and args.dtype in ("all", r["dtype"])
            and (not limit or max(r["M"], r["K"], r["N"]) <= limit)]
    keys = []
    for r in rows:
        if key_of(r) not in keys:
            keys.append(key_of(r))
    keys.sort(key=lambda key: key[1] * key[2] * key[3])  # the smallest first
    store = {}
    if args.cache and pathlib.Path(args.cache).exists():
        store = json.loads(pathlib.Path(args.cache).read_text())
    start = time.time()

    def run(key):
        name = json.dumps(key)
        if name not in store or "span" not in store[name]:  # a cache from before the span
            store[name] = project(args.exe, *key)
            if args.cache:
                pathlib.Path(args.cache).write_text(json.dumps(store, indent=1) + "\n")
            print(f"calibrate: {key} projected ({time.time() - start:.0f} s)", file=sys.stderr,
                  flush=True)
        return store[name]

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {key: pool.submit(run, key) for key in keys}
        cache = {key: f.result() for key, f in futures.items()}
    print("| arch | grid | M×K×N | dtype | fidelity | table | trace | published | projected | "
          "error | per-core mean (error) | projected device µs | host µs | configuration |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    points, errors, mean_errors = [], {}, {}
    for row in rows:
        m, k, n, fid, pub = row["M"], row["K"], row["N"], row["fidelity"], row["published"]
        grid = f"{row['grid'][0]}x{row['grid'][1]}"
        point = {"arch": row["arch"], "M": m, "K": k, "N": n, "dtype": row["dtype"],
                 "fidelity": fid, "table": row["table"], "trace": row["trace"],
                 "published_util": pub, "projected_util": None, "held_out": row["held_out"],
                 "grid": grid}
        head = (f"| {row['arch']} | {grid} | {m}×{k}×{n} | {row['dtype']} | {fid} | "
                f"{row['table']} | {row['trace']} | {pub:.1f}% |")
        c = cache[key_of(row)]
        ideal = m * k * n / 32**3 * CYCLES_PER_TILE[fid] / c["cores"]
        projected = 100 * ideal / c["span"]
        core_mean = 100 * ideal / c["kernel"]
        point["projected_util"] = round(projected, 2)
        point["projected_util_core_mean"] = round(core_mean, 2)
        points.append(point)
        err = projected - pub
        group = (row["arch"], "held out" if row["held_out"] else "calibration", row["table"])
        errors.setdefault(group, []).append(abs(err))
        mean_errors.setdefault(group, []).append(abs(core_mean - pub))
        plan = c["plan"]
        blocks = plan.split(": ", 1)[1].split(", packer")[0] if ": " in plan else plan
        print(f"{head} {projected:.1f}% | {err:+.1f} pts | {core_mean:.1f}% ({core_mean - pub:+.1f}) | "
              f"{c['device_cycles'] / c['clock_ghz'] / 1000:.1f} | "
              f"{c['host_us']:.1f} | {blocks} |")
    print(f"\n{len(rows)} points, {len(cache)} projections in {time.time() - start:.0f} s.")
    for table in (errors, mean_errors):
        for arch in sorted({g[0] for g in table}):
            for kind in ("calibration", "held out"):
                errs = [e for g, es in table.items() if g[:2] == (arch, kind) for e in es]
                if errs:
                    table[(arch, kind, "all")] = errs
    for group, errs in sorted(errors.items()):
        means = mean_errors[group]
        print(f"{' / '.join(group)}: {len(errs)} rows, mean |error| {sum(errs) / len(errs):.1f} "
              f"points, largest {max(errs):.1f}, within ±5 {sum(e <= 5 for e in errs)}, "
              f"within ±8 {sum(e <= 8 for e in errs)} (per-core mean: {sum(means) / len(means):.1f}, "
              f"largest {max(means):.1f}).")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(points, indent=1) + "\n")


if __name__ == "__main__":
    main()
