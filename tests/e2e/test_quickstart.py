"""The README's quick start, run as written: its command lines are read from README.md (so the
test and the page cannot drift apart) and run in the repository root with bash, as a newcomer
would type them. Only the environment differs: `SHOAL_LISTEN` picks a free port and
`SHOAL_DATA_DIR` a throwaway folder, so that the run neither collides with a server on 8080
nor writes into the checkout.

The demo command builds the binary itself (`cargo run`): in CI it comes after `cargo test
--workspace`, which already built everything it needs in the same profile.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import openai
import pytest

from harness import REPO_ROOT, LineReader, Proc, clean_env, tail, wait_for

README = REPO_ROOT / "README.md"
MAKE_TEST_MODEL = REPO_ROOT / "scripts" / "make-test-model"
# `cargo run` may have to compile first (the whole binary on a fresh machine).
BUILD_TIMEOUT_S = 1800
KEY = re.compile(r"sk-shoal-[0-9A-Za-z]{40}")
# Line prefixes of llama.cpp's own log (model loading, context creation).
LLAMA_LOG = re.compile(r"llama_model_loader|print_info|load_tensors|llama_context|llama_kv_cache|load:")


def quick_start_blocks() -> list:
    """The `sh` code blocks of the README's "Quick start" section, in order."""
    text = README.read_text()
    section = text.split("\n## Quick start\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)```", section, re.S)


def commands(block: str) -> list:
    """A block's command lines: comments and blank lines left out, continuations joined."""
    lines = []
    for line in block.replace("\\\n", " ").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            lines.append(line.strip())
    return lines


def test_quick_start_ends_with_the_demo_and_the_tests():
    last = commands(quick_start_blocks()[-1])
    assert len(last) == 2, last
    demo, tests = last
    assert demo.startswith("cargo run ") and "serve --demo" in demo, demo
    assert demo in commands(quick_start_blocks()[0]), "the first block is the demo command too"
    # The test command names a script of this repository.
    script = next(w for w in shlex.split(tests) if "/" in w)
    assert (REPO_ROOT / script).is_file(), tests


class Demo:
    """The README's demo command, running."""

    def __init__(self, line: str, root: Path, log_dir: Path):
        self.data_dir = root / "data"
        out_log, self.err_log = log_dir / "quickstart.stdout.log", log_dir / "quickstart.stderr.log"
        env = clean_env(SHOAL_LISTEN="127.0.0.1:0", SHOAL_DATA_DIR=str(self.data_dir))
        popen = subprocess.Popen(
            ["bash", "-c", line],
            cwd=REPO_ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=open(self.err_log, "wb"),
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.proc = Proc("quickstart", popen, [out_log, self.err_log], shoal=True)
        ready = LineReader(popen.stdout, out_log).wait_prefix("listening on ", BUILD_TIMEOUT_S)
        if ready is None:
            self.stop()
            raise AssertionError(f"`{line}` did not start\n{self.proc.log_tails()}")
        self.base = ready.split("listening on ", 1)[1].strip()

    def stderr(self) -> str:
        return self.err_log.read_text(errors="replace")

    def banner(self) -> str:
        """The demo's banner and what came after it."""
        text = self.stderr()
        at = text.find("=== shoal demo ===")
        return text[at:] if at >= 0 else ""

    def stop(self) -> int:
        """Ctrl-C, as a person stops it: SIGINT to the whole process group."""
        try:
            os.killpg(self.proc.pid, signal.SIGINT)
        except ProcessLookupError:
            pass
        try:
            return self.proc.popen.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            raise


@pytest.fixture(scope="module")
def demo(tmp_path_factory, log_dir):
    line = commands(quick_start_blocks()[-1])[0]
    d = Demo(line, tmp_path_factory.mktemp("quickstart"), log_dir)
    yield d
    if d.proc.alive():
        d.stop()


def test_demo_answers_with_the_printed_key(demo):
    banner = wait_for(lambda: "curl " in demo.banner() and demo.banner(), 60, "the demo banner")
    key = KEY.search(banner).group(0)
    # The curl line the banner offers: its URL, key and model are what the SDK uses below.
    curl = banner[banner.index("curl "):].split("\n\n", 1)[0].replace("\\\n", " ")
    words = shlex.split(curl)
    url = next(w for w in words if w.startswith("http"))
    assert url == demo.base + "/api/v1/chat/completions", url
    assert f"Authorization: Bearer {key}" in words
    model = re.search(r'"model":"([^"]+)"', curl).group(1)

    http = httpx.Client(base_url=demo.base + "/api/v1", headers={"Authorization": f"Bearer {key}"})
    available = lambda: {m["id"]: m["available"] for m in http.get("/models").json()["data"]}[model]  # noqa: E731
    wait_for(available, 120, f"{model} to become available through the demo worker", interval=0.2)
    client = openai.OpenAI(base_url=demo.base + "/api/v1", api_key=key, max_retries=0, timeout=120)
    r = client.chat.completions.create(model=model, messages=[{"role": "user", "content": "Hello"}],
                                       max_tokens=8)
    assert r.choices[0].finish_reason in ("stop", "length")
    assert 0 < r.usage.completion_tokens <= 8 and r.usage.prompt_tokens > 0
    # The hold is settled just after the answer is delivered, so the bill may land a moment later.
    balance = wait_for(lambda: (b := http.get("/balance").json())["total_spent"] > 0 and b, 10,
                       "the demo request to be billed", interval=0.05)
    assert balance["credits"] == 1000 - balance["total_spent"], balance

    # The banner's dashboard login works with the same account, and the header offers no
    # "Contribute this browser" (the demo runs no browser models).
    login = re.search(r"Dashboard \(usage, keys, playground\): (\S+)\n\s+log in as (\S+) with the password (\S+)",
                      banner)
    assert login and login.group(1) == demo.base + "/dashboard", banner
    r = httpx.post(demo.base + "/dashboard/login", data={"email": login.group(2), "password": login.group(3)},
                   headers={"Sec-Fetch-Site": "same-origin"}, timeout=30)
    assert r.status_code == 303 and r.headers["location"] == "/dashboard/usage", r.text
    page = httpx.get(demo.base + "/dashboard/usage", cookies={"shoal_session": r.cookies["shoal_session"]})
    assert page.status_code == 200 and login.group(2) in page.text, page.text[:500]
    assert "Contribute this browser" not in page.text

    # What a person reads: the banner, the note about random weights, and no llama.cpp log.
    banner = demo.banner()
    assert "random weights" in banner, banner
    noise = [line for line in demo.stderr().splitlines() if LLAMA_LOG.search(line)]
    assert not noise, noise[:5]
    assert demo.stop() == 0, tail(demo.err_log)


def test_demo_model_is_the_scripts_model_byte_for_byte(demo, tmp_path):
    written = demo.data_dir / "demo-test-model.gguf"
    wait_for(written.is_file, 60, "the demo model")
    made = tmp_path / "made.gguf"
    subprocess.run([sys.executable, str(MAKE_TEST_MODEL), str(made)], check=True, timeout=60)
    a, b = written.read_bytes(), made.read_bytes()
    first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    assert a == b, f"{len(a)} vs {len(b)} bytes, first difference at byte {first}"
