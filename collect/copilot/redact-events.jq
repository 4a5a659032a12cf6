# redact-events.jq: a GitHub Copilot CLI session record
# (~/.copilot/session-state/<id>/events.jsonl) cut down to what
# prompt-receipt reads, before it is uploaded as an artifact (on a public
# repository, artifacts are public).
#
#   jq -nRc -f redact-events.jq < events.jsonl > redacted/events.jsonl
#
# -n -R -c are required: every input line is read as text (a line that is not
# JSON is dropped and counted, not fatal), one output line each. The record is
# held in memory once (each turn's answer is known only at its end). jq 1.6+.
#
# Kept, as Copilot CLI wrote them (prompt-receipt verifies a redacted record
# as fully as the raw one; see docs/copilot.md):
#   session.start, session.resume  sessionId, copilotVersion, selectedModel,
#                                  context {cwd, gitRoot, branch, headCommit}
#   session.model_change           newModel, previousModel
#   system.message                 content: the system prompt as sent (the
#                                  instruction files are in it)
#   user.message                   content (the prompt), transformedContent
#                                  (the user text as sent), source (1.0.80's
#                                  "instruction-discovery": the instruction
#                                  files sent once a tool read their folder)
#   system.notification            of kind instruction_discovered (1.0.102:
#                                  one such file), its sourcePath
#   assistant.message              model, and the text of each turn's last
#                                  answer (the review, uploaded anyway); the
#                                  tool calls' names and arguments, except
#                                  the text a file tool writes (apply_patch
#                                  keeps only its `*** … File:` lines; create
#                                  and edit keep the path)
#   hook.start                     hookType
#   session.usage_record           usage (the token counts)
#   session.shutdown               modelMetrics
# Cut, to `<prompt_receipt_cut kind="model" n="…" bytes="…"/>`: the model's
# text other than a turn's last answer.
# Dropped (counted in the last line): tool executions and their output,
# reasoning, every other field and event type.

def filter_version: 2;
def clean: with_entries(select(.value != null));
def count($field): .cut[$field] += 1;
def writes_text: ["create", "edit", "str_replace", "write"];

def cutmark($t):
  if .ids[$t] then [., .ids[$t]]
  else .next += 1
    | ("<prompt_receipt_cut kind=\"model\" n=\"\(.next)\" bytes=\"\($t | utf8bytelength)\"/>") as $p
    | .ids[$t] = $p
    | [., $p]
  end;

# [state, tool request] -> [state, tool request]
def call:
  .[0] as $s | .[1] as $c
  | ($c.name | tostring) as $name
  | if $name == "apply_patch" then
      (if ($c.arguments | type) == "string" then $c.arguments
       elif ($c.arguments | type) == "object" then ($c.arguments.input // $c.arguments.patch // "" | tostring)
       else "" end) as $patch
      | [($s | count("toolRequests.apply_patch")),
         ({toolCallId: $c.toolCallId, name: $c.name, type: $c.type,
           arguments: ([$patch | splits("\n") | select(test("^\\*\\*\\* (Begin Patch|End Patch|Update File: |Add File: |Delete File: |Move to: )"))] | join("\n"))} | clean)]
    elif (writes_text | index([$name])) and ($c.arguments | type) == "object" then
      [($s | count("toolRequests.\($name)")),
       ({toolCallId: $c.toolCallId, name: $c.name, type: $c.type,
         arguments: ($c.arguments | {path, file_path} | clean)} | clean)]
    else [$s, ({toolCallId: $c.toolCallId, name: $c.name, type: $c.type, arguments: $c.arguments} | clean)]
    end;

# [state, line, answers] -> [state, line or null, kind of a dropped line]
def redact($answers):
  .[0] as $s | .[1] as $v
  | if ($v | type) != "object" then [$s, null, "unparsable"]
    else ($v.type | tostring) as $t | ($v.data // {}) as $d
    | (if ($d | type) == "object" then $d else {} end) as $d
    | ({type: $v.type, id: $v.id, timestamp: $v.timestamp, parentId: $v.parentId} | clean) as $head
    | if $t == "session.start" or $t == "session.resume" then
        [$s, $head + {data: ($d | {sessionId, copilotVersion, selectedModel, reasoningEffort, startTime, resumeTime,
                                   context: (if (.context | type) == "object" then .context | {cwd, gitRoot, branch, headCommit} | clean else null end)} | clean)}, null]
      elif $t == "session.model_change" then
        [$s, $head + {data: ($d | {newModel, previousModel} | clean)}, null]
      elif $t == "system.message" then
        [$s, $head + {data: ($d | {role, content} | clean)}, null]
      elif $t == "user.message" then
        [$s, $head + {data: ($d | {content, transformedContent, source} | clean)}, null]
      elif $t == "system.notification" and ($d.kind | type) == "object" and $d.kind.type == "instruction_discovered" then
        [$s, $head + {data: {kind: ($d.kind | {type, sourcePath} | clean)}}, null]
      elif $t == "hook.start" then
        [$s, $head + {data: ($d | {hookType} | clean)}, null]
      elif $t == "session.usage_record" then
        [$s, $head + {data: ($d | {usage: (if (.usage | type) == "object" then .usage | {model, inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, reasoningTokens} | clean else null end)} | clean)}, null]
      elif $t == "session.shutdown" then
        [$s, $head + {data: {modelMetrics: ($d.modelMetrics // {} | if type == "object" then map_values({usage: (.usage // {})}) else {} end)}}, null]
      elif $t == "assistant.message" then
        ($d.content // "" | tostring) as $text
        | (if $text == "" or $answers[$text] then [$s, $d.content]
           else ($s | cutmark($text) | .[0] |= count("assistant.content")) end) as [$s2, $content]
        | (reduce ($d.toolRequests // [] | arrays | .[] | objects) as $c ([$s2, []];
             ([.[0], $c] | call) as [$s3, $c2] | [$s3, .[1] + [$c2]])) as [$s4, $calls]
        | [$s4, $head + {data: ({model: $d.model, content: $content,
                                 toolRequests: (if ($d.toolRequests | type) == "array" then $calls else null end)} | clean)}, null]
      else [$s, null, $t]
      end
    end;

def lines: (if . == null then empty else . end), inputs;
def parsed: if type == "string" then (if test("^\\s*$") then empty else (fromjson? // "unparsable") end) else . end;

[lines | parsed] as $all
# Each turn's answer, which the receipt compares with the review: the last
# assistant text between one user message and the next (instruction files
# sent after a tool call are no user message of a turn).
| ( reduce ($all[] | objects | select((.type == "user.message" and ((.data | if type == "object" then .source else null end) != "instruction-discovery")) or .type == "assistant.message")) as $e
      ({turns: [], cur: null};
       if $e.type == "user.message" then .turns += [.cur] | .cur = null
       else (($e.data.content // "") | tostring) as $t | if $t != "" then .cur = $t else . end end)
    | [(.turns + [.cur])[] | select(. != null)] | map({(.): true}) | add // {} ) as $answers
| reduce $all[] as $line ({s: {next: 0, ids: {}, cut: {}}, out: [], read: 0, dropped: {}};
    ([.s, $line] | redact($answers)) as [$s, $kept, $kind]
    | .s = $s | .read += 1
    | if $kept == null then .dropped[$kind] += 1 else .out += [$kept] end)
| (.out[]),
  {type: "prompt_receipt_redacted",
   payload: {filter: "redact-events.jq", version: filter_version,
             lines_read: .read, lines_kept: (.out | length), dropped: .dropped, cut: .s.cut}}
