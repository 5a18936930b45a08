#!/usr/bin/env python3
"""The TT benchmark table: TileKit's generated kernels and the SDK's matmul baselines, projected.

Runs the driver build/ci/bench/tk_tt_bench (bench/tt_bench.cpp) once per shape, with the
emulator's timing model on, over the benchmark's cases: the generated `matmul` example and the
four SDK matmul programming examples (baselines/: single_core, multi_core, reuse, reuse_mcast) at
M=K=N = 512, 1024, 2048, 4096 and two non-square shapes, bf16, HiFi4, on the whole grid, and the
other generated examples at one or two shapes each. Prints one table (projected time, TFLOPS,
utilisation, DRAM GB/s, the bound that binds, the speed against the best baseline, the check
against a double reference) and writes DIR/index.html: the same table and a roofline plot
(gnuplot's SVG, inline), plus DIR/rows.jsonl (the driver's rows), DIR/table.txt and
DIR/roofline.svg. Every figure is the timing model's projection, not a hardware measurement
(docs/timing.md, docs/bench.md).

  bench/tt_bench.py [--exe build/ci/bench/tk_tt_bench] [--out build/bench-tt] [--quick]
                    [--case PROGRAMS@SHAPE ...] [--from-rows rows.jsonl]

bench/tt_bench.sh builds the driver, installs gnuplot if missing, and runs this script.
"""
import argparse
import datetime
import html
import json
import math
import os
import pathlib
import shutil
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent.parent
BASELINES = ["single_core", "multi_core", "reuse", "reuse_mcast"]
MATMUL_PROGRAMS = ["matmul"] + BASELINES
# (programs, shape) per driver run, in table order. The baselines accept every matmul shape here:
# K a multiple of 64 and blocks under get_large_matmul_params (docs/baselines.md).
FULL = [
    (MATMUL_PROGRAMS, (512, 512, 512)),
    (MATMUL_PROGRAMS + ["matmul_bias_relu", "matmul_bt", "matmul_f32"], (1024, 1024, 1024)),
    (MATMUL_PROGRAMS + ["matmul_bias_relu", "matmul_bt"], (2048, 2048, 2048)),
    (MATMUL_PROGRAMS + ["matmul_w8"], (4096, 4096, 4096)),
    (MATMUL_PROGRAMS, (1024, 4096, 1024)),
    (MATMUL_PROGRAMS, (4096, 1024, 2048)),
    (["eltwise_add", "axpby", "unary_chain"], (1024, 1024)),
    (["eltwise_add", "axpby", "unary_chain"], (4096, 4096)),
    (["softmax", "rmsnorm", "layernorm"], (1024, 4096)),
    (["softmax", "rmsnorm", "layernorm"], (4096, 4096)),
]
# --quick leaves out 4096^3: 25 to 40 s of emulation per program (everything else takes at most
# about 4 s per program).
QUICK_DROP = {(4096, 4096, 4096)}
# Cells left out of every run, with the reason printed in their place: none. (single_core at
# 4096^3 takes about 26 s of emulation, the generated matmul 29 s, multi_core 37 s, measured
# 2026-11-24 on this project's 2-core machine.)
SKIP = {}


def shape_text(shape):
    return "x".join(str(d) for d in shape)


def parse_case(text):
    programs, _, shape = text.partition("@")
    if not programs or not shape:
        raise argparse.ArgumentTypeError(
            f"--case wants PROGRAMS@SHAPE, e.g. matmul,reuse@256x256x256; got {text!r}")
    return (programs.split(","), tuple(int(d) for d in shape.split("x")))


def cases(args):
    if args.case:
        return args.case
    return [(p, s) for p, s in FULL if not (args.quick and s in QUICK_DROP)]


def run_cases(exe, todo, rows_path):
    """Runs the driver per shape; returns the rows (dicts) in order, also appended to rows_path."""
    rows = []
    with open(rows_path, "w") as log:
        for programs, shape in todo:
            run, skipped = [], []
            for p in programs:
                reason = SKIP.get((p, shape))
                if reason:
                    skipped.append({"program": p, "shape": shape_text(shape), "skipped": reason})
                else:
                    run.append(p)
            start = time.monotonic()
            print(f"tt_bench: {shape_text(shape)}: {', '.join(run)}", file=sys.stderr, flush=True)
            got = {}
            if run:
                cmd = [exe, "--program", ",".join(run), "--shape", ",".join(str(d) for d in shape)]
                proc = subprocess.run(cmd, capture_output=True, text=True)
                for line in proc.stdout.splitlines():
                    if line.strip():
                        r = json.loads(line)
                        got[r["program"]] = r
                if proc.returncode != 0 and not got:
                    sys.exit(f"tt_bench: {' '.join(cmd)} failed ({proc.returncode}):\n"
                             f"{proc.stderr}")
                sys.stderr.write(proc.stderr)
            print(f"tt_bench:   {time.monotonic() - start:.1f} s", file=sys.stderr, flush=True)
            for p in programs:
                r = got.get(p) or next((s for s in skipped if s["program"] == p), None)
                if r is None:
                    r = {"program": p, "shape": shape_text(shape),
                         "error": "no row from the driver"}
                r.setdefault("shape", shape_text(shape))
                rows.append(r)
                log.write(json.dumps(r) + "\n")
    return rows


def add_ratios(rows):
    """vs_best = the best baseline's projected time at the row's shape / the row's (bf16 matmul
    rows)."""
    best = {}
    for r in rows:
        if r.get("kind") == "baseline" and "device_us" in r:
            best[r["shape"]] = min(best.get(r["shape"], float("inf")), r["device_us"])
    for r in rows:
        if r.get("family") == "matmul" and r.get("dtype") == "bf16" and r["shape"] in best \
                and "device_us" in r:
            r["vs_best"] = best[r["shape"]] / r["device_us"]
            r["best_baseline_us"] = best[r["shape"]]


def roofs(rows):
    """The compute roof (TFLOPS) and the DRAM roof (GB/s), from the model's figures in the rows."""
    peaks = {round(r["peak_tflops"], 6) for r in rows
             if "peak_tflops" in r and r.get("fidelity") == "HiFi4"}
    dram = {r["dram_roofline_gbps"] for r in rows if "dram_roofline_gbps" in r}
    peak = max(peaks) if peaks else None
    return peak, (max(dram) if dram else None)


# Distinct colours for up to 16 programs (Tableau's palette and a few more).
COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
          "#bcbd22", "#17becf", "#000000", "#a6761d", "#e41a1c", "#66c2a5", "#8da0cb", "#ffd92f"]

COLUMNS = ["program", "shape", "cores", "proj. µs", "TFLOPS", "util.", "DRAM GB/s", "binds", "at bound",
           "vs best", "max|err|", "PCC", "checked", "wall s"]


def cells(r):
    """The table's cells of one row (strings)."""
    name = r["program"] + ("" if r.get("kind") != "generated" else " *")
    if "skipped" in r:
        return [name, r["shape"], r["skipped"]]
    if "error" in r:
        what = "not supported: " if r.get("unsupported") else "error: "
        return [name, r["shape"], what + r["error"]]
    c = r.get("check")
    if c:
        checked = ("all" if c["rows_checked"] == c["rows"]
                   else f"{c['rows_checked']}/{c['rows']} rows")
        err, pcc = f"{c['max_abs_err']:.2e}", f"{c['pcc']:.6f}"
        if c["nonfinite"]:
            err += f" ({c['nonfinite']} non-finite)"
    else:
        checked, err, pcc = "not checked", "-", "-"
    return [
        name,
        r["shape"],
        str(r["cores"]),
        f"{r['device_us']:,.1f}",
        f"{r['tflops']:.2f}" if r["tflops"] >= 0.01 else f"{r['tflops']:.4f}",
        f"{r['utilization'] * 100:.1f}%" if r["matmul_tiles"] else "-",
        f"{r['dram_gbps']:.1f}",
        r["bound"],
        f"{r['bound_cycles'] / r['device_cycles'] * 100:.0f}%",
        ("-" if "vs_best" not in r else
         f"{r['vs_best']:.2f}x" if r["vs_best"] >= 0.1 else f"{r['vs_best']:.2g}x"),
        err,
        pcc,
        checked,
        f"{r['wall_s']:.1f}" if r["wall_s"] >= 10 else f"{r['wall_s']:.2f}",
    ]


def machine(rows):
    """The modelled chip and its clock, from the rows' arch and clock_ghz: 'ARCH at C GHz'."""
    archs = sorted({(r["arch"], r["clock_ghz"]) for r in rows if "arch" in r})
    return ", ".join(f"{a} at {c:g} GHz" for a, c in archs) or "the default architecture"


def header_lines(rows, meta):
    peak, dram = roofs(rows)
    lines = [
        f"TT benchmark, {meta['date']}, commit {meta['commit']}: projections of the emulator's "
        f"timing model ({machine(rows)}), not hardware measurements.",
        "bf16 inputs and outputs (matmul_f32: f32; matmul_w8: Bfp8_b weights, HiFi2), HiFi4; "
        "baselines = the SDK's matmul programming examples as ported (bf16 DST), * = generated by TileKit (fp32 DST where it "
        "accumulates).",
    ]
    if peak and dram:
        lines.append(f"Roofs: compute {peak:.1f} TFLOPS (every core at HiFi4), DRAM {dram:.0f} GB/s. "
                     "util. = ideal matmul cycles / projected cycles; binds = the larger of the "
                     "compute and DRAM bounds, at bound = that bound / projected time.")
    lines.append("vs best = best baseline's projected time at the same shape / this row's: "
                 ">1 faster than the fastest SDK example, <1 slower (bf16 matmul rows only).")
    lines.append("max|err| and PCC against a double reference on the rows checked (evenly spaced "
                 "rows where the full reference would cost more than 2^30 multiply-adds); "
                 "wall s = emulation time.")
    return lines


def text_table(rows, meta):
    body = [cells(r) for r in rows]
    widths = [len(c) for c in COLUMNS]
    for b in body:
        if len(b) == len(COLUMNS):
            widths = [max(w, len(c)) for w, c in zip(widths, b)]
    right = set(range(2, len(COLUMNS)))

    def fmt(cs):
        if len(cs) < len(COLUMNS):  # skipped or failed: the reason spans the rest
            return f"{cs[0]:<{widths[0]}}  {cs[1]:<{widths[1]}}  {cs[2]}"
        return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(cs, widths))).rstrip()

    out = header_lines(rows, meta) + ["", fmt(COLUMNS), "  ".join("-" * w for w in widths)]
    shape = None
    for r, b in zip(rows, body):
        if shape is not None and r["shape"] != shape:
            out.append("")
        shape = r["shape"]
        out.append(fmt(b))
    return "\n".join(out)


def roofline_svg(rows, out_dir):
    """The roofline plot with gnuplot (svg terminal); returns the SVG text."""
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        sys.exit("tt_bench: gnuplot not found; install it (apt-get install gnuplot-nox) or run "
                 "bench/tt_bench.sh, which does")
    peak, dram = roofs(rows)
    pts = [r for r in rows if r.get("tflops", 0) > 0 and r.get("intensity", 0) > 0]
    if not pts or not peak or not dram:
        sys.exit("tt_bench: no row to plot (the roofline needs a matmul row and a timed row)")
    xs = [r["intensity"] for r in pts]
    ys = [r["tflops"] for r in pts]
    ridge = peak * 1e3 / dram  # FLOP per byte where the roofs meet
    xmin, xmax = min(xs + [ridge]) / 3, max(xs + [ridge]) * 3
    ymin, ymax = min(ys + [dram * xmin / 1e3]) / 3, peak * 3
    programs = list(dict.fromkeys(r["program"] for r in pts))
    data = out_dir / "roofline.dat"
    with open(data, "w") as f:
        for p in programs:
            f.write(f"# {p}\n")
            for r in pts:
                if r["program"] == p:
                    label = (f"{p} {r['shape']}: {r['tflops']:.2f} TFLOPS, "
                             f"{r['intensity']:.1f} FLOP/B")
                    f.write(f"{r['intensity']:.6g} {r['tflops']:.6g} \"{label}\"\n")
            f.write("\n\n")
    svg = out_dir / "roofline.svg"
    # The DRAM roof's angle on the page: one decade of x and of y span these many pixels.
    px_x, px_y = 960 * 0.72 / math.log10(xmax / xmin), 620 * 0.8 / math.log10(ymax / ymin)
    slope_deg = math.degrees(math.atan(px_y / px_x))
    bw = dram / 1e3  # TFLOPS per FLOP/B
    plots = [f"({bw:.6g} * x < {peak:.6g} ? {bw:.6g} * x : {peak:.6g}) "
             "with lines lw 2 lc rgb '#444444' title 'roofline'"]
    baseline_pts = iter([5, 9, 11, 13, 15, 4, 6, 8])  # squares, triangles, diamonds, pentagons
    for i, p in enumerate(programs):
        generated = next(r for r in pts if r["program"] == p).get("kind") == "generated"
        pt = 7 if generated else next(baseline_pts)  # generated: filled circles
        color = COLORS[i % len(COLORS)]
        plots.append(f"'{data}' index {i} using 1:2:3 with labels hypertext point pt {pt} ps 1.4 "
                     f"lc rgb '{color}' title '{p}{' *' if generated else ''}'")
    script = f"""set terminal svg size 960,620 dynamic noenhanced font 'sans,12' \\
    background '#ffffff'
set output '{svg}'
set logscale xy
set xrange [{xmin:.6g}:{xmax:.6g}]
set yrange [{ymin:.6g}:{ymax:.6g}]
set xlabel 'arithmetic intensity (FLOP per DRAM byte)'
set ylabel 'TFLOPS (projected)'
set grid xtics ytics mxtics mytics lc rgb '#dddddd'
set key inside right bottom box opaque font 'sans,10' spacing 1.1
set samples 400
set title 'Projected by the timing model ({machine(rows)}); * = generated by TileKit'
set label 1 'compute roof: {peak:.1f} TFLOPS (every core at HiFi4)' \\
    at {xmin * 1.3:.6g},{peak * 1.35:.6g}
set label 2 'DRAM roof: {dram:.0f} GB/s' at {xmin * 1.3:.6g},{bw * xmin * 1.3 * 2.2:.6g} \\
    rotate by {slope_deg:.3g}
set label 1 font 'sans,10'
set label 2 font 'sans,10'
plot {', '.join(plots)}
"""
    (out_dir / "roofline.gp").write_text(script)
    run = subprocess.run([gnuplot, str(out_dir / "roofline.gp")], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"tt_bench: gnuplot failed:\n{run.stderr}")
    return svg.read_text()


def html_page(rows, meta, svg):
    esc = html.escape
    lines = header_lines(rows, meta)
    head = "".join(f"<th>{esc(c)}</th>" for c in COLUMNS + ["plan"])
    body = []
    shape = None
    for r in rows:
        cs = cells(r)
        cls = ' class="group"' if shape is not None and r["shape"] != shape else ""
        shape = r["shape"]
        if len(cs) < len(COLUMNS):
            tds = (f"<td>{esc(cs[0])}</td><td>{esc(cs[1])}</td>"
                   f"<td colspan=\"{len(COLUMNS) - 1}\">{esc(cs[2])}</td>")
        else:
            plan = r.get("plan") or f"generated host program, {r['dst']} DST"
            tds = "".join(f"<td>{esc(c)}</td>" for c in cs) + f"<td>{esc(plan)}</td>"
        body.append(f"<tr{cls}>{tds}</tr>")
    # The SVG inline: without its XML declaration and doctype.
    svg_body = svg[svg.find("<svg"):]
    notes = "".join(f"<p>{esc(line)}</p>" for line in lines)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>TileKit TT benchmark</title>
<style>
body {{ font-family: sans-serif; margin: 2em; }}
table {{ border-collapse: collapse; font-size: 90%; }}
th, td {{ border: 1px solid #ccc; padding: 2px 6px; text-align: right; white-space: nowrap; }}
td:first-child, td:nth-child(2), td:last-child, th {{ text-align: left; }}
tr.group td {{ border-top: 2px solid #666; }}
p {{ margin: 0.3em 0; }}
</style></head>
<body>
<h1>TileKit TT benchmark</h1>
{notes}
<p>See docs/bench.md for how to read the table.</p>
<table>
<tr>{head}</tr>
{chr(10).join(body)}
</table>
<h2>Roofline</h2>
<p>One point per row: x = nominal FLOPs / DRAM bytes read and written, y = nominal FLOPs / projected
time. Hover a point for its program and shape.</p>
{svg_body}
</body></html>
"""


def git_meta():
    def git(*a):
        try:
            return subprocess.run(["git", "-C", str(HERE), *a], capture_output=True, text=True,
                                  check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return "unknown"
    commit = git("rev-parse", "--short", "HEAD")
    if git("status", "--porcelain", "--untracked-files=no") not in ("", "unknown"):
        commit += " (with uncommitted changes)"
    return {"commit": commit, "date": datetime.date.today().isoformat()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exe", default=str(HERE / "build/ci/bench/tk_tt_bench"))
    ap.add_argument("--out", default=str(HERE / "build/bench-tt"), help="where index.html goes")
    ap.add_argument("--quick", action="store_true",
                    help="leave out 4096^3 and the 4096x4096 row-wise kernels (about a minute)")
    ap.add_argument("--case", action="append", type=parse_case, metavar="PROGRAMS@SHAPE",
                    help="run these instead of the benchmark's cases, e.g. "
                         "matmul,reuse_mcast@256x256x256 or softmax@256x512 (repeatable)")
    ap.add_argument("--from-rows", metavar="FILE",
                    help="render a rows.jsonl of an earlier run instead of running")
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    if args.from_rows:
        rows = [json.loads(line) for line in open(args.from_rows) if line.strip()]
    else:
        if not os.access(args.exe, os.X_OK):
            sys.exit(f"tt_bench: {args.exe} not found; build it: cmake --build --preset ci "
                     "--target tk_tt_bench (or run bench/tt_bench.sh)")
        rows = run_cases(args.exe, cases(args), out / "rows.jsonl")
    add_ratios(rows)
    meta = git_meta()
    table = text_table(rows, meta)
    print(table)
    (out / "table.txt").write_text(table + "\n")
    svg = roofline_svg(rows, out)
    (out / "index.html").write_text(html_page(rows, meta, svg))
    print(f"\nwrote {out / 'index.html'} ({time.monotonic() - start:.0f} s)")
    failed = [r for r in rows if "error" in r and not r.get("unsupported")]
    low = [r for r in rows
           if r.get("check") and (r["check"]["pcc"] < 0.999 or r["check"]["nonfinite"])]
    for r in failed:
        print(f"tt_bench: {r['program']} {r['shape']} failed: {r['error']}", file=sys.stderr)
    for r in low:
        print(f"tt_bench: {r['program']} {r['shape']}: PCC {r['check']['pcc']:.6f} below 0.999 "
              "or non-finite outputs", file=sys.stderr)
    return 1 if failed or low else 0


if __name__ == "__main__":
    sys.exit(main())
