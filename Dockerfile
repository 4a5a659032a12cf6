# The action's image. Releases publish it and pin action.yml to its digest, so
# users pull it; `uses: ./` and forks build it from this file. Plain Dockerfile
# syntax only: GitHub's runner, podman and act all build it as it is.
# The build stages are Debian 12 (bookworm): the binary links the glibc it
# runs on, and git is Debian's own build. The image itself starts from nothing
# (`scratch`) and holds only the files those two programs open: every pull
# pays for its size, and a Debian base was most of it (121 of 140 MB).
# A static musl binary would need no libraries at all, but its allocator made
# it up to 1.5x slower, for 1 MB less (issue 42).

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
# Debian's packages, and the image's whole tree laid out in /image:
# - git's one binary: every command the receipt runs (describe, rev-parse,
#   diff, ls-files, ls-tree, cat-file, merge-base, config) is built into it,
#   so git's helpers in /usr/lib/git-core, Perl and /usr/share stay behind;
# - the shared libraries git and the binary link, as `ldd` names them (libc,
#   libm, libgcc_s, zlib, PCRE2) and the dynamic loader, at the paths the
#   loader looks in: found, not listed, so the arm64 build takes its own;
# - the CA bundle, where rustls looks for the system's roots;
# - /etc/nsswitch.conf with Debian's `hosts: files dns`: without the file,
#   glibc asks DNS before /etc/hosts, and an address the runner puts in
#   /etc/hosts (a GitHub Enterprise Server's) would resolve differently than
#   on a Debian base (name lookup itself is in libc since glibc 2.34);
# - /tmp, writable by all as on any system: the receipt writes beside its own
#   files, but a program that looks for a temp folder finds one.
# No /etc/passwd: git runs with an empty environment and no global config
# (src/git.rs), takes `safe.directory` on its command line, and the commands
# above never look up a user. No shell: the entrypoint is the binary.
# Last, both programs start inside the tree they will run in: a library left
# out fails the build here, not a user's job. git opens /dev/null before
# anything else, which the engine mounts at run time; for the check a plain
# file stands in, and goes.
FROM debian:bookworm-slim AS packages
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/local/bin/prompt-receipt /usr/local/bin/prompt-receipt
RUN mkdir -p /image/usr/bin /image/usr/local/bin /image/etc/ssl/certs /image/tmp \
 && chmod 1777 /image/tmp \
 && cp /usr/bin/git /image/usr/bin/git \
 && cp /usr/local/bin/prompt-receipt /image/usr/local/bin/prompt-receipt \
 && cp /etc/ssl/certs/ca-certificates.crt /image/etc/ssl/certs/ca-certificates.crt \
 && printf 'hosts: files dns\n' > /image/etc/nsswitch.conf \
 && ldd /usr/bin/git > /linked && ldd /usr/local/bin/prompt-receipt >> /linked \
 && for library in $(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' /linked | sort -u); do \
      cp -L --parents "$library" /image || exit 1; \
    done \
 && rm /linked \
 && mkdir /image/dev && touch /image/dev/null \
 && chroot /image /usr/bin/git --version \
 && chroot /image /usr/local/bin/prompt-receipt --version \
 && rm -r /image/dev

FROM scratch
COPY --from=packages /image/ /
# scratch sets no PATH; the binary finds git on it.
ENV PATH=/usr/local/bin:/usr/bin
ENTRYPOINT ["/usr/local/bin/prompt-receipt"]
