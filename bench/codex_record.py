"""A real Codex CLI session record, inflated with its own tool-call lines.

The record comes from the Codex CLI the real-CLI tests run (`target/codex`,
which `.ci/run` installs), run with `codex exec` on the example against a
Responses API on loopback (as tests/it/common/codex.rs does): the model asks
for one shell command with a long output (200 KB, which Codex cuts: its
`item_completed` line holds about 68 KB, the output sent back about 41 KB),
then answers with the example's review. Every line kind that run writes is kept; the record is
grown to the size asked by repeating its own tool-call lines (the call, its
output, the command's `item_completed` and every other line written between
the call and the next message) before the final lines.
"""
import json
import os
import subprocess
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CODEX = ROOT / "target/codex/node_modules/.bin/codex"
# A long output, cut by Codex as it cuts any command's.
COMMAND = "seq 100000 105399 | sed 's/$/ a line of a long tool output/'"


def _message(text):
    return {"type": "message", "role": "assistant", "id": "msg_1", "content": [{"type": "output_text", "text": text}]}


def _exec(cmd):
    return {"type": "function_call", "name": "exec_command", "call_id": "call_exec",
            "arguments": json.dumps({"cmd": cmd})}


def _sse(items):
    """One streamed response, as the Responses API sends it."""
    events = [("response.created", {"type": "response.created", "response": {"id": "resp_1"}})]
    for i, item in enumerate(items):
        events.append(("response.output_item.added", {"type": "response.output_item.added", "output_index": i, "item": item}))
        if item.get("type") == "message":
            events.append(("response.output_text.delta", {"type": "response.output_text.delta", "item_id": item["id"],
                                                          "output_index": i, "content_index": 0,
                                                          "delta": item["content"][0]["text"]}))
        events.append(("response.output_item.done", {"type": "response.output_item.done", "output_index": i, "item": item}))
    usage = {"input_tokens": 1200, "input_tokens_details": {"cached_tokens": 200}, "output_tokens": 50,
             "output_tokens_details": {"reasoning_tokens": 10}, "total_tokens": 1250}
    events.append(("response.completed", {"type": "response.completed", "response": {"id": "resp_1", "usage": usage}}))
    return "".join(f"event: {k}\ndata: {json.dumps(d)}\n\n" for k, d in events).encode()


def _server(script):
    """A Responses API on loopback answering request n with script[n] (the last again)."""
    seen = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers.get("content-length", 0)))
            items = script[min(len(seen), len(script) - 1)]
            seen.append(self.path)
            body = _sse(items)
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("content-length", str(len(body)))
            self.send_header("connection", "close")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def real_record(work, env):
    """Runs the real Codex CLI on the example checkout `work`; returns its
    codex-home and the record's path."""
    if not CODEX.exists():
        raise SystemExit(f"needs the Codex CLI at {CODEX}: npm install --prefix target/codex @openai/codex@0.169.0 (.ci/run does)")
    review = (work / "artifacts/review.json").read_text()
    server = _server([[_exec(COMMAND)], [_message(review)]])
    home = Path(tempfile.mkdtemp(prefix="prompt-receipt-codex-home-"))
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    (home / "config.toml").write_text(
        f'model = "gpt-5.5"\nmodel_provider = "fake"\napproval_policy = "never"\n'
        f'[model_providers.fake]\nname = "local"\nbase_url = "{url}"\nwire_api = "responses"\n'
        f'[analytics]\nenabled = false\n[features]\nplugins = false\nshell_snapshot = false\n')
    prompt = (work / ".github/codex/prompts/review.md").read_bytes()
    cmd = [str(CODEX), "exec", "--skip-git-repo-check", "--cd", str(work),
           "--output-last-message", str(work / "artifacts/review.json"),
           "--output-schema", str(work / ".github/codex/review.schema.json"), "--sandbox", "read-only"]
    run_env = {k: v for k, v in env.items() if k != "OPENAI_API_KEY"}
    run_env["CODEX_HOME"] = str(home)
    proc = subprocess.run(cmd, input=prompt, env=run_env, cwd=work, capture_output=True)
    server.shutdown()
    if proc.returncode != 0:
        raise SystemExit(f"codex exec failed ({proc.returncode}): {proc.stderr.decode()[-2000:]}")
    records = sorted(home.glob("sessions/**/rollout-*.jsonl"))
    if len(records) != 1:
        raise SystemExit(f"expected one session record under {home}, found {len(records)}")
    return home, records[0]


def _kind(line):
    """`type` and `payload.type` of a record line."""
    value = json.loads(line)
    return value.get("type"), (value.get("payload") or {}).get("type")


def inflate(record, size):
    """Grows `record` to at least `size` bytes by repeating its tool-call lines
    (from the first `function_call` to the line before the next assistant
    message) in place; returns the line kinds the record holds and how many
    bytes one repetition is."""
    lines = record.read_bytes().splitlines(keepends=True)
    kinds = [_kind(line) for line in lines]
    start = next(i for i, k in enumerate(kinds) if k == ("response_item", "function_call"))
    end = next(i for i in range(start + 1, len(lines))
               if kinds[i] == ("response_item", "message") or kinds[i] == ("event_msg", "agent_message"))
    head, tool, tail = lines[:start], b"".join(lines[start:end]), b"".join(lines[end:])
    tool_kinds = sorted({f"{a}/{b}" for a, b in kinds[start:end]})
    if not any("item_completed" in k for k in tool_kinds):
        raise SystemExit(f"the tool-call lines of {record} hold no item_completed: {tool_kinds}")
    fixed = sum(map(len, head)) + len(tail)
    times = max(1, -(-(size - fixed) // len(tool)))
    tmp = record.with_suffix(".tmp")
    with open(tmp, "wb") as f:
        f.writelines(head)
        for _ in range(times):
            f.write(tool)
        f.write(tail)
    os.replace(tmp, record)
    return sorted({f"{a}/{b}" for a, b in kinds}), tool_kinds, len(tool)
