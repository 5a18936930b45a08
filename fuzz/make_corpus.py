#!/usr/bin/env python3
"""Builds the seed corpus of every harness from the repository's tests (docs/fuzzing.md).

    make_corpus.py OUT_DIR      writes OUT_DIR/<harness>/<seed>, replacing what was there

* parse_check, lower: examples/*.tk, every .tk under tests/, and fuzz/regressions/{parse_check,
  lower}/* (both harnesses read .tk text, so each gets the other's reproducers too);
* ir_reader: the golden stage dumps tests/golden/ir/**/*.txt and fuzz/regressions/ir_reader/*;
* jinja: each conformance case tests/golden/jinja/<case>/ (template.jinja, its data.json and
  options.json), each project template templates/**/*.jinja with its sample data
  tests/golden/jinja-templates/<path>.json and options, in jinja_fuzzer's input format
  (options byte, template, NUL, JSON data), and fuzz/regressions/jinja/*.
"""
import json
import pathlib
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def options_byte(path):
    """jinja_fuzzer's first byte from an options.json (bit 0 trim, 1 lstrip, 2 keep newline)."""
    opts = json.loads(path.read_text()) if path.is_file() else {}
    return bytes([(1 if opts.get("trim_blocks") else 0) | (2 if opts.get("lstrip_blocks") else 0)
                  | (4 if opts.get("keep_trailing_newline") else 0)])


def jinja_seed(template, data, options):
    """The template with its data (compact JSON) in jinja_fuzzer's input format."""
    seed = options_byte(options) + template.read_bytes()
    if data.is_file():
        seed += b"\0" + json.dumps(json.loads(data.read_text()), separators=(",", ":")).encode()
    return seed


def seeds():
    """(harness, name, bytes) for every seed."""
    tk = sorted(ROOT.glob("examples/*.tk")) + sorted(ROOT.glob("tests/**/*.tk"))
    for f in tk:
        name = str(f.relative_to(ROOT)).replace("/", "_")
        yield "parse_check", name, f.read_bytes()
        yield "lower", name, f.read_bytes()
    for f in sorted(ROOT.glob("tests/golden/ir/**/*.txt")):
        yield "ir_reader", str(f.relative_to(ROOT / "tests/golden/ir")).replace("/", "_"), f.read_bytes()
    for case in sorted(p for p in (ROOT / "tests/golden/jinja").iterdir() if p.is_dir()):
        if (case / "template.jinja").is_file():
            yield "jinja", "case_" + case.name, jinja_seed(case / "template.jinja", case / "data.json",
                                                       case / "options.json")
    samples = ROOT / "tests/golden/jinja-templates"
    for t in sorted((ROOT / "templates").glob("**/*.jinja")):
        rel = str(t.relative_to(ROOT / "templates"))
        options = samples / (rel + ".options.json")
        yield "jinja", "templates_" + rel.replace("/", "_"), jinja_seed(
            t, samples / (rel + ".json"), options if options.is_file() else samples / "options.json")
    # Reproducers of fixed findings; the two .tk harnesses share theirs.
    shared = {"parse_check": ["parse_check", "lower"], "lower": ["parse_check", "lower"]}
    for d in sorted((ROOT / "fuzz/regressions").glob("*")):
        for f in sorted(d.iterdir()):
            for harness in shared.get(d.name, [d.name]):
                yield harness, "regression_" + d.name + "_" + f.name, f.read_bytes()


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = pathlib.Path(sys.argv[1])
    counts = {}
    for harness in ("parse_check", "lower", "ir_reader", "jinja"):
        shutil.rmtree(out / harness, ignore_errors=True)
        (out / harness).mkdir(parents=True)
    for harness, name, data in seeds():
        (out / harness / name).write_bytes(data)
        counts[harness] = counts.get(harness, 0) + 1
    print("corpus: " + ", ".join(f"{h} {n} seeds" for h, n in sorted(counts.items())))


if __name__ == "__main__":
    main()
