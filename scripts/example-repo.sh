# Sourced by the demo scripts: builds the release binary ($bin) and commits the
# bundled example into a git repository ($work, under target/), tagged v1.4.0,
# as actions/checkout would leave it. The folder is kept after the run, so the
# receipt can be read; each run starts it afresh.
#
# PROMPT_RECEIPT_BIN names a binary already built to run instead (.ci/run
# passes the one from the image it built, so the release build is done once).
# Without it, the binary is cargo's: in CARGO_TARGET_DIR when that is set (or
# the build folder cargo's configuration names), else target/ in the checkout.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -n "${PROMPT_RECEIPT_BIN:-}" ]; then
  [ -x "$PROMPT_RECEIPT_BIN" ] || { echo "PROMPT_RECEIPT_BIN is $PROMPT_RECEIPT_BIN, which is not an executable" >&2; exit 1; }
  bin="$PROMPT_RECEIPT_BIN"
  echo "== using $bin (PROMPT_RECEIPT_BIN)" >&2
else
  echo "== building prompt-receipt (release build: a few minutes the first time, then seconds)" >&2
  cargo build --release --locked --manifest-path "$root/Cargo.toml" >&2
  # Where that build went, as cargo resolves it (CARGO_TARGET_DIR, relative
  # to the current folder, or build.target-dir); the default if it cannot say.
  target_dir="$(cargo metadata --no-deps --format-version 1 --manifest-path "$root/Cargo.toml" 2>/dev/null \
    | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
  bin="${target_dir:-${CARGO_TARGET_DIR:-$root/target}}/release/prompt-receipt"
  [ -x "$bin" ] || { echo "the release build is not at $bin: set PROMPT_RECEIPT_BIN to the prompt-receipt binary to run" >&2; exit 1; }
  echo "== using $bin" >&2
fi
work="$root/target/${DEMO_NAME:-demo}"
rm -rf "$work"
mkdir -p "$work"
cp -R "$root/examples/agent-review/." "$work/"
example_git() { command git -C "$work" -c user.name=demo -c user.email=demo@example.com -c commit.gpgsign=false -c tag.gpgsign=false "$@"; }
example_git init -q -b main
example_git add -A
example_git commit -q -m "Agent review example"
example_git tag -a v1.4.0 -m v1.4.0
