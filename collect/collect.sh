#!/usr/bin/env bash
# The collect action's one step (collect/action.yml): stage the agent's output
# and its session record, cut down by the filter shipped beside this script,
# in $RUNNER_TEMP/prompt-receipt-collect/<name>, laid out as the receipt reads
# it:
#
#   review.json   the agent's output
#   home/...      the agent home: Codex's sessions/, Claude Code's
#                 .claude/projects/ and execution file, Gemini CLI's tmp/
#                 chats, telemetry and settings, Copilot CLI's
#                 session-state/<id>/events.jsonl, instructions and settings,
#                 opencode's .local/share/opencode/opencode.db (cut down by
#                 opencode/redact.py: SQLite, which jq cannot read) with its
#                 snapshot objects, and its global instructions and settings
#
# Only regular files are read (never a symbolic link the agent left: it could
# point at any file of the runner). Environment: AGENT, AGENT_HOME,
# OUTPUT_FILE, OUTPUT_TEXT, EXECUTION_FILE, WHEN, NAME, and the runner's
# RUNNER_TEMP, GITHUB_ACTION_PATH, GITHUB_OUTPUT.
set -euo pipefail

here="${GITHUB_ACTION_PATH:-$(dirname "$0")}"
fail() { printf '::error title=prompt-receipt collect::%s\n' "$*"; exit 1; }
note() { printf '::notice title=prompt-receipt collect::%s\n' "$*"; }
warn() { printf '::warning title=prompt-receipt collect::%s\n' "$*"; }

case "${AGENT:-}" in
  codex | claude | gemini | copilot | opencode) ;;
  *) fail "input agent is '${AGENT:-}': give codex, claude, gemini, copilot or opencode" ;;
esac
case "${WHEN:-after-agent}" in
  before-agent | after-agent) ;;
  *) fail "input when is '${WHEN}': give before-agent or after-agent" ;;
esac
case "${NAME:-agent-run}" in
  *[!A-Za-z0-9._-]* | '' | .*) fail "input name is '${NAME}': give letters, digits, '.', '_' or '-'" ;;
esac
[ -n "${RUNNER_TEMP:-}" ] || fail "RUNNER_TEMP is not set: run this as a step of a GitHub Actions job"
command -v jq > /dev/null || fail "jq is not installed: GitHub's Ubuntu runners have it; on another runner install jq before this step"

# A regular file, not a link to one.
plain() { [ -f "$1" ] && [ ! -L "$1" ]; }

# Every regular file named like $2 under $1, cut by the filter $3 into $4,
# keeping its path below $1. Prints how many.
redact_tree() {
  local from=$1 pattern=$2 filter=$3 to=$4 count=0 file
  [ -d "$from" ] && [ ! -L "$from" ] || { echo 0; return; }
  while IFS= read -r -d '' file; do
    mkdir -p "$to/$(dirname "$file")"
    jq -nRc -f "$filter" < "$from/$file" > "$to/$file"
    count=$((count + 1))
  done < <(cd "$from" && find . -type f -path "$pattern" -print0)
  echo "$count"
}

gemini_home="${AGENT_HOME:-$HOME/.gemini}"

# Before the agent: Gemini CLI's session record does not keep the system
# instruction; its local telemetry does (prompts not logged). User settings,
# so the repository's .gemini/settings.json stays the one the receipt reads.
if [ "${WHEN:-after-agent}" = before-agent ]; then
  if [ "$AGENT" != gemini ]; then
    note "$AGENT needs nothing before the agent runs: this step did nothing"
    exit 0
  fi
  mkdir -p "$gemini_home"
  settings="$gemini_home/settings.json"
  current='{}'
  if plain "$settings"; then current=$(cat "$settings"); fi
  printf '%s' "$current" | jq --arg out "$gemini_home/telemetry.log" \
    '. + {telemetry: ((.telemetry // {}) + {enabled: true, target: "local", outfile: $out, logPrompts: false})}' \
    > "$settings.new" || fail "$settings is not JSON: fix it, or remove it before this step"
  mv "$settings.new" "$settings"
  note "Gemini CLI's local telemetry is on ($gemini_home/telemetry.log): the receipt reads the system instruction from it"
  exit 0
fi

out="$RUNNER_TEMP/prompt-receipt-collect/${NAME:-agent-run}"
rm -rf "$out"
mkdir -p "$out/home"

# The output.
review="$out/review.json"
if [ -n "${OUTPUT_FILE:-}" ]; then
  if plain "$OUTPUT_FILE"; then cp -- "$OUTPUT_FILE" "$review"
  else warn "output-file $OUTPUT_FILE is not there (or not a regular file): the receipt will say the review is missing"; fi
elif [ -n "${OUTPUT_TEXT:-}" ]; then
  printf '%s' "$OUTPUT_TEXT" > "$review"
elif [ "$AGENT" = gemini ] && plain gemini-artifacts/stdout.log; then
  jq -r '.response // empty' gemini-artifacts/stdout.log > "$review" \
    || warn "gemini-artifacts/stdout.log is not run-gemini-cli's JSON output: no review"
else
  warn "no output-file or output given: the receipt will say the review is missing"
fi

records=0
case "$AGENT" in
  codex)
    home="${AGENT_HOME:-$HOME/.codex}"
    records=$(redact_tree "$home/sessions" '*/rollout-*.jsonl' "$here/codex/redact-session.jq" "$out/home/sessions")
    where="$home/sessions"
    ;;
  claude)
    home="${AGENT_HOME:-$HOME}"
    records=$(redact_tree "$home/.claude/projects" '*.jsonl' "$here/claude/redact-record.jq" "$out/home/.claude/projects")
    where="$home/.claude/projects"
    execution="${EXECUTION_FILE:-$RUNNER_TEMP/claude-execution-output.json}"
    # The execution file without the answer's text: its system and result
    # messages (the model, the tools, the session id, the cost).
    if plain "$execution"; then
      jq 'map(select(.type == "system" or .type == "result") | if .type == "result" then del(.result) else . end)' \
        "$execution" > "$out/home/claude-execution-output.json" \
        || warn "the execution file $execution is not a JSON list: left out"
    fi
    if plain "$RUNNER_TEMP/claude-prompts/claude-prompt.txt"; then
      cp -- "$RUNNER_TEMP/claude-prompts/claude-prompt.txt" "$out/home/claude-prompt.txt"
    fi
    ;;
  gemini)
    home="$gemini_home"
    records=$(redact_tree "$home/tmp" '*/chats/session-*.jsonl' "$here/gemini/redact-record.jq" "$out/home/tmp")
    where="$home/tmp"
    mkdir -p "$out/home/gemini-artifacts"
    if plain gemini-artifacts/stdout.log; then cp -- gemini-artifacts/stdout.log "$out/home/gemini-artifacts/stdout.log"; fi
    # A checkout's .env can point GEMINI_SYSTEM_MD at any file
    # (/proc/self/environ), and the telemetry would carry it: then it stays
    # here, and the receipt names the .env and the system instruction.
    # Read as a dotenv parser reads it: a carriage return ends a line too,
    # and a byte order mark is space.
    sets_system_md() {
      local f
      for f in .env .gemini/.env; do
        [ -e "$f" ] || [ -L "$f" ] || continue
        plain "$f" || return 0  # not a file to read: assume the worst
        tr '\r' '\n' < "$f" | sed 's/^\xef\xbb\xbf//' |
          grep -qE '^[[:space:]]*(export[[:space:]]+)?GEMINI_SYSTEM_MD' && return 0
      done
      return 1
    }
    if plain "$home/telemetry.log" && ! sets_system_md; then
      cp -- "$home/telemetry.log" "$out/home/gemini-artifacts/telemetry.log"
    fi
    for file in settings.json GEMINI.md; do
      if plain "$home/$file"; then cp -- "$home/$file" "$out/home/$file"; fi
    done
    ;;
  copilot)
    home="${AGENT_HOME:-$HOME/.copilot}"
    records=$(redact_tree "$home/session-state" '*/events.jsonl' "$here/copilot/redact-events.jq" "$out/home/session-state")
    where="$home/session-state"
    # The user's own instructions are part of the chain; the settings hold hooks.
    for file in copilot-instructions.md settings.json config.json; do
      if plain "$home/$file"; then cp -- "$home/$file" "$out/home/$file"; fi
    done
    if [ -d "$home/instructions" ] && [ ! -L "$home/instructions" ]; then
      while IFS= read -r -d '' file; do
        mkdir -p "$out/home/instructions/$(dirname "$file")"
        cp -- "$home/instructions/$file" "$out/home/instructions/$file"
      done < <(cd "$home/instructions" && find . -type f -name '*.instructions.md' -print0)
    fi
    ;;
  opencode)
    home="${AGENT_HOME:-$HOME}"
    data="$home/.local/share/opencode"
    staged="$out/home/.local/share/opencode"
    where="$data/opencode.db"
    command -v python3 > /dev/null || fail "python3 is not installed: GitHub's Ubuntu runners have it; opencode's record is a SQLite database, cut down by $here/opencode/redact.py"
    if plain "$data/opencode.db"; then
      mkdir -p "$staged"
      # The copy reads the write-ahead log too: one consolidated file.
      if python3 "$here/opencode/redact.py" db "$data/opencode.db" "$staged/opencode.db"; then
        records=1
      else
        warn "$data/opencode.db could not be read as SQLite: left out"
      fi
    fi
    # Each snapshot repository's objects (its trees, and opencode's
    # configuration blobs): without them a working tree that differs from
    # the commit cannot be told file by file. Not its alternates file, which
    # names a folder of this runner.
    if [ -d "$data/snapshot" ] && [ ! -L "$data/snapshot" ]; then
      while IFS= read -r -d '' objects; do
        rel=${objects#"$data/"}
        python3 "$here/opencode/redact.py" snapshot "$objects" "$staged/$rel" > /dev/null \
          || warn "the snapshot objects in $objects could not be read: left out"
      done < <(find "$data/snapshot" -mindepth 3 -maxdepth 3 -type d -name objects -print0)
    fi
    # The global instructions are part of the chain; the global settings
    # name instructions, plugins and servers (without provider keys).
    for file in .config/opencode/AGENTS.md .claude/CLAUDE.md; do
      if plain "$home/$file"; then
        mkdir -p "$out/home/$(dirname "$file")"
        cp -- "$home/$file" "$out/home/$file"
      fi
    done
    for file in .config/opencode/config.json .config/opencode/opencode.json .config/opencode/opencode.jsonc; do
      if plain "$home/$file"; then
        mkdir -p "$out/home/.config/opencode"
        python3 "$here/opencode/redact.py" config "$home/$file" "$out/home/$file" \
          || warn "$home/$file is not JSON with comments: left out"
      fi
    done
    ;;
esac
if [ "$records" = 0 ]; then
  warn "no session record of $AGENT under $where: the receipt will say what it could not check"
else
  note "$records session record(s) of $AGENT cut down and staged from $where"
fi
echo "collected=$out" >> "$GITHUB_OUTPUT"
