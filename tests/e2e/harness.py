"""Real processes for the end-to-end tests: the scripted upstream, `shoal serve`, `shoal worker`,
and `shoal admin`. Every wait is bounded and polls for a condition; nothing sleeps and hopes.
"""

from __future__ import annotations

import atexit
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Optional

import httpx
import openai

E2E_DIR = Path(__file__).resolve().parent
REPO_ROOT = E2E_DIR.parents[1]
UPSTREAM_SCRIPT = E2E_DIR / "upstream.py"

START_TIMEOUT_S = 30.0
# Log level for every shoal process. The privacy test wants the chattiest level Shoal's own code
# has; dependencies stay at debug too (trace would dump WebSocket frames in hex).
SHOAL_LOG = os.environ.get("SHOAL_E2E_LOG", "debug")

# Pricing (nano-USD per token) and 1 credit = 1,000,000 nano-USD: the built-in rate card.
INPUT_NANO_USD = 150
OUTPUT_NANO_USD = 900


def credits_for(prompt_tokens: int, completion_tokens: int) -> int:
    """A request's cost in credits: ceil(nano-USD / 1e6), at least 1. Integers only."""
    nano = prompt_tokens * INPUT_NANO_USD + completion_tokens * OUTPUT_NANO_USD
    return max(1, -(-nano // 1_000_000))


def shoal_bin_path() -> Path:
    if os.environ.get("SHOAL_BIN"):
        return Path(os.environ["SHOAL_BIN"]).resolve()
    target = Path(os.environ.get("CARGO_TARGET_DIR") or "target")
    if not target.is_absolute():
        target = REPO_ROOT / target
    return target / "debug" / "shoal"


def wait_for(condition: Callable[[], object], timeout: float, what: str, interval: float = 0.05):
    """Polls `condition` until it returns something truthy and returns it; fails after `timeout`."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        last = condition()
        if last:
            return last
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what} (last: {last!r})")
        time.sleep(interval)


def settled(gateway: "Gateway", key: str, timeout: float = 10.0) -> dict:
    """The balance once nothing is held any more."""
    return wait_for(lambda: (lambda b: b if b["credits_held"] == 0 else None)(gateway.balance(key)),
                    timeout, "credits_held to return to 0")


def one_request(upstream: "Upstream", nonce: str) -> dict:
    """The one request the upstream received for this test (found by its nonce)."""
    reqs = upstream.requests(containing=nonce)
    assert len(reqs) == 1, f"the upstream saw {len(reqs)} requests for this test, expected 1"
    return reqs[0]


def tail(path: Path, lines: int = 40) -> str:
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def clean_env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHOAL_")}
    env.update(extra)
    return env


# ---- process bookkeeping -------------------------------------------------------------------


class Proc:
    """A child process with its logs. Every Proc is registered so a session can kill them all."""

    registry: list = []

    def __init__(self, name: str, popen: subprocess.Popen, logs: Iterable[Path], shoal: bool):
        self.name = name
        self.popen = popen
        self.logs = list(logs)
        self.shoal = shoal  # a shoal process: its logs are searched by the privacy test
        self.started_at = time.monotonic()
        Proc.registry.append(self)

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def kill(self) -> None:
        """SIGKILL, then reap."""
        if self.alive():
            self.popen.kill()
        try:
            self.popen.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass

    def terminate(self, timeout: float = 10.0) -> Optional[int]:
        """SIGTERM; SIGKILL after `timeout`. Returns the exit status of the SIGTERM path, or None
        when it had to be killed."""
        if not self.alive():
            return self.popen.returncode
        self.popen.send_signal(signal.SIGTERM)
        try:
            return self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return None

    def log_tails(self) -> str:
        return "\n".join(f"--- {p.name} (last lines)\n{tail(p)}" for p in self.logs)

    @classmethod
    def kill_all(cls) -> None:
        for p in reversed(cls.registry):
            p.kill()


atexit.register(Proc.kill_all)


class LineReader:
    """Reads a child's stdout on a thread: copies every line to a log file and hands the lines
    to whoever waits for a ready signal, so the pipe never fills."""

    def __init__(self, stream, log_path: Path):
        self.lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self.log_path = log_path
        self._thread = threading.Thread(target=self._run, args=(stream,), daemon=True)
        self._thread.start()

    def _run(self, stream) -> None:
        with open(self.log_path, "a", encoding="utf-8", errors="replace") as log:
            for raw in iter(stream.readline, b""):
                line = raw.decode("utf-8", "replace")
                log.write(line)
                log.flush()
                self.lines.put(line.rstrip("\r\n"))
        self.lines.put(None)

    def wait_prefix(self, prefix: str, timeout: float) -> Optional[str]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                return None
            if line is None:
                return None
            if line.startswith(prefix):
                return line


# ---- the scripted upstream -----------------------------------------------------------------


class Upstream:
    """`tests/e2e/upstream.py` as a subprocess, and a client for its control endpoints."""

    def __init__(self, log_dir: Path, name: str = "A", stall_all: bool = False, fail_all: bool = False):
        self.name = name
        tag = f"upstream-{name}-{uuid.uuid4().hex[:6]}"
        out_log, err_log = log_dir / f"{tag}.stdout.log", log_dir / f"{tag}.stderr.log"
        cmd = [sys.executable, str(UPSTREAM_SCRIPT), "--port", "0", "--name", name]
        if stall_all:
            cmd.append("--stall-all")
        if fail_all:
            cmd.append("--fail-all")
        popen = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=open(err_log, "wb"), stdin=subprocess.DEVNULL)
        self.proc = Proc(tag, popen, [out_log, err_log], shoal=False)
        line = LineReader(popen.stdout, out_log).wait_prefix("listening on ", START_TIMEOUT_S)
        if line is None:
            self.proc.kill()
            raise RuntimeError(f"scripted upstream did not start\n{self.proc.log_tails()}")
        self.url = line.split("listening on ", 1)[1].strip()
        self.v1 = self.url + "/v1"
        self.http = httpx.Client(base_url=self.url, timeout=10)

    def requests(self, containing: Optional[str] = None, path: str = "/v1/chat/completions") -> list:
        """Recorded requests to `path` (None: any path), optionally only those whose JSON body
        contains the string `containing` anywhere."""
        import json

        out = []
        for r in self.http.get("/_requests").json():
            if path is not None and r["path"].split("?")[0].rstrip("/") != path:
                continue
            if containing is not None and containing not in json.dumps(r["body"]) + (r["raw"] or ""):
                continue
            out.append(r)
        return out

    def clear(self) -> None:
        self.http.delete("/_requests").raise_for_status()

    def active(self) -> int:
        return self.http.get("/_active").json()["active"]

    def stalled(self) -> int:
        return self.http.get("/_active").json()["stalled"]

    def cancelled(self) -> int:
        return self.http.get("/_cancelled").json()["cancelled"]

    def release(self) -> None:
        self.http.post("/_release").raise_for_status()

    def stop(self) -> None:
        self.http.close()
        self.proc.kill()


# ---- shoal serve ---------------------------------------------------------------------------


@dataclass
class Account:
    id: str
    email: str
    key: str


class Gateway:
    """`shoal serve --listen 127.0.0.1:0 --data-dir D [--config D/shoal.toml]`."""

    def __init__(self, bin_path: Path, root: Path, log_dir: Path, config_toml: Optional[str] = None,
                 extra_args: tuple = ()):
        self.bin = bin_path
        self.data_dir = root / "data"
        self.data_dir.mkdir(parents=True, exist_ok=True)
        tag = f"gateway-{uuid.uuid4().hex[:6]}"
        out_log, err_log = log_dir / f"{tag}.stdout.log", log_dir / f"{tag}.stderr.log"
        cmd = [str(bin_path), "serve", "--listen", "127.0.0.1:0", "--data-dir", str(self.data_dir)]
        if config_toml is not None:
            config = root / "shoal.toml"
            config.write_text(config_toml)
            cmd += ["--config", str(config)]
        cmd += list(extra_args)
        popen = subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE,
            stderr=open(err_log, "wb"),
            stdin=subprocess.DEVNULL,
            env=clean_env(SHOAL_LOG=SHOAL_LOG),
            cwd=root,
        )
        self.proc = Proc(tag, popen, [out_log, err_log], shoal=True)
        line = LineReader(popen.stdout, out_log).wait_prefix("listening on ", START_TIMEOUT_S)
        if line is None:
            self.proc.kill()
            raise RuntimeError(f"shoal serve did not print its ready line\n{self.proc.log_tails()}")
        self.base = line.split("listening on ", 1)[1].strip()
        self.api = self.base + "/api/v1"
        self._http = httpx.Client(timeout=10)
        # A key with room for polling, used to watch /models.
        self.probe = self.new_account(credits=0, email=f"probe-{uuid.uuid4().hex[:8]}@e2e.test")

    # admin

    def admin(self, *args: str) -> str:
        """`shoal admin --data-dir D ARGS…`: must succeed and print exactly one line."""
        cmd = [str(self.bin), "admin", "--data-dir", str(self.data_dir), *args]
        out = subprocess.run(cmd, capture_output=True, timeout=60, env=clean_env(), stdin=subprocess.DEVNULL)
        stdout = out.stdout.decode()
        assert out.returncode == 0, f"shoal admin {args} failed ({out.returncode}): {out.stderr.decode()}"
        lines = stdout.splitlines()
        assert len(lines) == 1, f"shoal admin {args} printed {stdout!r}, not one line"
        return lines[0].strip()

    def new_account(self, credits: int = 1000, rpm: int = 100_000, email: Optional[str] = None) -> Account:
        email = email or f"e2e-{uuid.uuid4().hex[:12]}@e2e.test"
        account_id = self.admin("account", "create", "--email", email)
        if credits:
            self.admin("credits", "grant", "--account", account_id, "--credits", str(credits))
        key = self.admin("key", "create", "--account", account_id, "--rpm", str(rpm))
        return Account(account_id, email, key)

    def worker_token(self, name: str) -> str:
        return self.admin("worker-token", "create", "--name", name)

    # API

    def client(self, key: str, timeout: float = 30.0) -> openai.OpenAI:
        return openai.OpenAI(base_url=self.api, api_key=key, max_retries=0, timeout=timeout)

    def get(self, path: str, key: str) -> httpx.Response:
        return self._http.get(self.api + path, headers={"Authorization": f"Bearer {key}"})

    def balance(self, key: str) -> dict:
        r = self.get("/balance", key)
        assert r.status_code == 200, r.text
        return r.json()

    def models(self) -> dict:
        r = self.get("/models", self.probe.key)
        assert r.status_code == 200, r.text
        return {m["id"]: m for m in r.json()["data"]}

    def available(self, model: str) -> bool:
        return bool(self.models()[model]["available"])

    def wait_available(self, models: Iterable[str], want: bool = True, timeout: float = START_TIMEOUT_S,
                       watch: Optional[Proc] = None) -> None:
        models = list(models)
        deadline = time.monotonic() + timeout
        while True:
            listed = self.models()
            if all(bool(listed[m]["available"]) == want for m in models):
                return
            if watch is not None and not watch.alive():
                raise AssertionError(
                    f"{watch.name} exited with status {watch.popen.returncode} before "
                    f"{models} became available\n{watch.log_tails()}"
                )
            if time.monotonic() >= deadline:
                state = {m: listed[m]["available"] for m in models}
                extra = f"\n{watch.log_tails()}" if watch is not None else ""
                raise AssertionError(f"timed out waiting for available={want} on {state}{extra}")
            time.sleep(0.05)

    def stop(self) -> None:
        self._http.close()
        self.proc.terminate(timeout=5)


# ---- shoal worker --------------------------------------------------------------------------


class Worker:
    """`shoal worker --gateway URL --token T --backend openai --upstream U/v1 --serve M[=UM]…`."""

    def __init__(self, bin_path: Path, gateway: Gateway, upstream: Upstream, serves: list,
                 log_dir: Path, concurrency: int = 4, name: Optional[str] = None, wait: bool = True):
        name = name or f"worker-{uuid.uuid4().hex[:6]}"
        self.gateway = gateway
        self.models = [s.split("=", 1)[0] for s in serves]
        token = gateway.worker_token(name)
        out_log, err_log = log_dir / f"{name}.stdout.log", log_dir / f"{name}.stderr.log"
        cmd = [str(bin_path), "worker", "--gateway", gateway.base, "--token", token,
               "--backend", "openai", "--upstream", upstream.v1, "--concurrency", str(concurrency)]
        for s in serves:
            cmd += ["--serve", s]
        popen = subprocess.Popen(
            cmd,
            stdout=open(out_log, "wb"),
            stderr=open(err_log, "wb"),
            stdin=subprocess.DEVNULL,
            env=clean_env(SHOAL_LOG=SHOAL_LOG),
        )
        self.proc = Proc(name, popen, [out_log, err_log], shoal=True)
        if wait:
            self.wait_ready()

    def wait_ready(self, timeout: float = START_TIMEOUT_S) -> None:
        """Ready when /api/v1/models shows every model it serves as available."""
        self.gateway.wait_available(self.models, True, timeout, watch=self.proc)

    def kill(self) -> None:
        self.proc.kill()

    def terminate(self, timeout: float = 10.0) -> Optional[int]:
        return self.proc.terminate(timeout)
