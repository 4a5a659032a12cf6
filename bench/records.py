#!/usr/bin/env python3
"""Claude Code's and Gemini CLI's session records of 1, 32 and 256 MB, read by
prompt-receipt beside `jq -c .` and `sha256sum` of the same file.

The records are real: written by the real CLIs in the real-CLI tests (kept
with PROMPT_RECEIPT_KEEP_RECORDS; run here if `--records` has none), then
inflated by repeating their own tool-call lines in place:
  - Claude Code: the tool call with the largest result, as the record has it
    (the `assistant` line with the `tool_use`, the `user` line with its
    `tool_result`, the `api-request-blob` that sent it);
  - Gemini CLI: the `gemini` message with `toolCalls`, as last written, and
    the `user` message with its `functionResponse`.
Repeated lines keep their ids, as a CLI that rewrites a message does.

prompt-receipt runs its `run` mode on the example with that agent home (the
record is found, hashed and read; the check then fails, as the record is not
of this checkout: exit 1). Same run, alternating, page cache warm. Peak
memory is GNU time's maximum resident set size.

    python3 bench/records.py [--sizes 1,32,256] [--runs 3] [--bin target/release/prompt-receipt]
                             [--before OTHER-BUILD]

Goal (issue 31): peak memory within 32 MiB for a 256 MB record of each agent,
time linear in the size.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

from common import ROOT, binary, example_repo, measure

TESTS = {
    "claude": "real::claude::an_agent_that_writes_its_instructions_is_named",
    "gemini": "real::gemini::an_instruction_file_loaded_just_in_time_is_named",
}


def real_records(folder):
    """The records the real CLIs wrote, run for if missing: {agent: path}."""
    folder.mkdir(parents=True, exist_ok=True)
    have = lambda agent: sorted(folder.glob(f"{agent}-*.jsonl"))
    missing = [test for agent, test in TESTS.items() if not have(agent)]
    if missing:
        env = dict(os.environ, PROMPT_RECEIPT_KEEP_RECORDS=str(folder))
        subprocess.run(["cargo", "test", "--locked", "--test", "it", "--", *missing], cwd=ROOT, env=env, check=True)
    # Of each agent's newest release, the record with the most tool calls
    # (then the largest: the one whose tool results are longest).
    calls = lambda p: sum(1 for line in p.open() if '"tool_use"' in line or '"toolCalls":[{' in line)
    return {agent: max(have(agent), key=lambda p: (p.name.split("-")[1], calls(p), p.stat().st_size))
            for agent in TESTS}


def claude_round(lines):
    """Indexes of the tool call with the largest result: its tool_use, tool_result and request part."""
    parsed = [json.loads(line) for line in lines]
    results = {}
    for i, v in enumerate(parsed):
        content = v.get("message", {}).get("content")
        if v.get("type") == "user" and isinstance(content, list):
            for b in content:
                if b.get("type") == "tool_result":
                    results[b["tool_use_id"]] = i
    best = max(results, key=lambda k: len(lines[results[k]]))
    has = lambda v, key, kind: any(b.get("type") == kind and b.get(key) == best
                                   for b in v.get("message", {}).get("content") or [] if isinstance(b, dict))
    use = next(i for i, v in enumerate(parsed) if v.get("type") == "assistant" and has(v, "id", "tool_use"))
    blob = [i for i, v in enumerate(parsed) if v.get("type") == "api-request-blob" and has(v, "tool_use_id", "tool_result")]
    return sorted([use, results[best], *blob])


def gemini_round(lines):
    """Indexes of the gemini message with tool calls (as last written) and its tool results."""
    parsed = [json.loads(line) for line in lines]
    call = max((i for i, v in enumerate(parsed) if v.get("type") == "gemini" and v.get("toolCalls")),
               key=lambda i: len(lines[i]))
    ids = {c.get("id") for c in parsed[call]["toolCalls"]}
    answers = [i for i, v in enumerate(parsed) if v.get("type") == "user" and any(
        isinstance(p, dict) and p.get("functionResponse", {}).get("id") in ids for p in v.get("content") or [])]
    return sorted([call, *answers])


def inflate(source, agent, size, out):
    """The record with its tool-call lines repeated in place until it holds `size` bytes."""
    lines = source.read_text().splitlines(keepends=True)
    at = (claude_round if agent == "claude" else gemini_round)(lines)
    group = "".join(lines[i] for i in at)
    base = sum(len(line.encode()) for line in lines)
    times = max(0, (size - base) // len(group.encode()))
    with out.open("w") as f:
        for i, line in enumerate(lines):
            f.write(line)
            if i == at[-1]:
                for _ in range(times):
                    f.write(group)
    return len(lines) + times * len(at)


def home_for(agent, record, home):
    """An agent home holding only `record`, where the agent writes it."""
    if agent == "claude":
        path = home / ".claude/projects/-bench" / "bench.jsonl"
    else:
        path = home / ".gemini/tmp/bench/chats" / "session-bench.jsonl"
    path.parent.mkdir(parents=True)
    shutil.move(record, path)
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1,32,256", help="MB (10^6 bytes), comma-separated")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--records", default=str(ROOT / "target/bench-records"))
    ap.add_argument("--bin")
    ap.add_argument("--before", help="another build to measure beside, such as the merge base's")
    args = ap.parse_args()
    exe = binary(args.bin)
    sources = real_records(Path(args.records))
    work, env = example_repo()
    print(f"{'agent':7} {'size':>7} {'lines':>8} {'side':14} {'median wall':>12} {'MB/s':>6} "
          f"{'ratio to jq':>11} {'peak RSS':>10}")
    try:
        for agent, source in sources.items():
            for mb in (int(s) for s in args.sizes.split(",")):
                home = Path(tempfile.mkdtemp(prefix=f"prompt-receipt-{agent}-home-"))
                try:
                    tmp = home / "record.jsonl"
                    n = inflate(source, agent, mb * 1_000_000, tmp)
                    record = home_for(agent, tmp, home)
                    ours = [exe, "--agent", agent, "--prompt-file", ".github/codex/prompts/review.md",
                            "--agent-version", source.name.split("-")[1], "--model", "m",
                            "--agent-home", str(home), "--fail-on", "never"]
                    sides = {"prompt-receipt": [ours], "jq -c .": [["jq", "-c", ".", str(record)]],
                             "sha256sum": [["sha256sum", str(record)]]}
                    if args.before:
                        sides["before"] = [[str(Path(args.before).resolve()), *ours[1:]]]
                    fresh = lambda: (work / "usage.json").unlink(missing_ok=True)
                    rows = measure(sides, args.runs, work, env, before=fresh, ok=(0, 1), peak_runs=1)
                    size = record.stat().st_size
                    jq = statistics.median(rows["jq -c ."][0])
                    for name, (walls, peak) in rows.items():
                        med = statistics.median(walls)
                        print(f"{agent:7} {size / 1e6:6.0f}M {n:8} {name:14} {med * 1000:9.0f} ms "
                              f"{size / med / 1e6:6.0f} {med / jq:11.3f} {peak / 1024:7.1f} MiB", flush=True)
                finally:
                    shutil.rmtree(home, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
