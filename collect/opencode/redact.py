#!/usr/bin/env python3
"""opencode's record, cut down for the upload (collect/collect.sh).

opencode keeps its record in a SQLite database, which jq cannot read, so its
filter is this script (Python's standard library: GitHub's runners have it).

  redact.py db SRC DST          copy SRC (with its write-ahead log) to DST,
                                then cut DST down to what the receipt reads
  redact.py snapshot SRC DST    copy the object folder of one of opencode's
                                snapshot repositories: its trees, and of its
                                blobs only opencode's configuration files
  redact.py config SRC DST      the global configuration (JSON with comments)
                                as JSON, without provider keys and headers
                                or MCP servers' environments and headers

Kept: the sessions (directory, CLI version, model, tokens), every message's
metadata (role, model, path, tokens), the user's and the model's text, each
tool call's name, status and the input fields that name a file or a command
(`filePath`, `command`, and of a patch only its `*** ... File:` lines), and
each step's snapshot. Dropped: tool outputs and metadata, reasoning, file
attachments, the event log (which repeats every part), the diffs of the
session summary, and every account, credential and share row. The database
ends with a table `prompt_receipt_redacted` whose one row says what was cut,
as the other agents' filters end their records with a marker line.
"""

import json
import os
import sqlite3
import sys
import zlib

FILTER = "collect/opencode/redact.py"
VERSION = 1
# Tool input fields the receipt reads.
KEPT_INPUT = ("filePath", "command", "patchText")
# Tables whose rows hold what the receipt never reads, some of it secret.
EMPTIED = (
    "event",
    "event_sequence",
    "account",
    "account_state",
    "control_account",
    "credential",
    "session_share",
    "session_message",
    "session_input",
    "session_context_epoch",
    "todo",
    "permission",
)
# Blobs kept from a snapshot: what the receipt compares by content.
CONFIG_NAMES = (b"opencode.json", b"opencode.jsonc")
MAX_OBJECT = 64 << 20


def bump(counts, key, n=1):
    counts[key] = counts.get(key, 0) + n


def patch_headers(text):
    return "\n".join(
        l for l in text.splitlines() if l.startswith("*** ") and "File:" in l or l.startswith("*** Move to:")
    )


def cut_part(data, cut, dropped):
    """The part as kept, or None to drop it."""
    kind = data.get("type")
    if kind in ("reasoning", "file", "agent", "subtask", "retry"):
        bump(dropped, "part:" + str(kind))
        return None
    if kind == "tool":
        state = data.get("state") or {}
        inp = state.get("input") or {}
        kept = {k: inp[k] for k in KEPT_INPUT if isinstance(inp.get(k), str)}
        if "patchText" in kept:
            kept["patchText"] = patch_headers(kept["patchText"])
        for k in state:
            if k not in ("status", "input"):
                bump(cut, "tool:state." + k)
        for k in inp:
            if k not in kept:
                bump(cut, "tool:input." + k)
        data["state"] = {"status": state.get("status"), "input": kept}
        data.pop("metadata", None)
    return data


def redact_db(src, dst):
    if os.path.lexists(dst):
        os.remove(dst)
    source = sqlite3.connect("file:" + src + "?mode=ro", uri=True)
    target = sqlite3.connect(dst)
    source.backup(target)
    source.close()
    cut, dropped = {}, {}
    read = kept = 0
    tables = {r[0] for r in target.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for table in EMPTIED:
        if table in tables:
            n = target.execute("SELECT count(*) FROM " + table).fetchone()[0]
            read += n
            if n:
                bump(dropped, table, n)
            target.execute("DELETE FROM " + table)
    if "part" in tables:
        for rowid, text in target.execute("SELECT rowid, data FROM part").fetchall():
            read += 1
            try:
                data = json.loads(text)
            except ValueError:
                bump(dropped, "part:unreadable")
                target.execute("DELETE FROM part WHERE rowid = ?", (rowid,))
                continue
            data = cut_part(data, cut, dropped)
            if data is None:
                target.execute("DELETE FROM part WHERE rowid = ?", (rowid,))
            else:
                kept += 1
                target.execute("UPDATE part SET data = ? WHERE rowid = ?", (json.dumps(data), rowid))
    if "message" in tables:
        for rowid, text in target.execute("SELECT rowid, data FROM message").fetchall():
            read += 1
            kept += 1
            try:
                data = json.loads(text)
            except ValueError:
                continue
            if isinstance(data.get("summary"), dict) and data["summary"].pop("diffs", None) is not None:
                bump(cut, "message:summary.diffs")
            target.execute("UPDATE message SET data = ? WHERE rowid = ?", (json.dumps(data), rowid))
    if "session" in tables:
        n = target.execute("SELECT count(*) FROM session WHERE summary_diffs IS NOT NULL").fetchone()[0]
        if n:
            bump(cut, "session:summary_diffs", n)
        target.execute("UPDATE session SET summary_diffs = NULL")
    marker = {
        "type": "prompt_receipt_redacted",
        "filter": FILTER,
        "version": VERSION,
        "lines_read": read,
        "lines_kept": kept,
        "dropped": dropped,
        "cut": cut,
    }
    target.execute("DROP TABLE IF EXISTS prompt_receipt_redacted")
    target.execute("CREATE TABLE prompt_receipt_redacted (data TEXT NOT NULL)")
    target.execute("INSERT INTO prompt_receipt_redacted (data) VALUES (?)", (json.dumps(marker),))
    target.commit()
    target.execute("VACUUM")
    target.close()


def loose(path):
    """A loose object's type and body, or None."""
    if os.path.islink(path) or not os.path.isfile(path) or os.path.getsize(path) > MAX_OBJECT:
        return None
    with open(path, "rb") as f:
        raw = zlib.decompressobj().decompress(f.read(), MAX_OBJECT + 64)
    head, _, body = raw.partition(b"\0")
    kind = head.split(b" ")[0]
    return kind, body


def tree_blobs(body):
    """The blob ids a tree names for opencode's configuration files."""
    out, i = set(), 0
    while i < len(body):
        sp = body.find(b" ", i)
        nul = body.find(b"\0", sp)
        if sp < 0 or nul < 0 or nul + 21 > len(body):
            break
        name = body[sp + 1:nul]
        if name in CONFIG_NAMES:
            out.add(body[nul + 1:nul + 21].hex())
        i = nul + 21
    return out


def redact_snapshot(src, dst):
    objects, wanted = {}, set()
    for d in sorted(os.listdir(src)):
        if len(d) != 2 or os.path.islink(os.path.join(src, d)):
            continue
        for name in sorted(os.listdir(os.path.join(src, d))):
            path = os.path.join(src, d, name)
            found = loose(path)
            if found is None:
                continue
            objects[d + name] = (found[0], path)
            if found[0] == b"tree":
                wanted |= tree_blobs(found[1])
    copied = skipped = 0
    for oid, (kind, path) in objects.items():
        if kind in (b"tree", b"commit") or (kind == b"blob" and oid in wanted):
            os.makedirs(os.path.join(dst, oid[:2]), exist_ok=True)
            with open(path, "rb") as f, open(os.path.join(dst, oid[:2], oid[2:]), "wb") as g:
                g.write(f.read())
            copied += 1
        else:
            skipped += 1
    print(copied, skipped)


def jsonc(text):
    """JSON with // and /* */ comments and trailing commas, as opencode reads it."""
    out, i, n, in_string = [], 0, len(text), False
    while i < n:
        c = text[i]
        if in_string:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
            out.append(c)
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            out.append(" ")
            continue
        else:
            out.append(c)
        i += 1
    cleaned, in_string = [], False
    for c in "".join(out):
        if in_string:
            in_string = not (c == '"' and not (cleaned and cleaned[-1] == "\\"))
        elif c == '"':
            in_string = True
        elif c in "]}":
            while cleaned and cleaned[-1].isspace():
                cleaned.pop()
            if cleaned and cleaned[-1] == ",":
                cleaned.pop()
        cleaned.append(c)
    return json.loads("".join(cleaned))


def redact_config(src, dst):
    with open(src, encoding="utf-8-sig") as f:
        config = jsonc(f.read())
    for provider in (config.get("provider") or {}).values():
        options = provider.get("options") if isinstance(provider, dict) else None
        if isinstance(options, dict):
            for key in ("apiKey", "headers"):
                options.pop(key, None)
    for server in (config.get("mcp") or {}).values():
        if isinstance(server, dict):
            for key in ("environment", "headers", "oauth"):
                server.pop(key, None)
    with open(dst, "w") as f:
        json.dump(config, f)


def main(argv):
    if len(argv) != 4 or argv[1] not in ("db", "snapshot", "config"):
        sys.exit("usage: redact.py db|snapshot|config SRC DST")
    {"db": redact_db, "snapshot": redact_snapshot, "config": redact_config}[argv[1]](argv[2], argv[3])


if __name__ == "__main__":
    main(sys.argv)
