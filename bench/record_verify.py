#!/usr/bin/env python3
"""Record + verify on the bundled example: prompt-receipt beside the seed's Python recipe.

Both run on the same git repository, in the same run, alternating, so machine
noise hits both. Reports the ratio of median wall times and each side's peak
memory (the process and the git it runs).

    python3 bench/record_verify.py [--runs N] [--bin target/release/prompt-receipt]

Goal (issue 2): wall-time ratio at most 0.1, peak memory at most 10 MiB.
"""
import argparse
import shutil
import sys

from common import binary, example_repo, measure, table


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--bin")
    args = ap.parse_args()
    exe = binary(args.bin)
    work, env = example_repo()
    try:
        sides = {
            "prompt-receipt": [
                [exe, "--mode", "record", "--prompt-file", ".github/codex/prompts/review.md", "--codex-version", "0.169.0"],
                [exe, "--mode", "verify"],
            ],
            "seed recipe (Python)": [
                [sys.executable, "scripts/record_agent_usage.py"],
                [sys.executable, "scripts/verify_recorded_sha.py"],
            ],
        }
        rows = measure(sides, args.runs, work, env, before=lambda: (work / "usage.json").unlink(missing_ok=True))
        table(f"record + verify on examples/agent-review, {args.runs} runs each, alternating", rows, "seed recipe (Python)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
