#!/usr/bin/env bash
# A real container engine for the image tests: Debian's podman with runc, the
# two settings this kind of machine needs, and the base images the Dockerfile
# names, made locally (no registry is reachable): debian:bookworm-slim from
# debootstrap, rust:1.95-slim-bookworm from it plus the host's Rust toolchain,
# laid out as the official image lays it out.
#
#   source tests/image/engine.sh     (root; .ci/run does)
#
# Exports CONTAINERS_CONF. Caches the root filesystem and the images in
# $PROMPT_RECEIPT_CACHE (default /var/cache/prompt-receipt) and podman's store.
# Fails, saying why, when podman cannot run a container.
set -euo pipefail

engine_fail() { printf 'image test: %s\n' "$*" >&2; exit 1; }
cache="${PROMPT_RECEIPT_CACHE:-/var/cache/prompt-receipt}"
mkdir -p "$cache/podman"

need_packages=()
for tool in podman runc debootstrap fuse-overlayfs slirp4netns newuidmap; do
  command -v "$tool" >/dev/null 2>&1 || need_packages+=("$tool")
done
if [ "${#need_packages[@]}" -gt 0 ]; then
  echo "== installing podman and its helpers (apt-get)"
  apt-get update -qq >/dev/null \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
       podman runc fuse-overlayfs uidmap slirp4netns debootstrap >/dev/null \
    || engine_fail "apt-get could not install podman runc fuse-overlayfs uidmap slirp4netns debootstrap"
fi

# Without default_ulimits = [] container start fails here (the machine does not
# grant raising limits); crun does not work with this cgroup setup, runc does.
cat > "$cache/podman/containers.conf" <<'EOF'
[containers]
default_ulimits = []
[engine]
runtime = "runc"
EOF
export CONTAINERS_CONF="$cache/podman/containers.conf"

image_exists() { podman image exists "$1"; }

debian=docker.io/library/debian:bookworm-slim
if ! image_exists "$debian"; then
  debian_root="$cache/bookworm-root"
  if [ ! -x "$debian_root/usr/bin/apt-get" ]; then
    echo "== making $debian: debootstrap bookworm (about a minute)"
    rm -rf "$debian_root.tmp"
    debootstrap --variant=minbase bookworm "$debian_root.tmp" http://deb.debian.org/debian \
      > "$cache/debootstrap.log" 2>&1 || { tail -20 "$cache/debootstrap.log"; engine_fail "debootstrap failed"; }
    rm -rf "$debian_root.tmp"/var/cache/apt/archives/*.deb "$debian_root.tmp"/var/lib/apt/lists/*_*
    mv "$debian_root.tmp" "$debian_root"
  fi
  tar -C "$debian_root" -c . | podman import - "$debian" >/dev/null || engine_fail "podman import of $debian failed"
fi

# The engine must run containers; say so plainly if it cannot.
podman run --rm --network none "$debian" true 2>"$cache/podman/run.err" \
  || { cat "$cache/podman/run.err" >&2; engine_fail "podman cannot run a container here (see above); the image test needs a working podman (../shared/reference/podman.md)"; }

rust=docker.io/library/rust:1.95-slim-bookworm
if ! image_exists "$rust"; then
  toolchain="$(rustup toolchain list -v | awk '/\(default\)|\(active/ {print $NF; exit}')"
  [ -x "$toolchain/bin/cargo" ] || engine_fail "no Rust toolchain found to lay out as $rust (rustup toolchain list -v)"
  ctx="$cache/rust-image"
  rm -rf "$ctx" && mkdir -p "$ctx/ca"
  cp "$(command -v rustup)" "$ctx/rustup"
  # A host that trusts extra CAs (a proxy to crates.io) needs them in the image too.
  cp /usr/local/share/ca-certificates/*.crt "$ctx/ca/" 2>/dev/null || true
  cat > "$ctx/Containerfile" <<'EOF'
FROM docker.io/library/debian:bookworm-slim
ENV RUSTUP_HOME=/usr/local/rustup CARGO_HOME=/usr/local/cargo PATH=/usr/local/cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin RUST_VERSION=1.95.0
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates gcc libc6-dev && rm -rf /var/lib/apt/lists/*
COPY ca/ /usr/local/share/ca-certificates/
COPY rustup /usr/local/cargo/bin/rustup
RUN update-ca-certificates \
 && t=/usr/local/rustup/toolchains/1.95.0-x86_64-unknown-linux-gnu && mkdir -p $t \
 && cd /toolchain && cp -a bin lib libexec etc $t/ 2>/dev/null; \
    printf 'version = "12"\ndefault_toolchain = "1.95.0-x86_64-unknown-linux-gnu"\nprofile = "minimal"\n' > /usr/local/rustup/settings.toml \
 && for p in cargo rustc rustdoc; do ln -s rustup /usr/local/cargo/bin/$p; done \
 && chmod -R a+w /usr/local/rustup /usr/local/cargo && cargo --version
EOF
  echo "== making $rust from the host's toolchain"
  podman build --pull=never -v "$toolchain:/toolchain:ro" -t "$rust" "$ctx" > "$cache/rust-image.log" 2>&1 \
    || { tail -20 "$cache/rust-image.log"; engine_fail "could not make $rust"; }
fi
echo "== podman ready: $(podman --version), bases $debian and $rust"
