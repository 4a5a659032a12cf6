#!/usr/bin/env bash
# Moves every pin of prompt-receipt's own commits forward, before its first
# release (docs/pins.md): receipt.yml's step to the newest commit that changed
# the action (what the image is built from), then the README's, the docs' and
# the examples' pins of the action, collect and receipt.yml to the commit that
# makes. Two commits; `tests/it/pins.rs` checks the result.
#
#   bash scripts/repin.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[ -z "$(git status --porcelain)" ] || { echo "repin: commit or stash your changes first" >&2; exit 1; }
action=$(git log -1 --format=%H -- src action.yml Dockerfile .dockerignore Cargo.toml Cargo.lock)
sed -i -E "s#prompt-receipt/prompt-receipt@[0-9a-f]{40}#prompt-receipt/prompt-receipt@$action#" .github/workflows/receipt.yml
if ! git diff --quiet; then
  git commit -qam "receipt.yml runs the action of $action"
fi
workflows=$(git log -1 --format=%H -- .github/workflows/receipt.yml collect)
files=(README.md docs/*.md examples/*/.github/workflows/*.yml)
sed -i -E \
  -e "s#prompt-receipt/prompt-receipt/collect@[0-9a-f]{40}#prompt-receipt/prompt-receipt/collect@$workflows#g" \
  -e "s#prompt-receipt/prompt-receipt/\.github/workflows/receipt\.yml@[0-9a-f]{40}#prompt-receipt/prompt-receipt/.github/workflows/receipt.yml@$workflows#g" \
  -e "s#prompt-receipt/prompt-receipt@[0-9a-f]{40}#prompt-receipt/prompt-receipt@$action#g" \
  "${files[@]}"
if ! git diff --quiet; then
  git commit -qam "Pins: the action at ${action:0:7}, collect and receipt.yml at ${workflows:0:7}"
fi
echo "action $action, collect and receipt.yml $workflows"
