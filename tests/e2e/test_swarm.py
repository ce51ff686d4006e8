"""`service-swarm` end to end: a generated 6-layer model (scripts/make-test-model --layers 6) cut
by `shoal swarm slice` into three spans, each run by a `shoal worker --backend swarm` process;
the gateway forms the ring, relays the hidden states between them, and the openai SDK sees one
model. A `temperature: 0` answer must equal the one `--backend llama` gives on the whole model.
With a span held twice, losing the node in use mid-stream must go unnoticed by the client;
`shoal admin swarm status` shows the ring as an operator sees it.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import openai
import pytest

from harness import (REPO_ROOT, SHOAL_LOG, START_TIMEOUT_S, Gateway, Proc, clean_env, credits_for,
                     wait_for)

from test_llama import LlamaWorker

SWARM = "service-swarm"
WHOLE = "large-27b-uncensored"
SPANS = [(0, 2), (2, 4), (4, 6)]
MAKE_TEST_MODEL = REPO_ROOT / "scripts" / "make-test-model"


@pytest.fixture(scope="module")
def model6(tmp_path_factory, shoal_bin) -> tuple[Path, dict]:
    """The whole 6-layer model and its spans, by range."""
    root = tmp_path_factory.mktemp("swarm-model")
    whole = root / "whole.gguf"
    subprocess.run([sys.executable, str(MAKE_TEST_MODEL), str(whole), "--layers", "6"],
                   check=True, timeout=60)
    spans = {}
    for a, b in SPANS:
        out = root / f"span-{a}-{b}.gguf"
        subprocess.run([str(shoal_bin), "swarm", "slice", "--gguf", str(whole),
                        "--layers", f"{a}..{b}", "--out", str(out)],
                       check=True, timeout=60, capture_output=True)
        spans[(a, b)] = out
    return whole, spans


class SpanWorker:
    """`shoal worker --backend swarm --gguf SPAN --serve service-swarm`."""

    def __init__(self, bin_path: Path, gateway: Gateway, span: Path, log_dir: Path,
                 extra: tuple = ()):
        name = f"swarm-{span.stem}-{uuid.uuid4().hex[:4]}"
        err_log = log_dir / f"{name}.stderr.log"
        out_log = log_dir / f"{name}.stdout.log"
        cmd = [str(bin_path), "worker", "--gateway", gateway.base,
               "--token", gateway.worker_token(name), "--backend", "swarm", "--gguf", str(span),
               "--serve", SWARM, "--concurrency", "2", "--threads", "1", "--ctx", "2048", *extra]
        popen = subprocess.Popen(cmd, stdout=open(out_log, "wb"), stderr=open(err_log, "wb"),
                                 stdin=subprocess.DEVNULL, env=clean_env(SHOAL_LOG=SHOAL_LOG))
        self.err_log = err_log
        self.proc = Proc(name, popen, [out_log, err_log], shoal=True)

    def joined(self) -> bool:
        return self.err_log.exists() and "swarm span ready" in self.err_log.read_text(errors="replace")

    def worker_id(self) -> str | None:
        """`wrk_<id>`, as the gateway's welcome named it (the worker logs it)."""
        for line in self.err_log.read_text(errors="replace").splitlines():
            if "connected to the gateway" in line:
                found = re.search(r"wrk_\d+", line)
                return found.group(0) if found else None
        return None


def swarm_status(gw: Gateway) -> tuple[int, str]:
    """`shoal admin swarm status --gateway BASE`: its exit status and output."""
    out = subprocess.run([str(gw.bin), "admin", "swarm", "status", "--gateway", gw.base],
                         capture_output=True, timeout=30, env=clean_env(), stdin=subprocess.DEVNULL)
    return out.returncode, out.stdout.decode()


def busy_nodes(status: str) -> set[str]:
    """The workers the status shows running a session."""
    return set(re.findall(r"(wrk_\d+)\tsessions [1-9]", status))


def metric(gw: Gateway, name: str) -> float:
    text = httpx.get(gw.base + "/metrics", timeout=5).text
    found = re.search(rf"^{name} (\S+)$", text, re.M)
    assert found, f"{name} not in /metrics"
    return float(found.group(1))


@pytest.fixture(scope="module")
def ring(shoal_bin, tmp_path_factory, log_dir, model6):
    """A gateway with the whole model on a llama worker and the three spans joined, the middle
    one last: `service-swarm` is unavailable until it joins."""
    whole, spans = model6
    gw = Gateway(shoal_bin, tmp_path_factory.mktemp("swarm-gateway"), log_dir)
    llama = LlamaWorker(shoal_bin, gw, whole, log_dir, concurrency=1)
    first = [SpanWorker(shoal_bin, gw, spans[r], log_dir) for r in [(0, 2), (4, 6)]]
    gw.wait_available([WHOLE], True, START_TIMEOUT_S, watch=llama.proc)
    for w in first:
        wait_for(w.joined, START_TIMEOUT_S, f"{w.proc.name} ready")
    assert gw.available(SWARM) is False, "two spans of three must not make a ring"
    middle = SpanWorker(shoal_bin, gw, spans[(2, 4)], log_dir)
    gw.wait_available([SWARM], True, START_TIMEOUT_S, watch=middle.proc)
    yield gw, [first[0], middle, first[1]], llama
    for w in [*first, middle]:
        w.proc.terminate(timeout=10)
    llama.proc.terminate(timeout=10)
    gw.stop()


@pytest.fixture
def client(ring):
    gw = ring[0]
    account = gw.new_account(credits=1000)
    c = gw.client(account.key, timeout=60)
    yield c
    c.close()


def ask(client, model: str, **extra):
    return client.chat.completions.create(
        model=model, messages=[{"role": "user", "content": "tell me about the sea"}],
        temperature=0, max_tokens=24, **extra)


def test_the_ring_answers_as_the_whole_model_does(client):
    whole = ask(client, WHOLE)
    swarm = ask(client, SWARM)
    assert whole.choices[0].message.content, "the whole model said nothing"
    assert swarm.choices[0].message.content == whole.choices[0].message.content
    assert swarm.choices[0].finish_reason == whole.choices[0].finish_reason
    assert swarm.usage.prompt_tokens == whole.usage.prompt_tokens
    assert swarm.usage.completion_tokens == whole.usage.completion_tokens


def test_streamed_and_with_tools_too(client):
    def streamed(model: str) -> str:
        chunks = client.chat.completions.create(
            model=model, messages=[{"role": "user", "content": "a streamed question"}],
            temperature=0, max_tokens=20, stream=True)
        return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)

    assert streamed(SWARM) == streamed(WHOLE)
    tools = [{"type": "function", "function": {
        "name": "weather", "description": "the weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]
    whole = ask(client, WHOLE, tools=tools)
    swarm = ask(client, SWARM, tools=tools)
    assert swarm.choices[0].message.content == whole.choices[0].message.content
    # The whole model's worker may read the prompt's start from its cache (the usage's
    # prompt_tokens_details); what is counted and billed is the same.
    billed = ("prompt_tokens", "completion_tokens", "total_tokens", "cost")
    assert {k: getattr(swarm.usage, k) for k in billed} == {k: getattr(whole.usage, k) for k in billed}


def test_losing_the_only_node_of_a_span_closes_the_ring(ring, client):
    gw, nodes, _ = ring
    code, status = swarm_status(gw)
    assert code == 0 and "layers 6  covered" in status, status
    nodes[1].proc.kill()
    # Within the heartbeat window (three missed heartbeats: 15 s at the default 5 s).
    gw.wait_available([SWARM], False, 15)
    code, status = swarm_status(gw)
    assert code == 1 and "gaps 2..4" in status, status
    assert "  2..4\t" not in status and status.count("sessions 0/2") == 2, status
    with pytest.raises(openai.APIStatusError) as e:
        ask(client, SWARM)
    assert e.value.status_code == 503


HEARTBEAT_MS = 500


def span_ring(shoal_bin, tmp_path, log_dir, model6, ranges):
    """A gateway (heartbeats every 500 ms) and one span node per range, all idle in the ring."""
    _, spans = model6
    gw = Gateway(shoal_bin, tmp_path / "gateway", log_dir,
                 config_toml=f"worker_heartbeat_ms = {HEARTBEAT_MS}\n")
    nodes = [SpanWorker(shoal_bin, gw, spans[r], log_dir) for r in ranges]
    for w in nodes:
        wait_for(w.joined, START_TIMEOUT_S, f"{w.proc.name} ready")
    wait_for(lambda: swarm_status(gw)[1].count("sessions 0/2") == len(ranges), START_TIMEOUT_S,
             f"{len(ranges)} span nodes in the ring")
    return gw, nodes


def stop_ring(gw, nodes):
    for w in nodes:
        if w.proc.alive():
            w.proc.popen.send_signal(signal.SIGCONT)
        w.proc.terminate(timeout=10)
    gw.stop()


@pytest.fixture
def twin_ring(shoal_bin, tmp_path, log_dir, model6):
    """Four span nodes: the last span twice."""
    gw, nodes = span_ring(shoal_bin, tmp_path, log_dir, model6, [(0, 2), (2, 4), (4, 6), (4, 6)])
    yield gw, nodes
    stop_ring(gw, nodes)


@pytest.fixture
def twin_entry_ring(shoal_bin, tmp_path, log_dir, model6):
    """Four span nodes: the first span (the entry) twice."""
    gw, nodes = span_ring(shoal_bin, tmp_path, log_dir, model6, [(0, 2), (0, 2), (2, 4), (4, 6)])
    yield gw, nodes
    stop_ring(gw, nodes)


def seeded_stream(gw, client, twins: dict, loss: str, kill_after: int | None):
    """A seeded, sampled stream: the last span draws per position from the seed, so a
    replacement draws what the lost node would have. With `kill_after`, the twin in use is lost
    (`killed`: SIGKILL; `silent`: SIGSTOP) once that many deltas arrived. Its text, deltas,
    usage, finish reason and the twin lost."""
    stream = client.chat.completions.create(
        model=SWARM, messages=[{"role": "user", "content": "a long story, please"}],
        temperature=1.0, seed=2, max_tokens=300, stream=True,
        stream_options={"include_usage": True})
    text, deltas, killed, usage, finish = [], 0, None, None, None
    for chunk in stream:
        usage = chunk.usage or usage
        if not chunk.choices:
            continue
        finish = chunk.choices[0].finish_reason or finish
        if chunk.choices[0].delta.content:
            text.append(chunk.choices[0].delta.content)
            deltas += 1
        if kill_after is not None and killed is None and deltas >= kill_after:
            busy = busy_nodes(swarm_status(gw)[1]) & set(twins)
            assert len(busy) == 1, f"one twin runs the session: {busy}"
            killed = twins[busy.pop()]
            if loss == "killed":
                killed.proc.kill()
            else:
                killed.proc.popen.send_signal(signal.SIGSTOP)
    return "".join(text), deltas, usage, finish, killed


def lost_unnoticed(gw, twins: dict, loss: str):
    """The stream with the twin in use lost after 5 deltas equals the one without a loss."""
    client = gw.client(gw.new_account(credits=100_000).key, timeout=120)
    whole, deltas, usage, finish, _ = seeded_stream(gw, client, twins, loss, None)
    assert deltas >= 40, f"the reference stream is too short to cut into ({deltas} deltas)"
    assert metric(gw, "shoal_swarm_sessions_rerouted_total") == 0
    text, _, usage2, finish2, killed = seeded_stream(gw, client, twins, loss, 5)
    assert killed is not None, "the stream ended before the kill"
    assert loss == "silent" or not killed.proc.alive()
    assert text == whole, "the repaired stream must go on where it was, repeating nothing"
    assert (usage2.prompt_tokens, usage2.completion_tokens) == (usage.prompt_tokens, usage.completion_tokens)
    assert finish2 == finish
    assert metric(gw, "shoal_swarm_sessions_rerouted_total") == 1
    assert metric(gw, "shoal_swarm_sessions_broken_total") == 1
    # The survivor carries the ring alone now.
    assert gw.available(SWARM)


@pytest.mark.parametrize("loss", ["killed", "silent"])
def test_a_node_lost_mid_stream_is_replaced_without_the_client_noticing(twin_ring, loss):
    """`killed`: SIGKILL, the socket closes at once. `silent`: SIGSTOP, the socket stays open
    and the gateway drops the node after three missed heartbeats."""
    gw, nodes = twin_ring
    twins = {w.worker_id(): w for w in nodes[2:]}
    assert None not in twins and len(twins) == 2, "each twin logs its worker id"
    lost_unnoticed(gw, twins, loss)
    assert metric(gw, "shoal_swarm_sessions_resumed_total") == 0


@pytest.mark.parametrize("loss", ["killed", "silent"])
def test_the_entry_lost_mid_stream_is_taken_over_without_the_client_noticing(twin_entry_ring, loss):
    """The entry (layer 0) in use is lost after 5 deltas: the other entry takes the job over
    from the tokens sampled so far, the text goes on where it was, and usage is the whole
    job's."""
    gw, nodes = twin_entry_ring
    twins = {w.worker_id(): w for w in nodes[:2]}
    assert None not in twins and len(twins) == 2, "each entry logs its worker id"
    lost_unnoticed(gw, twins, loss)
    assert metric(gw, "shoal_swarm_sessions_resumed_total") == 1


@pytest.mark.parametrize("doubled", ["last", "entry"])
def test_no_cover_within_the_deadline_ends_the_stream_with_an_error_billed_as_delivered(request, doubled):
    """Both nodes of the last span (or of the entry's) go: the session waits 10 s (the repair
    deadline) for a span to join, none does, and the stream ends with an error event; only the
    delivered tokens are billed."""
    if doubled == "last":
        gw, nodes = request.getfixturevalue("twin_ring")
        used, spare = nodes[2], nodes[3]
    else:
        gw, nodes = request.getfixturevalue("twin_entry_ring")
        used, spare = nodes[0], nodes[1]
    account = gw.new_account(credits=1000)
    twins = {w.worker_id(): w for w in (used, spare)}
    spare.proc.kill()
    wait_for(lambda: swarm_status(gw)[1].count("sessions 0/2") == 3, 10, "the spare to leave")
    body = {"model": SWARM, "messages": [{"role": "user", "content": "a long story, please"}],
            "temperature": 0, "max_tokens": 300, "stream": True}
    chunks, errors, killed_at = [], [], None
    with httpx.Client(timeout=60) as http:
        with http.stream("POST", gw.api + "/chat/completions", json=body,
                         headers={"Authorization": f"Bearer {account.key}"}) as r:
            assert r.status_code == 200
            for line in r.iter_lines():
                if not line.startswith("data: ") or line == "data: [DONE]":
                    continue
                event = json.loads(line[len("data: "):])
                (errors if "error" in event else chunks).append(event)
                if killed_at is None and len(chunks) >= 5:
                    busy = busy_nodes(swarm_status(gw)[1]) & set(twins)
                    assert busy == {used.worker_id()}, busy
                    used.proc.kill()
                    killed_at = time.monotonic()
    waited = time.monotonic() - killed_at
    assert errors, "the stream must end with an error event"
    assert set(errors[-1]["error"]) >= {"message", "type", "code"}
    assert 9 <= waited < 30, f"the error came {waited:.1f} s after the loss (deadline 10 s)"
    delivered = sum(1 for c in chunks if c["choices"] and c["choices"][0]["delta"].get("content"))
    assert all(c["choices"][0].get("finish_reason") is None for c in chunks if c["choices"])
    spent = wait_for(lambda: (lambda b: b if b["credits_held"] == 0 else None)(gw.balance(account.key)),
                     10, "the hold to settle")["total_spent"]
    assert spent == credits_for(0, delivered)
    assert metric(gw, "shoal_swarm_sessions_rerouted_total") == 0
    assert metric(gw, "shoal_swarm_sessions_broken_total") == 1
