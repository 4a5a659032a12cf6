#!/usr/bin/env bash
# Runs the action's main job on the bundled example, locally, no GitHub needed:
# the example is committed into a git repository under target/demo (as
# actions/checkout would leave it), then prompt-receipt records, verifies and
# reports the run. The folder stays, with its usage.json, for you to read.
#
#   scripts/demo.sh            # mode run: verify, record, verify; prints the summary
#   scripts/demo.sh --mode record
set -euo pipefail
source "$(dirname "$0")/example-repo.sh"

echo "== prompt-receipt on examples/agent-review (committed in $work)"
set +e
"$bin" --workspace "$work" \
  --prompt-file .github/codex/prompts/review.md \
  --output-file artifacts/review.json \
  --output-schema-file .github/codex/review.schema.json \
  --codex-version 0.169.0 --model gpt-5.5 "$@"
code=$?
set -e
echo "== usage.json"
cat "$work/usage.json"
echo "== exit code $code; the example repository and its receipt are in $work"
exit "$code"
