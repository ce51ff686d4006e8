"""Schemathesis against a live gateway with a chat and an image worker attached, driven by the gateway's own
OpenAPI document (`GET /api/v1/openapi.json`): no 5xx, no response that breaks the document,
bad input answered with a 4xx, no hang.

Bounded: SHOAL_SCHEMATHESIS_EXAMPLES examples per operation (default 200), a time budget for
the run and for each request, a fixed seed (SHOAL_SCHEMATHESIS_SEED) so a failure replays.

`positive_data_acceptance` is left out on purpose: the document gives shapes, and some
well-shaped requests are still refused with a 400 by rules a JSON Schema cannot say (a
`tool_choice` naming a tool not in `tools`, image parts only in user messages, base64 data
URLs), which is the behaviour the API promises.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import SHARED_SERVES
from harness import Gateway, Worker
from test_images import A1111, ImageWorker, classifier_toml, tiny_checker  # noqa: F401 (a fixture)

EXAMPLES = int(os.environ.get("SHOAL_SCHEMATHESIS_EXAMPLES", "200"))
SEED = os.environ.get("SHOAL_SCHEMATHESIS_SEED", "14")
MAX_TIME_S = int(os.environ.get("SHOAL_SCHEMATHESIS_MAX_TIME", "240"))


@pytest.fixture(scope="module")
def gateway_with_images(shoal_bin, tmp_path_factory, log_dir, upstream, tiny_checker):
    """A gateway with a chat worker (as the shared one) and an image worker in front of the
    A1111 stand-in, with the tiny output checker: every operation of the document can
    answer 200."""
    gw = Gateway(shoal_bin, tmp_path_factory.mktemp("schemathesis"), log_dir,
                 config_toml=classifier_toml(*tiny_checker))
    painter = A1111(log_dir)
    chat = Worker(shoal_bin, gw, upstream, SHARED_SERVES, log_dir, concurrency=4,
                  name="worker-schemathesis")
    images = ImageWorker(gw, painter, log_dir)
    yield gw
    images.proc.terminate(timeout=5)
    chat.terminate(timeout=5)
    painter.proc.kill()
    gw.stop()


def test_schemathesis_finds_nothing(gateway_with_images, tmp_path):
    gateway = gateway_with_images
    account = gateway.new_account(credits=10_000_000)
    cli = Path(sys.executable).with_name("schemathesis")
    cmd = [
        str(cli), "run", gateway.api + "/openapi.json",
        "--url", gateway.api,
        "--header", f"Authorization: Bearer {account.key}",
        "--checks", "all",
        "--exclude-checks", "positive_data_acceptance",
        "--phases", "examples,coverage,fuzzing",
        "--max-examples", str(EXAMPLES),
        "--seed", SEED,
        "--max-time", str(MAX_TIME_S),
        "--request-timeout", "30",
        # One worker: hypothesis changes the interpreter's recursion limit while it draws, and
        # CPython 3.11 then fails another thread's ast.parse ("AST constructor recursion depth
        # mismatch"), which schemathesis reports as a runtime error of the run.
        "--workers", "1",
        "--generation-database", "none",
        "--no-color",
        "--report", "junit",
        "--report-dir", str(tmp_path),
    ]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=MAX_TIME_S + 120,
                         stdin=subprocess.DEVNULL, cwd=tmp_path)
    output = run.stdout + run.stderr
    assert run.returncode == 0, f"schemathesis found problems:\n{output[-20000:]}"
    # It tested every operation but the document's own (schemathesis leaves out the operation
    # that serves the schema it reads), and every one passed.
    reports = list(tmp_path.glob("junit*.xml"))
    assert len(reports) == 1, reports
    suite = ET.parse(reports[0]).getroot()
    tested = {case.get("name") for case in suite.iter("testcase")}
    assert tested == {"GET /models", "GET /models/{id}", "GET /balance", "POST /chat/completions",
                      "POST /images/generations", "GET /deposits", "POST /responses",
                      "GET /responses/{id}", "POST /messages", "POST /messages/count_tokens",
                      "GET /key", "GET /keys", "POST /keys", "GET /keys/{id}", "PATCH /keys/{id}",
                      "DELETE /keys/{id}", "GET /generation"}
    assert suite.get("failures") == "0" and suite.get("errors") == "0", output[-5000:]
