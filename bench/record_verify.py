#!/usr/bin/env python3
"""Record + verify on the bundled example: prompt-receipt beside the seed's Python recipe.

Both run in the same process tree, on the same git repository, in the same run,
alternating, so machine noise hits both. Reports the ratio of median wall times
and each side's peak memory (max RSS of the process and the git it runs).

    python3 bench/record_verify.py [--runs N] [--bin target/release/prompt-receipt]

Goal (issue 2): wall-time ratio at most 0.1, peak memory at most 10 MiB.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIME = shutil.which("time", path="/usr/bin:/bin") or sys.exit("needs GNU time: apt-get install time")


def wall(cmd, cwd, env):
    """Wall seconds of one command, spawned directly."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"failed: {cmd}: {proc.stderr.decode()}")
    return elapsed


def peak_kib(cmd, cwd, env):
    """Peak RSS (KiB) of one command and the git it runs, from GNU time.

    Not from os.wait4 here: Linux carries the spawning process's high-water mark
    across fork and exec, so a child of this Python process would report Python's
    own ~13 MiB as its peak. GNU time is a small parent.
    """
    with tempfile.NamedTemporaryFile("r") as rss:
        subprocess.run([TIME, "-f", "%M", "-o", rss.name, *cmd], cwd=cwd, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        return int(rss.read().split()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--bin", default=str(ROOT / "target/release/prompt-receipt"))
    args = ap.parse_args()
    if not Path(args.bin).exists():
        subprocess.run(["cargo", "build", "--release", "--locked"], cwd=ROOT, check=True)

    work = Path(tempfile.mkdtemp(prefix="prompt-receipt-bench-"))
    try:
        shutil.copytree(ROOT / "examples/agent-review", work, dirs_exist_ok=True)
        git = ["git", "-c", "user.name=b", "-c", "user.email=b@example.com"]
        env = dict(os.environ, HOME=str(work), GIT_CONFIG_NOSYSTEM="1")
        for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "bench"], ["tag", "v1.0.0"]):
            subprocess.run(git + cmd, cwd=work, env=env, check=True)

        ours = [
            [args.bin, "--mode", "record", "--prompt-file", ".github/codex/prompts/review.md", "--codex-version", "0.169.0"],
            [args.bin, "--mode", "verify"],
        ]
        seed = [
            [sys.executable, "scripts/record_agent_usage.py"],
            [sys.executable, "scripts/verify_recorded_sha.py"],
        ]
        sides = {"prompt-receipt": ours, "seed recipe (Python)": seed}
        walls = {name: [] for name in sides}
        peaks = {name: 0 for name in sides}
        for i in range(args.runs):
            for name, cmds in sides.items():
                (work / "usage.json").unlink(missing_ok=True)
                walls[name].append(sum(wall(cmd, work, env) for cmd in cmds))
                if i < 5:
                    (work / "usage.json").unlink(missing_ok=True)
                    peaks[name] = max([peaks[name]] + [peak_kib(cmd, work, env) for cmd in cmds])
        results = {name: (walls[name], [peaks[name]]) for name in sides}

        base = statistics.median(results["seed recipe (Python)"][0])
        print(f"record + verify on examples/agent-review, {args.runs} runs each, alternating")
        print(f"{'':24} {'median wall':>12} {'ratio':>7} {'peak RSS':>10}")
        for name, (walls, peaks) in results.items():
            med = statistics.median(walls)
            print(f"{name:24} {med * 1000:9.2f} ms {med / base:7.3f} {max(peaks) / 1024:7.2f} MiB")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
