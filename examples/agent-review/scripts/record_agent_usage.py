# The seed recipe's script, verbatim: what prompt-receipt replaces. Kept so the
# tests and the benchmark can compare the two on the same repository.
import hashlib
import json
import subprocess
from pathlib import Path


def sha256_file(path: Path) -> str:
    with path.open("rb") as stream:
        return hashlib.file_digest(stream, "sha256").hexdigest()


prompt_path = Path(".github/codex/prompts/review.md")
tools_path = Path(".agent/tools.json")
usage_path = Path("usage.json")

usage = json.loads(usage_path.read_text()) if usage_path.exists() else {}
usage.update({
    "prompt_path": str(prompt_path),
    "prompt_sha": sha256_file(prompt_path),
    "tools_sha": sha256_file(tools_path) if tools_path.exists() else None,
    "git_describe": subprocess.check_output(
        ["git", "describe", "--tags", "--always", "--dirty"],
        text=True,
    ).strip(),
    "git_sha": subprocess.check_output(
        ["git", "rev-parse", "HEAD"], text=True
    ).strip(),
})
usage_path.write_text(json.dumps(usage, indent=2, sort_keys=True) + "\n")
