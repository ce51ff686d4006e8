"""The embedded llama.cpp backend end to end: the openai SDK → `shoal serve` → `shoal worker
--backend llama` on the generated test model (scripts/make-test-model: random weights, so the
text is noise; loading, templating, sampling, streaming, counting and cancelling are real).
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from harness import REPO_ROOT, SHOAL_LOG, START_TIMEOUT_S, Gateway, Proc, clean_env, wait_for

MODEL = "large-27b-uncensored"
MAKE_TEST_MODEL = REPO_ROOT / "scripts" / "make-test-model"
SYSTEM = "You are a helpful assistant."


def chatml(user: str) -> str:
    """The test model's template output for one user message (no tools)."""
    return (
        f"<|im_start|>system\n{SYSTEM}<|im_end|>\n"
        f"<|im_start|>user\n{user}<|im_end|>\n<|im_start|>assistant\n"
    )


def count_tokens(text: str) -> int:
    """The test model's tokenizer, reimplemented in Python by the generator."""
    out = subprocess.run([sys.executable, str(MAKE_TEST_MODEL), "--count-tokens", text],
                         capture_output=True, text=True, check=True, timeout=30)
    return int(out.stdout.strip())


@pytest.fixture(scope="module")
def gguf(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("model") / "test.gguf"
    started = time.monotonic()
    subprocess.run([sys.executable, str(MAKE_TEST_MODEL), str(path)], check=True, timeout=60)
    assert time.monotonic() - started < 10
    return path


class LlamaWorker:
    """`shoal worker --backend llama --gguf FILE --serve MODEL …`."""

    def __init__(self, bin_path: Path, gateway: Gateway, gguf: Path, log_dir: Path,
                 concurrency: int = 2, extra: tuple = ()):
        name = f"llama-{uuid.uuid4().hex[:6]}"
        self.err_log = log_dir / f"{name}.stderr.log"
        out_log = log_dir / f"{name}.stdout.log"
        token = gateway.worker_token(name)
        cmd = [str(bin_path), "worker", "--gateway", gateway.base, "--token", token,
               "--backend", "llama", "--gguf", str(gguf), "--serve", MODEL,
               "--concurrency", str(concurrency), "--threads", "1", "--ctx", "4096", *extra]
        popen = subprocess.Popen(cmd, stdout=open(out_log, "wb"), stderr=open(self.err_log, "wb"),
                                 stdin=subprocess.DEVNULL, env=clean_env(SHOAL_LOG=SHOAL_LOG))
        self.proc = Proc(name, popen, [out_log, self.err_log], shoal=True)

    def done_lines(self) -> list:
        text = self.err_log.read_text(errors="replace") if self.err_log.exists() else ""
        return [line for line in text.splitlines() if "job done" in line]


@pytest.fixture(scope="module")
def llama_gateway(shoal_bin, tmp_path_factory, log_dir):
    gw = Gateway(shoal_bin, tmp_path_factory.mktemp("llama-gateway"), log_dir)
    yield gw
    gw.stop()


@pytest.fixture(scope="module")
def llama_worker(shoal_bin, llama_gateway, gguf, log_dir):
    w = LlamaWorker(shoal_bin, llama_gateway, gguf, log_dir, concurrency=2)
    llama_gateway.wait_available([MODEL], True, START_TIMEOUT_S, watch=w.proc)
    yield w
    w.proc.terminate(timeout=10)


@pytest.fixture
def llama_client(llama_gateway, llama_worker):
    account = llama_gateway.new_account(credits=1000)
    c = llama_gateway.client(account.key, timeout=60)
    c.account = account
    yield c
    c.close()


def test_non_stream_counts_tokens_exactly(llama_client):
    user = "hello there, what is the weather"
    r = llama_client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": user}], max_tokens=12, temperature=0,
    )
    choice = r.choices[0]
    assert choice.finish_reason in ("length", "stop")
    assert r.usage.prompt_tokens == count_tokens(chatml(user))
    if choice.finish_reason == "length":
        assert r.usage.completion_tokens == 12
    assert 0 < r.usage.completion_tokens <= 12
    assert r.usage.total_tokens == r.usage.prompt_tokens + r.usage.completion_tokens


def test_prompt_tokens_follow_the_tokenizer(llama_client):
    """Characters the tokenizer never merges are one token each: the count moves by exactly N."""
    def prompt_tokens(user: str) -> int:
        r = llama_client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": user}], max_tokens=1, temperature=0,
        )
        return r.usage.prompt_tokens

    base = prompt_tokens("count")
    assert prompt_tokens("count" + " ~" * 7) == base + 14  # " " and "~" never merge here
    assert base == count_tokens(chatml("count"))


def test_seed_and_greedy_are_reproducible(llama_client):
    def run(**kw):
        return llama_client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "same"}], max_tokens=16, **kw,
        ).choices[0].message.content

    assert run(temperature=0) == run(temperature=0)
    assert run(temperature=0.9, top_p=0.9, seed=7) == run(temperature=0.9, top_p=0.9, seed=7)


def test_stream_with_usage(llama_client):
    stream = llama_client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "stream please"}], max_tokens=20,
        temperature=0.8, seed=1, stream=True, stream_options={"include_usage": True},
    )
    content, usage, finish = [], None, None
    for chunk in stream:
        if chunk.usage is not None:
            usage = chunk.usage
        for c in chunk.choices:
            if c.delta.content:
                content.append(c.delta.content)
            if c.finish_reason:
                finish = c.finish_reason
    assert finish in ("length", "stop")
    assert usage is not None and usage.prompt_tokens == count_tokens(chatml("stream please"))
    assert 0 < usage.completion_tokens <= 20
    assert len(content) >= 1


def test_stop_strings_end_the_answer(llama_client):
    # Greedy output is fixed: find a piece of it, then stop on it.
    full = llama_client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "stop test"}], max_tokens=40, temperature=0,
    ).choices[0].message.content
    stop = next((full[i:i + 2] for i in range(4, len(full) - 2) if full[i:i + 2].strip()), None)
    if stop is None:
        pytest.skip("greedy output too short to pick a stop string from")
    r = llama_client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "stop test"}], max_tokens=40, temperature=0,
        stop=[stop],
    )
    assert r.choices[0].finish_reason == "stop"
    assert stop not in r.choices[0].message.content
    assert full.startswith(r.choices[0].message.content)


def test_tools_render_through_the_template(llama_client):
    tools = [{"type": "function", "function": {"name": "get_weather", "description": "Weather",
              "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]
    with_tools = llama_client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "weather?"}], tools=tools, max_tokens=4,
        temperature=0,
    )
    without = llama_client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "weather?"}], max_tokens=4, temperature=0,
    )
    # The tools section of the template is in the prompt.
    assert with_tools.usage.prompt_tokens > without.usage.prompt_tokens + 40


def test_cancel_stops_generation(llama_client, llama_worker):
    before = len(llama_worker.done_lines())
    stream = llama_client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "a long answer"}], max_tokens=4000,
        temperature=1.0, stream=True,
    )
    got = 0
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            got += 1
            if got >= 3:
                break
    stream.close()
    lines = wait_for(lambda: llama_worker.done_lines()[before:] or None, 30, "the cancelled job to end")
    n = int(re.search(r"completion_tokens\D+(\d+)", lines[0]).group(1))
    assert n < 4000, lines[0]


def test_two_jobs_stream_at_once(llama_client):
    """Concurrency 2: two streams interleave; neither waits for the other to finish."""
    seen = {}

    def run(tag: str):
        stream = llama_client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": f"job {tag}"}], max_tokens=300,
            temperature=1.0, seed=3, stream=True,
        )
        times = []
        for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                times.append(time.monotonic())
        seen[tag] = times

    threads = [threading.Thread(target=run, args=(t,)) for t in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    a, b = seen["a"], seen["b"]
    assert a and b
    # Each started before the other ended.
    assert a[0] < b[-1] and b[0] < a[-1], (a[0], a[-1], b[0], b[-1])


def test_bad_model_files_fail_clearly(shoal_bin, llama_gateway, tmp_path, log_dir):
    not_gguf = tmp_path / "x.gguf"
    not_gguf.write_text("not a model")
    for path, needle in [(tmp_path / "missing.gguf", "no such file"), (not_gguf, "not a GGUF file")]:
        w = LlamaWorker(shoal_bin, llama_gateway, path, log_dir, concurrency=1)
        code = w.proc.popen.wait(timeout=30)
        assert code != 0 and code > 0, code  # an error exit, not a signal
        err = w.err_log.read_text()
        assert needle in err, err
        assert "panicked" not in err
