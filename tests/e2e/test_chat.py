"""`POST /api/v1/chat/completions` end to end (issue 4): the official `openai` SDK against a real
`shoal serve`, real `shoal worker` processes, and the scripted upstream (tests/e2e/upstream.py)
standing in for vLLM.

Tests that need only the gateway (404, 503, 402, 400, 401) use the `gateway` fixture alone; every
other test pulls in the shared `worker` (serving large-27b-uncensored and its -think sibling).
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from pathlib import Path
from types import SimpleNamespace

import httpx
import openai
import pytest

from harness import Proc, credits_for, one_request, settled, wait_for
from upstream import THINKING, count_prompt_tokens, tool_arguments

LARGE = "large-27b-uncensored"
THINK = "large-27b-uncensored-think"
DEFAULT_ANSWER = "Hello from upstream A."  # what the shared upstream (named A) says: 4 tokens

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
        },
    },
}
PNG_DATA_URL = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


# ---- helpers -------------------------------------------------------------------------------


def user(text):
    return {"role": "user", "content": text}


def extra(obj, name):
    """A field the SDK's types do not declare (e.g. `reasoning_content`)."""
    value = getattr(obj, name, None)
    if value is None and getattr(obj, "model_extra", None):
        value = obj.model_extra.get(name)
    return value


def collect(stream) -> SimpleNamespace:
    """Consumes an SDK stream; accumulates content, reasoning, tool calls by index, usage."""
    out = SimpleNamespace(chunks=[], content="", reasoning="", finish=None, usage=None, calls={}, tool_deltas=[])
    for chunk in stream:
        out.chunks.append(chunk)
        if chunk.usage is not None:
            out.usage = chunk.usage
        for choice in chunk.choices:
            d = choice.delta
            out.content += d.content or ""
            out.reasoning += extra(d, "reasoning_content") or ""
            for tc in d.tool_calls or []:
                out.tool_deltas.append(tc)
                slot = out.calls.setdefault(tc.index, {"id": None, "type": None, "name": "", "arguments": ""})
                if tc.id:
                    slot["id"] = tc.id
                if tc.type:
                    slot["type"] = tc.type
                if tc.function is not None:
                    slot["name"] += tc.function.name or ""
                    slot["arguments"] += tc.function.arguments or ""
            if choice.finish_reason:
                out.finish = choice.finish_reason
    return out


def error_code(err: openai.APIStatusError) -> str:
    body = err.response.json()
    assert set(body["error"]) >= {"message", "type", "code"}, body
    return body["error"]["code"]


def without_nulls(value):
    """Drops null-valued keys (an omitted field and a null one mean the same on the wire)."""
    if isinstance(value, dict):
        return {k: without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nulls(v) for v in value]
    return value


def raw_sse(gateway, key, body) -> list:
    """The `data:` payloads of a streamed answer, read with plain httpx (no SDK leniency)."""
    lines = []
    with httpx.Client(timeout=30) as http:
        with http.stream("POST", gateway.api + "/chat/completions", json=body,
                         headers={"Authorization": f"Bearer {key}"}) as r:
            assert r.status_code == 200, r.read()
            assert r.headers["content-type"].startswith("text/event-stream")
            for line in r.iter_lines():
                if line == "" or line.startswith(":"):
                    continue  # event separators and keep-alive comments
                assert line.startswith("data: ") or line.startswith("event: ") or line.startswith("id: "), line
                if line.startswith("data: "):
                    lines.append(line[len("data: "):])
    return lines


# ---- the gateway alone ---------------------------------------------------------------------


def test_unknown_model_is_404(gateway, client):
    with pytest.raises(openai.NotFoundError) as e:
        client.chat.completions.create(model="no-such-model", messages=[user("hi")])
    assert e.value.status_code == 404
    assert error_code(e.value) == "model_not_found"


def test_bad_key_is_401(gateway):
    c = gateway.client("sk-shoal-" + "x" * 40)
    with pytest.raises(openai.AuthenticationError) as e:
        c.chat.completions.create(model=LARGE, messages=[user("hi")])
    assert e.value.status_code == 401


def test_no_worker_is_503_immediately(gateway, account, client):
    # Nothing in this session serves service-swarm: 503 at once, not after the queue wait.
    before = gateway.balance(account.key)
    start = time.monotonic()
    with pytest.raises(openai.APIStatusError) as e:
        client.chat.completions.create(model="service-swarm", messages=[user("hi")])
    elapsed = time.monotonic() - start
    assert e.value.status_code == 503
    assert error_code(e.value) == "no_worker_available"
    assert elapsed < 3, f"503 took {elapsed:.1f}s; with no worker at all it must not wait in the queue"
    after = settled(gateway, account.key)
    assert after["total_spent"] == before["total_spent"] and after["credits"] == before["credits"]


def test_insufficient_credits_is_402(gateway):
    broke = gateway.new_account(credits=0)
    c = gateway.client(broke.key)
    with pytest.raises(openai.APIStatusError) as e:
        c.chat.completions.create(model=LARGE, messages=[user("hi")])
    assert e.value.status_code == 402
    assert error_code(e.value) == "insufficient_credits"
    # 5 credits cover a typical answer but not the hold for the model's largest output.
    poor = gateway.new_account(credits=5)
    with pytest.raises(openai.APIStatusError) as e:
        gateway.client(poor.key).chat.completions.create(model=LARGE, messages=[user("hi")])
    assert e.value.status_code == 402
    assert gateway.balance(poor.key)["credits"] == 5


def test_remote_image_url_is_400(gateway, client):
    content = [{"type": "text", "text": "what is this?"},
               {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}]
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(model=LARGE, messages=[{"role": "user", "content": content}])
    assert e.value.status_code == 400
    assert error_code(e.value) == "invalid_request"


def test_image_on_a_model_without_vision_is_400(gateway, client):
    content = [{"type": "text", "text": "what is this?"},
               {"type": "image_url", "image_url": {"url": PNG_DATA_URL}}]
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(model="service-pro", messages=[{"role": "user", "content": content}])
    assert error_code(e.value) == "invalid_request"


# ---- through a worker ----------------------------------------------------------------------


def test_non_stream(gateway, worker, upstream, client, nonce):
    messages = [{"role": "system", "content": "You are terse."}, user(f"Say hello {nonce}")]
    resp = client.chat.completions.create(model=LARGE, messages=messages)

    assert resp.id.startswith("chatcmpl-")
    assert resp.object == "chat.completion"
    assert isinstance(resp.created, int) and resp.created > 1_600_000_000
    assert resp.model == LARGE
    choice = resp.choices[0]
    assert choice.index == 0
    assert choice.message.role == "assistant"
    assert choice.message.content == DEFAULT_ANSWER
    assert not choice.message.tool_calls
    assert choice.finish_reason == "stop"
    # The usage the upstream reported, passed through unchanged.
    assert resp.usage.prompt_tokens == count_prompt_tokens(messages)
    assert resp.usage.completion_tokens == 4
    assert resp.usage.total_tokens == resp.usage.prompt_tokens + 4
    assert resp.usage.completion_tokens_details.reasoning_tokens == 0

    sent = one_request(upstream, nonce)["body"]
    assert sent["model"] == "upstream-large"  # --serve large-27b-uncensored=upstream-large
    assert without_nulls(sent["messages"]) == messages
    # The worker always streams from its upstream and always asks for usage, so billing never
    # misses it, even though this client asked for neither.
    assert sent.get("stream") is True
    assert (sent.get("stream_options") or {}).get("include_usage") is True


def test_stream(gateway, worker, upstream, client, nonce):
    stream = client.chat.completions.create(model=LARGE, messages=[user(f"hi {nonce}")], stream=True)
    got = collect(stream)

    ids = {c.id for c in got.chunks}
    assert len(ids) == 1 and ids.pop().startswith("chatcmpl-"), "every chunk carries the same id"
    assert all(c.object == "chat.completion.chunk" for c in got.chunks)
    assert all(c.model == LARGE for c in got.chunks)
    assert got.chunks[0].choices[0].delta.role == "assistant", "the first delta carries the role"
    assert got.content == DEFAULT_ANSWER
    assert got.finish == "stop"
    # No include_usage asked: no usage, and no chunk without choices (older clients index [0]).
    assert got.usage is None
    assert all(c.choices for c in got.chunks)
    one_request(upstream, nonce)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_large_prompt_and_answer_arrive_whole(gateway, worker, upstream, client, nonce, stream):
    """A job and answer chunks far larger than one socket read (the worker socket reads 4 KiB
    at a time) arrive whole: a ~330 KB prompt of 40 long words, shouted back word by word in
    ~8 KB chunks."""
    words = [f"{i:02d}{nonce}" + "abcdefghijklmnopqrstuvwxyz" * 320 for i in range(40)]
    said = "[[shout]] " + " ".join(words)
    expected = " ".join(words).upper()
    if stream:
        got = collect(client.chat.completions.create(model=LARGE, messages=[user(said)], stream=True))
        content, finish = got.content, got.finish
    else:
        resp = client.chat.completions.create(model=LARGE, messages=[user(said)])
        content, finish = resp.choices[0].message.content, resp.choices[0].finish_reason
    assert finish == "stop"
    assert len(content) == len(expected) and content == expected
    assert one_request(upstream, nonce)["body"]["messages"][-1]["content"] == said


def test_stream_wire_format_ends_with_done(gateway, worker, account, nonce):
    body = {"model": LARGE, "messages": [user(f"hi {nonce}")], "stream": True}
    data = raw_sse(gateway, account.key, body)
    assert data[-1] == "[DONE]", f"the last data line must be [DONE], got {data[-1]!r}"
    assert data.count("[DONE]") == 1
    chunks = [json.loads(d) for d in data[:-1]]
    assert chunks and all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert len({c["id"] for c in chunks}) == 1
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks) == DEFAULT_ANSWER
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"


def test_stream_include_usage(gateway, worker, client, nonce):
    messages = [user(f"count these words please {nonce}")]
    stream = client.chat.completions.create(model=LARGE, messages=messages, stream=True,
                                            stream_options={"include_usage": True})
    got = collect(stream)
    last = got.chunks[-1]
    assert last.choices == [], "the usage chunk has empty choices"
    assert last.usage is not None
    assert last.usage.prompt_tokens == count_prompt_tokens(messages)
    assert last.usage.completion_tokens == 4
    assert last.usage.total_tokens == last.usage.prompt_tokens + 4
    assert all(c.usage is None for c in got.chunks[:-1])
    assert len({c.id for c in got.chunks}) == 1
    assert got.content == DEFAULT_ANSWER and got.finish == "stop"


def test_max_tokens_gives_finish_length(gateway, worker, upstream, client, nonce):
    resp = client.chat.completions.create(model=LARGE, messages=[user(f"hi {nonce}")], max_tokens=2)
    assert resp.choices[0].finish_reason == "length"
    assert resp.choices[0].message.content == "Hello from"
    assert resp.usage.completion_tokens == 2
    sent = one_request(upstream, nonce)["body"]
    assert (sent.get("max_tokens") or sent.get("max_completion_tokens")) == 2


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_tool_round_trip(gateway, worker, upstream, client, nonce, stream):
    tools = [WEATHER_TOOL]
    messages = [{"role": "system", "content": "You are a weather bot."},
                user(f"[[tool]] What is the weather in Paris? {nonce}")]

    kwargs = {"model": LARGE, "messages": messages, "tools": tools}
    if stream:
        got = collect(client.chat.completions.create(**kwargs, stream=True))
        finish = got.finish
        assert list(got.calls) == [0]
        assert all(d.index == 0 for d in got.tool_deltas), "tool-call deltas keep their index"
        assert got.tool_deltas[0].function.name == "get_weather", "the name comes in the first delta"
        call = got.calls[0]
        call_id, call_type, name, arguments = call["id"], call["type"], call["name"], call["arguments"]
    else:
        resp = client.chat.completions.create(**kwargs)
        finish = resp.choices[0].finish_reason
        assert len(resp.choices[0].message.tool_calls) == 1
        tc = resp.choices[0].message.tool_calls[0]
        call_id, call_type, name, arguments = tc.id, tc.type, tc.function.name, tc.function.arguments
        assert resp.usage.completion_tokens == 4
    assert finish == "tool_calls"
    assert call_id and call_id.startswith("call_")
    assert call_type == "function"
    assert name == "get_weather"
    assert json.loads(arguments) == json.loads(tool_arguments(WEATHER_TOOL))

    # The caller runs the tool and sends the conversation again.
    result = json.dumps({"temp_c": 21, "sky": "clear", "city": "Paris"})
    follow = messages + [
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}]},
        {"role": "tool", "tool_call_id": call_id, "content": result},
    ]
    kwargs = {"model": LARGE, "messages": follow, "tools": tools}
    if stream:
        got = collect(client.chat.completions.create(**kwargs, stream=True))
        content, finish = got.content, got.finish
    else:
        resp = client.chat.completions.create(**kwargs)
        content, finish = resp.choices[0].message.content, resp.choices[0].finish_reason
    assert content == f"Got tool result of {len(result)} chars."
    assert finish == "stop"

    reqs = upstream.requests(containing=nonce)
    assert len(reqs) == 2
    second = reqs[1]["body"]
    assert without_nulls(second["messages"]) == without_nulls(follow), "the tool follow-up reaches the worker unchanged"
    assert without_nulls(second["tools"]) == tools


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_think_model_returns_reasoning_content(gateway, worker, upstream, client, nonce, stream):
    messages = [user(f"[[think]] Why is the sky blue? {nonce}")]
    if stream:
        got = collect(client.chat.completions.create(model=THINK, messages=messages, stream=True,
                                                     stream_options={"include_usage": True}))
        reasoning, content, usage = got.reasoning, got.content, got.usage
        first_content = next(i for i, c in enumerate(got.chunks) if c.choices and c.choices[0].delta.content)
        assert any(extra(c.choices[0].delta, "reasoning_content") for c in got.chunks[:first_content]), \
            "reasoning arrives before the answer"
    else:
        resp = client.chat.completions.create(model=THINK, messages=messages)
        msg = resp.choices[0].message
        reasoning, content, usage = extra(msg, "reasoning_content"), msg.content, resp.usage
    assert reasoning == THINKING
    assert content == DEFAULT_ANSWER
    # Thinking tokens are output tokens: 3 of reasoning + 4 of answer.
    assert usage.completion_tokens == 7
    assert usage.completion_tokens_details.reasoning_tokens == 3
    assert one_request(upstream, nonce)["body"]["model"] == "upstream-think"


def test_vision_data_url_is_accepted(gateway, worker, upstream, client, nonce):
    content = [{"type": "text", "text": f"[[echo-image]] What is in this picture? {nonce}"},
               {"type": "image_url", "image_url": {"url": PNG_DATA_URL}}]
    resp = client.chat.completions.create(model=LARGE, messages=[{"role": "user", "content": content}])
    assert resp.choices[0].message.content == "images=1 data=yes"
    parts = one_request(upstream, nonce)["body"]["messages"][0]["content"]
    images = [p for p in parts if p.get("type") == "image_url"]
    assert images[0]["image_url"]["url"] == PNG_DATA_URL, "the image reaches the worker unchanged"


def test_remote_image_url_never_reaches_a_worker(gateway, worker, upstream, client, nonce):
    content = [{"type": "text", "text": f"[[echo-image]] {nonce}"},
               {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}]
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model=LARGE, messages=[{"role": "user", "content": content}])
    assert upstream.requests(containing=nonce) == []


def test_client_disconnect_cancels_the_job(gateway, worker, upstream, account, nonce):
    before = gateway.balance(account.key)
    cancelled_before = upstream.cancelled()
    c = gateway.client(account.key)
    stream = c.chat.completions.create(model=LARGE, messages=[user(f"[[slow 100]] {nonce}")], stream=True)
    received = 0
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            received += 1
            if received == 2:
                break
    held = gateway.balance(account.key)["credits_held"]
    assert held > 0, "a request in flight holds credit"
    stream.close()
    c.close()

    # The cancel reaches the upstream (the worker dropped its request) well before the 20 s
    # the answer would take.
    wait_for(lambda: upstream.cancelled() > cancelled_before, 10, "the upstream to see the stream cancelled")
    wait_for(lambda: upstream.active() == 0, 10, "the upstream stream to end")
    after = settled(gateway, account.key)
    spent = after["total_spent"] - before["total_spent"]
    assert 1 <= spent < held, f"charged {spent} for a cancelled stream (hold was {held})"
    assert after["credits"] == before["credits"] - spent
    one_request(upstream, nonce)


def test_upstream_failure_after_tokens_ends_stream_with_error(gateway, worker, upstream, account, nonce):
    """Tokens were delivered, then the upstream died: no retry, the stream ends with an error
    event, and the client pays only for what it got."""
    before = gateway.balance(account.key)
    body = {"model": LARGE, "messages": [user(f"[[drop-after 2]] {nonce}")], "stream": True}
    data = raw_sse(gateway, account.key, body)
    events = [json.loads(d) for d in data if d != "[DONE]"]
    chunks = [e for e in events if "error" not in e]
    errors = [e for e in events if "error" in e]
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]) == "Hello from"
    assert errors, "the stream must end with an error event"
    assert set(errors[-1]["error"]) >= {"message", "type", "code"}
    assert all(c["choices"][0].get("finish_reason") != "stop" for c in chunks if c["choices"])
    assert len(upstream.requests(containing=nonce)) == 1, "no retry once tokens were delivered"
    after = settled(gateway, account.key)
    assert after["total_spent"] - before["total_spent"] == 1


def test_billing_charges_exactly_the_reported_usage(gateway, worker, account, client, nonce):
    before = gateway.balance(account.key)
    # A long prompt so the charge is more than the 1-credit minimum: ~20k words.
    messages = [{"role": "system", "content": "Summarise."}, user(" ".join(["lorem"] * 20_000) + f" {nonce}")]
    resp = client.chat.completions.create(model=LARGE, messages=messages)
    assert resp.usage.prompt_tokens == count_prompt_tokens(messages) == 20_002
    expected = credits_for(resp.usage.prompt_tokens, resp.usage.completion_tokens)
    assert expected == 4  # ceil((20002*150 + 4*900) / 1e6)
    after = settled(gateway, account.key)
    assert after["total_spent"] - before["total_spent"] == expected
    assert after["credits"] == before["credits"] - expected
    assert after["total_deposited"] == before["total_deposited"]
    assert gateway.admin("ledger", "verify") == "ok"


def test_worker_never_receives_identity(gateway, worker, upstream, account, client, nonce):
    canary_user = f"CANARY-USER-{uuid.uuid4().hex}"
    spoofed = {"X-Forwarded-For": "203.0.113.77", "X-Real-IP": "203.0.113.78", "Forwarded": "for=203.0.113.79"}
    client.chat.completions.create(model=LARGE, messages=[user(f"hi {nonce}")], user=canary_user,
                                   extra_headers=spoofed)
    collect(client.chat.completions.create(model=LARGE, messages=[user(f"again {nonce}")], user=canary_user,
                                           extra_headers=spoofed, stream=True))
    reqs = upstream.requests(containing=nonce)
    assert len(reqs) == 2
    for r in reqs:
        blob = json.dumps(r)
        for secret, what in [(canary_user, "the client's `user` field"), (account.key, "the API key"),
                             (account.key[:16], "the API key's prefix"), (account.email, "the account email"),
                             ("203.0.113.", "the client's IP")]:
            assert secret not in blob, f"{what} reached the worker's upstream"
        body_keys = set()

        def walk(v):
            if isinstance(v, dict):
                for k, x in v.items():
                    body_keys.add(k.lower())
                    walk(x)
            elif isinstance(v, list):
                for x in v:
                    walk(x)

        walk(r["body"])
        identity_keys = {"user", "user_id", "account", "account_id", "email", "api_key", "key_id", "ip",
                         "client_ip", "safety_identifier", "metadata"}
        assert not body_keys & identity_keys, f"identity fields in the job: {body_keys & identity_keys}"
        for name in r["headers"]:
            assert not any(w in name for w in ("forwarded", "real-ip", "client-ip", "account", "x-user")), name


def test_available_follows_the_worker(gateway, upstream, worker_factory, client, nonce):
    """`available` is true exactly while a worker serving the model is connected; the worker
    leaves cleanly on SIGTERM."""
    assert not gateway.available("service-pro")
    w = worker_factory(gateway, upstream, ["service-pro=upstream-pro"], concurrency=1)
    resp = client.chat.completions.create(model="service-pro", messages=[user(f"hi {nonce}")])
    assert resp.choices[0].message.content == DEFAULT_ANSWER
    assert w.terminate(timeout=10) == 0, "the worker exits 0 on SIGTERM"
    gateway.wait_available(["service-pro"], want=False, timeout=10)
    with pytest.raises(openai.APIStatusError) as e:
        client.chat.completions.create(model="service-pro", messages=[user("hi")])
    assert e.value.status_code == 503


# ---- failover: own gateway, two workers, deterministic routing ----------------------------


@pytest.mark.parametrize("how", ["worker-killed", "retryable-error"])
def test_failover_before_first_token(gateway_factory, upstream_factory, worker_factory, nonce, how):
    """The job lands on worker A (the only one connected then), whose upstream stalls. Worker B
    connects; then A dies (SIGKILL) or its upstream answers 500 (a retryable error). The job is
    retried on B and the client sees one clean answer."""
    gw = gateway_factory()
    acct = gw.new_account(credits=1000)
    up_a = upstream_factory("A", stall_all=True, fail_all=(how == "retryable-error"))
    up_b = upstream_factory("B")
    w_a = worker_factory(gw, up_a, [f"{LARGE}=upstream-a"], concurrency=1)
    client = gw.client(acct.key, timeout=60)
    before = gw.balance(acct.key)
    messages = [user(f"survive this {nonce}")]

    result = {}

    def call():
        try:
            if how == "worker-killed":
                result["got"] = collect(client.chat.completions.create(
                    model=LARGE, messages=messages, stream=True, stream_options={"include_usage": True}))
            else:
                resp = client.chat.completions.create(model=LARGE, messages=messages)
                result["got"] = SimpleNamespace(content=resp.choices[0].message.content,
                                                finish=resp.choices[0].finish_reason, usage=resp.usage)
        except Exception as e:  # noqa: BLE001 - reported below
            result["error"] = e

    t = threading.Thread(target=call, daemon=True)
    t.start()
    wait_for(lambda: up_a.stalled() == 1, 15, "the job to reach worker A's upstream")
    assert len(up_a.requests(containing=nonce)) == 1
    # B also serves service-pro, which nobody else does: its availability says B is connected.
    worker_factory(gw, up_b, [f"{LARGE}=upstream-b", "service-pro=upstream-b"], concurrency=1)

    if how == "worker-killed":
        w_a.kill()
    else:
        up_a.release()
    t.join(30)
    assert not t.is_alive(), "the request did not finish after failover"
    assert "error" not in result, f"the client saw the failure: {result.get('error')!r}"
    got = result["got"]
    assert got.content == "Hello from upstream B."
    assert got.finish == "stop"

    sent_b = one_request(up_b, nonce)["body"]
    assert sent_b["model"] == "upstream-b"
    assert without_nulls(sent_b["messages"]) == messages
    assert len(up_a.requests(containing=nonce)) == 1, "not retried on the worker that failed"
    if how == "worker-killed":
        wait_for(lambda: up_a.cancelled() == 1, 10, "A's upstream to see its client (the dead worker) gone")

    after = settled(gw, acct.key)
    assert got.usage is not None
    assert after["total_spent"] - before["total_spent"] == credits_for(got.usage.prompt_tokens,
                                                                      got.usage.completion_tokens)


# ---- privacy -------------------------------------------------------------------------------


def test_prompts_and_completions_leave_no_trace(gateway, worker, upstream, account, client):
    """A canary in prompts (and, upper-cased by the upstream's [[shout]], in completions) must
    appear in no file of the gateway's data folder and in no shoal process's log."""
    canary = f"canary{uuid.uuid4().hex}zq"
    shouted = canary.upper()
    said = f"[[shout]] my secret is {canary}"

    resp = client.chat.completions.create(model=LARGE, messages=[user(said)])
    assert shouted in resp.choices[0].message.content  # the completion carries the canary too
    got = collect(client.chat.completions.create(model=LARGE, messages=[user(said)], stream=True))
    assert shouted in got.content
    collect(client.chat.completions.create(
        model=LARGE, stream=True, stream_options={"include_usage": True},
        messages=[{"role": "system", "content": f"Remember {canary}."}, user(said)]))
    client.chat.completions.create(model=THINK, messages=[user(f"[[think]] {said}")])
    # A tool round trip with the canary in the arguments' context and the tool result.
    first = client.chat.completions.create(model=LARGE, tools=[WEATHER_TOOL],
                                           messages=[user(f"[[tool]] weather for {canary}")])
    tc = first.choices[0].message.tool_calls[0]
    client.chat.completions.create(model=LARGE, tools=[WEATHER_TOOL], messages=[
        user(f"[[tool]] weather for {canary}"),
        {"role": "assistant", "content": None, "tool_calls": [tc.model_dump(exclude_none=True)]},
        {"role": "tool", "tool_call_id": tc.id, "content": f"sunny, said {canary}"},
    ])
    # Refused requests: their error messages and logs must not quote the prompt either.
    refusals = []
    with pytest.raises(openai.BadRequestError) as e:
        client.chat.completions.create(model="service-pro", messages=[{"role": "user", "content": [
            {"type": "text", "text": said}, {"type": "image_url", "image_url": {"url": PNG_DATA_URL}}]}])
    refusals.append(e.value)
    try:
        client.chat.completions.create(model=LARGE, messages=[user(said)], temperature="hot")  # type: ignore[arg-type]
    except openai.BadRequestError as err:
        refusals.append(err)
    with pytest.raises(openai.APIStatusError) as e:
        client.chat.completions.create(model="service-swarm", messages=[user(said)])
    refusals.append(e.value)
    for err in refusals:
        assert canary not in err.response.text, f"an error body quotes the prompt: {err.response.text}"
    # A cancelled stream.
    s = client.chat.completions.create(model=LARGE, messages=[user(f"[[slow 30]] {canary}")], stream=True)
    next(iter(s))
    s.close()
    settled(gateway, account.key)

    searched, hits = [], []
    files = [p for p in Path(gateway.data_dir).rglob("*") if p.is_file()]
    files += [log for proc in Proc.registry if proc.shoal for log in proc.logs if log.exists()]
    for path in files:
        data = path.read_bytes()
        searched.append(path.name)
        for needle in (canary, shouted):
            if needle.encode() in data:
                hits.append(f"{path} contains {'the prompt' if needle == canary else 'the completion'} canary")
    assert any(n.endswith(".db") for n in searched), f"no database file found among {searched}"
    assert not hits, "\n".join(hits)
