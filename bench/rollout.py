#!/usr/bin/env python3
"""Reading a real Codex session record, beside `jq -c .` and `sha256sum` of the same file.

The record is the real Codex CLI's (`target/codex`, run on the example against
a Responses API on loopback: bench/codex_record.py), with every line kind it
writes, grown to each size by repeating its own tool-call lines (the call, the
command's `item_completed` with its output, the output, the token counts).
prompt-receipt's `run` mode reads it with that codex-home on the example (the
record is found, hashed, and read as a stream); `jq -c .` (parses and prints
every line) and `sha256sum` read the same file in the same run, alternating,
with the page cache warm for all three. Each time is the median of `--runs`;
peak memory is GNU time's over the first run.

    python3 bench/rollout.py [--mb 1,32,256] [--runs 3] [--bin target/release/prompt-receipt]

Goals (issues 5 and 31): peak memory flat (under 32 MiB) whatever the size;
time linear in the size.
"""
import argparse
import shutil
import statistics
import subprocess

from codex_record import inflate, real_record
from common import binary, example_repo, measure, wall

OURS = "prompt-receipt run"


def bench_size(exe, work, env, home, record, size, runs):
    """One size: the record grown to `size` bytes, then the three readers timed."""
    kinds, tool_kinds, unit = inflate(record, size)
    size = record.stat().st_size
    ours = [exe, "--prompt-file", ".github/codex/prompts/review.md", "--codex-version", "0.169.0",
            "--model", "gpt-5.5", "--codex-home", str(home), "--fail-on", "never"]
    # The record must be read whole and pass: a benchmark of a refused record says nothing.
    proc = subprocess.run(ours, cwd=work, env=env, capture_output=True, text=True)
    if proc.returncode != 0 or "| Session record |" not in proc.stdout:
        raise SystemExit(f"prompt-receipt did not read the record ({proc.returncode}):\n{proc.stdout[-3000:]}{proc.stderr[-2000:]}")
    jq, sha = ["jq", "-c", ".", str(record)], ["sha256sum", str(record)]
    wall(sha, work, env)  # warm the page cache
    sides = {OURS: [ours], "jq -c .": [jq], "sha256sum": [sha]}
    rows = measure(sides, runs, work, env, ok=(0,), peak_runs=1)
    print(f"a real Codex 0.169.0 record of {size / 1e6:.1f} MB ({(size - unit) // unit + 1} repetitions of "
          f"its {unit / 1e3:.0f} KB of tool-call lines), {runs} runs each, alternating")
    print(f"{'':22} {'median wall':>12} {'throughput':>12} {'ratio':>7} {'peak RSS':>10}")
    ours_med = statistics.median(rows[OURS][0])
    for name, (walls, peak) in rows.items():
        med = statistics.median(walls)
        print(f"{name:22} {med * 1000:9.0f} ms {size / med / 1e6:7.0f} MB/s {ours_med / med:6.3f}x {peak / 1024:7.1f} MiB")
    return kinds, tool_kinds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", default="1,32,256", help="record sizes in MB (10^6 bytes), comma-separated")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bin")
    args = ap.parse_args()
    exe = binary(args.bin)
    for tool in ("jq", "sha256sum"):
        shutil.which(tool) or exit(f"needs {tool}: apt-get install {tool}")
    work, env = example_repo()
    home = None
    try:
        home, record = real_record(work, env)
        subprocess.run(["git", "checkout", "-q", "--", "."], cwd=work, env=env, check=True)
        original = record.read_bytes()
        for mb in (float(m) for m in args.mb.split(",")):
            record.write_bytes(original)
            kinds, tool_kinds = bench_size(exe, work, env, home, record, int(mb * 1e6), args.runs)
            print()
        print("line kinds in the record:", ", ".join(kinds))
        print("repeated:", ", ".join(tool_kinds))
        print("ratio: prompt-receipt's median wall over the row's (under 1: prompt-receipt is faster)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if home:
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
