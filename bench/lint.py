#!/usr/bin/env python3
"""The workflow lint's time against the size of the workflow: linear, not quadratic.

Workflows of 1, 2 and 4 MiB (many jobs, each a checkout and a codex-action step,
with aliases and a long `run: |` script) are linted by `--mode lint`, beside
PyYAML's C loader parsing the same file (`yaml.load(..., CSafeLoader)`), a
baseline that is linear by construction, in the same run, alternating. If the
lint were quadratic, its ratio to the baseline would double with each doubling
of the size; linear, it stays flat.

    python3 bench/lint.py [--runs N] [--bin target/release/prompt-receipt]

Goal (issue 15): a 4 MiB workflow in well under a second, time linear in size.
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from common import binary, measure

JOB = """  review-{i}:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v5
        with:
          fetch-depth: 0
          persist-credentials: false
      - name: Prepare {i}
        run: |
          echo "- uses: openai/codex-action@v1 is only text here"
          for f in $(ls); do echo "$f"; done
      - &agent{i}
        uses: openai/codex-action@v1
        with:
          prompt-file: .github/codex/prompts/review.md
          codex-version: {version}
      - *agent{i}
"""


def workflow(size):
    head = "name: big\non: pull_request\njobs:\n"
    parts, total, i = [head], len(head), 0
    while total < size:
        job = JOB.format(i=i, version="latest" if i % 7 == 0 else "0.169.0")
        parts.append(job)
        total += len(job)
        i += 1
    return "".join(parts), i


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--bin")
    args = ap.parse_args()
    try:
        import yaml
        yaml.CSafeLoader
    except (ImportError, AttributeError):
        sys.exit("needs PyYAML with its C loader: pip install pyyaml")
    exe = binary(args.bin)
    env = dict(os.environ)
    print(f"{'size':>6} {'jobs':>6} {'lint median':>12} {'PyYAML C median':>16} {'ratio':>6}")
    for mib in (1, 2, 4):
        work = Path(tempfile.mkdtemp(prefix="prompt-receipt-lint-"))
        try:
            (work / ".github/workflows").mkdir(parents=True)
            text, jobs = workflow(mib * 1024 * 1024)
            (work / ".github/workflows/big.yml").write_text(text)
            py = [sys.executable, "-c", "import yaml,sys; yaml.load(open(sys.argv[1]), Loader=yaml.CSafeLoader)",
                  str(work / ".github/workflows/big.yml")]
            sides = {"lint": [[exe, "--mode", "lint"]], "pyyaml": [py]}
            res = measure(sides, args.runs, work, env, ok=(0, 1), peak_runs=1)
            lint = statistics.median(res["lint"][0])
            base = statistics.median(res["pyyaml"][0])
            print(f"{mib:>4} MiB {jobs:>6} {lint * 1000:>9.0f} ms {base * 1000:>13.0f} ms {lint / base:>6.2f}")
        finally:
            shutil.rmtree(work)


if __name__ == "__main__":
    main()
