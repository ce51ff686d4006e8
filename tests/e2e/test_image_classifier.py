"""The image output check end to end: a real `shoal serve` whose classifier is the tiny test
checker (`shoal classifier make-test`), a real `shoal-image-worker` in front of `a1111.py`.

Deterministic verdicts: the stand-in's PNG is a function of (seed, prompt), so the test
renders the known images itself, asks `shoal classifier embed` for their embeddings, and
writes a concept file whose concepts are those embeddings, with a threshold between the
images' similarity to each other and 1. The flagged image is then flagged and the others not.
"""

from __future__ import annotations

import base64
import json
import math
import subprocess
import uuid
from pathlib import Path

import httpx
import pytest

import a1111
from harness import Gateway, Proc, clean_env
from test_images import (A1111, ImageWorker, classifier_toml, credits, metric, site_generate,
                         tiny_checker)  # noqa: F401 (a fixture)

SEED = 4242
# Adult only; adult and minor together; a minor only; nothing.
ADULT, BOTH, MINOR, CLEAN = ("a lighthouse keeper", "a garden party", "a red bicycle",
                             "a mountain lake")


def cosine(a: list, b: list) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    return dot / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


@pytest.fixture(scope="module")
def flagging(shoal_bin, tmp_path_factory, log_dir, tiny_checker):
    weights, _ = tiny_checker
    folder = tmp_path_factory.mktemp("flagging")
    paths = []
    for name, prompt in [("adult", ADULT), ("both", BOTH), ("minor", MINOR), ("clean", CLEAN)]:
        path = folder / f"{name}.png"
        path.write_bytes(a1111.png(512, 512, SEED, prompt))
        paths.append(str(path))
    run = subprocess.run([str(shoal_bin), "classifier", "embed", "--weights", str(weights), *paths],
                         capture_output=True, timeout=60, env=clean_env(), stdin=subprocess.DEVNULL)
    assert run.returncode == 0, run.stderr.decode()
    adult, both, minor, clean = [json.loads(line) for line in run.stdout.decode().splitlines()]
    embeddings = [adult, both, minor, clean]
    apart = max(cosine(a, b) for i, a in enumerate(embeddings) for b in embeddings[i + 1:])
    assert apart < 0.999, f"the tiny checker embeds the test images too close together: {apart}"
    threshold = (1 + apart) / 2
    concepts = folder / "concepts.json"
    concepts.write_text(json.dumps({
        # A stricter threshold for adult concepts beside a minor that still clears the
        # neighbouring images (the tiny checker embeds them close together).
        "minor_adjustment": (1 - apart) / 4,
        "adult": [{"name": "known-adult", "threshold": threshold, "embedding": adult},
                  {"name": "known-both", "threshold": threshold, "embedding": both}],
        "minor": [{"name": "known-minor", "threshold": threshold, "embedding": both},
                  {"name": "known-minor-only", "threshold": threshold, "embedding": minor}],
    }))
    gw = Gateway(shoal_bin, folder / "gw", log_dir, config_toml=classifier_toml(weights, concepts))
    server = A1111(log_dir)
    worker = ImageWorker(gw, server, log_dir)
    yield gw
    worker.proc.terminate(timeout=5)
    server.proc.kill()
    gw.stop()


def ask(gw: Gateway, key: str, prompt: str, nsfw: bool) -> httpx.Response:
    return site_generate(gw, key, {"prompt": prompt, "width": 512, "height": 512, "seed": SEED,
                                   "steps": 10, "nsfw": nsfw})


def test_sfw_adult_output_is_400_and_refunded_and_nothing_of_it_is_kept(flagging):
    account = flagging.new_account(credits=100)
    blocked = metric(flagging, 'shoal_image_outputs_blocked_total{rule="adult"}')
    r = ask(flagging, account.key, ADULT, nsfw=False)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == "nsfw_output_blocked"
    balance = flagging.balance(account.key)
    assert (balance["credits"], balance["credits_held"]) == (100, 0)
    assert metric(flagging, 'shoal_image_outputs_blocked_total{rule="adult"}') == blocked + 1
    # The withheld image is nowhere: not in the answer, a log, or the database.
    image = base64.b64encode(a1111.png(512, 512, SEED, ADULT)).decode()
    needle = image[len(image) // 2: len(image) // 2 + 48]
    assert needle not in r.text
    files = [p for p in Path(flagging.data_dir).rglob("*") if p.is_file()]
    files += [log for proc in Proc.registry if proc.shoal for log in proc.logs if log.exists()]
    assert not [f for f in files if needle.encode() in f.read_bytes()]


def test_nsfw_request_may_show_adult_content(flagging):
    account = flagging.new_account(credits=100)
    r = ask(flagging, account.key, ADULT, nsfw=True)
    assert r.status_code == 200, r.text
    assert base64.b64decode(r.json()["image"].split(",", 1)[1]) == a1111.png(512, 512, SEED, ADULT)
    assert credits(flagging, account.key) == 90


def test_a_minor_with_adult_content_is_refused_in_both_modes_and_counted_apart(flagging):
    account = flagging.new_account(credits=100)
    line = 'shoal_image_outputs_blocked_total{rule="minor_with_adult"}'
    before = metric(flagging, line)
    adult_before = metric(flagging, 'shoal_image_outputs_blocked_total{rule="adult"}')
    for nsfw in [True, False]:
        r = ask(flagging, account.key, BOTH, nsfw=nsfw)
        assert r.status_code == 400, r.text
        assert r.json()["error"]["code"] == "content_policy_violation"
    assert metric(flagging, line) == before + 2
    assert metric(flagging, 'shoal_image_outputs_blocked_total{rule="adult"}') == adult_before
    balance = flagging.balance(account.key)
    assert (balance["credits"], balance["credits_held"]) == (100, 0)


def test_a_minor_is_never_returned_in_nsfw_mode_and_passes_sfw_without_adult_content(flagging):
    account = flagging.new_account(credits=100)
    line = 'shoal_image_outputs_blocked_total{rule="minor_in_nsfw"}'
    before = metric(flagging, line)
    r = ask(flagging, account.key, MINOR, nsfw=True)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == "content_policy_violation"
    assert metric(flagging, line) == before + 1
    assert credits(flagging, account.key) == 100
    # SFW: flagged minor, but no adult concept scores above its stricter threshold.
    r = ask(flagging, account.key, MINOR, nsfw=False)
    assert r.status_code == 200, r.text
    assert credits(flagging, account.key) == 90


def test_an_unflagged_image_is_returned_in_both_modes(flagging):
    account = flagging.new_account(credits=100)
    for nsfw in [False, True]:
        r = ask(flagging, account.key, CLEAN, nsfw=nsfw)
        assert r.status_code == 200, r.text
    assert credits(flagging, account.key) == 80


def test_without_a_classifier_image_generation_is_503_and_nothing_is_rendered(
        shoal_bin, tmp_path_factory, log_dir):
    gw = Gateway(shoal_bin, tmp_path_factory.mktemp("no-classifier"), log_dir)
    server = A1111(log_dir)
    worker = ImageWorker(gw, server, log_dir)
    try:
        account = gw.new_account(credits=100)
        r = ask(gw, account.key, CLEAN, nsfw=False)
        assert r.status_code == 503, r.text
        assert r.json()["error"]["code"] == "image_check_unavailable"
        r = httpx.post(gw.api + "/images/generations", json={"prompt": CLEAN},
                       headers={"Authorization": f"Bearer {account.key}"}, timeout=30)
        assert r.status_code == 503 and r.json()["error"]["code"] == "image_check_unavailable"
        assert server.renders() == []
        balance = gw.balance(account.key)
        assert (balance["credits"], balance["credits_held"]) == (100, 0)
    finally:
        worker.proc.terminate(timeout=5)
        server.proc.kill()
        gw.stop()


def test_half_a_configuration_refuses_to_start(shoal_bin, tmp_path_factory, log_dir, tiny_checker):
    weights, _ = tiny_checker
    root = tmp_path_factory.mktemp("half-config")
    run = subprocess.run([str(shoal_bin), "serve", "--listen", "127.0.0.1:0", "--data-dir",
                          str(root), "--image-classifier", str(weights)],
                         capture_output=True, timeout=60, env=clean_env(), stdin=subprocess.DEVNULL)
    assert run.returncode != 0
    assert "concept file" in run.stderr.decode()
