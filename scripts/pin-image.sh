#!/usr/bin/env bash
# Points action.yml at a published image instead of the Dockerfile, for a
# release commit: `image: Dockerfile` becomes
# `image: docker://ghcr.io/prompt-receipt/prompt-receipt@sha256:<digest>`.
# Nothing else changes; the inputs stay named `with:` inputs, and users pull the
# image instead of compiling it.
#
#   scripts/pin-image.sh sha256:<64 hex> [action.yml] [ghcr.io/owner/repo]
set -euo pipefail
digest=${1:?usage: scripts/pin-image.sh sha256:<digest> [action.yml] [image repository]}
file=${2:-action.yml}
repo=${3:-ghcr.io/prompt-receipt/prompt-receipt}
[[ "$digest" =~ ^sha256:[0-9a-f]{64}$ ]] || { echo "pin-image: '$digest' is not a sha256 digest (sha256:<64 hex digits>)" >&2; exit 2; }
[[ "$repo" =~ ^[a-z0-9.-]+(/[a-z0-9._-]+)+$ ]] || { echo "pin-image: '$repo' is not an image repository (lower case, e.g. ghcr.io/owner/name)" >&2; exit 2; }
count=$(grep -c "^  image: Dockerfile$" "$file" || true)
[ "$count" = 1 ] || { echo "pin-image: $file must have exactly one '  image: Dockerfile' line under runs: (found $count)" >&2; exit 2; }
tmp=$(mktemp "$file.XXXXXX")
sed "s|^  image: Dockerfile\$|  image: docker://$repo@$digest|" "$file" > "$tmp"
chmod --reference="$file" "$tmp"
mv "$tmp" "$file"
