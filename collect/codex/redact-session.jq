# redact-session.jq: a Codex session record (rollout JSONL) cut down to what
# prompt-receipt reads, before it is uploaded as an artifact (on a public
# repository, artifacts are public).
#
#   jq -nRc -f redact-session.jq < rollout-….jsonl > redacted/rollout-….jsonl
#
# -n -R -c are required: one input line at a time (a line that is not JSON is
# dropped and counted, not fatal), one output line each. Runs with jq 1.6 and
# 1.7 (GitHub's Ubuntu runners have one of them), in memory bounded by the
# longest line.
#
# Kept, as Codex wrote them (prompt-receipt verifies a redacted record as fully
# as the raw one):
#   session_meta   id, cwd, CLI version, originator, git commit/branch/remote
#                  URL, Codex's base instructions
#   turn_context, world_state
#                  model, approval policy, sandbox, permission profile, effort,
#                  the AGENTS.md text, the skills listed
#   messages with role user, developer or system: the prompt, the AGENTS.md
#                  block, the environment, skills, permissions, developer and
#                  hook-injected instructions, wherever they are in the session
#   tool calls     function_call, custom_tool_call (apply_patch: the patch the
#                  agent wrote), local_shell_call, web_search_call: what the
#                  agent did, which tells whether it edited its own inputs
#   event_msg      token_count, task_started, task_complete (its
#                  last_agent_message is the review, uploaded anyway),
#                  turn_aborted, context_compacted, and item_completed for
#                  FileChange, CommandExecution (without their output) and
#                  ContextCompaction
#   token_usage_record
#   compacted      the marker, and the instruction messages of its
#                  replacement history
# Dropped (counted in the last line):
#   tool outputs (function_call_output, custom_tool_call_output, command and
#   patch output), reasoning, assistant messages, the compaction summary (the
#   model wrote it from what the agent read), every other event, and any line
#   kind this filter does not know (a newer Codex's included: nothing new is
#   published until it is listed here).
#
# The last line says what was done, e.g.
#   {"type":"prompt_receipt_redacted","payload":{"filter":"redact-session.jq",
#    "version":1,"lines_read":33,"lines_kept":17,"dropped":{...},"cut":{...}}}
# prompt-receipt reads it and reports the record as redacted.

def filter_version: 1;

# The fields of a kept item that carry what a command or a patch printed.
def output_fields: ["aggregated_output", "formatted_output", "output", "stdout", "stderr", "result"];

# What a line is, for the counts: type, payload type, and the role or item type.
def kind:
  [ (.type | tostring),
    (.payload.type? // empty | tostring),
    ( if .type == "response_item" then (.payload.role? // empty)
      elif .type == "event_msg" and .payload.type? == "item_completed" then (.payload.item.type? // empty)
      else empty end | tostring) ]
  | join(":");

def instruction_role: . == "user" or . == "developer" or . == "system";

# The summary Codex puts in the history after a compaction (model-written).
def compaction_summary:
  [ .content[]?.text? // empty ] | join("")
  | startswith("Another language model started to solve this problem");

def instruction_message:
  type == "object" and .type? == "message" and (.role? | instruction_role) and (compaction_summary | not);

# One record line -> [the line to keep, or null; names of what was dropped or cut].
def redact:
  if type != "object" then [null, ["unparsable"]]
  else
    .type as $t | (.payload.type? // null) as $p
    | if $t == "session_meta" or $t == "turn_context" or $t == "world_state" or $t == "token_usage_record" then [., []]
      elif $t == "response_item" then
        if $p == "message" and (.payload.role? | instruction_role) then [., []]
        elif $p == "function_call" or $p == "custom_tool_call" or $p == "local_shell_call" or $p == "web_search_call" then [., []]
        else [null, [kind]] end
      elif $t == "event_msg" then
        if $p == "token_count" or $p == "task_started" or $p == "task_complete" or $p == "turn_aborted" or $p == "context_compacted" then [., []]
        elif $p == "item_completed" and (.payload.item.type? as $i | $i == "FileChange" or $i == "CommandExecution" or $i == "ContextCompaction") then
          kind as $l
          | [ (.payload.item | objects | keys_unsorted[]) as $k | select(output_fields | index([$k])) | $k ] as $cut
          | [ (reduce $cut[] as $k (.; .payload.item |= del(.[$k]))), [ $cut[] | "\($l).\(.)" ] ]
        else [null, [kind]] end
      elif $t == "compacted" then
        ( [ (.payload.message? // empty | "compacted.message"),
            (.payload.replacement_history? | arrays | .[] | select(instruction_message | not) | "compacted.replacement_history"),
            (.payload.retained_context? | objects | (.assistant_messages?, .verified_answers?) | arrays | .[] | "compacted.retained_context") ] ) as $cut
        | [ ( .payload |= ( (if type == "object" then del(.message) else . end)
                            | if (.replacement_history? | type) == "array"
                              then .replacement_history |= map(if instruction_message then . else {type: "prompt_receipt_redacted"} end)
                              else . end
                            | if (.retained_context? | type) == "object"
                              then .retained_context |= del(.assistant_messages, .verified_answers)
                              else . end ) ),
            $cut ]
      else [null, [kind]] end
  end;

# Every input line, whether or not -n was given; with -R each is a string.
def lines: (if . == null then empty else . end), inputs;
def parsed: if type == "string" then (if test("^\\s*$") then empty else (fromjson? // "unparsable") end) else . end;

foreach ((lines | parsed | redact), null) as $r
  ( {read: 0, kept: 0, dropped: {}, cut: {}, out: null, done: false};
    if $r == null then .done = true
    else
      .read += 1
      | .out = $r[0]
      | if $r[0] == null
        then reduce $r[1][] as $n (.; .dropped[$n] += 1)
        else .kept += 1 | reduce $r[1][] as $n (.; .cut[$n] += 1)
        end
    end;
    if .done then
      {type: "prompt_receipt_redacted",
       payload: {filter: "redact-session.jq", version: filter_version,
                 lines_read: .read, lines_kept: .kept, dropped: .dropped, cut: .cut}}
    elif .out != null then .out
    else empty end )
