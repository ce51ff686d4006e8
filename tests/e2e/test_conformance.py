"""What real clients trip on: `models.retrieve`, CORS for browser apps, a usage block that is
exactly the bill (also when a worker over-reports), OpenAI's message forms, parameters refused
by name rather than ignored, and the OpenAPI document.

Runs against the session gateway and worker (conftest.py) unless a test needs its own config.
"""

from __future__ import annotations

import json
import re
import sqlite3

import httpx
import openai
import pytest

from harness import credits_for, wait_for

MODEL = "large-27b-uncensored"
ALIAS = "large-26b-uncensored"
ORIGIN = "https://app.example"
EXPOSED = {"x-request-id", "x-ratelimit-limit-requests", "x-ratelimit-remaining-requests",
           "x-ratelimit-reset-requests", "retry-after"}


def header_set(response: httpx.Response, name: str) -> set:
    return {h.strip().lower() for h in response.headers.get(name, "").split(",") if h.strip()}


# ---- GET /api/v1/models/{id} -----------------------------------------------------------------


def test_models_retrieve_is_the_listed_entry(gateway, worker, client):
    listed = {m.id: m for m in client.models.list().data}
    model = client.models.retrieve(MODEL)
    assert model.id == MODEL and model.object == "model"
    assert model.model_dump() == listed[MODEL].model_dump()
    extra = model.model_extra
    assert extra["available"] is True
    assert extra["pricing"] == {"type": "per_token", "usd_per_m_input": 0.15, "usd_per_m_output": 0.9}
    assert extra["deprecated"] is False

    alias = client.models.retrieve(ALIAS)
    assert alias.id == ALIAS
    assert alias.model_extra["deprecated"] is True
    assert alias.model_extra["alias_of"] == MODEL
    assert alias.model_extra["available"] is True
    assert alias.model_dump() == listed[ALIAS].model_dump()


def test_models_retrieve_unknown_is_404_model_not_found(gateway, client):
    with pytest.raises(openai.NotFoundError) as caught:
        client.models.retrieve("no-such-model")
    body = caught.value.response.json()
    assert body["error"]["code"] == "model_not_found"
    assert set(body["error"]) == {"message", "type", "param", "code"}


def test_models_retrieve_shows_a_model_without_worker_as_unavailable(gateway, client):
    assert client.models.retrieve("service-swarm").model_extra["available"] is False


# ---- CORS --------------------------------------------------------------------------------------


def test_preflight_is_answered_without_a_key(gateway):
    r = httpx.options(gateway.api + "/chat/completions", headers={
        "Origin": ORIGIN,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, x-stainless-os, x-stainless-retry-count",
    })
    assert r.status_code == 200, r.text
    assert r.headers["access-control-allow-origin"] == "*"
    allowed = header_set(r, "access-control-allow-headers")
    assert {"authorization", "content-type", "x-stainless-os", "x-stainless-retry-count"} <= allowed
    assert "*" not in allowed
    assert "POST" in r.headers["access-control-allow-methods"]
    assert "access-control-allow-credentials" not in r.headers


def test_cross_origin_call_succeeds_and_exposes_headers(gateway, worker, account):
    r = httpx.post(gateway.api + "/chat/completions", timeout=30, headers={
        "Origin": ORIGIN, "Authorization": f"Bearer {account.key}",
    }, json={"model": MODEL, "messages": [{"role": "user", "content": "hi"}]})
    assert r.status_code == 200, r.text
    assert r.headers["access-control-allow-origin"] == "*"
    assert header_set(r, "access-control-expose-headers") >= EXPOSED
    assert "x-request-id" in r.headers and "x-ratelimit-remaining-requests" in r.headers
    assert "access-control-allow-credentials" not in r.headers
    # A call without Origin (an SDK on a server) is not a CORS request: no CORS headers.
    plain = httpx.get(gateway.api + "/models", headers={"Authorization": f"Bearer {account.key}"})
    assert plain.status_code == 200
    assert not [h for h in plain.headers if h.startswith("access-control-")]


def test_errors_carry_cors_headers(gateway, account):
    unauthorized = httpx.get(gateway.api + "/models", headers={"Origin": ORIGIN})
    assert unauthorized.status_code == 401
    assert unauthorized.headers["access-control-allow-origin"] == "*"
    assert header_set(unauthorized, "access-control-expose-headers") >= EXPOSED

    slow = gateway.new_account(credits=10, rpm=1)
    headers = {"Origin": ORIGIN, "Authorization": f"Bearer {slow.key}"}
    assert httpx.get(gateway.api + "/balance", headers=headers).status_code == 200
    limited = httpx.get(gateway.api + "/balance", headers=headers)
    assert limited.status_code == 429
    assert limited.headers["access-control-allow-origin"] == "*"
    assert "retry-after" in limited.headers

    poor = gateway.new_account(credits=0)
    r = httpx.post(gateway.api + "/chat/completions", headers={
        "Origin": ORIGIN, "Authorization": f"Bearer {poor.key}",
    }, json={"model": MODEL, "messages": [{"role": "user", "content": "hi"}]})
    assert r.status_code == 402
    assert r.headers["access-control-allow-origin"] == "*"

    missing = httpx.get(gateway.api + "/no-such-route", headers={"Origin": ORIGIN})
    assert missing.status_code == 404
    assert missing.headers["access-control-allow-origin"] == "*"


def test_credentialed_requests_are_never_allowed(gateway, account):
    """A browser sends cookies cross-site only when the answer says
    `Access-Control-Allow-Credentials: true` next to the exact origin; no answer does."""
    preflight = httpx.options(gateway.api + "/balance", headers={
        "Origin": ORIGIN, "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "authorization",
    })
    assert "access-control-allow-credentials" not in preflight.headers
    r = httpx.get(gateway.api + "/balance", headers={
        "Origin": ORIGIN, "Cookie": "session=abc", "Authorization": f"Bearer {account.key}",
    })
    assert r.status_code == 200
    assert "access-control-allow-credentials" not in r.headers
    # `*` is never accepted by a browser for a credentialed request.
    assert r.headers["access-control-allow-origin"] == "*"


def test_routes_outside_the_api_get_no_cors_headers(gateway):
    for path in ["/health", "/metrics", "/api/worker/ws"]:
        r = httpx.get(gateway.base + path, headers={"Origin": ORIGIN})
        assert "access-control-allow-origin" not in r.headers, path
        pre = httpx.options(gateway.base + path, headers={
            "Origin": ORIGIN, "Access-Control-Request-Method": "GET"})
        assert "access-control-allow-origin" not in pre.headers, path


def test_configured_origins_are_the_only_ones_allowed(gateway_factory):
    gw = gateway_factory('cors_allowed_origins = ["https://app.example", "http://localhost:3000"]\n')
    for origin in ["https://app.example", "http://localhost:3000"]:
        r = httpx.options(gw.api + "/chat/completions", headers={
            "Origin": origin, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization"})
        assert r.headers.get("access-control-allow-origin") == origin
        assert "access-control-allow-credentials" not in r.headers
    other = httpx.get(gw.api + "/models", headers={"Origin": "https://evil.example"})
    assert other.status_code == 401
    assert "access-control-allow-origin" not in other.headers


# ---- usage == bill -----------------------------------------------------------------------------


def clamp_count(gateway, worker_label: str | None = None) -> dict:
    """shoal_worker_usage_clamped_total by worker label."""
    text = httpx.get(gateway.base + "/metrics").text
    out = {}
    for m in re.finditer(r'^shoal_worker_usage_clamped_total\{worker="([^"]+)"\} (\d+)', text, re.M):
        out[m.group(1)] = int(m.group(2))
    return out


def billed(gateway, request_id: str) -> dict:
    """What the journal settled for one request: tokens and credits, summed over buckets."""
    db = sqlite3.connect(f"file:{gateway.data_dir / 'shoal.db'}?mode=ro", uri=True)
    try:
        row = db.execute(
            "SELECT COUNT(*), SUM(input_tokens), SUM(output_tokens), SUM(reasoning_tokens), SUM(credits) "
            "FROM journal WHERE request_id = ? AND kind = 'settle'", (request_id,)).fetchone()
    finally:
        db.close()
    return {"rows": row[0], "input": row[1], "output": row[2], "reasoning": row[3], "credits": row[4]}


def settled_bill(gateway, request_id: str) -> dict:
    return wait_for(lambda: (lambda b: b if b["rows"] else None)(billed(gateway, request_id)),
                    10, "the request's settle in the journal")


def settled_balance(gateway, key) -> dict:
    return wait_for(lambda: (lambda b: b if b["credits_held"] == 0 else None)(gateway.balance(key)),
                    10, "credits_held to return to 0")


def assert_usage_is_the_bill(gateway, account, before, request_id, usage, text, max_tokens):
    bill = settled_bill(gateway, request_id)
    assert (bill["input"], bill["output"], bill["reasoning"]) == (
        usage.prompt_tokens, usage.completion_tokens, usage.completion_tokens_details.reasoning_tokens)
    assert bill["credits"] == credits_for(usage.prompt_tokens, usage.completion_tokens)
    after = settled_balance(gateway, account.key)
    assert before["credits"] - after["credits"] == bill["credits"]
    # The answer says what it cost: the settle's charge, in credits and in USD.
    assert usage.model_extra["cost"] == bill["credits"]
    assert usage.model_extra["cost_usd"] == f"{bill['credits'] // 1000}.{bill['credits'] % 1000:03d}"
    # Each count is held to its bound: the prompt to its upper bound (template 128, message
    # 16, part 4, then its bytes), the completion to max_tokens, reasoning to the completion.
    assert usage.prompt_tokens <= 128 + 16 + 4 + len(text.encode())
    assert usage.completion_tokens == max_tokens
    assert usage.completion_tokens_details.reasoning_tokens == max_tokens
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens


def test_an_over_reporting_worker_cannot_inflate_usage_or_bill(gateway, worker, account, client, nonce):
    text = f"{nonce} [[overreport 100000]]"
    before_metric = sum(clamp_count(gateway).values())
    before = gateway.balance(account.key)
    resp = client.chat.completions.create(model=MODEL, max_tokens=16,
                                          messages=[{"role": "user", "content": text}])
    assert resp.usage.prompt_tokens < 100_000
    assert_usage_is_the_bill(gateway, account, before, resp.id, resp.usage, text, 16)
    assert sum(clamp_count(gateway).values()) == before_metric + 1
    assert all(label.startswith("wrk_") for label in clamp_count(gateway))


def test_the_include_usage_chunk_is_the_clamped_bill(gateway, worker, account, client, nonce):
    text = f"{nonce} [[overreport 100000]]"
    before_metric = sum(clamp_count(gateway).values())
    before = gateway.balance(account.key)
    stream = client.chat.completions.create(model=MODEL, max_tokens=8, stream=True,
                                            stream_options={"include_usage": True},
                                            messages=[{"role": "user", "content": text}])
    usage, request_id = None, None
    for chunk in stream:
        request_id = chunk.id
        if chunk.usage is not None:
            usage = chunk.usage
    assert usage is not None
    assert_usage_is_the_bill(gateway, account, before, request_id, usage, text, 8)
    assert sum(clamp_count(gateway).values()) == before_metric + 1


def test_honest_usage_is_not_clamped(gateway, worker, account, client, nonce):
    before_metric = sum(clamp_count(gateway).values())
    resp = client.chat.completions.create(model=MODEL, max_tokens=64,
                                          messages=[{"role": "user", "content": f"{nonce} hi there"}])
    # The scripted upstream counts words: two, plus the nonce.
    assert resp.usage.prompt_tokens == 3
    bill = settled_bill(gateway, resp.id)
    assert (bill["input"], bill["output"]) == (resp.usage.prompt_tokens, resp.usage.completion_tokens)
    assert sum(clamp_count(gateway).values()) == before_metric


# ---- OpenAI's message forms and refused parameters --------------------------------------------


def test_refusal_parts_and_the_function_role_are_accepted(gateway, worker, upstream, client, nonce):
    resp = client.chat.completions.create(model=MODEL, messages=[
        {"role": "user", "content": f"{nonce} weather?"},
        {"role": "assistant", "content": [{"type": "refusal", "refusal": "I cannot look that up."}]},
        {"role": "user", "content": "use the function then"},
        {"role": "assistant", "content": None,
         "function_call": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}},
        {"role": "function", "name": "get_weather", "content": "sunny"},
    ])
    assert resp.choices[0].message.content
    sent = upstream.requests(containing=nonce)
    assert len(sent) == 1
    messages = sent[0]["body"]["messages"]
    assert messages[1]["content"] == [{"type": "text", "text": "I cannot look that up."}]
    call = messages[3]["tool_calls"][0]
    assert call["function"]["name"] == "get_weather"
    assert messages[4]["role"] == "tool" and messages[4]["tool_call_id"] == call["id"]


@pytest.mark.parametrize("param,value", [
    ("logprobs", True), ("top_logprobs", 2), ("logit_bias", {"50256": -100}),
    ("functions", [{"name": "f", "parameters": {"type": "object"}}]),
])
def test_parameters_that_cannot_be_honoured_are_refused(gateway, client, param, value):
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "hi"}],
                                       extra_body={param: value})
    assert caught.value.response.json()["error"]["param"] == param


def test_logprobs_false_is_accepted(gateway, worker, client):
    resp = client.chat.completions.create(model=MODEL, logprobs=False,
                                          messages=[{"role": "user", "content": "hi"}])
    assert resp.choices[0].logprobs is None


# ---- the OpenAPI document ----------------------------------------------------------------------


def test_openapi_document_is_served_without_a_key(gateway):
    r = httpx.get(gateway.api + "/openapi.json")
    assert r.status_code == 200
    doc = r.json()
    assert doc["openapi"].startswith("3.1")
    assert doc["servers"][0]["url"] == "/api/v1"
    assert set(doc["paths"]) == {"/models", "/models/{id}", "/balance", "/chat/completions", "/deposits",
                                 "/images/generations", "/openapi.json", "/responses", "/responses/{id}",
                                 "/messages", "/messages/count_tokens", "/key", "/keys", "/keys/{id}",
                                 "/generation"}
    assert doc["components"]["securitySchemes"]["bearer"] == {
        "type": "http", "scheme": "bearer", "description": doc["components"]["securitySchemes"]["bearer"]["description"]}
    chat = doc["paths"]["/chat/completions"]["post"]
    assert chat["security"] == [{"bearer": []}]
    assert {"400", "401", "402", "404", "429", "503"} <= set(chat["responses"])
    for name in ["ChatCompletionRequest", "ChatCompletion", "ErrorBody", "ModelEntry", "BalanceResponse",
                 "DepositsResponse", "ResponsesRequest", "Response", "MessagesRequest", "Message",
                 "MessagesErrorBody", "TokenCount", "KeyObject", "KeyData", "KeyList", "CreatedKey",
                 "GenerationData"]:
        assert name in doc["components"]["schemas"], name


def test_the_document_and_the_server_agree_on_what_they_refuse(gateway, worker, account, client):
    """Three requests the document once admitted and the server refused: now the document
    refuses them too (checked with jsonschema against the served schemas), and what it admits
    the server serves."""
    jsonschema = pytest.importorskip("jsonschema")
    doc = httpx.get(gateway.api + "/openapi.json").json()
    schemas = doc["components"]["schemas"]

    def valid(name: str, instance) -> bool:
        # The component at the root, beside the components its $refs name.
        schema = {**schemas[name], "components": doc["components"]}
        return jsonschema.Draft202012Validator(schema).is_valid(instance)

    tool_call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": None, "tool_calls": [tool_call]}]
    for message, ok in (({"role": "tool", "content": "r"}, False), ({"role": "tool", "content": "r", "tool_call_id": ""}, False),
                        ({"role": "tool", "content": "r", "tool_call_id": "call_1"}, True)):
        assert valid("ChatMessage", message) is ok, message
        r = httpx.post(gateway.api + "/chat/completions", headers={"Authorization": f"Bearer {account.key}"},
                       json={"model": MODEL, "messages": [*history, message]}, timeout=30)
        assert (r.status_code == 200) is ok, (message, r.text)
    request = {"model": MODEL, "messages": [{"role": "user", "content": "hi"}]}
    for options, ok in (({}, False), (None, True)):
        assert valid("ChatCompletionRequest", {**request, "web_search_options": options}) is ok
        r = httpx.post(gateway.api + "/chat/completions", headers={"Authorization": f"Bearer {account.key}"},
                       json={**request, "web_search_options": options}, timeout=30)
        assert (r.status_code == 200) is ok, (options, r.text)
