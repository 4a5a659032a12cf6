# Built from source in every job that uses the action: keep the build lean.
# Both stages are Debian 12 (bookworm), so the binary links the glibc it runs on.
FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY src ./src
RUN cargo build --release --locked && cp target/release/prompt-receipt /usr/local/bin/

FROM debian:bookworm-slim
# git: the checkout's identity. ca-certificates: TLS to the GitHub API.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/local/bin/prompt-receipt /usr/local/bin/prompt-receipt
ENTRYPOINT ["/usr/local/bin/prompt-receipt"]
