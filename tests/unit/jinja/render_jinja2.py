#!/usr/bin/python3
"""Reference renderer for TileKit's Jinja conformance tests: renders one template with the real
jinja2 (Debian's python3-jinja2, run by /usr/bin/python3) and writes the output to stdout, bytes
exactly. On a template error it prints "jinja2: <Type>: <message>" to stderr and exits with 1.

  render_jinja2.py --template NAME --search DIR [--search DIR ...] [--data FILE]
                   [--options FILE] [--parse-only]

Data objects are loaded with their keys sorted, because TileKit hands templates an
nlohmann::json, whose objects are sorted maps; iterating a dict must see the same order.
"""
import argparse
import json
import sys

import jinja2


def sorted_object(pairs):
    return dict(sorted(pairs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--template", required=True)
    ap.add_argument("--search", action="append", required=True)
    ap.add_argument("--data")
    ap.add_argument("--options")
    ap.add_argument("--parse-only", action="store_true")
    args = ap.parse_args()

    options = {}
    if args.options:
        with open(args.options, encoding="utf-8") as f:
            options = json.load(f)
    allowed = {"trim_blocks", "lstrip_blocks", "keep_trailing_newline"}
    unknown = set(options) - allowed
    if unknown:
        sys.exit(f"render_jinja2.py: unknown option(s) {sorted(unknown)}")
    data = {}
    if args.data:
        with open(args.data, encoding="utf-8") as f:
            data = json.load(f, object_pairs_hook=sorted_object)

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(args.search, encoding="utf-8"),
        undefined=jinja2.StrictUndefined,
        **options,
    )
    try:
        template = env.get_template(args.template)
        if args.parse_only:
            return 0
        out = template.render(**data)
    except Exception as e:  # every failure of the template is a result to compare, not a crash
        sys.stderr.write(f"jinja2: {type(e).__name__}: {e}\n")
        return 1
    sys.stdout.buffer.write(out.encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
