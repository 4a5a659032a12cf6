#!/usr/bin/env python3
"""Schema validation with every violation located, beside Python jsonschema.

Two agent outputs against the example's review.schema.json:
  - 10,000 structured findings (about 2 MB: 2.3 MB, on one line as Codex
    writes structured output), all valid;
  - 10,000 findings each with one violation (10,000 violations).
With --pretty both are indented and their messages twice as long (3.6 MB).
prompt-receipt checks them three ways: `validate` as the action runs it in
Actions (read, parse, compile the schema, validate, locate every violation's
line and column, read the findings, and report: annotations, step outputs and
the job summary written), the same on a terminal, and the whole `run` mode (the same, plus hashing, git, the receipt
written, read back and verified). Python runs `list(validator.iter_errors(doc))`
on the same files. Same run, alternating.

    python3 bench/validate.py [--runs N] [--pretty] [--bin target/release/prompt-receipt] [--before OTHER-BUILD]

Goal (issues 3 and 31): at most 0.05 of Python's wall time, job summary included.
"""
import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from common import binary, example_repo, measure, table

PY = """
import json, sys
from jsonschema.validators import validator_for
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
errors = list(validator_for(schema)(schema).iter_errors(doc))
print(len(errors))
"""


def findings(n, broken, pretty=False):
    out = []
    for i in range(n):
        f = {"severity": ["info", "low", "medium", "high", "critical"][i % 5], "path": f"src/module_{i % 97}/file_{i}.rs",
             "line": i % 500 + 1, "title": f"Finding number {i} about something worth a look",
             "message": "A description of the problem and what to do about it, long enough to be realistic. " * (2 if pretty else 1)}
        if broken:
            f["severity"] = "urgent"  # one enum violation each
        out.append(f)
    return json.dumps({"ok": False, "findings": out}, indent=2 if pretty else None)


def in_actions(exe, work, files):
    """`validate` as the action runs it: inputs as INPUT_*, and the job summary
    and step outputs written to the files the runner names."""
    return ([exe], {"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(work), "INPUT_MODE": "validate",
                    "INPUT_FAIL-ON": "never", "GITHUB_STEP_SUMMARY": str(files / "summary.md"),
                    "GITHUB_OUTPUT": str(files / "output")})


def fresh(files):
    """Empties the job summary and outputs, as each step starts with."""
    for name in ("summary.md", "output"):
        (files / name).write_bytes(b"")


def stdout_bytes(validate, actions, work, env, files):
    """Bytes `validate` writes to standard output on a terminal, and in Actions
    (where the job summary takes the rest)."""
    terminal = subprocess.run(validate, cwd=work, env=env, capture_output=True).stdout
    fresh(files)
    logged = subprocess.run(actions[0], cwd=work, env=dict(env, **actions[1]), capture_output=True).stdout
    kept = (files / "summary.md").stat().st_size
    return (f"{len(terminal):,} bytes on a terminal; {len(logged):,} bytes in Actions "
            f"(the job summary holds {kept:,} bytes)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--bin")
    ap.add_argument("--before", help="another build (e.g. the previous commit's), timed beside in the same run")
    ap.add_argument("--pretty", action="store_true",
                    help="indented, with longer messages (3.6 MB instead of 2.3 MB)")
    args = ap.parse_args()
    exe = binary(args.bin)
    work, env = example_repo()
    files = Path(tempfile.mkdtemp(prefix="prompt-receipt-bench-files-"))
    try:
        (work / "bench_py.py").write_text(PY)
        for label, broken in (("10,000 valid findings", False), ("10,000 violations", True)):
            out = work / "artifacts/review.json"
            out.write_text(findings(10_000, broken, args.pretty))
            size = out.stat().st_size
            validate = [exe, "--mode", "validate", "--fail-on", "never"]
            run = [exe, "--prompt-file", ".github/codex/prompts/review.md", "--codex-version", "0.169.0", "--fail-on", "never"]
            theirs = [sys.executable, "bench_py.py", ".github/codex/review.schema.json", "artifacts/review.json"]
            actions = in_actions(exe, work, files)
            sides = {"validate in Actions (summary)": [actions], "validate on a terminal": [validate],
                     "prompt-receipt run": [run]}
            if args.before:
                sides["in Actions, --before build"] = [in_actions(args.before, work, files)]
            sides["Python jsonschema iter_errors"] = [theirs]

            def before():
                (work / "usage.json").unlink(missing_ok=True)
                fresh(files)
            rows = measure(sides, args.runs, work, env, before=before, peak_runs=1)
            table(f"{label}: review.json of {size / 1e6:.1f} MB, {args.runs} runs each", rows, "Python jsonschema iter_errors")
            print(f"standard output of `validate`: {stdout_bytes(validate, actions, work, env, files)}")
            print()
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(files, ignore_errors=True)


if __name__ == "__main__":
    main()
