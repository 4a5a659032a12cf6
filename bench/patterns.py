#!/usr/bin/env python3
"""The schema gate on 10,000 different strings built to backtrack, beside a
linear pattern on the same strings.

A review whose `findings` are 10,000 different strings (`a` x 40, then `x`
and a number), checked by `--mode validate` against a schema whose items
must match `^((a|a)*)\\2?b` (a backreference: the backtracking engine, the
per-match step limit, the document's time budget), beside the same review
against `^a*b` (the linear-time engine). Same run, alternating. Also counts
the standard output's bytes and prints the gate's sentence about the strings
it did not check.

    python3 bench/patterns.py [--runs 7] [--strings 10000] [--bin target/release/prompt-receipt]

Goal (issue 31): the 10,000 hostile strings end in under a second, with the
count of strings not checked in the verdict.
"""
import argparse
import json
import re
import shutil
import subprocess

from common import binary, example_repo, measure, table

def schema(pattern):
    return json.dumps({"type": "object", "properties": {"findings": {"type": "array", "items": {
        "anyOf": [{"type": "string", "pattern": pattern}]}}}})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--strings", type=int, default=10_000)
    ap.add_argument("--bin")
    args = ap.parse_args()
    exe = binary(args.bin)
    work, env = example_repo()
    try:
        strings = [f"{'a' * 40}x{i}" for i in range(args.strings)]
        (work / "artifacts/review.json").write_text(json.dumps({"ok": True, "findings": strings}))
        for name, pattern in (("hostile", r"^((a|a)*)\2?b"), ("linear", r"^a*b")):
            (work / f"{name}.schema.json").write_text(schema(pattern))
        validate = lambda name: [exe, "--mode", "validate", "--fail-on", "never",
                                 "--output-schema-file", f"{name}.schema.json"]
        sides = {r"^((a|a)*)\2?b": [validate("hostile")], "^a*b": [validate("linear")]}
        rows = measure(sides, args.runs, work, env, ok=(0, 1), peak_runs=1)
        table(f"{args.strings:,} different strings, `--mode validate`, {args.runs} runs each", rows, "^a*b")
        out = subprocess.run(validate("hostile"), cwd=work, env=env, capture_output=True, text=True)
        said = re.search(r"\d+ strings? (?:was|were) not checked[^\n]*?first [^\n;]*", out.stdout)
        print(f"\nstandard output: {len(out.stdout.encode())} bytes; the gate says:\n  "
              f"{said.group(0) if said else 'NOTHING about unchecked strings'}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
