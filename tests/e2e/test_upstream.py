"""The scripted upstream itself, driven with httpx (no shoal needed): if these fail, every
end-to-end test built on it means nothing."""

from __future__ import annotations

import json

import httpx
import pytest

from harness import Upstream, wait_for
from upstream import THINKING, count_prompt_tokens, tool_arguments

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


@pytest.fixture(scope="module")
def up(log_dir):
    u = Upstream(log_dir, name="T")
    yield u
    u.stop()


@pytest.fixture
def http(up):
    with httpx.Client(base_url=up.url, timeout=10) as c:
        yield c


def chat(http, content, **extra):
    body = {"model": "m", "messages": [{"role": "user", "content": content}], **extra}
    r = http.post("/v1/chat/completions", json=body)
    return r


def sse(http, content, messages=None, **extra):
    """(chunks, saw_done) of a streamed answer."""
    body = {"model": "m", "messages": messages or [{"role": "user", "content": content}], "stream": True, **extra}
    chunks, done = [], False
    with http.stream("POST", "/v1/chat/completions", json=body) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        for line in r.iter_lines():
            if not line.startswith("data: "):
                continue
            data = line[len("data: "):]
            if data == "[DONE]":
                done = True
                continue
            assert not done, "data after [DONE]"
            chunks.append(json.loads(data))
    return chunks, done


def content_of(chunks):
    return "".join((c["choices"][0]["delta"].get("content") or "") for c in chunks if c["choices"])


def test_models_list(http):
    r = http.get("/v1/models")
    assert r.status_code == 200
    assert r.json()["object"] == "list" and r.json()["data"][0]["id"] == "upstream-t"


def test_non_stream_default_answer_and_usage(http):
    r = chat(http, "say hi to me please")
    assert r.status_code == 200
    body = r.json()
    assert body["object"] == "chat.completion"
    assert body["model"] == "m"
    choice = body["choices"][0]
    assert choice["message"] == {"role": "assistant", "content": "Hello from upstream T."}
    assert choice["finish_reason"] == "stop"
    assert body["usage"] == {
        "prompt_tokens": 5,
        "completion_tokens": 4,
        "total_tokens": 9,
        "completion_tokens_details": {"reasoning_tokens": 0},
    }


def test_prompt_tokens_count_every_message_and_text_part():
    messages = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": [{"type": "text", "text": "one two"}, {"type": "image_url", "image_url": {"url": "x"}}]},
        {"role": "assistant", "content": None, "tool_calls": []},
        {"role": "tool", "tool_call_id": "c", "content": "three"},
    ]
    assert count_prompt_tokens(messages) == 5


def test_stream_chunks_role_first_finish_and_done(http):
    chunks, done = sse(http, "hi")
    assert done
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert len({c["id"] for c in chunks}) == 1
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert content_of(chunks) == "Hello from upstream T."
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert all("usage" not in c for c in chunks)


def test_stream_include_usage_final_chunk(http):
    chunks, done = sse(http, "a b c", stream_options={"include_usage": True})
    assert done
    last = chunks[-1]
    assert last["choices"] == []
    assert last["usage"]["prompt_tokens"] == 3 and last["usage"]["completion_tokens"] == 4


def test_max_tokens_gives_length(http):
    r = chat(http, "hi", max_tokens=2).json()
    assert r["choices"][0]["finish_reason"] == "length"
    assert r["choices"][0]["message"]["content"] == "Hello from"
    assert r["usage"]["completion_tokens"] == 2
    chunks, _ = sse(http, "hi", max_completion_tokens=3)
    assert content_of(chunks) == "Hello from upstream"
    assert chunks[-1]["choices"][0]["finish_reason"] == "length"


def test_tool_call_whole(http):
    r = chat(http, "[[tool]] weather in Paris?", tools=[WEATHER_TOOL]).json()
    choice = r["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    call = choice["message"]["tool_calls"][0]
    assert call["id"].startswith("call_") and call["type"] == "function"
    assert call["function"]["name"] == "get_weather"
    assert json.loads(call["function"]["arguments"]) == {"city": "test-city", "days": 42}
    assert call["function"]["arguments"] == tool_arguments(WEATHER_TOOL)
    assert r["usage"]["completion_tokens"] == 4


def test_tool_call_streamed_as_indexed_deltas(http):
    chunks, done = sse(http, "[[tool]] weather?", tools=[WEATHER_TOOL])
    assert done
    deltas = [tc for c in chunks if c["choices"] for tc in (c["choices"][0]["delta"].get("tool_calls") or [])]
    assert len(deltas) >= 3 and all(d["index"] == 0 for d in deltas)
    assert deltas[0]["function"]["name"] == "get_weather" and deltas[0]["id"].startswith("call_")
    assert all("name" not in d.get("function", {}) for d in deltas[1:])
    args = "".join(d["function"].get("arguments", "") for d in deltas)
    assert json.loads(args) == {"city": "test-city", "days": 42}
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_tool_without_tools_answers_text(http):
    r = chat(http, "[[tool]] nothing to call").json()
    assert r["choices"][0]["finish_reason"] == "stop"
    assert "tool_calls" not in r["choices"][0]["message"]


def test_tool_result_follow_up(http):
    result = '{"temp_c": 21}'
    messages = [
        {"role": "user", "content": "[[tool]] weather?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_x", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_x", "content": result},
    ]
    r = http.post("/v1/chat/completions", json={"model": "m", "messages": messages, "tools": [WEATHER_TOOL]}).json()
    assert r["choices"][0]["message"]["content"] == f"Got tool result of {len(result)} chars."
    assert r["choices"][0]["finish_reason"] == "stop"


def test_think_reasoning_first(http):
    r = chat(http, "[[think]] why?").json()
    msg = r["choices"][0]["message"]
    assert msg["reasoning_content"] == THINKING
    assert msg["content"] == "Hello from upstream T."
    assert r["usage"]["completion_tokens_details"]["reasoning_tokens"] == 3
    assert r["usage"]["completion_tokens"] == 7
    chunks, _ = sse(http, "[[think]] why?")
    kinds = [k for c in chunks if c["choices"] for k in c["choices"][0]["delta"] if k in ("reasoning_content", "content")]
    reasoning = "".join(c["choices"][0]["delta"].get("reasoning_content") or "" for c in chunks if c["choices"])
    assert reasoning == THINKING
    first_content = next(i for i, c in enumerate(chunks[1:], 1) if c["choices"][0]["delta"].get("content"))
    assert all("content" not in c["choices"][0]["delta"] for c in chunks[1:first_content])
    assert "reasoning_content" in kinds


def test_echo_image(http):
    content = [
        {"type": "text", "text": "[[echo-image]] what is this?"},
        {"type": "image_url", "image_url": {"url": PNG_DATA_URL}},
        {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}},
    ]
    r = chat(http, content).json()
    assert r["choices"][0]["message"]["content"] == "images=2 data=yes,no"


def test_shout(http):
    r = chat(http, "[[shout]] quiet words").json()
    assert r["choices"][0]["message"]["content"] == "QUIET WORDS"


def test_fail_is_500_before_any_token(http):
    r = chat(http, "[[fail]] x")
    assert r.status_code == 500
    assert "error" in r.json()


def test_requests_are_recorded_and_cleared(up, http):
    up.clear()
    chat(http, "record me", user="someone")
    reqs = up.requests()
    assert len(reqs) == 1
    assert reqs[0]["body"]["messages"][0]["content"] == "record me"
    assert reqs[0]["body"]["user"] == "someone"
    assert reqs[0]["headers"]["content-type"] == "application/json"
    assert up.requests(containing="record me") and not up.requests(containing="not there")
    up.clear()
    assert up.requests() == []


def test_client_disconnect_mid_stream_is_counted(up, http):
    before = up.cancelled()
    body = {"model": "m", "messages": [{"role": "user", "content": "[[slow 50]] go"}], "stream": True}
    with httpx.Client(base_url=up.url, timeout=10) as c:
        with c.stream("POST", "/v1/chat/completions", json=body) as r:
            seen = 0
            for line in r.iter_lines():
                if line.startswith("data: ") and '"content": "tok' in line:
                    seen += 1
                    if seen == 2:
                        break
            # On failure, say whether the stand-in saw the client leave early (cancelled
            # grew) or finished the stream (it did not).
            active = up.active()
            assert active >= 1, f"no active stream; cancelled {before} -> {up.cancelled()}"
    wait_for(lambda: up.cancelled() > before, 5, "the upstream to count the disconnect")
    wait_for(lambda: up.active() == 0, 5, "the stream to end")


def test_slow_stream_paces_chunks(http):
    import time

    start = time.monotonic()
    chunks, done = sse(http, "[[slow 4]]")
    assert done and content_of(chunks) == "tok1 tok2 tok3 tok4 "
    assert time.monotonic() - start >= 0.55


def test_stall_until_release_or_disconnect(log_dir):
    up = Upstream(log_dir, name="S")
    try:
        body = {"model": "m", "messages": [{"role": "user", "content": "[[stall]] wait"}]}
        # A stalled request whose client goes away is counted as cancelled.
        with httpx.Client(base_url=up.url, timeout=0.5) as c:
            with pytest.raises(httpx.ReadTimeout):
                c.post("/v1/chat/completions", json=body)
        wait_for(lambda: up.cancelled() == 1 and up.active() == 0, 5, "the abandoned stall to be noticed")
        # Released, the stall goes on to answer.
        import threading

        result = {}

        def call():
            with httpx.Client(base_url=up.url, timeout=20) as c:
                result["r"] = c.post("/v1/chat/completions", json=body)

        t = threading.Thread(target=call)
        t.start()
        wait_for(lambda: up.stalled() == 1, 5, "the request to stall")
        up.release()
        t.join(10)
        assert result["r"].status_code == 200
        assert result["r"].json()["choices"][0]["message"]["content"] == "Hello from upstream S."
    finally:
        up.stop()


def test_stall_all_and_fail_all_flags(log_dir):
    up = Upstream(log_dir, name="F", stall_all=True, fail_all=True)
    try:
        import threading

        result = {}

        def call():
            with httpx.Client(base_url=up.url, timeout=20) as c:
                result["r"] = c.post("/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": "x"}]})

        t = threading.Thread(target=call)
        t.start()
        wait_for(lambda: up.stalled() == 1, 5, "the request to stall")
        assert up.requests(containing="x")  # recorded before it answered
        up.release()
        t.join(10)
        assert result["r"].status_code == 500
    finally:
        up.stop()


def test_drop_after_cuts_the_stream(http):
    body = {"model": "m", "messages": [{"role": "user", "content": "[[drop-after 2]] go"}], "stream": True}
    lines = []
    with pytest.raises(httpx.RemoteProtocolError):
        with http.stream("POST", "/v1/chat/completions", json=body) as r:
            for line in r.iter_lines():
                lines.append(line)
    data = [l for l in lines if l.startswith("data: ")]
    assert "data: [DONE]" not in data
    contents = [json.loads(l[6:])["choices"][0]["delta"].get("content") for l in data]
    assert contents == ["", "Hello", " from"]
