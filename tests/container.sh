#!/usr/bin/env bash
# The runtime image, proven without Docker.
#
# Rebuilds the Dockerfile's runtime stage as a root filesystem (debootstrap of
# the same Debian release, with the same packages), copies the release binary
# in as the build stage would, and runs it the way the Actions runner runs the
# container: as root, the workspace bind-mounted at /github/workspace and owned
# by uid 1001, /github/file_commands, /github/workflow/event.json,
# /github/home as HOME, /github/runner_temp, and inputs only as INPUT_*
# variables. Then it checks the receipt, the outputs and the summary.
#
#   tests/container.sh            (root; .ci/run runs it)
#
# The root filesystem is cached in $PROMPT_RECEIPT_ROOTFS_CACHE
# (default /var/cache/prompt-receipt) and reused while the Dockerfile's release
# and packages are unchanged.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
fail() { echo "container test: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root (chroot and bind mounts), as the runner's container does"

# What the Dockerfile's runtime stage is made of.
runtime_from=$(grep '^FROM ' "$root/Dockerfile" | tail -1 | awk '{print $2}')
release=$(echo "$runtime_from" | sed -E 's/^debian:([a-z]+).*/\1/')
[ "$release" != "$runtime_from" ] || fail "the runtime stage is not a debian image: $runtime_from"
packages=$(sed -n '/^FROM debian/,$p' "$root/Dockerfile" | grep -o 'no-install-recommends[^&]*' | sed 's/no-install-recommends//' | tr -d '\\' | xargs)
build_from=$(grep '^FROM ' "$root/Dockerfile" | head -1 | awk '{print $2}')
echo "runtime stage: $runtime_from (Debian $release) with: $packages; build stage: $build_from"
case "$build_from" in *"$release"*) ;; *) fail "build stage $build_from is not on Debian $release: the C libraries would differ";; esac

cache="${PROMPT_RECEIPT_ROOTFS_CACHE:-/var/cache/prompt-receipt}"
rootfs="$cache/rootfs-$release-$(echo "$packages" | tr ' ' '-')"
if [ ! -x "$rootfs/usr/bin/git" ]; then
  command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null; }
  mkdir -p "$cache"
  rm -rf "$rootfs.tmp"
  echo "building $rootfs (debootstrap, a few minutes; cached afterwards)"
  debootstrap --variant=minbase --include="$(echo "$packages" | tr ' ' ',')" "$release" "$rootfs.tmp" http://deb.debian.org/debian >"$cache/debootstrap.log" 2>&1 \
    || { tail -20 "$cache/debootstrap.log"; fail "debootstrap failed"; }
  mv "$rootfs.tmp" "$rootfs"
fi

# The build stage's product: the release binary, built with --locked.
cargo build --release --locked --quiet --manifest-path "$root/Cargo.toml"
bin="$root/target/release/prompt-receipt"

# The C library: the binary's newest required glibc symbol must exist in the runtime.
runtime_glibc=$(chroot "$rootfs" /usr/bin/ldd --version | awk 'NR==1{print $NF}')
needed_glibc=$(objdump -T "$bin" | grep -oE 'GLIBC_[0-9]+\.[0-9]+' | sort -t. -k2 -n -u | tail -1 | cut -d_ -f2)
host_glibc=$(ldd --version | awk 'NR==1{print $NF}')
echo "glibc: runtime $runtime_glibc, built against $host_glibc, binary needs at most $needed_glibc"
[ "$(printf '%s\n%s\n' "$needed_glibc" "$runtime_glibc" | sort -V | tail -1)" = "$runtime_glibc" ] \
  || fail "the binary needs glibc $needed_glibc but the runtime has $runtime_glibc"
install -m 0755 "$bin" "$rootfs/usr/local/bin/prompt-receipt"

# A workspace as actions/checkout leaves it: the example, committed and tagged, owned by uid 1001.
host="$(mktemp -d)"
trap 'umount -R "$rootfs/github" 2>/dev/null || true; rm -rf "$host"' EXIT
ws="$host/workspace"
mkdir -p "$ws" "$host/file_commands" "$host/workflow" "$host/home" "$host/runner_temp"
cp -R "$root/examples/agent-review/." "$ws/"
g() { git -C "$ws" -c user.name=ci -c user.email=ci@example.com -c commit.gpgsign=false -c tag.gpgsign=false "$@"; }
g init -q -b main && g add -A && g commit -q -m example && g tag -a v1.4.0 -m v1.4.0
head_sha=$(g rev-parse HEAD)
chown -R 1001:1001 "$ws"
: > "$host/file_commands/set_output"
: > "$host/file_commands/step_summary"
printf '{"pull_request": {"number": 1, "head": {"sha": "%s"}}}\n' "$head_sha" > "$host/workflow/event.json"

# Every declared input, with its default, as the runner passes them.
declare -a inputs=()
while IFS='|' read -r name default; do
  case "$name" in
    prompt-file) value=.github/codex/prompts/review.md ;;
    codex-version) value=0.169.0 ;;
    model) value=gpt-5.5 ;;
    github-token) value=ghs_container_test_token ;;
    *) value="$default" ;;
  esac
  inputs+=("INPUT_$(echo "$name" | tr '[:lower:] ' '[:upper:]_')=$value")
done < <(awk '/^inputs:/{on=1; next} /^[a-z]/{on=0} on && /^  [a-z-]+:$/{if (n) print n "|" d; n=substr($1,1,length($1)-1); d=""} on && /^    default:/{sub(/^    default: */,""); gsub(/"/,""); d=$0} END{if (n) print n "|" d}' "$root/action.yml")
[ "${#inputs[@]}" -gt 10 ] || fail "could not read the inputs of action.yml"

mkdir -p "$rootfs/github/workspace" "$rootfs/github/file_commands" "$rootfs/github/workflow" "$rootfs/github/home" "$rootfs/github/runner_temp"
run_in_container() {
  unshare --mount --propagation private bash -c '
    set -e
    r="$1"; h="$2"; shift 2
    mount --bind "$h/workspace" "$r/github/workspace"
    mount --bind "$h/file_commands" "$r/github/file_commands"
    mount --bind "$h/workflow" "$r/github/workflow"
    mount --bind "$h/home" "$r/github/home"
    mount --bind "$h/runner_temp" "$r/github/runner_temp"
    # No shell in between: a shell drops variables like INPUT_PROMPT-FILE.
    exec chroot "$r" /usr/bin/env -i -C /github/workspace "$@" /usr/local/bin/prompt-receipt
  ' _ "$rootfs" "$host" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/github/home \
    GITHUB_ACTIONS=true CI=true GITHUB_WORKSPACE=/github/workspace \
    GITHUB_OUTPUT=/github/file_commands/set_output GITHUB_STEP_SUMMARY=/github/file_commands/step_summary \
    GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH=/github/workflow/event.json \
    RUNNER_TEMP=/github/runner_temp "${inputs[@]}"
}
set +e
run_in_container > "$host/stdout" 2> "$host/stderr"
code=$?
set -e
cat "$host/stdout"

# What the next steps of the job rely on.
check() { "$@" || { echo "--- stderr"; cat "$host/stderr"; fail "check failed: $*"; }; }
check test "$code" = 0
usage="$ws/usage.json"
check test -f "$usage"
check test "$(stat -c %u "$usage")" = 1001
prompt_sha=$(sha256sum "$ws/.github/codex/prompts/review.md" | cut -d' ' -f1)
check grep -q "\"prompt_sha\": \"$prompt_sha\"" "$usage"
check grep -q '"git_describe": "v1.4.0"' "$usage"
check grep -q "\"git_sha\": \"$head_sha\"" "$usage"
check grep -q '"git_shallow": false' "$usage"
check grep -q '"verified": true' "$usage"
check grep -q "^prompt-sha<<ghadelimiter_" "$host/file_commands/set_output"
check grep -qx "$prompt_sha" "$host/file_commands/set_output"
check grep -q "^conclusion<<" "$host/file_commands/set_output"
check grep -q "Agent review receipt: prompt ${prompt_sha:0:7} · verified · valid · 2 findings" "$host/file_commands/step_summary"
check test -f "$ws/usage.intoto.json"
if grep -q ghs_container_test_token "$host/stdout" "$host/stderr" "$host/file_commands/step_summary"; then fail "the token leaked"; fi
echo "container test: passed (Debian $release rootfs, glibc $runtime_glibc, receipt owned by uid 1001)"
