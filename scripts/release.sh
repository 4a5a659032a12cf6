#!/usr/bin/env bash
# The git half of a release, as release.yml runs it once the image is pushed,
# and as a dry run anywhere (without --push):
#   1. a commit whose action.yml pulls the image by digest (scripts/pin-image.sh);
#   2. a commit whose receipt.yml runs the action of the first
#      (scripts/pin-receipt-workflow.sh: a file cannot name its own commit),
#      tagged <tag>, and the major tag moved to it;
#   3. a branch off where it started, release/<tag>-pins, whose README, docs
#      and examples name the tag's commit and the digest
#      (scripts/release-pins.sh), for a pull request: main keeps
#      `image: Dockerfile`.
# With --push, the tags and the branch are pushed to origin.
#
#   scripts/release.sh <vX.Y.Z> <sha256:digest> <ghcr.io/owner/name> [--push]
set -euo pipefail
usage="usage: scripts/release.sh <vX.Y.Z> <sha256:digest> <image repository> [--push]"
tag=${1:?$usage}
digest=${2:?$usage}
image=${3:?$usage}
push=${4:-}
[[ "$tag" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "release: '$tag' is not a release tag (vX.Y.Z)" >&2; exit 2; }
[[ -z "$push" || "$push" == --push ]] || { echo "$usage" >&2; exit 2; }
cd "$(dirname "$0")/.."
[ -z "$(git status --porcelain)" ] || { echo "release: the checkout has changes; release from a clean one" >&2; exit 2; }
! git rev-parse -q --verify "refs/tags/$tag" >/dev/null || { echo "release: $tag exists already" >&2; exit 2; }
start=$(git rev-parse HEAD)
scripts/pin-image.sh "$digest" action.yml "$image"
git commit --quiet -m "Release $tag: action.yml pulls $image@$digest" action.yml
scripts/pin-receipt-workflow.sh "$(git rev-parse HEAD)" "$tag"
git commit --quiet -m "Release $tag: receipt.yml runs the action of $(git rev-parse --short HEAD)" .github/workflows/receipt.yml
git tag -a "$tag" -m "$tag"
major="${tag%%.*}"
git tag --force "$major" "$tag^{commit}" >/dev/null
released=$(git rev-parse "$tag^{commit}")
git checkout --quiet -b "release/$tag-pins" "$start"
scripts/release-pins.sh "$released" "$tag" "$digest" . >/dev/null
git commit --quiet -am "Pins: everything names $tag ($released)"
if [ "$push" = --push ]; then
  git push origin "refs/tags/$tag"
  git push --force origin "refs/tags/$major"
  git push origin "HEAD:refs/heads/release/$tag-pins"
fi
echo "released=$released"
