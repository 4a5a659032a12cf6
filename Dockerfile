# The action's image. Releases publish it and pin action.yml to its digest, so
# users pull it; `uses: ./` and forks build it from this file. Plain Dockerfile
# syntax only: GitHub's runner, podman and act all build it as it is.
# Every stage is Debian 12 (bookworm): the binary links the glibc it runs on,
# and git is Debian's own build.

FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
# The dependencies first, in a layer of their own: a change to src/ rebuilds
# only this crate.
COPY Cargo.toml Cargo.lock ./
RUN mkdir src && echo 'fn main() {}' > src/main.rs && touch src/lib.rs \
 && cargo build --release --locked && rm -rf src
COPY src ./src
# COPY keeps the files' times; touch them so cargo sees them newer than the stubs.
RUN touch src/main.rs src/lib.rs && cargo build --release --locked \
 && cp target/release/prompt-receipt /usr/local/bin/

# git (the checkout's identity) and the CA bundle (TLS to the GitHub API) from
# Debian's packages. The runtime takes only the files it runs: `git describe`
# and `git rev-parse` are built into the git binary, which links only libc,
# zlib and PCRE2 (all in the base); git's helpers, Perl, the docs and the
# OpenSSL tools stay behind.
FROM debian:bookworm-slim AS packages
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates \
 && rm -rf /var/lib/apt/lists/*

FROM debian:bookworm-slim
COPY --from=packages /usr/bin/git /usr/bin/git
COPY --from=packages /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /usr/local/bin/prompt-receipt /usr/local/bin/prompt-receipt
ENTRYPOINT ["/usr/local/bin/prompt-receipt"]
