#!/usr/bin/env bash
# Builds the committed Dockerfile, as it is, with podman (no registry: the base
# images are made locally by engine.sh), and names the image.
#
#   bash tests/image/build.sh [IMAGE]     (root; default prompt-receipt:test)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/tests/image/engine.sh"
image="${1:-prompt-receipt:test}"
echo "== podman build --pull=never -t $image $root"
start=$(date +%s)
podman build --pull=never -t "$image" "$root" > "$cache/build.log" 2>&1 \
  || { tail -30 "$cache/build.log"; engine_fail "the Dockerfile did not build (log: $cache/build.log)"; }
echo "== built $image in $(( $(date +%s) - start )) s: $(podman image inspect "$image" --format '{{.Size}}') bytes"
