"""The embedded llama.cpp backend end to end: the openai SDK → `shoal serve` → `shoal worker
--backend llama` on the generated test model (scripts/make-test-model: random weights, so the
text is noise; loading, templating, sampling, streaming, counting and cancelling are real).
Forced `tool_choice` holds even for noise: the grammar leaves the model nothing else to write.
Vision runs through mtmd with the generated projector (`--mmproj`).
"""

from __future__ import annotations

import base64
import json
import re
import struct
import subprocess
import sys
import threading
import time
import uuid
import zlib
from pathlib import Path

import openai
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


# What the generated projector makes of any image (scripts/make-test-model: 32x32 pixels in 8x8
# patches).
IMAGE_TOKENS = 16


@pytest.fixture(scope="module")
def gguf(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("model") / "test.gguf"
    started = time.monotonic()
    subprocess.run([sys.executable, str(MAKE_TEST_MODEL), str(path), "--mmproj",
                    str(path.with_name("test-mmproj.gguf"))], check=True, timeout=60)
    assert time.monotonic() - started < 10
    return path


@pytest.fixture(scope="module")
def mmproj(gguf) -> Path:
    return gguf.with_name("test-mmproj.gguf")


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

    def log_text(self) -> str:
        return self.err_log.read_text(errors="replace") if self.err_log.exists() else ""

    def done_lines(self) -> list:
        return [line for line in self.log_text().splitlines() if "job done" in line]

    def slot_lines(self) -> list:
        """(generating | done, slot, job id) for each llama slot log line, in order."""
        found = re.findall(r"slot (generating|done) slot=(\d+) job_id=(\S+)", self.log_text())
        return [(kind, int(slot), job) for kind, slot, job in found]


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


def test_two_jobs_stream_at_once(llama_client, llama_worker):
    """Concurrency 2: two jobs generate at once, each in its own slot; neither waits for the
    other to finish.

    The order is read from the worker's own log (a slot's "slot generating" and "slot done"
    lines), not from when chunks reach this client: the test model writes a token in well
    under a millisecond, faster than Python reads SSE, so arrival times here would show two
    streams "interleaving" even from a worker that runs one job at a time. A job that reaches
    the worker after the other has already finished (a slow moment on a busy machine) proves
    nothing either way, so a few pairs are tried; a one-slot worker never overlaps.
    """

    def stream(tag: str, start: threading.Barrier, contents: dict):
        start.wait(10)
        s = llama_client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": f"job {tag}"}], max_tokens=300,
            temperature=1.0, seed=3, stream=True,
        )
        contents[tag] = [c.choices[0].delta.content for c in s
                         if c.choices and c.choices[0].delta.content]

    orders = []
    for _ in range(5):
        before = len(llama_worker.slot_lines())
        contents: dict = {}
        start = threading.Barrier(2)
        threads = [threading.Thread(target=stream, args=(t, start, contents)) for t in "ab"]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert contents.get("a") and contents.get("b"), contents.keys()
        # Both slots' lines are written before each job's end goes out.
        def four_new_lines():
            new = llama_worker.slot_lines()[before:]
            return new if len(new) >= 4 else None

        lines = wait_for(four_new_lines, 10, "the slots' log lines")
        order = [(kind, slot) for kind, slot, _ in lines]
        assert len(lines) == 4 and len({job for _, _, job in lines}) == 2, lines
        orders.append(order)
        if [kind for kind, _ in order] == ["generating", "generating", "done", "done"]:
            assert order[0][1] != order[1][1], order  # two slots, one job each
            return
    pytest.fail(f"the two jobs never generated at once: {orders}")


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


# ---- tool_choice -----------------------------------------------------------------------------

CITIES = ["Paris", "Oslo", "Lima"]
ZONES = ["UTC", "CET"]
# Enums, integers and booleans: with random weights a free string could run for hundreds of
# tokens before the model happens to close it; these end quickly whatever is sampled.
WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city",
    "parameters": {"type": "object", "properties": {
        "city": {"enum": CITIES}, "days": {"type": "integer"}, "metric": {"type": "boolean"}},
        "required": ["city", "days", "metric"]}}}
CLOCK = {"type": "function", "function": {
    "name": "get_time", "description": "The time in a zone",
    "parameters": {"type": "object", "properties": {"zone": {"enum": ZONES}}, "required": ["zone"]}}}
TOOLS = [WEATHER, CLOCK]


def check_arguments(name: str, arguments: str) -> None:
    """The arguments are JSON and follow the tool's schema."""
    args = json.loads(arguments)
    if name == "get_weather":
        assert set(args) == {"city", "days", "metric"}, args
        assert args["city"] in CITIES, args
        assert isinstance(args["days"], int) and not isinstance(args["days"], bool), args
        assert isinstance(args["metric"], bool), args
    elif name == "get_time":
        assert set(args) == {"zone"} and args["zone"] in ZONES, args
    else:
        raise AssertionError(f"a call of an unknown function {name!r}")


def named(name: str) -> dict:
    return {"type": "function", "function": {"name": name}}


@pytest.mark.parametrize("sampling", [{"temperature": 0}, {"temperature": 1.0, "seed": 1},
                                      {"temperature": 1.3, "top_p": 0.95, "seed": 2}])
def test_forced_function_is_called_whole(llama_client, sampling):
    for name in ("get_time", "get_weather"):
        r = llama_client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "what now?"}], tools=TOOLS,
            tool_choice=named(name), parallel_tool_calls=False, max_tokens=400, **sampling,
        )
        choice = r.choices[0]
        assert choice.finish_reason == "tool_calls", choice
        calls = choice.message.tool_calls
        assert calls and len(calls) == 1, choice.message
        assert calls[0].type == "function" and calls[0].id
        assert calls[0].function.name == name
        check_arguments(name, calls[0].function.arguments)
        assert not (choice.message.content or "").strip()
        assert r.usage.completion_tokens > 5


def test_required_streams_calls_of_the_offered_tools(llama_client):
    names = set()
    for seed in range(4):
        stream = llama_client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "call something"}], tools=TOOLS,
            tool_choice="required", max_tokens=1500, temperature=1.0, seed=seed, stream=True,
            stream_options={"include_usage": True},
        )
        calls, finish, usage, content = {}, None, None, []
        for chunk in stream:
            if chunk.usage is not None:
                usage = chunk.usage
            for c in chunk.choices:
                if c.delta.content:
                    content.append(c.delta.content)
                for tc in c.delta.tool_calls or []:
                    call = calls.setdefault(tc.index, {"name": "", "arguments": "", "id": None})
                    if tc.id:
                        call["id"] = tc.id
                    if tc.function and tc.function.name:
                        call["name"] += tc.function.name
                    if tc.function and tc.function.arguments:
                        call["arguments"] += tc.function.arguments
                if c.finish_reason:
                    finish = c.finish_reason
        assert finish == "tool_calls", (finish, calls, "".join(content))
        assert calls and sorted(calls) == list(range(len(calls)))
        assert not "".join(content).strip()
        for call in calls.values():
            assert call["id"]
            check_arguments(call["name"], call["arguments"])
            names.add(call["name"])
        assert usage is not None and usage.completion_tokens > 5
    assert names <= {"get_weather", "get_time"}


def test_forced_call_streamed_with_one_call_only(llama_client):
    stream = llama_client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "weather?"}], tools=TOOLS,
        tool_choice=named("get_weather"), parallel_tool_calls=False, max_tokens=400,
        temperature=0.9, seed=5, stream=True,
    )
    deltas, finish = [], None
    for chunk in stream:
        for c in chunk.choices:
            deltas.extend(c.delta.tool_calls or [])
            finish = c.finish_reason or finish
    assert finish == "tool_calls"
    assert {d.index for d in deltas} == {0}
    name = "".join(d.function.name or "" for d in deltas if d.function)
    arguments = "".join(d.function.arguments or "" for d in deltas if d.function)
    assert name == "get_weather"
    check_arguments(name, arguments)


def test_tool_choice_none_leaves_tools_out(llama_client):
    user = "no tools today"
    for stream in (False, True):
        r = llama_client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": user}], tools=TOOLS,
            tool_choice="none", max_tokens=30, temperature=1.0, seed=3, stream=stream,
            **({"stream_options": {"include_usage": True}} if stream else {}),
        )
        if stream:
            usage, finish, calls = None, None, []
            for chunk in r:
                usage = chunk.usage or usage
                for c in chunk.choices:
                    calls.extend(c.delta.tool_calls or [])
                    finish = c.finish_reason or finish
        else:
            usage, finish, calls = r.usage, r.choices[0].finish_reason, r.choices[0].message.tool_calls or []
        # The prompt is the conversation alone: no tools section was rendered.
        assert usage.prompt_tokens == count_tokens(chatml(user))
        assert finish in ("stop", "length") and not calls


def test_tool_choice_naming_an_unknown_function_is_400(llama_client):
    with pytest.raises(openai.BadRequestError) as err:
        llama_client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": "x"}], tools=TOOLS,
            tool_choice=named("get_stock_price"), max_tokens=5,
        )
    assert err.value.body["param"] == "tool_choice.function.name", err.value.body


# ---- vision ----------------------------------------------------------------------------------


def png(width: int, height: int, rgb: tuple) -> bytes:
    """A solid-colour RGB PNG, written by hand (no imaging library needed)."""
    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


def image_part(data: bytes, kind: str = "png") -> dict:
    url = f"data:image/{kind};base64," + base64.b64encode(data).decode()
    return {"type": "image_url", "image_url": {"url": url}}


@pytest.fixture(scope="module")
def vision_gateway(shoal_bin, tmp_path_factory, log_dir):
    gw = Gateway(shoal_bin, tmp_path_factory.mktemp("vision-gateway"), log_dir)
    yield gw
    gw.stop()


@pytest.fixture(scope="module")
def vision_worker(shoal_bin, vision_gateway, gguf, mmproj, log_dir):
    w = LlamaWorker(shoal_bin, vision_gateway, gguf, log_dir, concurrency=2,
                    extra=("--mmproj", str(mmproj)))
    vision_gateway.wait_available([MODEL], True, START_TIMEOUT_S, watch=w.proc)
    yield w
    w.proc.terminate(timeout=10)


@pytest.fixture(scope="module")
def vision_client(vision_gateway, vision_worker):
    account = vision_gateway.new_account(credits=1000)
    c = vision_gateway.client(account.key, timeout=60)
    yield c
    c.close()


def test_images_are_seen_and_counted(vision_client):
    def ask(parts: list, stream: bool = False):
        r = vision_client.chat.completions.create(
            model=MODEL, messages=[{"role": "user", "content": parts}], max_tokens=8,
            temperature=0, stream=stream, **({"stream_options": {"include_usage": True}} if stream else {}),
        )
        if not stream:
            return r.usage.prompt_tokens, r.choices[0].message.content, r.choices[0].finish_reason
        usage, text, finish = None, [], None
        for chunk in r:
            usage = chunk.usage or usage
            for c in chunk.choices:
                text.append(c.delta.content or "")
                finish = c.finish_reason or finish
        return usage.prompt_tokens, "".join(text), finish

    text = {"type": "text", "text": "what is in the picture?"}
    base, _, _ = ask([text])
    assert base == count_tokens(chatml("what is in the picture?"))
    red = image_part(png(8, 8, (255, 0, 0)))
    blue = image_part(png(64, 48, (0, 0, 255)))
    tokens, red_text, finish = ask([text, red])
    assert tokens == base + IMAGE_TOKENS
    assert finish in ("stop", "length") and red_text
    tokens, _, _ = ask([red, text, blue])
    assert tokens == base + 2 * IMAGE_TOKENS
    tokens, streamed_text, finish = ask([text, red], stream=True)
    assert tokens == base + IMAGE_TOKENS and finish in ("stop", "length")
    # The image is in the computation: greedy answers differ with what it shows.
    assert streamed_text == red_text
    others = {ask([text, image_part(png(8, 8, rgb))])[1] for rgb in [(0, 255, 0), (0, 0, 0), (255, 255, 255)]}
    assert others != {red_text}
    # Text alone on the same worker still takes the plain path.
    assert ask([text])[0] == base


def test_image_prompts_stay_out_of_the_logs(vision_client, vision_worker):
    """mtmd logs every prompt it tokenizes at debug level; the worker runs at debug here."""
    canary = f"canary{uuid.uuid4().hex}"
    r = vision_client.chat.completions.create(
        model=MODEL, max_tokens=4, temperature=0,
        messages=[{"role": "user", "content": [{"type": "text", "text": f"describe {canary}"},
                                                image_part(png(8, 8, (1, 2, 3)))]}],
    )
    assert r.usage.prompt_tokens > IMAGE_TOKENS
    wait_for(lambda: len(vision_worker.done_lines()) > 0, 10, "the job to be logged")
    logs = vision_worker.err_log.read_text(errors="replace")
    assert "mtmd" in logs or "clip" in logs  # the projector's own lines do arrive
    assert canary not in logs


def test_an_undecodable_image_is_400(vision_client):
    with pytest.raises(openai.BadRequestError):
        vision_client.chat.completions.create(
            model=MODEL, max_tokens=4,
            messages=[{"role": "user", "content": [
                {"type": "text", "text": "look"}, image_part(b"not really a png at all")]}],
        )


def test_bad_projector_files_fail_clearly(shoal_bin, llama_gateway, gguf, tmp_path, log_dir):
    not_gguf = tmp_path / "x-mmproj.gguf"
    not_gguf.write_text("not a projector")
    cases = [
        (tmp_path / "missing-mmproj.gguf", "no such file"),
        (not_gguf, "not a GGUF file"),
        # A GGUF, but a language model, not a projector.
        (gguf, "could not load it as a multimodal projector"),
    ]
    for path, needle in cases:
        w = LlamaWorker(shoal_bin, llama_gateway, gguf, log_dir, concurrency=1,
                        extra=("--mmproj", str(path)))
        code = w.proc.popen.wait(timeout=60)
        assert code != 0 and code > 0, code
        err = w.err_log.read_text()
        assert "--mmproj" in err and needle in err, err
        assert "panicked" not in err
