#!/usr/bin/env python3
"""A scripted A1111-compatible image server for Shoal's end-to-end tests and benchmarks.

It stands in for AUTOMATIC1111 / Forge / SD.Next / sd-server behind
`shoal-image-worker --backend a1111`. It is not part of Shoal. Standard library only.

    python3 tests/e2e/a1111.py --port 0 [--render-ms N] [--noise]

prints `listening on http://127.0.0.1:PORT` on stdout once it accepts connections.

Endpoints
---------
POST /sdapi/v1/txt2img     {"images": [base64 PNG], "parameters": {…}, "info": "{}"}
GET  /sdapi/v1/progress    the step of the render in progress (sampling_step / sampling_steps)
POST /sdapi/v1/interrupt   recorded; ends the render in progress
GET  /_requests            every request received (method, path, JSON body), oldest first
DELETE /_requests          forget them

The PNG is a real one of the asked width and height, its colours a function of the seed and
the prompt only: the same request gives the same bytes (with --noise, seeded random pixels:
a PNG as large as a real render's, for benchmarks). Each render takes --render-ms (default
0), reported as `steps` progress steps. Directives in the prompt:

    [[fail]]    HTTP 500
    [[reject]]  HTTP 422
    [[stall]]   no answer until /sdapi/v1/interrupt (60 s at most)
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import random
import struct
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
REQUESTS: list = []
PROGRESS = {"step": 0, "steps": 0}
INTERRUPTED = threading.Event()
RENDER_S = 0.0
NOISE = False


def png(width: int, height: int, seed: int, prompt: str) -> bytes:
    """An RGB PNG whose rows are bands of a colour taken from (seed, prompt), or noise."""
    digest = hashlib.sha256(f"{seed}:{prompt}".encode()).digest()
    if NOISE:
        noise = random.Random(digest).randbytes(width * 3 * height)
        raw = b"".join(b"\x00" + noise[y * width * 3:(y + 1) * width * 3] for y in range(height))
    else:
        raw = b"".join(b"\x00" + digest[(y // 64) % 10 * 3:(y // 64) % 10 * 3 + 3] * width
                       for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b""))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Nagle off, as real servers have it: a body written after its headers would otherwise wait
    # for the client's delayed ACK (~40 ms) on a kept-alive connection.
    disable_nagle_algorithm = True

    def log_message(self, *args) -> None:  # quiet
        pass

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return None

    def answer(self, status: int, obj) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def record(self, body) -> None:
        with LOCK:
            REQUESTS.append({"method": self.command, "path": self.path, "body": body})

    def do_GET(self) -> None:
        if self.path == "/_requests":
            with LOCK:
                return self.answer(200, list(REQUESTS))
        if self.path.startswith("/sdapi/v1/progress"):
            with LOCK:
                step, steps = PROGRESS["step"], PROGRESS["steps"]
            return self.answer(200, {"progress": step / steps if steps else 0.0,
                                     "state": {"sampling_step": step, "sampling_steps": steps}})
        self.answer(404, {"detail": "Not Found"})

    def do_DELETE(self) -> None:
        if self.path == "/_requests":
            with LOCK:
                REQUESTS.clear()
            return self.answer(200, {})
        self.answer(404, {"detail": "Not Found"})

    def do_POST(self) -> None:
        body = self.body()
        self.record(body)
        if self.path == "/sdapi/v1/interrupt":
            INTERRUPTED.set()
            return self.answer(200, {})
        if self.path != "/sdapi/v1/txt2img" or not isinstance(body, dict):
            return self.answer(404, {"detail": "Not Found"})
        prompt = str(body.get("prompt", ""))
        if "[[fail]]" in prompt:
            return self.answer(500, {"error": "scripted failure"})
        if "[[reject]]" in prompt:
            return self.answer(422, {"detail": "scripted rejection"})
        if "[[stall]]" in prompt:
            INTERRUPTED.clear()
            INTERRUPTED.wait(60)
            return self.answer(200, {"images": [], "info": "{}"})
        self.render(body)

    def render(self, body: dict) -> None:
        steps = int(body.get("steps", 20))
        for step in range(1, steps + 1):
            if RENDER_S:
                time.sleep(RENDER_S / steps)
            with LOCK:
                PROGRESS.update(step=step, steps=steps)
        image = png(int(body["width"]), int(body["height"]), int(body.get("seed", -1)),
                    str(body.get("prompt", "")))
        self.answer(200, {"images": [base64.b64encode(image).decode()], "parameters": body,
                          "info": json.dumps({"seed": body.get("seed")})})


def main(argv=None) -> None:
    global RENDER_S, NOISE
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--render-ms", type=int, default=0)
    parser.add_argument("--noise", action="store_true")
    args = parser.parse_args(argv)
    RENDER_S = args.render_ms / 1000
    NOISE = args.noise
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    host, port = server.server_address
    print(f"listening on http://{host}:{port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
