#!/usr/bin/env bash
# Compares the v3 and v4 prompts locally on the bundled example, as the
# compare workflow does in CI: both "runs" review the same frozen fixture
# (fixtures/pr-42.diff); their outputs are the example's review.v3.json and
# review.v4.json. No agent or GitHub needed.
set -euo pipefail
DEMO_NAME=compare-demo
source "$(dirname "$0")/example-repo.sh"

for rev in v3 v4; do
  "$bin" --workspace "$work" --mode record \
    --prompt-file ".github/codex/prompts/review.$rev.md" \
    --output-file "artifacts/review.$rev.json" \
    --fixture-file fixtures/pr-42.diff \
    --usage-file "runs/$rev/usage.json" \
    --codex-version 0.169.0 --model gpt-5.5 > /dev/null
done

echo "== compare v3 (base) with v4 (head)"
set +e
"$bin" --workspace "$work" --mode compare \
  --base-usage-file runs/v3/usage.json --base-output-file artifacts/review.v3.json \
  --usage-file runs/v4/usage.json --output-file artifacts/review.v4.json "$@"
code=$?
echo "== exit code $code; both runs' receipts are in $work/runs"
exit "$code"
