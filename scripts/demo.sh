#!/usr/bin/env bash
# Runs the action's main job on the bundled example, locally, no GitHub needed:
# the example is committed into a throwaway git repository (as actions/checkout
# would leave it), then prompt-receipt records, verifies and reports the run.
#
#   scripts/demo.sh            # mode run: verify, record, verify; prints the summary
#   scripts/demo.sh --mode record
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cargo build --release --locked --quiet --manifest-path "$root/Cargo.toml"
bin="$root/target/release/prompt-receipt"

work="$(mktemp -d "${TMPDIR:-/tmp}/prompt-receipt-demo.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cp -R "$root/examples/agent-review/." "$work/"
git() { command git -C "$work" -c user.name=demo -c user.email=demo@example.com -c commit.gpgsign=false -c tag.gpgsign=false "$@"; }
git init -q -b main
git add -A
git commit -q -m "Agent review example"
git tag -a v1.4.0 -m v1.4.0

echo "== prompt-receipt on examples/agent-review (a copy in $work)"
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
echo "== exit code $code"
exit "$code"
