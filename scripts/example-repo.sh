# Sourced by the demo scripts: builds the release binary ($bin) and commits the
# bundled example into a throwaway git repository ($work), tagged v1.4.0, as
# actions/checkout would leave it. The repository is removed on exit.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cargo build --release --locked --quiet --manifest-path "$root/Cargo.toml"
bin="$root/target/release/prompt-receipt"
work="$(mktemp -d "${TMPDIR:-/tmp}/prompt-receipt-demo.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cp -R "$root/examples/agent-review/." "$work/"
example_git() { command git -C "$work" -c user.name=demo -c user.email=demo@example.com -c commit.gpgsign=false -c tag.gpgsign=false "$@"; }
example_git init -q -b main
example_git add -A
example_git commit -q -m "Agent review example"
example_git tag -a v1.4.0 -m v1.4.0
