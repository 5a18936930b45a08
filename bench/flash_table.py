#!/usr/bin/env python3
"""Issue 30's FlashAttention table: generated causal attention against TTNN's published TFLOPS.

tt-metal's FlashAttention report (tech_reports/FlashAttention/FlashAttention.md, the figure
"Attention Forward Performance on Wormhole") measures causal attention on Wormhole at hidden size
2048 and 16k tokens in all: for head dim D and sequence length S, batch = 16384 / S and heads =
2048 / D, so the driver runs H = batch * heads independent heads of S x D. TFLOPS counts
2 * H * S^2 * D, the report's formula (the causal half of the four products per score). Every
figure here is the emulator's timing model with the arithmetic switched off (TK_EMULATOR_MATH=off:
times do not depend on values), not a hardware measurement (docs/timing.md, docs/bench.md).

The bf16 rows run `attention_hifi2` (examples/attention.tk at TTNN's benchmark configuration,
HiFi2: bench/attention_hifi2.tk), the bfp8 row `attention_bfp8` (Q, K and V stored as Bfp8_b).

  bench/flash_table.py [--exe build/ci/bench/tk_tt_bench] [--rows D,...] [--seqs S,...]
                       [--jobs N] [--json FILE] [--bf16-program P] [--bfp8-program P]
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent.parent
SEQS = [512, 1024, 2048, 4096, 8192, 16384]
# The report's figure, TFLOPS per (row, S): rows are head dims in bf16, and head dim 128 in bfp8.
PUBLISHED = {
    "64": [11.9, 17.3, 20.0, 21.7, 22.6, 23.2],
    "128": [14.9, 22.2, 29.5, 32.9, 34.9, 35.9],
    "256": [17.1, 25.3, 32.3, 36.7, 38.8, 39.8],
    "128 bfp8": [22.3, 28.1, 32.4, 35.0, 36.5, 37.3],
}


def heads(seq, dim):
    return (16384 // seq) * (2048 // dim)


def run_cell(exe, program, seq, dim):
    shape = f"{heads(seq, dim)},{seq},{dim}"
    env = dict(os.environ, TK_EMULATOR_MATH="off")
    out = subprocess.run([exe, "--program", program, "--shape", shape, "--no-check"], env=env,
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{program} at {shape} failed ({out.returncode}): {out.stderr.strip()}")
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    if len(rows) != 1:
        raise RuntimeError(f"{program} at {shape}: expected one JSON row, got {len(rows)}")
    return rows[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--exe", default=str(HERE / "build/ci/bench/tk_tt_bench"))
    ap.add_argument("--rows", default="64,128,256,128 bfp8",
                    help="comma-separated rows: head dims (bf16) and '128 bfp8'")
    ap.add_argument("--seqs", default=",".join(str(s) for s in SEQS),
                    help="comma-separated sequence lengths, of 512 1024 2048 4096 8192 16384")
    ap.add_argument("--jobs", type=int, default=1, help="cells run at once")
    ap.add_argument("--json", help="write every cell's driver row to this file (JSON lines)")
    ap.add_argument("--bf16-program", default="attention_hifi2")
    ap.add_argument("--bfp8-program", default="attention_bfp8")
    args = ap.parse_args()

    rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    seqs = [int(s) for s in args.seqs.split(",")]
    for r in rows:
        if r not in PUBLISHED:
            ap.error(f"unknown row '{r}': the rows are {', '.join(PUBLISHED)}")
    for s in seqs:
        if s not in SEQS:
            ap.error(f"unknown sequence length {s}: the report measures {SEQS}")

    cells = []
    for r in rows:
        dim = int(r.split()[0])
        program = args.bfp8_program if r.endswith("bfp8") else args.bf16_program
        cells += [(r, program, s, dim) for s in seqs]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda c: run_cell(args.exe, c[1], c[2], c[3]), cells))

    if args.json:
        with open(args.json, "w") as f:
            for (r, program, s, dim), res in zip(cells, results):
                f.write(json.dumps(dict(res, row=r, published_tflops=PUBLISHED[r][SEQS.index(s)]))
                        + "\n")

    got = {(c[0], c[2]): res for c, res in zip(cells, results)}
    print("| head dim \\ S | " + " | ".join(f"{s // 1024}k" if s >= 1024 else str(s)
                                           for s in seqs) + " |")
    print("|---" * (len(seqs) + 1) + "|")
    below = 0
    for r in rows:
        texts = []
        for s in seqs:
            res, pub = got[(r, s)], PUBLISHED[r][SEQS.index(s)]
            below += res["tflops"] < pub
            texts.append(f"{res['tflops']:.1f} / {pub} ({res['tflops'] / pub:.2f}x)")
        print(f"| {r} | " + " | ".join(texts) + " |")
    print(f"\nprojected / published TFLOPS (ratio); {below} of {len(cells)} cells below the "
          f"published figure; programs: bf16 {args.bf16_program}, bfp8 {args.bfp8_program}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
