#!/usr/bin/env python3
"""`audit` over 10,000 receipts, beside jq reading the same files.

A folder of 10,000 receipts as downloaded artifacts (`runs/NNNNN/usage.json`),
each the receipt of a real `run` on the example with its prompt hash, model
and chain hash varied every few runs and its file time set one minute apart.
prompt-receipt reads them all, orders them by time and marks each change
(`audit runs --format json`); jq reads the same files and prints the same
fields of each (`jq -c '{agent, codex_version, model, models, prompt_sha,
agents_sha, validation}'`), with no ordering or comparison. Same run, alternating.

    python3 bench/audit.py [--runs N] [--receipts N] [--bin target/release/prompt-receipt]

Goal (issue 30): linear in the number of receipts; the ratio to jq is reported.
"""
import argparse
import json
import os
import shutil
import subprocess

from common import binary, example_repo, measure, table


def receipts(work, env, exe, n):
    """n receipts in work/runs, from one real run's receipt, varied."""
    subprocess.run([exe, "--prompt-file", ".github/codex/prompts/review.md", "--codex-version", "0.169.0",
                    "--model", "gpt-5.5"], cwd=work, env=env, stdout=subprocess.DEVNULL, check=False)
    base = json.loads((work / "usage.json").read_text())
    t0 = 1_796_000_000
    for i in range(n):
        r = dict(base)
        r["prompt_sha"] = f"{i // 7:064x}"          # the prompt changes every 7 runs
        r["model"] = ["gpt-5.5", "o3"][(i // 50) % 2]  # the model every 50
        r["agents_sha"] = f"{i // 300:064x}"       # the chain every 300
        r["output_sha"] = f"{i:064x}"              # each run's own review
        d = work / "runs" / f"{i:05}"
        d.mkdir(parents=True)
        f = d / "usage.json"
        f.write_text(json.dumps(r, indent=2, sort_keys=True) + "\n")
        os.utime(f, (t0 + 60 * i, t0 + 60 * i))
    return sorted(str(p.relative_to(work)) for p in (work / "runs").glob("*/usage.json"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--receipts", type=int, default=10_000)
    ap.add_argument("--bin")
    args = ap.parse_args()
    exe = binary(args.bin)
    jq = shutil.which("jq") or exit("needs jq: apt-get install jq")
    work, env = example_repo()
    try:
        files = receipts(work, env, exe, args.receipts)
        out = subprocess.run([exe, "audit", "runs", "--format", "json"], cwd=work, env=env,
                             capture_output=True, check=True).stdout
        table_ = json.loads(out)
        changes = sum(1 for r in table_["runs"] if r["changed"])
        print(f"{len(table_['runs'])} runs read, {changes} with a change; "
              f"{sum(os.path.getsize(work / f) for f in files) / 1e6:.1f} MB of receipts")
        fields = "{agent, codex_version, model, models, prompt_sha, agents_sha, validation}"
        sides = {
            "prompt-receipt audit": [[exe, "audit", "runs", "--format", "json"]],
            "jq (same files)": [[jq, "-c", fields, *files]],
        }
        rows = measure(sides, args.runs, work, env)
        table(f"audit of {args.receipts:,} receipts", rows, "jq (same files)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
