#!/usr/bin/env bash
# Points the reusable receipt workflow's prompt-receipt step at a commit, for a
# release: receipt.yml cannot name the commit that contains it, so a release
# makes two commits. The first pins action.yml's image by digest
# (scripts/pin-image.sh); this script makes receipt.yml's step use that first
# commit, and the second commit, which holds both, is the one tagged. Users pin
# the tag's commit for collect and receipt.yml; its step runs the first
# commit's action.yml, which is the same file.
#
#   scripts/pin-receipt-workflow.sh <40-hex commit> <tag> [.github/workflows/receipt.yml]
set -euo pipefail
commit=${1:?usage: scripts/pin-receipt-workflow.sh <commit> <tag> [receipt.yml]}
tag=${2:?usage: scripts/pin-receipt-workflow.sh <commit> <tag> [receipt.yml]}
file=${3:-.github/workflows/receipt.yml}
[[ "$commit" =~ ^[0-9a-f]{40}$ ]] || { echo "pin-receipt-workflow: '$commit' is not a full commit SHA (40 hex digits)" >&2; exit 2; }
[[ "$tag" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "pin-receipt-workflow: '$tag' is not a release tag (vX.Y.Z)" >&2; exit 2; }
pattern='^        uses: prompt-receipt/prompt-receipt@[0-9a-f]{40} # .*$'
count=$(grep -cE "$pattern" "$file" || true)
[ "$count" = 1 ] || { echo "pin-receipt-workflow: $file must have exactly one prompt-receipt step pinned by commit (found $count)" >&2; exit 2; }
tmp=$(mktemp "$file.XXXXXX")
sed -E "s|^        uses: prompt-receipt/prompt-receipt@[0-9a-f]{40} # .*\$|        uses: prompt-receipt/prompt-receipt@$commit # $tag|" "$file" > "$tmp"
chmod --reference="$file" "$tmp"
mv "$tmp" "$file"
