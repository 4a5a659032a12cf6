# redact-record.jq: a Claude Code project record (~/.claude/projects/*/<session>.jsonl)
# cut down to what prompt-receipt reads, before it is uploaded as an artifact
# (on a public repository, artifacts are public).
#
#   jq -nRc -f redact-record.jq < <session>.jsonl > redacted/<session>.jsonl
#
# -n -R -c are required: one input line at a time (a line that is not JSON is
# dropped and counted, not fatal), one output line each.
#
# Kept, as Claude Code wrote them (prompt-receipt verifies a redacted record as
# fully as the raw one, but for the compaction summary's hash):
#   user           the prompts; harness-added user text; tool results without
#                  their content (their tool id and is_error stay)
#   assistant      model, usage, id, and the tool calls (a Write's or Edit's
#                  text cut: the file path stays)
#   attachment     instructions (the CLAUDE.md files as sent), hook text,
#                  session context (git status), structured output,
#                  environment, model, date, listings, prompt snapshot;
#                  each hook run (hook_success, hook_*_error, ...) as its
#                  type, event, name, tool call id, command and exit code,
#                  without what it printed (the receipt names a hook that
#                  rewrote the model's StructuredOutput call)
#   system, api-request, api-request-shape, cost-state, queue-operation,
#   last-prompt
#   api-request-blob  the request parts without a tool result or an
#                  assistant message (the first request's instruction block,
#                  environment and prompt)
# Dropped (counted in the last line): assistant text and thinking, tool output,
# the compaction summary's text (the model wrote it from what the agent read),
# any other attachment (file contents the agent read), and any line kind this
# filter does not know.

def filter_version: 2;

def kept_attachments: ["instructions", "hook_additional_context", "session_context",
  "structured_output", "environment", "model", "date", "total_tokens_reminder",
  "auto_mode", "agent_listing_delta", "skill_listing", "remote_session_change",
  "prompt_snapshot"];
def kept_lines: ["system", "api-request", "api-request-shape", "cost-state",
  "queue-operation", "last-prompt", "atis-latch"];
def writes: ["Write", "Edit", "MultiEdit", "NotebookEdit"];

def has_tool_result: any(.message.content? | arrays | .[]; .type? == "tool_result");

# One record line -> [the line to keep, or null; names of what was dropped or cut].
def redact:
  if type != "object" then [null, ["unparsable"]]
  else
    (.type | tostring) as $t
    | if (kept_lines | index([$t])) then [., []]
      elif $t == "user" then
        if .isCompactSummary == true then
          [ (.message |= del(.content)), ["user:compact_summary"] ]
        elif has_tool_result then
          [ ( .message.content |= map(if .type? == "tool_result" then {type, tool_use_id, is_error} else . end)
              | del(.toolUseResult, .tool_use_result) ),
            ["user:tool_result.content"] ]
        else [., []] end
      elif $t == "assistant" then
        [ ( .message.content |= ( arrays
              | map(select(.type? == "tool_use")
                    | .name as $name
                    | if (writes | index([$name])) then .input |= del(.content, .new_string, .old_string, .edits, .new_source) else . end) ) ),
          [ .message.content[]? | select(.type? != "tool_use") | "assistant:\(.type? // "block")" ] ]
      elif $t == "attachment" then
        (.attachment.type? // "unknown" | tostring) as $a
        | if (kept_attachments | index([$a])) then [., []]
          elif ($a | startswith("hook_")) then
            [ (.attachment |= {type, hookName, hookEvent, toolUseID, command, exitCode}
                | .attachment |= with_entries(select(.value != null))),
              ["attachment:\($a).output"] ]
          else [null, ["attachment:\($a)"]] end
      elif $t == "api-request-blob" then
        if .message.role? == "assistant" or has_tool_result then [null, ["api-request-blob:\(.message.role? // "unknown")"]]
        else [., []] end
      else [null, [$t]] end
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
       payload: {filter: "redact-record.jq", version: filter_version,
                 lines_read: .read, lines_kept: .kept, dropped: .dropped, cut: .cut}}
    elif .out != null then .out
    else empty end )
