"""The embedded image engine end to end: `shoal-image-worker --backend embedded`
(stable-diffusion.cpp in-process; the binary built with the `sd` feature, as scripts/test does)
rendering the generated tiny SD1-shaped checkpoint (`make-sd-test-model`) on the CPU, through
a real `shoal serve`, with the openai SDK and raw HTTP.

The render is as small as the endpoints allow: 512×512 (the least side) at 10 steps (the
fewest), with cfg 1, at which stable-diffusion.cpp skips the unconditional pass (one UNet
evaluation per step, half the work of any other cfg). Two renders with the same seed, one
through each endpoint: the PNG decodes at the snapped size, the seed is echoed, 10 credits are
charged each time, the bytes are the same through the whole path, and the engine's steps
reach the client as progress events. `SHOAL_SDCPP_TEST_THREADS` sets the engine's threads
(default 1: ggml's thread pool spins at every barrier, which costs more than a second thread
gives on a busy machine).
"""

from __future__ import annotations

import base64
import os
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from harness import Gateway, clean_env
from test_images import (ImageWorker, classifier_toml, credits, image_worker_bin, png_size,
                         site_stream, sse_events, tiny_checker)  # noqa: F401 (a fixture)

MODEL = "sd1-tiny"
THREADS = os.environ.get("SHOAL_SDCPP_TEST_THREADS", "1")
# One render takes about a minute of CPU here; a loaded machine stretches the wall time.
RENDER_TIMEOUT_S = 900
PROMPT = "a lighthouse on a cliff at dusk, oil painting"
SEED = 20261124


@pytest.fixture(scope="module")
def sd_checkpoint(shoal_bin, tmp_path_factory) -> Path:
    """The tiny checkpoint, written by `make-sd-test-model` (a few seconds, ~118 MB)."""
    tool = Path(shoal_bin).parent / "make-sd-test-model"
    if not tool.is_file():
        pytest.fail(f"{tool} is missing: cargo build --workspace --bins", pytrace=False)
    out = tmp_path_factory.mktemp("sd") / "sd1-tiny.gguf"
    run = subprocess.run([str(tool), str(out)], capture_output=True, timeout=300, env=clean_env(),
                         stdin=subprocess.DEVNULL)
    assert run.returncode == 0, run.stderr.decode()
    return out


@pytest.fixture(scope="module")
def embedded_gateway(shoal_bin, tmp_path_factory, log_dir, tiny_checker, sd_checkpoint):
    gw = Gateway(shoal_bin, tmp_path_factory.mktemp("embedded-gateway"), log_dir,
                 config_toml=classifier_toml(*tiny_checker))
    binary = image_worker_bin(gw)
    help_text = subprocess.run([str(binary), "--help"], capture_output=True, timeout=30,
                               env=clean_env(), stdin=subprocess.DEVNULL).stdout.decode()
    if "embedded" not in help_text:
        gw.stop()
        pytest.fail(f"{binary} was built without the `sd` feature (no --backend embedded): "
                    "build it as scripts/test does", pytrace=False)
    worker = ImageWorker(gw, None, log_dir, model=MODEL, concurrency=1, connect_timeout=120,
                         backend_args=["--backend", "embedded", "--sd-model", str(sd_checkpoint),
                                       "--threads", THREADS])
    yield gw
    worker.proc.terminate(timeout=10)
    gw.stop()


def decoded_rgb(png: bytes) -> bytes:
    """The PNG's scanlines, inflated (8-bit RGB, no interlace: what the engine writes);
    checks every chunk's CRC and every line's filter byte."""
    width, height = png_size(png)
    assert png[24:29] == bytes([8, 2, 0, 0, 0]), "8-bit RGB, not interlaced"
    pos, idat = 8, b""
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos:pos + 4])
        kind, body = png[pos + 4:pos + 8], png[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", png[pos + 8 + length:pos + 12 + length])
        assert zlib.crc32(kind + body) & 0xFFFFFFFF == crc, f"bad CRC in {kind!r}"
        idat += body if kind == b"IDAT" else b""
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = 1 + width * 3
    assert len(raw) == height * stride
    assert all(raw[y * stride] <= 4 for y in range(height)), "a scanline has no valid filter"
    return raw


def test_embedded_engine_through_the_sdk_and_a_stream(embedded_gateway):
    gw = embedded_gateway
    account = gw.new_account(credits=100)
    client = gw.client(account.key, timeout=RENDER_TIMEOUT_S)
    # 540 and 530 snap to 512.
    resp = client.images.generate(prompt=PROMPT, size="540x530",
                                  extra_body={"seed": SEED, "steps": 10, "cfg": 1})
    png = base64.b64decode(resp.data[0].b64_json)
    assert png_size(png) == (512, 512)
    # Random weights draw noise, not a flat image.
    assert len(set(decoded_rgb(png))) > 16
    extra = resp.model_dump()
    assert (extra["seed"], extra["size"], extra["model"]) == (SEED, "512x512", MODEL)
    assert credits(gw, account.key) == 90

    body = {"prompt": PROMPT, "width": 512, "height": 512, "steps": 10, "cfg": 1, "seed": SEED}
    with site_stream(gw, account.key, body, timeout=RENDER_TIMEOUT_S) as r:
        assert r.status_code == 200, r.read()
        events = sse_events(r.iter_lines())
    progress = [data for name, data in events if name == "progress"]
    # Step 0 when the worker has the job, then every step the engine reports (seconds apart,
    # so none is coalesced away).
    assert [p["step"] for p in progress] == list(range(11)), progress
    assert all(p["steps"] == 10 for p in progress)
    name, result = events[-1]
    assert name == "result", events[-1]
    assert result["image"] == "data:image/png;base64," + resp.data[0].b64_json, \
        "the same seed and parameters gave other bytes"
    assert (result["seed"], result["width"], result["height"]) == (SEED, 512, 512)
    assert (result["model"], result["credits_charged"]) == (MODEL, 10)
    balance = gw.balance(account.key)
    assert (balance["credits"], balance["credits_held"]) == (80, 0)
