"""Image generation end to end: the openai SDK's `images.generate` and raw HTTP for
`/api/images/generate`, through a real `shoal serve` and a real `shoal-image-worker --backend
a1111` in front of `a1111.py`, a scripted `/sdapi/v1/txt2img` stand-in that records what it
received.
"""

from __future__ import annotations

import base64
import struct
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import openai
import pytest

from harness import (E2E_DIR, SHOAL_LOG, START_TIMEOUT_S, Gateway, LineReader, Proc, clean_env,
                     wait_for)

A1111_SCRIPT = E2E_DIR / "a1111.py"
MODEL = "sd-e2e"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class A1111:
    """`tests/e2e/a1111.py` as a subprocess, and a client for its record of requests."""

    def __init__(self, log_dir: Path, render_ms: int = 0, noise: bool = False):
        tag = f"a1111-{uuid.uuid4().hex[:6]}"
        out_log, err_log = log_dir / f"{tag}.stdout.log", log_dir / f"{tag}.stderr.log"
        cmd = [sys.executable, str(A1111_SCRIPT), "--port", "0", "--render-ms", str(render_ms)]
        cmd += ["--noise"] if noise else []
        popen = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=open(err_log, "wb"),
                                 stdin=subprocess.DEVNULL)
        self.proc = Proc(tag, popen, [out_log, err_log], shoal=False)
        line = LineReader(popen.stdout, out_log).wait_prefix("listening on ", START_TIMEOUT_S)
        if line is None:
            self.proc.kill()
            raise RuntimeError(f"a1111 stand-in did not start\n{self.proc.log_tails()}")
        self.url = line.split("listening on ", 1)[1].strip()
        self.http = httpx.Client(base_url=self.url, timeout=10)

    def renders(self) -> list:
        """The txt2img bodies received, oldest first."""
        return [r["body"] for r in self.http.get("/_requests").json()
                if r["path"] == "/sdapi/v1/txt2img"]


class ImageWorker:
    """`shoal-image-worker --backend a1111` next to the shoal binary."""

    def __init__(self, gateway: Gateway, a1111: A1111, log_dir: Path):
        binary = Path(gateway.bin).parent / "shoal-image-worker"
        if not binary.is_file():
            pytest.fail(f"{binary} is missing: cargo build -p shoal-image-worker", pytrace=False)
        name = f"image-worker-{uuid.uuid4().hex[:6]}"
        token = gateway.worker_token(name)
        out_log, err_log = log_dir / f"{name}.stdout.log", log_dir / f"{name}.stderr.log"
        cmd = [str(binary), "--gateway", gateway.base, "--token", token, "--backend", "a1111",
               "--a1111-url", a1111.url, "--model", MODEL, "--concurrency", "2"]
        popen = subprocess.Popen(cmd, stdout=open(out_log, "wb"), stderr=open(err_log, "wb"),
                                 stdin=subprocess.DEVNULL, env=clean_env(SHOAL_LOG=SHOAL_LOG))
        self.proc = Proc(name, popen, [out_log, err_log], shoal=True)
        wait_for(lambda: workers_connected(gateway) >= 1 or not self.proc.alive(),
                 START_TIMEOUT_S, "the image worker to connect")
        assert self.proc.alive(), self.proc.log_tails()


def workers_connected(gateway: Gateway) -> int:
    text = httpx.get(gateway.base + "/metrics", timeout=5).text
    for line in text.splitlines():
        if line.startswith("shoal_workers_connected "):
            return int(float(line.split()[1]))
    return 0


def metric(gateway: Gateway, prefix: str) -> float:
    text = httpx.get(gateway.base + "/metrics", timeout=5).text
    return sum(float(l.split()[-1]) for l in text.splitlines() if l.startswith(prefix))


def png_size(data: bytes) -> tuple:
    assert data[:8] == PNG_SIGNATURE and data[12:16] == b"IHDR", "not a PNG"
    return struct.unpack(">II", data[16:24])


@pytest.fixture(scope="module")
def a1111(log_dir):
    server = A1111(log_dir)
    yield server
    server.proc.kill()


@pytest.fixture(scope="module")
def tiny_checker(shoal_bin, tmp_path_factory) -> tuple:
    """`shoal classifier make-test`: the tiny checker and its own concepts (which flag nothing)."""
    out = tmp_path_factory.mktemp("checker")
    run = subprocess.run([str(shoal_bin), "classifier", "make-test", "--out", str(out)],
                         capture_output=True, timeout=60, env=clean_env(), stdin=subprocess.DEVNULL)
    assert run.returncode == 0, run.stderr.decode()
    weights, concepts = run.stdout.decode().split()
    return Path(weights), Path(concepts)


def classifier_toml(weights: Path, concepts: Path) -> str:
    return f'image_classifier_path = "{weights}"\nimage_concepts_path = "{concepts}"\n'


@pytest.fixture(scope="module")
def image_gateway(shoal_bin, tmp_path_factory, log_dir, tiny_checker):
    gw = Gateway(shoal_bin, tmp_path_factory.mktemp("image-gateway"), log_dir,
                 config_toml=classifier_toml(*tiny_checker))
    yield gw
    gw.stop()


@pytest.fixture(scope="module")
def image_worker(image_gateway, a1111, log_dir):
    w = ImageWorker(image_gateway, a1111, log_dir)
    yield w
    w.proc.terminate(timeout=5)


def site_generate(gateway: Gateway, key: str, body: dict) -> httpx.Response:
    return httpx.post(gateway.base + "/api/images/generate", json=body,
                      headers={"Authorization": f"Bearer {key}"}, timeout=60)


def credits(gateway: Gateway, key: str) -> int:
    return gateway.balance(key)["credits"]


def test_openai_sdk_generates_an_image_and_charges_10_credits(image_gateway, image_worker, a1111):
    account = image_gateway.new_account(credits=100)
    client = image_gateway.client(account.key, timeout=60)
    prompt = f"a lighthouse at dusk {uuid.uuid4().hex}"
    resp = client.images.generate(prompt=prompt, size="600x1000",
                                  extra_body={"seed": 1234, "steps": 10, "negative_prompt": "fog"})
    png = base64.b64decode(resp.data[0].b64_json)
    assert png_size(png) == (576, 1024), "the size is snapped to multiples of 64"
    extra = resp.model_dump()
    assert (extra["seed"], extra["size"], extra["model"]) == (1234, "576x1024", MODEL)
    assert credits(image_gateway, account.key) == 90
    sent = [r for r in a1111.renders() if r["prompt"] == prompt]
    assert len(sent) == 1
    body = sent[0]
    assert (body["width"], body["height"], body["steps"], body["seed"]) == (576, 1024, 10, 1234)
    assert body["cfg_scale"] == 4.0
    assert body["negative_prompt"].startswith("fog, ") and "watermark" in body["negative_prompt"]


def test_site_endpoint_picks_a_seed_and_reports_it(image_gateway, image_worker, a1111):
    account = image_gateway.new_account(credits=100)
    prompt = f"a red bicycle {uuid.uuid4().hex}"
    r = site_generate(image_gateway, account.key,
                      {"prompt": prompt, "width": 700, "height": 512, "steps": 12, "cfg": 3.5})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["image"].startswith("data:image/png;base64,")
    png = base64.b64decode(out["image"].split(",", 1)[1])
    assert png_size(png) == (704, 512) == (out["width"], out["height"])
    assert (out["model"], out["credits_charged"]) == (MODEL, 10)
    assert isinstance(out["seed"], int) and 0 <= out["seed"] <= 2**32 - 1
    body = [b for b in a1111.renders() if b["prompt"] == prompt][0]
    assert (body["seed"], body["steps"], body["cfg_scale"]) == (out["seed"], 12, 3.5)
    assert "watermark" in body["negative_prompt"], "the baseline negative prompt is always added"
    assert credits(image_gateway, account.key) == 90


def test_same_seed_same_bytes(image_gateway, image_worker):
    account = image_gateway.new_account(credits=100)
    body = {"prompt": "a quiet harbour", "width": 512, "height": 512, "steps": 10, "seed": 77}
    first = site_generate(image_gateway, account.key, body).json()["image"]
    second = site_generate(image_gateway, account.key, body).json()["image"]
    other = site_generate(image_gateway, account.key, {**body, "seed": 78}).json()["image"]
    assert first == second
    assert first != other


def test_nine_credits_are_402_and_nothing_is_dispatched(image_gateway, image_worker, a1111):
    account = image_gateway.new_account(credits=9)
    before = len(a1111.renders())
    r = site_generate(image_gateway, account.key, {"prompt": "a cat", "width": 512, "height": 512})
    assert r.status_code == 402, r.text
    assert r.json()["error"]["code"] == "insufficient_credits"
    with pytest.raises(openai.APIStatusError) as e:
        image_gateway.client(account.key).images.generate(prompt="a cat", size="512x512")
    assert e.value.status_code == 402
    assert len(a1111.renders()) == before
    assert credits(image_gateway, account.key) == 9


def test_no_image_worker_is_503_with_retry_after(shoal_bin, tmp_path_factory, log_dir,
                                                 tiny_checker):
    gw = Gateway(shoal_bin, tmp_path_factory.mktemp("no-image-worker"), log_dir,
                 config_toml=classifier_toml(*tiny_checker))
    try:
        account = gw.new_account(credits=100)
        r = site_generate(gw, account.key, {"prompt": "a cat"})
        assert r.status_code == 503, r.text
        assert r.headers.get("retry-after")
        assert r.json()["error"]["code"] == "no_worker_available"
        assert credits(gw, account.key) == 100
        assert gw.balance(account.key)["credits_held"] == 0
    finally:
        gw.stop()


def test_a_failing_render_is_refunded(image_gateway, image_worker, a1111):
    account = image_gateway.new_account(credits=100)
    for directive, status in [("[[fail]]", 502), ("[[reject]]", 502)]:
        r = site_generate(image_gateway, account.key,
                          {"prompt": f"{directive} a cat", "width": 512, "height": 512})
        assert r.status_code == status, r.text
        assert r.json()["error"]["code"] == "worker_error"
    balance = image_gateway.balance(account.key)
    assert (balance["credits"], balance["credits_held"]) == (100, 0)


BAD_SITE_BODIES = [
    ({}, "prompt"), ({"prompt": ""}, "prompt"), ({"prompt": 3}, "prompt"),
    ({"prompt": "x", "width": 511}, "width"), ({"prompt": "x", "height": 1600}, "height"),
    ({"prompt": "x", "width": "512"}, "width"), ({"prompt": "x", "steps": 9}, "steps"),
    ({"prompt": "x", "steps": 61}, "steps"), ({"prompt": "x", "cfg": 0}, "cfg"),
    ({"prompt": "x", "cfg": "high"}, "cfg"), ({"prompt": "x", "seed": -5}, "seed"),
    ({"prompt": "x", "seed": 2**40}, "seed"), ({"prompt": "x", "nsfw": "no"}, "nsfw"),
    ({"prompt": "x", "negative_prompt": 1}, "negative_prompt"),
]

BAD_V1_BODIES = [
    ({"prompt": "x", "n": 2}, "n"), ({"prompt": "x", "response_format": "url"}, "response_format"),
    ({"prompt": "x", "size": "big"}, "size"), ({"prompt": "x", "size": "256x256"}, "size"),
    ({"prompt": "x", "size": "1024x4096"}, "size"), ({"size": "512x512"}, "prompt"),
]


def test_every_bad_field_is_a_400_in_the_one_error_shape(image_gateway, image_worker, a1111):
    account = image_gateway.new_account(credits=100)
    before = len(a1111.renders())
    for body, field in BAD_SITE_BODIES:
        r = site_generate(image_gateway, account.key, body)
        assert r.status_code == 400, (body, r.text)
        err = r.json()["error"]
        assert (err["param"], err["type"]) == (field, "invalid_request_error"), body
        assert set(err) >= {"message", "type", "code", "param"}
    for body, field in BAD_V1_BODIES:
        r = httpx.post(image_gateway.api + "/images/generations", json=body,
                       headers={"Authorization": f"Bearer {account.key}"}, timeout=30)
        assert r.status_code == 400, (body, r.text)
        assert r.json()["error"]["param"] == field, body
    with pytest.raises(openai.BadRequestError):
        image_gateway.client(account.key).images.generate(prompt="x", response_format="url")
    r = httpx.post(image_gateway.base + "/api/images/generate", content=b"{not json",
                   headers={"Authorization": f"Bearer {account.key}",
                            "Content-Type": "application/json"})
    assert r.status_code == 400
    r = httpx.post(image_gateway.base + "/api/images/generate", json={"prompt": "x"})
    assert r.status_code == 401
    assert len(a1111.renders()) == before, "no bad request reaches the worker"
    assert credits(image_gateway, account.key) == 100


def test_blocked_prompts_never_reach_the_worker_and_are_not_charged(image_gateway, image_worker,
                                                                    a1111):
    account = image_gateway.new_account(credits=100)
    blocked_before = metric(image_gateway, "shoal_image_prompts_blocked_total")
    before = len(a1111.renders())
    marker = uuid.uuid4().hex
    for body in [{"prompt": f"nud3 ch1ld {marker}"},
                 {"prompt": f"a k i d at the beach {marker}", "nsfw": True},
                 {"prompt": f"sexy 12yo {marker}"},
                 {"prompt": f"a portrait {marker}", "negative_prompt": "naked toddler"}]:
        r = site_generate(image_gateway, account.key, body)
        assert r.status_code == 400, (body, r.text)
        assert r.json()["error"]["code"] == "content_policy_violation"
        assert marker not in r.text
    with pytest.raises(openai.BadRequestError) as e:
        image_gateway.client(account.key).images.generate(prompt=f"lewd schoolgirl {marker}")
    assert e.value.code == "content_policy_violation"
    assert len(a1111.renders()) == before, "a blocked prompt reached the worker"
    assert metric(image_gateway, "shoal_image_prompts_blocked_total") == blocked_before + 5
    balance = image_gateway.balance(account.key)
    assert (balance["credits"], balance["credits_held"]) == (100, 0)
    innocent = site_generate(image_gateway, account.key,
                             {"prompt": "a child's birthday cake", "width": 512, "height": 512})
    assert innocent.status_code == 200, innocent.text


def test_zz_privacy_canary_no_prompt_or_png_in_logs_or_database(image_gateway, image_worker):
    account = image_gateway.new_account(credits=100)
    canary = f"canary{uuid.uuid4().hex}zq"
    r = site_generate(image_gateway, account.key,
                      {"prompt": f"a lamp {canary}", "negative_prompt": f"dust {canary}",
                       "width": 512, "height": 512, "steps": 10})
    assert r.status_code == 200, r.text
    png_b64 = r.json()["image"].split(",", 1)[1]
    # A stretch from the middle of the image's base64: it is in no file unless the image is.
    needle = png_b64[len(png_b64) // 2: len(png_b64) // 2 + 48]
    blocked = site_generate(image_gateway, account.key, {"prompt": f"nude child {canary}"})
    assert blocked.status_code == 400
    files = [p for p in Path(image_gateway.data_dir).rglob("*") if p.is_file()]
    files += [log for proc in Proc.registry if proc.shoal for log in proc.logs if log.exists()]
    searched, hits = [], []
    for path in files:
        data = path.read_bytes()
        searched.append(path.name)
        for what, secret in [("prompt", canary), ("image", needle)]:
            if secret.encode() in data:
                hits.append(f"{path} contains the {what}")
    assert any(n.endswith(".db") for n in searched), searched
    assert any("image-worker" in n for n in searched), searched
    assert not hits, "\n".join(hits)
