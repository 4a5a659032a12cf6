#!/usr/bin/env python3
"""Record + verify, and `run`, on the bundled example: prompt-receipt beside the seed's Python recipe.

All run on the same git repository, in the same run, alternating, so machine
noise hits each side alike. prompt-receipt runs twice: `record` then `verify`
(two processes, as the seed's two steps), and `run` alone (one process that
records, verifies, checks the review and writes the receipt). Reports the
ratio of median (and best) wall times to the seed's and each side's peak
memory (the process and the git it runs).

    python3 bench/record_verify.py [--runs N] [--bin target/release/prompt-receipt] [--before OTHER-BUILD]

Goals: wall-time ratio at most 0.1 (issue 2), `run` at most 0.05 (issue 31);
peak memory at most 10 MiB.

Three more rows give the floor under `run`, timed the same way: a process
that does nothing (`true`: what this harness's own spawn and wait cost), the
binary starting and exiting (`--version`), and the one git process a run waits
for (`git describe --tags --always --dirty`, as the seed runs it). A run
cannot take less than `--version` plus `git describe` minus `true`: what it
costs above that is its own work.
"""
import argparse
import shutil
import sys

from common import binary, example_repo, measure, table


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--bin")
    ap.add_argument("--before", help="another build (e.g. the previous commit's), timed beside in the same run")
    args = ap.parse_args()
    exe = binary(args.bin)
    work, env = example_repo()
    try:
        sides = {
            "prompt-receipt": [
                [exe, "--mode", "record", "--prompt-file", ".github/codex/prompts/review.md", "--codex-version", "0.169.0"],
                [exe, "--mode", "verify"],
            ],
            "prompt-receipt run": [
                [exe, "--prompt-file", ".github/codex/prompts/review.md", "--codex-version", "0.169.0"],
            ],
            **({"run, --before build": [[args.before, "--prompt-file", ".github/codex/prompts/review.md",
                                          "--codex-version", "0.169.0"]]} if args.before else {}),
            "floor: true": [[shutil.which("true")]],
            "floor: start (--version)": [[exe, "--version"]],
            "floor: git describe": [["git", "describe", "--tags", "--always", "--dirty"]],
            "seed recipe (Python)": [
                [sys.executable, "scripts/record_agent_usage.py"],
                [sys.executable, "scripts/verify_recorded_sha.py"],
            ],
        }
        rows = measure(sides, args.runs, work, env, before=lambda: (work / "usage.json").unlink(missing_ok=True))
        table(f"record + verify, and run, on examples/agent-review, {args.runs} runs each, alternating", rows, "seed recipe (Python)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
