#!/usr/bin/env python3
"""A scripted OpenAI-compatible inference server for Shoal's end-to-end tests.

It stands in for vLLM / SGLang / llama-server behind `shoal worker --backend openai`. It is not
part of Shoal. Standard library only.

    python3 tests/e2e/upstream.py --port 0 [--name A] [--stall-all] [--fail-all]

prints `listening on http://127.0.0.1:PORT` on stdout once it accepts connections.

Endpoints
---------
GET  /v1/models              a model list (it answers whatever model a request names)
POST /v1/chat/completions    streaming (SSE, `data: {chunk}` … `data: [DONE]`) and not
GET  /_requests              every request received (method, path, headers, JSON body), oldest first
DELETE /_requests            forget them
GET  /_active                {"active": n, "stalled": m}: chat requests being answered right now
GET  /_cancelled             {"cancelled": n}: chat requests whose client went away before the end
POST /_release               end every stall (now and later): stalled requests go on normally

Behaviour is scripted by directives in the text of the LAST user message:

    (none)            "Hello from upstream NAME." in word chunks; with a `response_format` of
                      `json_object` or `json_schema`, a JSON answer that holds to it instead, as
                      the servers a worker fronts (vLLM, llama-server, …) enforce the format
    [[tool]]          with `tools`: a call to the first tool, finish_reason "tool_calls"
                      (a request whose last message has role `tool` answers
                      "Got tool result of N chars." instead)
    [[think]]         reasoning_content chunks first ("Thinking about it."), then the text
    [[slow N]]        N chunks ("tok1 " …), 200 ms apart
    [[stall]]         wait (60 s at most) until /_release or the client disconnects
    [[fail]]          HTTP 500 before any token
    [[drop-after N]]  N content chunks, then the connection is cut (no finish, no [DONE])
    [[echo-image]]    "images=N data=yes,no,…" (does each image URL start with `data:image/`)
    [[shout]]         the user text (directives removed) in upper case
    [[echo]]          the user text (directives removed) as it is (a JSON answer, say)
    [[overreport N]]  the usage claims N prompt, N completion and N reasoning tokens (a
                      dishonest worker), whatever was sent

Flags: --stall-all stalls every chat request as [[stall]] does; --fail-all fails every chat
request as [[fail]] does (after the stall, when both are given).

Token counting is deterministic: prompt_tokens is the number of whitespace-separated words
in every message's text (string contents and text parts); every emitted chunk that carries
content, reasoning or a tool-call piece is one completion token. `max_tokens` (or
`max_completion_tokens`) caps the chunks; the finish reason is then "length".
"""

from __future__ import annotations

import argparse
import json
import re
import select
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIRECTIVE = re.compile(r"\[\[([a-z-]+)(?:\s+(\d+))?\]\]")
SLOW_INTERVAL_S = 0.2
STALL_LIMIT_S = 60.0
THINKING = "Thinking about it."


# ---- pure helpers (also imported by the tests) -------------------------------------------


def message_text(message: dict) -> str:
    """The text of one message: a string content, or its text parts joined by spaces."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"
        )
    return ""


def count_prompt_tokens(messages: list) -> int:
    """prompt_tokens as this upstream counts them: words of every message's text."""
    return sum(len(message_text(m).split()) for m in messages)


def image_urls(messages: list) -> list:
    urls = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            for p in content:
                if isinstance(p, dict) and p.get("type") == "image_url":
                    image = p.get("image_url")
                    urls.append(image.get("url", "") if isinstance(image, dict) else str(image))
    return urls


def directives(text: str) -> dict:
    """{"tool": None, "slow": 50, …} for the directives found in `text`."""
    found = {}
    for name, arg in DIRECTIVE.findall(text):
        found[name] = int(arg) if arg else None
    return found


def word_pieces(text: str) -> list:
    words = text.split(" ")
    return [words[0]] + [" " + w for w in words[1:]]


def tool_arguments(tool: dict) -> str:
    """Deterministic JSON arguments for a tool, from its parameter schema."""
    params = (tool.get("function") or {}).get("parameters") or {}
    props = params.get("properties") or {}
    sample = {"string": None, "integer": 42, "number": 1.5, "boolean": True, "array": [], "object": {}}
    args = {}
    for name, schema in props.items():
        kind = schema.get("type") if isinstance(schema, dict) else None
        args[name] = f"test-{name}" if kind == "string" or kind not in sample else sample[kind]
    return json.dumps(args)


def format_answer(req: dict, text: str):
    """The JSON an enforcing server answers to a `response_format`, or None for plain text:
    `{"text": …}` for json_object, the schema's smallest instance for json_schema."""
    fmt = req.get("response_format") or {}
    if fmt.get("type") == "json_object":
        return json.dumps({"text": text})
    if fmt.get("type") == "json_schema":
        schema = (fmt.get("json_schema") or {}).get("schema") or {}
        return json.dumps(instance_of(schema, schema.get("$defs") or schema.get("definitions") or {}))
    return None


def instance_of(schema, defs: dict, depth: int = 0):
    """The smallest value a schema of Shoal's subset admits (required properties only, the
    first option of an enum or anyOf, the least length, number and item count)."""
    if not isinstance(schema, dict) or depth > 16:
        return {}
    if "$ref" in schema:
        return instance_of(defs.get(schema["$ref"].rsplit("/", 1)[-1], {}), defs, depth + 1)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            return instance_of(schema[key][0], defs, depth + 1)
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties") or {}
        return {k: instance_of(props.get(k, {}), defs, depth + 1) for k in schema.get("required") or []}
    if kind == "array":
        return [instance_of(schema.get("items") or {}, defs, depth + 1) for _ in range(schema.get("minItems") or 0)]
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", -1) + 1)
        return low if kind == "number" else int(low)
    if kind == "string":
        formats = {"date": "2026-01-01", "date-time": "2026-01-01T00:00:00Z",
                   "uuid": "00000000-0000-4000-8000-000000000000"}
        return formats.get(schema.get("format"), "x" * (schema.get("minLength") or 0))
    return {"boolean": True, "null": None}.get(kind, {})


def split_in(s: str, parts: int) -> list:
    size = max(1, -(-len(s) // parts))
    return [s[i : i + size] for i in range(0, len(s), size)] or [""]


# ---- the server ------------------------------------------------------------------------------


class State:
    def __init__(self, name: str, stall_all: bool, fail_all: bool):
        self.name = name
        self.stall_all = stall_all
        self.fail_all = fail_all
        self.lock = threading.Lock()
        self.requests = []
        self.active = 0
        self.stalled = 0
        self.cancelled = 0
        self.seq = 0
        self.released = threading.Event()

    def next_seq(self) -> int:
        with self.lock:
            self.seq += 1
            return self.seq


class ClientGone(Exception):
    pass


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Nagle off, as real servers have it: a body written after its headers would otherwise wait
    # for the client's delayed ACK (~40 ms) on a kept-alive connection.
    disable_nagle_algorithm = True
    server_version = "scripted-upstream/1"
    state: State  # set on the class by main()

    def log_message(self, format, *args):  # noqa: A002 - quiet; the tests read /_requests
        pass

    # -- plumbing

    def _send_json(self, status: int, obj) -> None:
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            return self.rfile.read(length)
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        return b""

    def _peer_closed(self) -> bool:
        """True when the client closed its end (the request body was read whole, so any
        readability without data is EOF)."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            if not readable:
                return False
            return self.connection.recv(1, socket.MSG_PEEK) == b""
        except (OSError, ValueError):
            return True

    def _record(self, body: bytes) -> None:
        headers = {}
        for k, v in self.headers.items():
            k = k.lower()
            headers[k] = f"{headers[k]}, {v}" if k in headers else v
        try:
            parsed = json.loads(body) if body else None
            raw = None
        except ValueError:
            parsed, raw = None, body.decode("utf-8", "replace")
        with self.state.lock:
            self.state.requests.append(
                {"method": self.command, "path": self.path, "headers": headers, "body": parsed, "raw": raw}
            )

    # -- control and models

    def do_GET(self):
        st = self.state
        if self.path == "/_requests":
            with st.lock:
                return self._send_json(200, list(st.requests))
        if self.path == "/_active":
            with st.lock:
                return self._send_json(200, {"active": st.active, "stalled": st.stalled})
        if self.path == "/_cancelled":
            with st.lock:
                return self._send_json(200, {"cancelled": st.cancelled})
        self._record(b"")
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            return self._send_json(
                200,
                {"object": "list", "data": [{"id": f"upstream-{st.name.lower()}", "object": "model",
                                             "created": 0, "owned_by": "scripted-upstream"}]},
            )
        self._send_json(404, {"error": {"message": "not found", "type": "invalid_request_error"}})

    def do_DELETE(self):
        if self.path == "/_requests":
            with self.state.lock:
                self.state.requests.clear()
            return self._send_json(200, {"ok": True})
        self._send_json(404, {"error": {"message": "not found", "type": "invalid_request_error"}})

    def do_POST(self):
        body = self._read_body()
        if self.path == "/_release":
            self.state.released.set()
            return self._send_json(200, {"ok": True})
        self._record(body)
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            return self._send_json(404, {"error": {"message": "not found", "type": "invalid_request_error"}})
        try:
            req = json.loads(body)
            assert isinstance(req, dict) and isinstance(req.get("messages"), list)
        except (ValueError, AssertionError):
            return self._send_json(400, {"error": {"message": "bad request body", "type": "invalid_request_error"}})
        st = self.state
        with st.lock:
            st.active += 1
        try:
            self._chat(req)
        except ClientGone:
            with st.lock:
                st.cancelled += 1
            self.close_connection = True
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            with st.lock:
                st.cancelled += 1
            self.close_connection = True
        finally:
            with st.lock:
                st.active -= 1

    # -- chat

    def _stall(self) -> None:
        st = self.state
        with st.lock:
            st.stalled += 1
        try:
            deadline = time.monotonic() + STALL_LIMIT_S
            while time.monotonic() < deadline and not st.released.is_set():
                if self._peer_closed():
                    raise ClientGone()
                st.released.wait(0.05)
        finally:
            with st.lock:
                st.stalled -= 1

    def _sleep_watching(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while True:
            if self._peer_closed():
                raise ClientGone()
            left = deadline - time.monotonic()
            if left <= 0:
                return
            time.sleep(min(0.02, left))

    def _plan(self, req: dict):
        """What to answer: a list of ("content"|"reasoning"|"tool", piece) and a finish reason,
        plus the delay between pieces and where to cut the connection (None: never)."""
        messages = req["messages"]
        last_user = next((m for m in reversed(messages) if m.get("role") == "user"), {})
        text = message_text(last_user)
        d = directives(text)
        plain = DIRECTIVE.sub("", text).strip()
        pieces, finish, delay, cut = [], "stop", 0.0, None
        tools = req.get("tools") or []

        if messages and messages[-1].get("role") == "tool":
            result = messages[-1].get("content")
            n = len(result) if isinstance(result, str) else len(message_text(messages[-1]))
            pieces = [("content", p) for p in word_pieces(f"Got tool result of {n} chars.")]
        elif "tool" in d and tools and req.get("tool_choice") != "none":
            tool = tools[0]
            name = (tool.get("function") or {}).get("name", "tool")
            call_id = f"call_{self.state.name}{self.state.next_seq()}"
            args = tool_arguments(tool)
            pieces = [("tool_head", (call_id, name))] + [("tool", a) for a in split_in(args, 3)]
            finish = "tool_calls"
        elif "echo-image" in d:
            urls = image_urls(messages)
            flags = ",".join("yes" if u.startswith("data:image/") else "no" for u in urls) or "none"
            pieces = [("content", p) for p in word_pieces(f"images={len(urls)} data={flags}")]
        elif "slow" in d:
            n = d["slow"] or 10
            pieces = [("content", f"tok{i} ") for i in range(1, n + 1)]
            delay = SLOW_INTERVAL_S
        elif "shout" in d:
            pieces = [("content", p) for p in word_pieces(plain.upper() or "NOTHING")]
        elif "echo" in d:
            pieces = [("content", p) for p in word_pieces(plain or "nothing")]
        else:
            hello = f"Hello from upstream {self.state.name}."
            pieces = [("content", p) for p in word_pieces(format_answer(req, hello) or hello)]

        if "think" in d:
            pieces = [("reasoning", p) for p in word_pieces(THINKING)] + pieces
        if "drop-after" in d:
            cut = d["drop-after"] or 0

        limit = req.get("max_completion_tokens") or req.get("max_tokens")
        if isinstance(limit, int) and limit >= 0 and len(pieces) > limit:
            pieces, finish = pieces[:limit], "length"
        return pieces, finish, delay, cut

    def _chat(self, req: dict) -> None:
        st = self.state
        text = message_text(next((m for m in reversed(req["messages"]) if m.get("role") == "user"), {}))
        d = directives(text)
        if st.stall_all or "stall" in d:
            self._stall()
        if st.fail_all or "fail" in d:
            return self._send_json(500, {"error": {"message": "scripted failure", "type": "server_error"}})

        pieces, finish, delay, cut = self._plan(req)
        seq = st.next_seq()
        cid = f"chatcmpl-upstream{st.name}{seq}"
        created = int(time.time())
        model = req.get("model") or "upstream"
        prompt_tokens = count_prompt_tokens(req["messages"])
        reasoning_tokens = sum(1 for kind, _ in pieces if kind == "reasoning")
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": len(pieces),
            "total_tokens": prompt_tokens + len(pieces),
            "completion_tokens_details": {"reasoning_tokens": reasoning_tokens},
        }
        if "overreport" in d:
            n = d["overreport"] or 100_000
            usage = {"prompt_tokens": n, "completion_tokens": n, "total_tokens": 2 * n,
                     "completion_tokens_details": {"reasoning_tokens": n}}
        if req.get("stream"):
            self._stream(req, pieces, finish, delay, cut, cid, created, model, usage)
        else:
            self._whole(pieces, finish, delay, cut, cid, created, model, usage)

    def _cut(self) -> None:
        """Drop the connection without finishing the response."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _whole(self, pieces, finish, delay, cut, cid, created, model, usage) -> None:
        if delay:
            self._sleep_watching(delay * len(pieces))
        if cut is not None:
            return self._cut()
        message = {"role": "assistant", "content": None}
        content = "".join(p for kind, p in pieces if kind == "content")
        reasoning = "".join(p for kind, p in pieces if kind == "reasoning")
        calls = []
        for kind, p in pieces:
            if kind == "tool_head":
                calls.append({"id": p[0], "type": "function", "function": {"name": p[1], "arguments": ""}})
            elif kind == "tool":
                calls[-1]["function"]["arguments"] += p
        if content or not calls:
            message["content"] = content
        if reasoning:
            message["reasoning_content"] = reasoning
        if calls:
            message["tool_calls"] = calls
        self._send_json(
            200,
            {"id": cid, "object": "chat.completion", "created": created, "model": model,
             "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
             "usage": usage},
        )

    def _stream(self, req, pieces, finish, delay, cut, cid, created, model, usage) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def send(obj) -> None:
            if self._peer_closed():
                raise ClientGone()
            data = b"data: " + (obj if isinstance(obj, bytes) else json.dumps(obj).encode()) + b"\n\n"
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

        def chunk(delta, finish_reason=None) -> dict:
            return {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}]}

        send(chunk({"role": "assistant", "content": ""}))
        sent = 0
        for kind, p in pieces:
            if cut is not None and sent >= cut:
                break
            if delay and sent:
                self._sleep_watching(delay)
            if kind == "content":
                send(chunk({"content": p}))
            elif kind == "reasoning":
                send(chunk({"reasoning_content": p}))
            elif kind == "tool_head":
                send(chunk({"tool_calls": [{"index": 0, "id": p[0], "type": "function",
                                            "function": {"name": p[1], "arguments": ""}}]}))
            elif kind == "tool":
                send(chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}))
            sent += 1
        if cut is not None:
            # Cut the connection mid-stream: no finish chunk, no [DONE], no terminating chunk.
            return self._cut()
        send(chunk({}, finish))
        if (req.get("stream_options") or {}).get("include_usage"):
            send({"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                  "choices": [], "usage": usage})
        send(b"[DONE]")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--name", default="A")
    ap.add_argument("--stall-all", action="store_true", help="stall every chat request until /_release")
    ap.add_argument("--fail-all", action="store_true", help="answer every chat request with HTTP 500")
    args = ap.parse_args(argv)
    Handler.state = State(args.name, args.stall_all, args.fail_all)
    server = Server((args.host, args.port), Handler)
    host, port = server.server_address[:2]
    print(f"listening on http://{host}:{port}", flush=True)
    try:
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    sys.exit(main())
