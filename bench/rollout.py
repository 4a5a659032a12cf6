#!/usr/bin/env python3
"""Reading a 1 GiB Codex session record, beside sha256sum of the same file.

Builds a synthetic rollout shaped like a long session (session metadata, the
messages as sent, thousands of large tool outputs, token counts), puts it in a
codex-home, and runs prompt-receipt's `run` mode with that codex-home on the
example (the record is found, hashed and read as a stream). sha256sum reads the
same file in the same run, alternating, with the page cache warm for both.

    python3 bench/rollout.py [--gib 1] [--runs 3] [--bin target/release/prompt-receipt]

Goals (issue 5): peak memory under 64 MiB whatever the size; throughput at
least half of sha256sum's.
"""
import argparse
import json
import shutil
import statistics
import tempfile
from pathlib import Path

from common import binary, example_repo, measure, wall


def write_rollout(path, size, cwd):
    line = lambda kind, payload: json.dumps({"timestamp": "2026-11-29T12:00:00.000Z", "ordinal": 0, "type": kind, "payload": payload}, separators=(",", ":")) + "\n"
    prompt = (Path(__file__).resolve().parent.parent / "examples/agent-review/.github/codex/prompts/review.md").read_text()
    agents = (Path(__file__).resolve().parent.parent / "examples/agent-review/AGENTS.md").read_text()
    output = "x" * 200_000 + "\\n" + "log line of a long tool output " * 1000
    with open(path, "w") as f:
        f.write(line("session_meta", {"id": "bench", "cwd": str(cwd), "originator": "codex_exec", "cli_version": "0.169.0"}))
        f.write(line("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": f"# AGENTS.md instructions for {cwd}\n\n<INSTRUCTIONS>\n{agents}\n</INSTRUCTIONS>"}]}))
        f.write(line("turn_context", {"model": "gpt-5.5", "approval_policy": "never", "sandbox_policy": {"type": "read-only"}}))
        f.write(line("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}))
        tool = line("response_item", {"type": "function_call_output", "call_id": "c", "output": output})
        call = line("response_item", {"type": "function_call", "name": "exec_command", "arguments": "{\"cmd\":\"cat src/main.rs\"}"})
        count = line("event_msg", {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}}})
        while f.tell() < size:
            f.write(call)
            f.write(tool)
            f.write(count)
        review = (Path(__file__).resolve().parent.parent / "examples/agent-review/artifacts/review.json").read_text()
        f.write(line("event_msg", {"type": "task_complete", "last_agent_message": review, "duration_ms": 1}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gib", type=float, default=1.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bin")
    args = ap.parse_args()
    exe = binary(args.bin)
    work, env = example_repo()
    home = Path(tempfile.mkdtemp(prefix="prompt-receipt-codex-home-"))
    try:
        rollout = home / "sessions/2026/11/29/rollout-2026-11-29T12-00-00-bench.jsonl"
        rollout.parent.mkdir(parents=True)
        write_rollout(rollout, int(args.gib * (1 << 30)), work)
        size = rollout.stat().st_size
        ours = [exe, "--prompt-file", ".github/codex/prompts/review.md", "--codex-version", "0.169.0",
                "--model", "gpt-5.5", "--codex-home", str(home)]
        theirs = ["sha256sum", str(rollout)]
        wall(theirs, work, env)  # warm the page cache
        sides = {"prompt-receipt (run mode)": [ours], "sha256sum": [theirs]}
        rows = measure(sides, args.runs, work, env, ok=(0, 1), peak_runs=1)
        print(f"reading a {size / (1 << 30):.2f} GiB session record, {args.runs} runs each, alternating")
        print(f"{'':28} {'median wall':>12} {'throughput':>12} {'peak RSS':>10}")
        for name, (walls, peak) in rows.items():
            med = statistics.median(walls)
            print(f"{name:28} {med * 1000:9.0f} ms {size / med / 1e6:8.0f} MB/s {peak / 1024:7.1f} MiB")
        ratio = statistics.median(rows["sha256sum"][0]) / statistics.median(rows["prompt-receipt (run mode)"][0])
        print(f"throughput relative to sha256sum: {ratio:.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
