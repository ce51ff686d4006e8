"""`POST /api/v1/messages` and `/api/v1/messages/count_tokens` end to end (issue 29): the
Anthropic Messages API, run as a chat job. The official clients, unchanged but for the base URL
(`{site}/api`) and the key, against a real `shoal serve`, a real `shoal worker` and the scripted
upstream (tests/e2e/upstream.py).

The answer shapes themselves are pinned by test_api_shapes.py (the SDKs reading the renderers'
golden output); here the route runs for real: translation, billing, errors, failures.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import anthropic
import httpx
import pytest

from harness import E2E_DIR, credits_for, one_request, settled
from upstream import THINKING, count_prompt_tokens, tool_arguments


LARGE = "large-27b-uncensored"
THINK = "large-27b-uncensored-think"
DEFAULT_ANSWER = "Hello from upstream A."  # 4 tokens
WEATHER_TOOL = {"name": "get_weather", "description": "Current weather for a city",
                "input_schema": {"type": "object", "properties": {"city": {"type": "string"}},
                                 "required": ["city"]}}
CHAT_WEATHER_TOOL = {"type": "function", "function": {"name": "get_weather",
                                                      "parameters": WEATHER_TOOL["input_schema"]}}
PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


@pytest.fixture
def claude(gateway, account):
    c = anthropic.Anthropic(base_url=f"{gateway.base}/api", api_key=account.key, max_retries=0, timeout=30)
    yield c
    c.close()


def ask(text):
    return [{"role": "user", "content": text}]


def test_create(gateway, worker, upstream, account, claude, nonce):
    before = gateway.balance(account.key)
    m = claude.messages.create(model=LARGE, max_tokens=64, system="Be brief.", messages=ask(f"hi {nonce}"),
                               metadata={"user_id": "CANARY-USER"})
    assert m.type == "message" and m.role == "assistant" and m.model == LARGE
    assert m.content[0].text == DEFAULT_ANSWER and m.stop_reason == "end_turn"
    sent = one_request(upstream, nonce)
    assert [x["role"] for x in sent["body"]["messages"]] == ["system", "user"]
    assert "CANARY-USER" not in json.dumps(sent), "metadata.user_id never reaches a worker"
    assert m.usage.input_tokens == count_prompt_tokens(sent["body"]["messages"])
    assert m.usage.output_tokens == 4
    after = settled(gateway, account.key)
    assert after["total_spent"] - before["total_spent"] == credits_for(m.usage.input_tokens, m.usage.output_tokens)


def test_stream(gateway, worker, account, claude, nonce):
    before = gateway.balance(account.key)
    with claude.messages.stream(model=LARGE, max_tokens=64, messages=ask(f"hi {nonce}")) as s:
        text = "".join(s.text_stream)
        final = s.get_final_message()
    assert text == DEFAULT_ANSWER
    assert final.usage.output_tokens == 4 and final.usage.input_tokens > 0
    after = settled(gateway, account.key)
    assert after["total_spent"] - before["total_spent"] == credits_for(final.usage.input_tokens,
                                                                       final.usage.output_tokens)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_tool_use_round_trip(gateway, worker, upstream, claude, nonce, stream):
    question = ask(f"[[tool]] Weather in Paris? {nonce}")
    if stream:
        with claude.messages.stream(model=LARGE, max_tokens=64, messages=question, tools=[WEATHER_TOOL]) as s:
            first = s.get_final_message()
    else:
        first = claude.messages.create(model=LARGE, max_tokens=64, messages=question, tools=[WEATHER_TOOL])
    assert first.stop_reason == "tool_use"
    use = next(b for b in first.content if b.type == "tool_use")
    assert use.name == "get_weather" and use.input == json.loads(tool_arguments(CHAT_WEATHER_TOOL))
    result = "sunny, 21 C"
    second = claude.messages.create(
        model=LARGE, max_tokens=64, tools=[WEATHER_TOOL],
        messages=question + [{"role": "assistant", "content": first.content},
                             {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id,
                                                           "content": result}]}])
    assert second.content[0].text == f"Got tool result of {len(result)} chars."
    sent = upstream.requests(containing=nonce)[-1]["body"]["messages"]
    assert sent[-1] == {"role": "tool", "tool_call_id": use.id, "content": result}


def test_image_block(gateway, worker, upstream, claude, nonce):
    m = claude.messages.create(model=LARGE, max_tokens=64, messages=[{"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}},
        {"type": "text", "text": f"[[echo-image]] {nonce}"}]}])
    assert m.content[0].text == "images=1 data=yes"
    part = one_request(upstream, nonce)["body"]["messages"][0]["content"][0]
    assert part["image_url"]["url"] == f"data:image/png;base64,{PNG_B64}"


def test_url_image_is_refused(gateway, claude, nonce):
    with pytest.raises(anthropic.BadRequestError) as e:
        claude.messages.create(model=LARGE, max_tokens=8, messages=[{"role": "user", "content": [
            {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.png"}}]}])
    assert e.value.body["type"] == "error" and e.value.body["error"]["type"] == "invalid_request_error"


def test_thinking_on_the_think_model(gateway, worker, claude, nonce):
    m = claude.messages.create(model=THINK, max_tokens=256, messages=ask(f"[[think]] Why? {nonce}"),
                               thinking={"type": "enabled", "budget_tokens": 1024})
    assert [b.type for b in m.content] == ["thinking", "text"]
    assert m.content[0].thinking == THINKING and m.content[1].text == DEFAULT_ANSWER
    assert m.usage.output_tokens == 7


def test_max_tokens_stop(gateway, worker, claude, nonce):
    m = claude.messages.create(model=LARGE, max_tokens=2, messages=ask(f"hi {nonce}"))
    assert m.stop_reason == "max_tokens" and m.content[0].text == "Hello from"


def test_count_tokens(gateway, worker, upstream, account, claude, nonce):
    before = gateway.balance(account.key)
    counted = claude.messages.count_tokens(model=LARGE, messages=ask(f"hi {nonce}"))
    assert counted.input_tokens > 0
    assert upstream.requests(containing=nonce) == [], "counting dispatches nothing"
    assert gateway.balance(account.key) == before, "counting bills nothing"


def test_worker_lost_mid_stream_is_an_error_event(gateway, worker, account, claude, nonce):
    before = gateway.balance(account.key)
    with pytest.raises(anthropic.APIStatusError) as e:
        with claude.messages.stream(model=LARGE, max_tokens=64, messages=ask(f"[[drop-after 2]] {nonce}")) as s:
            for _ in s:
                pass
    assert e.value.body["type"] == "error" and e.value.body["error"]["type"] == "api_error"
    after = settled(gateway, account.key)
    assert after["total_spent"] - before["total_spent"] == 1, "only what was delivered is billed"


# ---- errors in Anthropic's shape ----------------------------------------------------------------


def test_errors_have_anthropics_shape(gateway, account):
    def kind(key, body, headers=None):
        with httpx.Client(timeout=30) as http:
            r = http.post(gateway.base + "/api/v1/messages", json=body,
                          headers=headers or {"x-api-key": key, "anthropic-version": "2023-06-01"})
        got = r.json()
        assert got["type"] == "error" and set(got["error"]) >= {"type", "message"}, got
        return r.status_code, got["error"]["type"]

    body = {"model": LARGE, "max_tokens": 8, "messages": ask("hi")}
    assert kind("sk-shoal-bad", body) == (401, "authentication_error")
    assert kind(account.key, {**body, "model": "no-such-model"}) == (404, "not_found_error")
    assert kind(account.key, {k: v for k, v in body.items() if k != "max_tokens"}) == (400, "invalid_request_error")
    broke = gateway.new_account(credits=0)
    assert kind(broke.key, body) == (402, "billing_error")
    assert kind(account.key, {**body, "model": "service-pro"}) == (503, "overloaded_error")
    slow = gateway.new_account(credits=100, rpm=1)
    kind(slow.key, {**body, "model": "service-pro"})
    assert kind(slow.key, {**body, "model": "service-pro"}) == (429, "rate_limit_error")
    # Claude Code may send the key as a bearer token; unknown betas are ignored.
    assert kind(broke.key, body, {"authorization": f"Bearer {broke.key}",
                                  "anthropic-beta": "no-such-beta-2099-01-01"}) == (402, "billing_error")


def test_bad_key_via_the_sdk(gateway):
    bad = anthropic.Anthropic(base_url=f"{gateway.base}/api", api_key="sk-shoal-bad", max_retries=0)
    with pytest.raises(anthropic.AuthenticationError) as e:
        bad.messages.create(model=LARGE, max_tokens=8, messages=ask("hi"))
    assert e.value.body["error"]["type"] == "authentication_error"


# ---- @anthropic-ai/sdk (node) and Claude Code -----------------------------------------------------


def test_node_sdk_streamed(gateway, worker, account, nonce):
    node = shutil.which("node")
    assert node, "node is required"
    env = dict(os.environ, SHOAL_SITE=gateway.base, SHOAL_KEY=account.key, SHOAL_PROMPT=f"hi {nonce}",
               SHOAL_TOOL_PROMPT=f"[[tool]] Weather in Paris? {nonce}")
    out = subprocess.run([node, "api_shapes.mjs"], cwd=E2E_DIR / "node", env=env, capture_output=True,
                         text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])["anthropic_stream"]
    assert got["text"] == DEFAULT_ANSWER and got["output_tokens"] == 4 and got["stop_reason"] == "end_turn"


def test_claude_code_print_mode_calls_a_tool(gateway, worker, upstream, account, nonce, tmp_path):
    from test_api_shapes import agent_cli

    claude_bin = agent_cli("claude")
    env = dict(os.environ, HOME=str(tmp_path), ANTHROPIC_BASE_URL=f"{gateway.base}/api",
               ANTHROPIC_API_KEY=account.key, DISABLE_TELEMETRY="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    # One tool (the scripted upstream calls the first one offered, with arguments from its schema).
    out = subprocess.run([claude_bin, "-p", f"[[tool]] list the files {nonce}", "--model", LARGE, "--tools", "Glob"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180,
                         stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    reqs = upstream.requests(containing=nonce)
    assert len(reqs) >= 2, "the tool's result went back to the model"
    assert reqs[-1]["body"]["messages"][-1]["role"] == "tool"
