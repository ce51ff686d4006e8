#!/usr/bin/env python3
"""A stand-in for the `/api/v1/responses` and `/api/v1/messages` routes that answers with the
protocol crate's golden renderings (crates/protocol/tests/golden, written by its unit tests
from the real renderers). It is not part of Shoal and runs no model: it lets the SDKs' own
parsers, agent frameworks and CLIs read exactly the bytes Shoal's renderers write, before (and
apart from) a gateway serving them. Standard library only.

    python3 tests/e2e/golden_server.py --port 0

prints `listening on http://127.0.0.1:PORT` once it accepts connections.

Which golden answers a request (`.sse` when `stream` is true, `.json` otherwise):

    Responses   text.format json_schema               -> responses_json
                a function_call_output                -> responses_text
                a `get_weather` tool, or `[[tool]]` asked -> responses_one_call
                otherwise                              -> responses_text
    Messages    a tool_result in the last turn             -> messages_text
                a `get_weather` tool, or `[[tool]]` asked  -> messages_one_call
                otherwise                                   -> messages_text

(`[[tool]]` anywhere in the request makes a client that offers other tools get the call of
`get_weather` all the same: an unknown tool, which agent CLIs answer with an error result.)
    count_tokens                                -> {"input_tokens": 12}

The key `bad` (bearer or `x-api-key`) gets a 401 in the route's error shape. Every request is
recorded: GET /_requests lists them (method, path, headers, JSON body), oldest first; with
SHOAL_GOLDEN_RECORD=FILE they are also appended to FILE, one JSON line each.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

GOLDEN = Path(__file__).resolve().parents[2] / "crates" / "protocol" / "tests" / "golden"
BAD_KEY = "bad"
TOOL_DIRECTIVE = "[[tool]]"
COUNT = 12


def responses_golden(body: dict) -> str:
    fmt = ((body.get("text") or {}).get("format") or {}).get("type")
    items = body.get("input") if isinstance(body.get("input"), list) else []
    if fmt == "json_schema":
        return "responses_json"
    if any(isinstance(i, dict) and i.get("type") == "function_call_output" for i in items):
        return "responses_text"
    if "get_weather" in tool_names(body.get("tools")) or TOOL_DIRECTIVE in json.dumps(items):
        return "responses_one_call"
    return "responses_text"


def messages_golden(body: dict) -> str:
    messages = body.get("messages") or []
    last = messages[-1].get("content") if messages and isinstance(messages[-1], dict) else None
    if isinstance(last, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in last):
        return "messages_text"
    if "get_weather" in tool_names(body.get("tools")) or TOOL_DIRECTIVE in json.dumps(messages):
        return "messages_one_call"
    return "messages_text"


def tool_names(tools) -> set:
    names = set()
    for t in tools or []:
        if isinstance(t, dict):
            names.add(t.get("name") or (t.get("function") or {}).get("name"))
            names |= tool_names(t.get("tools"))
    return names


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "golden"

    def log_message(self, *args):
        pass

    def key(self) -> str:
        auth = self.headers.get("authorization") or ""
        return self.headers.get("x-api-key") or auth.removeprefix("Bearer ").strip()

    def send(self, status: int, data: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/_requests":
            with self.server.lock:
                data = json.dumps(self.server.requests).encode()
            return self.send(200, data, "application/json")
        self.send(404, b'{"error":{"message":"no such route","type":"invalid_request_error"}}',
                  "application/json")

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = None
        record = {"method": "POST", "path": self.path, "headers": dict(self.headers.items()), "body": body}
        with self.server.lock:
            self.server.requests.append(record)
            if os.environ.get("SHOAL_GOLDEN_RECORD"):
                # Where a maintainer collects clients' requests (for the protocol crate's
                # fixtures of what real clients send).
                with open(os.environ["SHOAL_GOLDEN_RECORD"], "a") as f:
                    f.write(json.dumps(record) + "\n")
        path = self.path.split("?", 1)[0]
        anthropic = "/messages" in path
        if self.key() == BAD_KEY:
            if anthropic:
                err = {"type": "error", "error": {"type": "authentication_error",
                                                   "message": "missing or invalid API key"}}
            else:
                err = {"error": {"message": "missing or invalid API key", "type": "authentication_error",
                                 "param": None, "code": "invalid_api_key"}}
            return self.send(401, json.dumps(err).encode(), "application/json")
        if not isinstance(body, dict):
            return self.send(400, b'{"error":{"message":"not JSON","type":"invalid_request_error"}}',
                             "application/json")
        if path.endswith("/messages/count_tokens"):
            return self.send(200, json.dumps({"input_tokens": COUNT}).encode(), "application/json")
        if path.endswith("/messages"):
            name = messages_golden(body)
        elif path.endswith("/responses"):
            name = responses_golden(body)
        else:
            return self.send(404, b'{"error":{"message":"no such route","type":"invalid_request_error"}}',
                             "application/json")
        if body.get("stream"):
            self.send(200, (GOLDEN / f"{name}.sse").read_bytes(), "text/event-stream")
        else:
            self.send(200, (GOLDEN / f"{name}.json").read_bytes(), "application/json")


class GoldenServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int = 0):
        super().__init__(("127.0.0.1", port), Handler)
        self.lock = threading.Lock()
        self.requests: list = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


def start_in_thread() -> GoldenServer:
    server = GoldenServer()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    srv = GoldenServer(args.port)
    print(f"listening on {srv.url}", flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        sys.exit(0)
