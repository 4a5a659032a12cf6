# The seed recipe's "Verify recorded SHA" step, verbatim.
import hashlib, json
from pathlib import Path

prompt = Path(".github/codex/prompts/review.md")
with prompt.open("rb") as stream:
    actual = hashlib.file_digest(stream, "sha256").hexdigest()
recorded = json.loads(Path("usage.json").read_text())["prompt_sha"]
assert recorded == actual, (recorded, actual)
