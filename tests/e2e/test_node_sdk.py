"""openai-node against the gateway: `models.retrieve` (a node script in tests/e2e/node, whose
`openai` package tests/e2e/run.sh installs with npm)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

from harness import E2E_DIR

NODE_DIR = E2E_DIR / "node"


def run_node(script: str, *args: str, api: str, key: str) -> dict:
    node = shutil.which("node")
    assert node, "node is required for the openai-node tests (.ci/run installs it)"
    assert (NODE_DIR / "node_modules" / "openai").is_dir(), \
        "tests/e2e/node/node_modules is missing: tests/e2e/run.sh installs it (npm ci)"
    env = dict(os.environ, SHOAL_API=api, SHOAL_KEY=key)
    out = subprocess.run([node, script, *args], cwd=NODE_DIR, env=env, capture_output=True,
                         text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, f"node {script} failed ({out.returncode}):\n{out.stderr}"
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_node_models_retrieve(gateway, worker, account):
    got = run_node("models.mjs", "large-27b-uncensored", api=gateway.api, key=account.key)
    assert got["model"]["id"] == "large-27b-uncensored"
    assert got["model"]["object"] == "model"
    assert got["model"]["available"] is True
    assert got["model"] == got["listed"]
    assert got["unknown"] == {"status": 404, "code": "model_not_found", "type": "invalid_request_error",
                              "param": "model"}


def test_node_models_retrieve_alias(gateway, worker, account):
    got = run_node("models.mjs", "large-26b-uncensored", api=gateway.api, key=account.key)
    assert got["model"]["deprecated"] is True
    assert got["model"]["alias_of"] == "large-27b-uncensored"
    assert got["model"] == got["listed"]
