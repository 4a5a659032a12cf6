#!/usr/bin/env bash
# Builds the committed Dockerfile, as it is, with podman (no registry: the base
# images are made locally by engine.sh), and names the image. The context is
# the committed tree (`git archive HEAD`), as a clean clone has it: edits not
# yet committed are not built, and cannot change under a running build.
#
#   bash tests/image/build.sh [IMAGE]     (root; default prompt-receipt:test)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/tests/image/engine.sh"
image="${1:-prompt-receipt:test}"
context="$(mktemp -d)"
trap 'rm -rf "$context"' EXIT
git -C "$root" archive HEAD | tar -x -C "$context"
echo "== podman build --pull=never -t $image (the committed tree, $(git -C "$root" rev-parse --short HEAD))"
start=$(date +%s)
podman build --pull=never -t "$image" "$context" > "$cache/build.log" 2>&1 \
  || { tail -30 "$cache/build.log"; engine_fail "the Dockerfile did not build (log: $cache/build.log)"; }
echo "== built $image in $(( $(date +%s) - start )) s: $(podman image inspect "$image" --format '{{.Size}}') bytes"
