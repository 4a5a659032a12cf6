# redact-record.jq: a Gemini CLI session record
# (~/.gemini/tmp/<project>/chats/session-*.jsonl) cut down to what
# prompt-receipt reads, before it is uploaded as an artifact (on a public
# repository, artifacts are public).
#
#   jq -nRc -f redact-record.jq < session-….jsonl > redacted/session-….jsonl
#
# -n -R -c are required: every input line is read as text (a line that is not
# JSON is dropped and counted, not fatal), one output line each. The record is
# held in memory once (the answer kept is known only at its end). jq 1.6+.
#
# Kept, as Gemini CLI wrote them (prompt-receipt verifies a redacted record as
# fully as the raw one for a single-turn run; see docs/gemini.md):
#   the metadata line  sessionId, projectHash, startTime, lastUpdated, kind
#   user messages      their text parts: the <session_context> (the GEMINI.md
#                      chain as sent), the prompts, hook text, the CLI's own
#                      messages; a tool result's message is kept without its
#                      parts (the file text the agent read)
#   gemini messages    id, timestamp, model, tokens, and the tool calls (name,
#                      args, id, status; write_file/replace/edit without the
#                      text they wrote: file_path stays; a shell command stays
#                      as written). The text of the last answer (the review,
#                      uploaded anyway) stays
#   tool results       only the GEMINI.md blocks Gemini CLI appended when a
#                      tool touched a folder ("--- Context from: … ---")
#   error, warning     their text
#   $set               lastUpdated, and messages redacted as above
#   $rewindTo          as written
# Cut, each to a placeholder `<prompt_receipt_cut kind="…" n="…" bytes="…"/>`
# (equal texts get the same n): every other model text, and a user text in a
# rebuilt history ($set.messages) that no user message had, i.e. a chat
# compression's summary (the model wrote it from what the agent read).
# Dropped (counted in the last line): thoughts, tool results' text and display,
# info messages, any other field, and any line kind this filter does not know.

def filter_version: 1;
def writes: ["write_file", "replace", "edit"];

def texts: if type == "string" then [.] elif type == "array" then [.[] | objects | .text | strings] else [] end;
def text_only: type == "array" and all(.[]; type == "object" and (.text | type) == "string");
def clean: with_entries(select(.value != null));
# A content as the receipt reads it: a string, or its text parts only.
def text_parts: if type == "string" then . elif type == "array" then [.[] | objects | select((.text | type) == "string") | {text}] else null end;
def no_text: if type == "string" then "" elif type == "array" then [] else null end;
def count($field): .cut[$field] += 1;

# State -> [state, placeholder]: one placeholder per distinct text.
def cutmark($kind; $t):
  if .ids[$kind + ":" + $t] then [., .ids[$kind + ":" + $t]]
  else .next += 1
    | ("<prompt_receipt_cut kind=\"\($kind)\" n=\"\(.next)\" bytes=\"\($t | utf8bytelength)\"/>") as $p
    | .ids[$kind + ":" + $t] = $p
    | [., $p]
  end;

# A tool result's GEMINI.md blocks, as one "Newly Discovered" section.
def jit:
  ([.. | strings] | join("")) as $all
  | [$all | match("--- Context from: ([^\\n]*?) ---\\n[\\s\\S]*?\\n--- End of Context from: \\1 ---"; "g") | .string]
  | if length == 0 then null
    else [{functionResponse: {response: {output:
      ("--- Newly Discovered Project Context ---\n" + join("\n\n") + "\n--- End Project Context ---")}}}]
    end;

# [state, tool call] -> [state, tool call]
def call:
  .[0] as $s | .[1] as $c
  | ($c.name | tostring) as $name
  | ($c.result | jit) as $jit
  | [ $s
      | (if $c.result != null then count("toolCalls.result") else . end)
      | (if $c.resultDisplay != null then count("toolCalls.resultDisplay") else . end)
      | (if (writes | index([$name])) and ($c.args | type) == "object"
           and ($c.args | has("content") or has("new_string") or has("old_string"))
         then count("toolCalls.args.content") else . end),
      ( {id: $c.id, name: $c.name,
         args: (if (writes | index([$name])) and ($c.args | type) == "object"
                then $c.args | del(.content, .new_string, .old_string) else $c.args end),
         status: $c.status, timestamp: $c.timestamp, result: $jit} | clean ) ];

# [state, message] -> [state, message or null]; $in_set: a $set.messages entry.
def message($answer; $users; $in_set):
  .[0] as $s | .[1] as $m
  | ($m.type | tostring) as $t
  | if $t == "user" or ($in_set and $t != "gemini") then
      if ($m.content | type) == "array" and ($m.content | text_only | not) then
        [ ($s | count("user.content.parts")),
          ({id: $m.id, timestamp: $m.timestamp, type: $m.type, content: []} | clean) ]
      else
        ($m.content | texts | join("")) as $text
        | if $in_set and ($text | startswith("<session_context>") | not) and $text != ""
             and ($users[$text] | not) then
            ($s | cutmark("summary"; $text) | .[0] |= count("user.content.summary")) as [$s2, $p]
            | [$s2, ({id: $m.id, timestamp: $m.timestamp, type: $m.type, content: [{text: $p}]} | clean)]
          else [$s, ({id: $m.id, timestamp: $m.timestamp, type: $m.type, content: ($m.content | text_parts)} | clean)]
          end
      end
    elif $t == "gemini" then
      ($m.content | texts | join("")) as $text
      | (if $text == "" then [$s, ($m.content | no_text)]
         elif $text == $answer then [$s, ($m.content | text_parts)]
         else ($s | cutmark("model"; $text) | .[0] |= count("gemini.content")) end) as [$s2, $content]
      | ($s2 | if $m.thoughts != null then count("gemini.thoughts") else . end) as $s3
      | (reduce ($m.toolCalls // [] | arrays | .[]) as $c ([$s3, []];
           ([.[0], $c] | call) as [$s4, $c2] | [$s4, .[1] + [$c2]])) as [$s5, $calls]
      | [$s5, ({id: $m.id, timestamp: $m.timestamp, type: $m.type, model: $m.model,
                tokens: $m.tokens, content: $content,
                toolCalls: (if ($m.toolCalls | type) == "array" then $calls else null end)} | clean)]
    elif $t == "error" or $t == "warning" then
      [$s, ({id: $m.id, timestamp: $m.timestamp, type: $m.type, content: ($m.content | text_parts)} | clean)]
    else [$s, null]
    end;

# [state, line] -> [state, line or null, kind of a dropped line]
def redact($answer; $users):
  .[0] as $s | .[1] as $v
  | if ($v | type) != "object" then [$s, null, "unparsable"]
    elif ($v | has("$rewindTo")) then [$s, $v, null]
    elif ($v["$set"] | type) == "object" then
      (reduce ($v["$set"].messages // [] | arrays | .[]) as $m ([$s, []];
         ([.[0], $m] | message($answer; $users; true)) as [$s2, $m2]
         | [$s2, .[1] + (if $m2 == null then [] else [$m2] end)])) as [$s3, $messages]
      | ($v["$set"] | keys - ["messages", "lastUpdated"]) as $other
      | [ (reduce $other[] as $k ($s3; count("$set.\($k)"))),
          {"$set": ({lastUpdated: $v["$set"].lastUpdated,
                     messages: (if ($v["$set"].messages | type) == "array" then $messages else null end)} | clean)},
          null ]
    elif ($v.id | type) == "string" then
      ([$s, $v] | message($answer; $users; false)) as [$s2, $m]
      | if $m == null then [$s2, null, "message:\($v.type | tostring)"] else [$s2, $m, null] end
    elif ($v.sessionId | type) == "string" and ($v.projectHash | type) == "string" then
      [$s, ($v | {sessionId, projectHash, startTime, lastUpdated, kind} | clean), null]
    else [$s, null, "unknown"]
    end;

def lines: (if . == null then empty else . end), inputs;
def parsed: if type == "string" then (if test("^\\s*$") then empty else (fromjson? // "unparsable") end) else . end;

[lines | parsed] as $all
# The answer the receipt compares with the review: the last gemini message
# (its last version) with text.
| ( reduce ($all[] | objects | select(.type == "gemini" and (.id | type) == "string")) as $m
      ({order: [], last: {}};
       (if .last | has($m.id) then . else .order += [$m.id] end)
       | .last[$m.id] = ($m.content | texts | join("")))
    | [.order[] as $id | .last[$id] | select(. != "")] | last ) as $answer
# Every user text the record has as a message of its own.
| ( reduce ($all[] | objects | select(.type == "user" and (.id | type) == "string")
            | .content | texts | join("")) as $t ({}; .[$t] = true) ) as $users
| reduce $all[] as $line ({s: {next: 0, ids: {}, cut: {}}, out: [], read: 0, dropped: {}};
    ([.s, $line] | redact($answer; $users)) as [$s, $kept, $kind]
    | .s = $s | .read += 1
    | if $kept == null then .dropped[$kind] += 1 else .out += [$kept] end)
| (.out[]),
  {type: "prompt_receipt_redacted",
   payload: {filter: "redact-record.jq", version: filter_version,
             lines_read: .read, lines_kept: (.out | length), dropped: .dropped, cut: .s.cut}}
