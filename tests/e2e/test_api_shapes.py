"""The official SDKs read what Shoal's Responses and Messages renderers write.

The protocol crate's unit tests render golden answers with the real renderers
(crates/protocol/tests/golden); here the SDKs' own parsers, stream accumulators and agent loops
read them, served by a stand-in (golden_server.py) or fed straight to the SDK's transport. No
gateway runs: these tests pin the wire shapes before and apart from the routes
(test_responses.py and test_messages.py drive the real routes). They also record what each
client sends, which the gateway's parsers must accept.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import anthropic
import httpx
import openai
import pytest
from pydantic import BaseModel

from golden_server import COUNT, GOLDEN, start_in_thread
from harness import E2E_DIR

MODEL = "large-27b-uncensored"
KEY = "sk-shoal-test"
PNG_B64 = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5E"
           "rkJggg==")
WEATHER_TOOL = {"type": "function", "name": "get_weather", "description": "Weather in a city",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                               "required": ["city"]}}
ANTHROPIC_WEATHER_TOOL = {"name": "get_weather", "description": "Weather in a city",
                          "input_schema": WEATHER_TOOL["parameters"]}


@pytest.fixture(scope="module")
def golden():
    server = start_in_thread()
    yield server
    server.shutdown()


@pytest.fixture
def recorded(golden):
    """The requests the stand-in receives during the test."""
    start = len(golden.requests)
    return lambda: golden.requests[start:]


@pytest.fixture
def oai(golden):
    c = openai.OpenAI(base_url=f"{golden.url}/api/v1", api_key=KEY, max_retries=0)
    yield c
    c.close()


@pytest.fixture
def claude(golden):
    c = anthropic.Anthropic(base_url=f"{golden.url}/api", api_key=KEY, max_retries=0)
    yield c
    c.close()


def golden_json(name: str) -> dict:
    return json.loads((GOLDEN / f"{name}.json").read_text())


# ---- openai-python: the Responses API ------------------------------------------------------


def test_responses_create_plain(oai):
    r = oai.responses.create(model=MODEL, input="hi")
    assert r.status == "completed"
    assert r.output_text == "Hello world"
    assert [o.type for o in r.output] == ["message"]
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) == (7, 2, 9)
    assert r.usage.input_tokens_details.cached_tokens == 0
    assert r.usage.output_tokens_details.reasoning_tokens == 0


def test_responses_streamed(oai):
    events = list(oai.responses.create(model=MODEL, input="hi", stream=True))
    types = [e.type for e in events]
    assert types[:2] == ["response.created", "response.in_progress"]
    assert types[-1] == "response.completed"
    assert [e.sequence_number for e in events] == list(range(len(events)))
    assert "".join(e.delta for e in events if e.type == "response.output_text.delta") == "Hello world"
    with oai.responses.stream(model=MODEL, input="hi") as stream:
        for _ in stream:
            pass
        final = stream.get_final_response()
    assert final.output_text == "Hello world"
    assert final.usage.total_tokens == 9


def test_responses_function_tool_round_trip(oai, recorded):
    first = oai.responses.create(model=MODEL, input="Weather in Paris?", tools=[WEATHER_TOOL])
    calls = [o for o in first.output if o.type == "function_call"]
    assert len(calls) == 1
    call = calls[0]
    assert (call.name, json.loads(call.arguments), call.call_id) == ("get_weather", {"city": "Paris"}, "call_a")
    history = [{"role": "user", "content": "Weather in Paris?"}, *[o.model_dump(exclude_none=True) for o in first.output],
               {"type": "function_call_output", "call_id": call.call_id, "output": "sunny, 21 C"}]
    second = oai.responses.create(model=MODEL, input=history, tools=[WEATHER_TOOL])
    assert second.output_text == "Hello world"
    sent = recorded()[-1]["body"]["input"]
    assert sent[1]["type"] == "function_call" and sent[1]["call_id"] == "call_a"
    assert sent[2] == {"type": "function_call_output", "call_id": "call_a", "output": "sunny, 21 C"}


class Person(BaseModel):
    name: str
    age: int


def test_responses_parse_text_format(oai, recorded):
    parsed = oai.responses.parse(model=MODEL, input="Who?", text_format=Person)
    assert parsed.output_parsed == Person(name="Ada", age=36)
    fmt = recorded()[-1]["body"]["text"]["format"]
    assert fmt["type"] == "json_schema" and fmt["name"] == "Person" and fmt["strict"] is True
    with oai.responses.stream(model=MODEL, input="Who?", text_format=Person) as stream:
        for _ in stream:
            pass
        assert stream.get_final_response().output_parsed == Person(name="Ada", age=36)


def feed_openai(sse: bytes) -> openai.OpenAI:
    """A client whose every request gets `sse` back."""
    transport = httpx.MockTransport(lambda _: httpx.Response(
        200, content=sse, headers={"content-type": "text/event-stream"}))
    return openai.OpenAI(base_url="http://golden.invalid/api/v1", api_key=KEY, max_retries=0,
                         http_client=httpx.Client(transport=transport))


@pytest.mark.parametrize("name", ["responses_text", "responses_reasoning", "responses_tool_calls",
                                  "responses_one_call", "responses_json"])
def test_every_completed_stream_accumulates_to_its_whole_object(name):
    client = feed_openai((GOLDEN / f"{name}.sse").read_bytes())
    with client.responses.stream(model=MODEL, input="hi") as stream:
        for _ in stream:
            pass
        final = stream.get_final_response()
    whole = golden_json(name)
    assert final.model_dump(mode="json", exclude_none=True)["output"] == whole["output"]
    assert final.usage.model_dump(exclude_none=True) == whole["usage"]


def test_reasoning_comes_back_as_a_reasoning_item():
    client = feed_openai((GOLDEN / "responses_reasoning.sse").read_bytes())
    events = list(client.responses.create(model=MODEL, input="hi", stream=True))
    deltas = [e.delta for e in events if e.type == "response.reasoning_text.delta"]
    assert "".join(deltas) == "Thinking hard."
    final = events[-1].response
    assert final.output[0].type == "reasoning"
    assert final.output[0].content[0].text == "Thinking hard."
    assert final.usage.output_tokens_details.reasoning_tokens == 2


def test_length_stop_ends_incomplete_and_a_lost_worker_failed():
    events = list(feed_openai((GOLDEN / "responses_length.sse").read_bytes())
                  .responses.create(model=MODEL, input="hi", stream=True))
    assert events[-1].type == "response.incomplete"
    assert events[-1].response.incomplete_details.reason == "max_output_tokens"
    assert events[-1].response.output[0].status == "incomplete"
    events = list(feed_openai((GOLDEN / "responses_failed.sse").read_bytes())
                  .responses.create(model=MODEL, input="hi", stream=True))
    assert events[-1].type == "response.failed"
    assert events[-1].response.error.code == "server_error"
    assert events[-1].response.usage is None


# ---- the OpenAI Agents SDK, default model provider (Responses API) ---------------------------


@pytest.fixture
def agents_sdk(golden):
    agents = pytest.importorskip("agents")
    agents.set_tracing_disabled(True)
    client = openai.AsyncOpenAI(base_url=f"{golden.url}/api/v1", api_key=KEY, max_retries=0)
    agents.set_default_openai_client(client, use_for_tracing=False)
    yield agents
    agents.set_default_openai_client(openai.AsyncOpenAI(api_key="unused"), use_for_tracing=False)


def weather_agent(agents, seen: list):
    @agents.function_tool
    def get_weather(city: str) -> str:
        """Weather in a city."""
        seen.append(city)
        return f"sunny in {city}"

    return agents.Agent(name="weather", instructions="Use tools.", model=MODEL, tools=[get_weather])


def test_agents_sdk_tool_round_trip(agents_sdk, recorded):
    seen: list = []
    result = agents_sdk.Runner.run_sync(weather_agent(agents_sdk, seen), "Weather in Paris?")
    assert seen == ["Paris"]
    assert result.final_output == "Hello world"
    posts = [r for r in recorded() if r["path"].endswith("/responses")]
    assert len(posts) == 2, "the default provider speaks the Responses API"
    items = posts[1]["body"]["input"]
    assert {"type": "function_call_output", "call_id": "call_a"}.items() <= next(
        i for i in items if i.get("type") == "function_call_output").items()


def test_agents_sdk_streamed_run(agents_sdk):
    seen: list = []

    async def run():
        result = agents_sdk.Runner.run_streamed(weather_agent(agents_sdk, seen), "Weather in Paris?")
        kinds = [e.type async for e in result.stream_events()]
        return result, kinds

    import asyncio
    result, kinds = asyncio.run(run())
    assert seen == ["Paris"]
    assert result.final_output == "Hello world"
    assert "raw_response_event" in kinds


# ---- the anthropic SDK: the Messages API ----------------------------------------------------


def test_messages_create(claude):
    m = claude.messages.create(model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "hi"}])
    assert m.type == "message" and m.role == "assistant"
    assert [b.type for b in m.content] == ["text"] and m.content[0].text == "Hello world"
    assert m.stop_reason == "end_turn"
    assert (m.usage.input_tokens, m.usage.output_tokens) == (7, 2)


def test_messages_stream(claude):
    with claude.messages.stream(model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "hi"}]) as s:
        text = "".join(s.text_stream)
        final = s.get_final_message()
    assert text == "Hello world" == final.content[0].text
    # The prompt is counted when the job ends: message_delta carries it, and the SDK keeps it.
    assert (final.usage.input_tokens, final.usage.output_tokens) == (7, 2)


def test_messages_tool_use_round_trip(claude, recorded):
    ask = {"role": "user", "content": "Weather in Paris?"}
    first = claude.messages.create(model=MODEL, max_tokens=64, messages=[ask], tools=[ANTHROPIC_WEATHER_TOOL])
    assert first.stop_reason == "tool_use"
    use = next(b for b in first.content if b.type == "tool_use")
    assert (use.name, use.input, use.id) == ("get_weather", {"city": "Paris"}, "toolu_a")
    second = claude.messages.create(
        model=MODEL, max_tokens=64, tools=[ANTHROPIC_WEATHER_TOOL],
        messages=[ask, {"role": "assistant", "content": first.content},
                  {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "sunny"}]}])
    assert second.content[0].text == "Hello world"
    sent = recorded()[-1]["body"]["messages"]
    assert sent[1]["content"][0]["type"] == "tool_use" and sent[1]["content"][0]["input"] == {"city": "Paris"}
    with claude.messages.stream(model=MODEL, max_tokens=64, messages=[ask], tools=[ANTHROPIC_WEATHER_TOOL]) as s:
        streamed = s.get_final_message()
    assert streamed.content[0].input == {"city": "Paris"} and streamed.stop_reason == "tool_use"


def test_messages_image_block(claude, recorded):
    m = claude.messages.create(model=MODEL, max_tokens=64, messages=[{"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}},
        {"type": "text", "text": "What is this?"}]}])
    assert m.content[0].text == "Hello world"
    block = recorded()[-1]["body"]["messages"][0]["content"][0]
    assert block == {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}}


def test_count_tokens(claude):
    counted = claude.messages.count_tokens(model=MODEL, messages=[{"role": "user", "content": "hi"}])
    assert counted.input_tokens == COUNT


def test_bad_key_is_an_authentication_error(golden):
    bad = anthropic.Anthropic(base_url=f"{golden.url}/api", api_key="bad", max_retries=0)
    with pytest.raises(anthropic.AuthenticationError) as e:
        bad.messages.create(model=MODEL, max_tokens=8, messages=[{"role": "user", "content": "hi"}])
    assert e.value.status_code == 401
    assert e.value.body["type"] == "error" and e.value.body["error"]["type"] == "authentication_error"


def test_a_stream_error_event_raises():
    import httpx2  # the anthropic SDK's own HTTP client

    sse = (GOLDEN / "messages_error.sse").read_bytes()
    transport = httpx2.MockTransport(lambda _: httpx2.Response(
        200, content=sse, headers={"content-type": "text/event-stream"}))
    client = anthropic.Anthropic(base_url="http://golden.invalid/api", api_key=KEY, max_retries=0,
                                 http_client=httpx2.Client(transport=transport))
    with pytest.raises(anthropic.APIStatusError) as e:
        with client.messages.stream(model=MODEL, max_tokens=8, messages=[{"role": "user", "content": "hi"}]) as s:
            for _ in s:
                pass
    assert e.value.body["error"]["type"] == "api_error"


# ---- node: openai-node, the AI SDK, @anthropic-ai/sdk -----------------------------------------


def test_node_sdks_read_the_shapes(golden):
    node = shutil.which("node")
    node_dir = E2E_DIR / "node"
    assert node, "node is required for the node SDK tests"
    for pkg in ("openai", "ai", "@ai-sdk/openai", "@anthropic-ai/sdk"):
        assert (node_dir / "node_modules" / pkg).is_dir(), f"{pkg} missing: tests/e2e/run.sh installs it"
    out = subprocess.run([node, "api_shapes.mjs"], cwd=node_dir, capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, SHOAL_SITE=golden.url, SHOAL_KEY=KEY), stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["openai_stream"]["first"] == "response.created"
    assert got["openai_stream"]["last"] == "response.completed"
    assert got["openai_stream"]["text"] == "Hello world"
    assert got["openai_final"] == {"text": "Hello world", "total_tokens": 9}
    assert got["ai_generate"]["text"] == "Hello world"
    assert got["ai_generate"]["calls"] == [{"toolName": "get_weather", "input": {"city": "Paris"}}]
    assert got["ai_generate"]["steps"] == 2
    assert got["ai_stream"]["text"] == "Hello world"
    assert got["ai_stream"]["usage"]["inputTokens"] == 7
    assert got["ai_stream"]["usage"]["outputTokens"] == 2
    assert got["anthropic_stream"] == {"text": "Hello world", "input_tokens": 7, "output_tokens": 2,
                                       "stop_reason": "end_turn"}


# ---- agent CLIs: Claude Code and Codex ----------------------------------------------------------
#
# Both install from npm (tests/e2e/agents/package.json; ~0.5 GB of native binaries, so
# tests/e2e/run.sh installs them only with SHOAL_E2E_AGENT_CLIS=1) and run against a local base
# URL with nothing but a key: no network login. Claude Code 2.1 posts to
# `{ANTHROPIC_BASE_URL}/v1/messages?beta=true` (x-api-key, anthropic-version, a list of betas)
# with 24 custom tools, `thinking: {"type": "adaptive"}`, `output_config.effort`,
# `context_management` and a mid-conversation `system` turn. Codex 0.171 with a custom provider
# (`wire_api = "responses"`) posts to `{base_url}/responses` with `store: false`,
# `include: ["reasoning.encrypted_content"]`, function tools, a `namespace` of sub-agent
# function tools and, unless `web_search = "disabled"`, a hosted `web_search` tool, which Shoal
# refuses (it runs only the caller's own function tools).

AGENTS_DIR = E2E_DIR / "agents"


def agent_cli(name: str):
    path = AGENTS_DIR / "node_modules" / ".bin" / name
    if not path.exists():
        pytest.skip(f"{name} is not installed: SHOAL_E2E_AGENT_CLIS=1 tests/e2e/run.sh installs it "
                    "(npm ci in tests/e2e/agents)")
    return str(path)


def codex_config(home, base_url: str) -> None:
    """Codex's custom provider for Shoal: the base URL, the key's variable, the Responses API; no
    hosted web search (Shoal has none)."""
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(f"""\
model = "{MODEL}"
model_provider = "shoal"
web_search = "disabled"

[model_providers.shoal]
name = "Shoal"
base_url = "{base_url}"
env_key = "SHOAL_API_KEY"
wire_api = "responses"
""")


def test_claude_code_print_mode(golden, recorded, tmp_path):
    claude_bin = agent_cli("claude")
    env = dict(os.environ, HOME=str(tmp_path), ANTHROPIC_BASE_URL=f"{golden.url}/api", ANTHROPIC_API_KEY=KEY,
               DISABLE_TELEMETRY="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    out = subprocess.run([claude_bin, "-p", "say hi", "--model", MODEL], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    assert "Hello world" in out.stdout
    posts = [r for r in recorded() if r["method"] == "POST"]
    assert posts and all(r["path"] == "/api/v1/messages?beta=true" for r in posts)
    assert posts[0]["headers"].get("x-api-key") == KEY
    assert posts[0]["body"]["model"] == MODEL


def test_claude_code_reads_a_tool_call(golden, recorded, tmp_path):
    """The streamed tool_use block is read as a call: Claude Code answers it (an unknown tool,
    so with an error result) and asks again."""
    claude_bin = agent_cli("claude")
    env = dict(os.environ, HOME=str(tmp_path), ANTHROPIC_BASE_URL=f"{golden.url}/api", ANTHROPIC_API_KEY=KEY,
               DISABLE_TELEMETRY="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    out = subprocess.run([claude_bin, "-p", "[[tool]] weather?", "--model", MODEL, "--tools", "Glob"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
                         stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    assert "Hello world" in out.stdout
    posts = [r for r in recorded() if r["method"] == "POST"]
    assert len(posts) == 2
    result = posts[1]["body"]["messages"][-1]["content"]
    assert any(b.get("type") == "tool_result" and b.get("tool_use_id") == "toolu_a" for b in result)


def test_codex_exec(golden, recorded, tmp_path):
    codex_bin = agent_cli("codex")
    codex_config(tmp_path, f"{golden.url}/api/v1")
    env = dict(os.environ, HOME=str(tmp_path), SHOAL_API_KEY=KEY)
    out = subprocess.run([codex_bin, "exec", "--skip-git-repo-check", "say hi"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    assert "Hello world" in out.stdout
    posts = [r for r in recorded() if r["method"] == "POST"]
    assert posts and all(r["path"] == "/api/v1/responses" for r in posts)
    body = posts[0]["body"]
    assert body["store"] is False
    assert {t["type"] for t in body["tools"]} <= {"function", "namespace"}


def test_codex_reads_a_tool_call(golden, recorded, tmp_path):
    """The streamed function_call item is read as a call: Codex answers it (an unknown tool, so
    with an error output) and asks again."""
    codex_bin = agent_cli("codex")
    codex_config(tmp_path, f"{golden.url}/api/v1")
    env = dict(os.environ, HOME=str(tmp_path), SHOAL_API_KEY=KEY)
    out = subprocess.run([codex_bin, "exec", "--skip-git-repo-check", "[[tool]] weather?"], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    assert "Hello world" in out.stdout
    posts = [r for r in recorded() if r["method"] == "POST"]
    assert len(posts) == 2
    outputs = [i for i in posts[1]["body"]["input"] if i.get("type") == "function_call_output"]
    assert [o["call_id"] for o in outputs] == ["call_a"]
