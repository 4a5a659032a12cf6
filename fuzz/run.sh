#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 600), JOBS at a time
# (default: the number of cores), and prints executions and crashes per target.
#
#   fuzz/run.sh [SECONDS] [JOBS]
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`). A crash leaves its input in
# fuzz/artifacts/TARGET/: add it to fuzz/corpus/TARGET/ so tests/it/fuzz_corpus.rs
# replays it from then on.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-600}"
jobs="${2:-$(nproc)}"
targets=(review rollout usage_merge event_payload workflow_lint escapers)
cargo fuzz build --sanitizer none -O
mkdir -p logs
run() {
  local t=$1
  mkdir -p "work/$t"
  # Fresh inputs go to work/; the committed seed corpus stays small.
  cargo fuzz run --sanitizer none -O "$t" "work/$t" "corpus/$t" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 > "logs/$t.log" 2>&1 || true
}
export -f run
export seconds
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run {}'
printf '%-16s %14s %8s\n' target executions crashes
for t in "${targets[@]}"; do
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "logs/$t.log" | grep -o '[0-9]*$' || echo "?")
  [ -n "$execs" ] || execs=$(grep -oE '#[0-9]+' "logs/$t.log" | tail -1 | tr -d '#')
  crashes=$(ls "artifacts/$t" 2>/dev/null | wc -l)
  printf '%-16s %14s %8s\n' "$t" "$execs" "$crashes"
done
