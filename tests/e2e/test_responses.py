"""`POST /api/v1/responses` end to end (issue 29): the Responses API, stateless, run as a chat
job. The official clients, unchanged but for the base URL and the key, against a real
`shoal serve`, a real `shoal worker` and the scripted upstream (tests/e2e/upstream.py).

The answer shapes themselves are pinned by test_api_shapes.py (the SDKs reading the renderers'
golden output); here the route runs for real: translation, billing, errors, failures.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess

import httpx
import openai
import pytest
from pydantic import BaseModel

from harness import E2E_DIR, credits_for, one_request, settled
from upstream import THINKING, count_prompt_tokens, tool_arguments


LARGE = "large-27b-uncensored"
THINK = "large-27b-uncensored-think"
DEFAULT_ANSWER = "Hello from upstream A."  # 4 tokens
WEATHER_TOOL = {"type": "function", "name": "get_weather", "description": "Current weather for a city",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                               "required": ["city"]}}
CHAT_WEATHER_TOOL = {"type": "function", "function": {k: v for k, v in WEATHER_TOOL.items() if k != "type"}}


def post(gateway, key, body, stream=False) -> httpx.Response:
    with httpx.Client(timeout=30) as http:
        return http.post(gateway.api + "/responses", json=body, headers={"Authorization": f"Bearer {key}"})


def events(gateway, key, body) -> list:
    """The (event, data) pairs of a streamed answer, read with plain httpx."""
    out, name = [], None
    with httpx.Client(timeout=30) as http:
        with http.stream("POST", gateway.api + "/responses", json={**body, "stream": True},
                         headers={"Authorization": f"Bearer {key}"}) as r:
            assert r.status_code == 200, r.read()
            assert r.headers["content-type"].startswith("text/event-stream")
            for line in r.iter_lines():
                if line.startswith("event: "):
                    name = line[len("event: "):]
                elif line.startswith("data: "):
                    data = json.loads(line[len("data: "):])
                    assert data["type"] == name
                    out.append((name, data))
    return out


# ---- openai-python ---------------------------------------------------------------------------


def test_plain(gateway, worker, upstream, account, client, nonce):
    before = gateway.balance(account.key)
    r = client.responses.create(model=LARGE, input=f"hi {nonce}", instructions="Be brief.")
    assert r.status == "completed"
    assert r.output_text == DEFAULT_ANSWER
    assert r.id.startswith("resp_") and r.model == LARGE and r.store is False
    sent = one_request(upstream, nonce)["body"]["messages"]
    assert [m["role"] for m in sent] == ["system", "user"], "instructions run as a system message"
    assert r.usage.input_tokens == count_prompt_tokens(sent)
    assert r.usage.output_tokens == 4
    assert r.usage.total_tokens == r.usage.input_tokens + 4
    after = settled(gateway, account.key)
    assert after["total_spent"] - before["total_spent"] == credits_for(r.usage.input_tokens, r.usage.output_tokens)


def test_streamed(gateway, worker, upstream, account, client, nonce):
    before = gateway.balance(account.key)
    with client.responses.stream(model=LARGE, input=f"hi {nonce}") as stream:
        kinds = [e.type for e in stream]
        final = stream.get_final_response()
    assert kinds[:2] == ["response.created", "response.in_progress"] and kinds[-1] == "response.completed"
    assert final.output_text == DEFAULT_ANSWER
    after = settled(gateway, account.key)
    assert after["total_spent"] - before["total_spent"] == credits_for(final.usage.input_tokens,
                                                                       final.usage.output_tokens)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_function_tool_round_trip(gateway, worker, upstream, client, nonce, stream):
    ask = {"role": "user", "content": f"[[tool]] Weather in Paris? {nonce}"}
    if stream:
        with client.responses.stream(model=LARGE, input=[ask], tools=[WEATHER_TOOL]) as s:
            for _ in s:
                pass
            first = s.get_final_response()
    else:
        first = client.responses.create(model=LARGE, input=[ask], tools=[WEATHER_TOOL])
    call = next(o for o in first.output if o.type == "function_call")
    assert call.name == "get_weather"
    assert json.loads(call.arguments) == json.loads(tool_arguments(CHAT_WEATHER_TOOL))
    result = json.dumps({"temp_c": 21})
    follow = [ask, *[o.model_dump(exclude_none=True) for o in first.output],
              {"type": "function_call_output", "call_id": call.call_id, "output": result}]
    second = client.responses.create(model=LARGE, input=follow, tools=[WEATHER_TOOL])
    assert second.output_text == f"Got tool result of {len(result)} chars."
    reqs = upstream.requests(containing=nonce)
    assert len(reqs) == 2
    sent = reqs[1]["body"]["messages"]
    assert sent[-2]["role"] == "assistant" and sent[-2]["tool_calls"][0]["id"] == call.call_id
    assert sent[-1] == {"role": "tool", "tool_call_id": call.call_id, "content": result}


class Weather(BaseModel):
    city: str


def test_text_format_json_schema_and_parse(gateway, worker, upstream, client, nonce):
    client.responses.create(model=LARGE, input=f"hi {nonce}", text={"format": {
        "type": "json_schema", "name": "weather", "schema": Weather.model_json_schema(), "strict": True}})
    fmt = one_request(upstream, nonce)["body"]["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "weather"
    # responses.parse sends the same, and reads the JSON answer (the scripted upstream echoes it).
    parsed = client.responses.parse(model=LARGE, input=f'[[echo]] {{"city": "{nonce}"}}', text_format=Weather)
    assert parsed.output_parsed == Weather(city=nonce)


def test_reasoning_comes_back_as_a_reasoning_item(gateway, worker, upstream, client, nonce):
    r = client.responses.create(model=THINK, input=f"[[think]] Why? {nonce}", reasoning={"effort": "low"})
    assert [o.type for o in r.output] == ["reasoning", "message"]
    assert r.output[0].content[0].text == THINKING
    assert r.output_text == DEFAULT_ANSWER
    assert r.usage.output_tokens == 7 and r.usage.output_tokens_details.reasoning_tokens == 3
    assert one_request(upstream, nonce)["body"].get("reasoning_effort") == "low"


def test_length_stop_is_incomplete(gateway, worker, client, nonce):
    r = client.responses.create(model=LARGE, input=f"hi {nonce}", max_output_tokens=2)
    assert r.status == "incomplete" and r.incomplete_details.reason == "max_output_tokens"
    assert r.output_text == "Hello from" and r.usage.output_tokens == 2


def test_worker_lost_mid_stream_fails_the_response(gateway, worker, upstream, account, nonce):
    before = gateway.balance(account.key)
    got = events(gateway, account.key, {"model": LARGE, "input": f"[[drop-after 2]] {nonce}"})
    assert got[-1][0] == "response.failed"
    assert got[-1][1]["response"]["error"]["code"] == "server_error"
    text = "".join(d["delta"] for n, d in got if n == "response.output_text.delta")
    assert text == "Hello from"
    after = settled(gateway, account.key)
    assert after["total_spent"] - before["total_spent"] == 1, "only what was delivered is billed"


def test_stateless(gateway, worker, account, client, nonce):
    with pytest.raises(openai.BadRequestError) as e:
        client.responses.create(model=LARGE, input=f"hi {nonce}", previous_response_id="resp_123")
    assert "stateless" in e.value.message and e.value.body["param"] == "previous_response_id"
    r = httpx.get(gateway.api + "/responses/resp_123", headers={"Authorization": f"Bearer {account.key}"})
    assert r.status_code == 404 and "stateless" in r.json()["error"]["message"]
    # store: true is accepted; nothing is kept.
    assert client.responses.create(model=LARGE, input=f"hi {nonce}", store=True).store is False


def test_hosted_tools_are_refused_by_name(gateway, client, nonce):
    with pytest.raises(openai.BadRequestError) as e:
        client.responses.create(model=LARGE, input=f"hi {nonce}", tools=[WEATHER_TOOL, {"type": "web_search"}])
    assert e.value.body["param"] == "tools[1]"


def test_user_and_metadata_never_reach_a_worker(gateway, worker, upstream, client, nonce):
    r = client.responses.create(model=LARGE, input=f"hi {nonce}", user="CANARY-USER",
                                metadata={"who": "CANARY-META"}, safety_identifier="CANARY-SAFETY")
    assert r.metadata == {"who": "CANARY-META"}
    blob = json.dumps(one_request(upstream, nonce))
    assert "CANARY" not in blob


# ---- errors in the Responses API's shape (OpenAI's) -----------------------------------------


def test_errors(gateway, account, nonce):
    def code(resp):
        body = resp.json()
        assert set(body["error"]) >= {"message", "type", "code"}, body
        return resp.status_code, body["error"]["code"]

    assert code(post(gateway, "sk-shoal-bad", {"model": LARGE, "input": "hi"}))[0] == 401
    assert code(post(gateway, account.key, {"model": "no-such-model", "input": "hi"})) == (404, "model_not_found")
    broke = gateway.new_account(credits=0)
    assert code(post(gateway, broke.key, {"model": LARGE, "input": "hi"})) == (402, "insufficient_credits")
    assert code(post(gateway, account.key, {"model": "service-pro", "input": "hi"})) == (503, "no_worker_available")
    slow = gateway.new_account(credits=100, rpm=1)
    post(gateway, slow.key, {"model": "service-pro", "input": "hi"})
    assert code(post(gateway, slow.key, {"model": "service-pro", "input": "hi"})) == (429, "rate_limit_exceeded")


# ---- the Agents SDK, default provider -------------------------------------------------------


def test_agents_sdk_tool_round_trip_and_streamed_run(gateway, worker, upstream, account, nonce):
    agents = pytest.importorskip("agents")
    agents.set_tracing_disabled(True)
    agents.set_default_openai_client(openai.AsyncOpenAI(base_url=gateway.api, api_key=account.key, max_retries=0),
                                     use_for_tracing=False)
    seen = []

    @agents.function_tool
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        seen.append(city)
        return "sunny"

    agent = agents.Agent(name="weather", instructions="Use tools.", model=LARGE, tools=[get_weather])
    result = agents.Runner.run_sync(agent, f"[[tool]] Weather in Paris? {nonce}")
    assert seen == ["test-city"]
    assert result.final_output == f"Got tool result of {len('sunny')} chars."

    async def streamed():
        # A client of this event loop: run_sync's loop, which the first client's connections
        # belong to, is closed by now.
        agents.set_default_openai_client(
            openai.AsyncOpenAI(base_url=gateway.api, api_key=account.key, max_retries=0), use_for_tracing=False)
        run = agents.Runner.run_streamed(agent, f"[[tool]] Weather in Rome? {nonce}")
        [e async for e in run.stream_events()]
        return run.final_output

    assert asyncio.run(streamed()) == f"Got tool result of {len('sunny')} chars."
    assert len(upstream.requests(containing=nonce)) == 4


def test_agents_sdk_output_type(gateway, worker, upstream, account, nonce):
    agents = pytest.importorskip("agents")
    agents.set_tracing_disabled(True)
    agents.set_default_openai_client(openai.AsyncOpenAI(base_url=gateway.api, api_key=account.key, max_retries=0),
                                     use_for_tracing=False)

    class Trip(BaseModel):
        city: str
        days: int

    agent = agents.Agent(name="planner", instructions="Plan.", model=LARGE, output_type=Trip)
    result = agents.Runner.run_sync(agent, f"A trip, please. {nonce}")
    assert isinstance(result.final_output, Trip), result.final_output
    [sent] = [r["body"] for r in upstream.requests(containing=nonce)]
    assert sent["response_format"]["type"] == "json_schema", sent.get("response_format")
    assert set(sent["response_format"]["json_schema"]["schema"]["properties"]) == {"city", "days"}


# ---- node: openai-node streamed, the AI SDK's default provider ---------------------------------


def test_node_clients(gateway, worker, account, nonce):
    node = shutil.which("node")
    assert node, "node is required"
    env = dict(os.environ, SHOAL_SITE=gateway.base, SHOAL_KEY=account.key, SHOAL_PROMPT=f"hi {nonce}",
               SHOAL_TOOL_PROMPT=f"[[tool]] Weather in Paris? {nonce}")
    out = subprocess.run([node, "api_shapes.mjs"], cwd=E2E_DIR / "node", env=env, capture_output=True,
                         text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["openai_stream"]["text"] == DEFAULT_ANSWER
    assert got["openai_stream"]["last"] == "response.completed"
    assert got["ai_generate"]["calls"][0]["toolName"] == "get_weather"
    assert got["ai_generate"]["text"].startswith("Got tool result of ")
    assert got["ai_stream"]["text"] == DEFAULT_ANSWER
    assert got["ai_stream"]["usage"]["outputTokens"] == 4
    # generateObject: the schema reached the worker and the answer held to it (the stand-in
    # answers the smallest instance; the gateway checked it before relaying).
    assert got["ai_object"] == {"city": "xxx", "days": 2}


# ---- Codex CLI --------------------------------------------------------------------------------


def test_codex_exec_calls_a_tool(gateway, worker, upstream, account, nonce, tmp_path):
    from test_api_shapes import agent_cli, codex_config

    codex_bin = agent_cli("codex")
    codex_config(tmp_path, gateway.api)
    env = dict(os.environ, HOME=str(tmp_path), SHOAL_API_KEY=account.key)
    out = subprocess.run([codex_bin, "exec", "--skip-git-repo-check", f"[[tool]] list the files {nonce}"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180,
                         stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    reqs = upstream.requests(containing=nonce)
    assert len(reqs) >= 2, "the tool's result went back to the model"
    assert reqs[-1]["body"]["messages"][-1]["role"] == "tool"
