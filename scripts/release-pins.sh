#!/usr/bin/env bash
# Points every pin of prompt-receipt's own commits that users copy (the
# README, docs/ and the examples) at one released commit: the action, collect
# and receipt.yml, each `@<commit> # <tag>`, and the README's `docker://` step
# at the release's image digest. release.yml runs it on main after tagging,
# so that main's README names the release; `tests/it/pins.rs` checks that the
# pins agree with each other.
#
#   scripts/release-pins.sh <40-hex commit> <tag> <sha256:digest> [root]
set -euo pipefail
usage="usage: scripts/release-pins.sh <commit> <tag> <sha256:digest> [root]"
commit=${1:?$usage}
tag=${2:?$usage}
digest=${3:?$usage}
root=${4:-$(dirname "$0")/..}
[[ "$commit" =~ ^[0-9a-f]{40}$ ]] || { echo "release-pins: '$commit' is not a full commit SHA (40 hex digits)" >&2; exit 2; }
[[ "$tag" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "release-pins: '$tag' is not a release tag (vX.Y.Z)" >&2; exit 2; }
[[ "$digest" =~ ^sha256:[0-9a-f]{64}$ ]] || { echo "release-pins: '$digest' is not an image digest (sha256: and 64 hex digits)" >&2; exit 2; }
cd "$root"
files=(README.md docs/*.md examples/*/.github/workflows/*.yml)
# The pin and its comment up to the end of the line: `# main: no release
# yet (docs/pins.md)` or an earlier `# v1.2.3` becomes `# <tag>`.
sed -i -E \
  -e "s#(prompt-receipt/prompt-receipt(/collect|/\.github/workflows/receipt\.yml)?)@[0-9a-f]{40}( +\# [^\"]*)?\$#\1@$commit \# $tag#" \
  -e "s#(prompt-receipt/prompt-receipt(/collect|/\.github/workflows/receipt\.yml)?)@[0-9a-f]{40}#\1@$commit#g" \
  -e "s#(docker://ghcr\.io/prompt-receipt/prompt-receipt)@sha256:[^ ]+( +\# [^\"]*)?\$#\1@$digest \# $tag#" \
  "${files[@]}"
echo "release-pins: ${#files[@]} files name $commit ($tag)"
