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

from common import binary, example_repo, peak_kib, table, wall


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
        walls = {name: [] for name in sides}
        peaks = {name: 0 for name in sides}
        for i in range(args.runs):
            for name, cmds in sides.items():
                (work / "usage.json").unlink(missing_ok=True)
                walls[name].append(sum(wall(cmd, work, env) for cmd in cmds))
                if i < 5:
                    (work / "usage.json").unlink(missing_ok=True)
                    peaks[name] = max([peaks[name]] + [peak_kib(cmd, work, env) for cmd in cmds])
        rows = {name: (walls[name], peaks[name]) for name in sides}
        table(f"record + verify on examples/agent-review, {args.runs} runs each, alternating", rows, "seed recipe (Python)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
