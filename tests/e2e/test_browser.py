"""Browser tabs as workers: Debian's Chromium (headless, through playwright-core) opens the page
`/worker` from an operator's invite link, loads the generated test model with wllama, and serves
`service-pro`; the openai SDK streams from it. tests/e2e/browser/drive.mjs drives the tabs and
reports what it saw; the assertions are here. Screenshots go to tests/e2e/browser/shots/.

The gateway renders the prompt and counts every token with the model file's vocabulary (Rust);
the checks hold that count against llama.cpp's own (wllama, in the tab) and against the
generator's Python tokenizer.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from harness import E2E_DIR, REPO_ROOT, Gateway, credits_for
from test_chat import settled
from test_llama import MAKE_TEST_MODEL, chatml

BROWSER_DIR = E2E_DIR / "browser"
SHOTS = BROWSER_DIR / "shots"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
PROMPT = "Say something about tide pools."
HEARTBEAT_MS = 2000


def count_tokens(text: str) -> int:
    """The generator's own Python tokenizer, called in process (the text may hold a NUL byte,
    which no command line can carry)."""
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("make_test_model", str(MAKE_TEST_MODEL))
    spec = importlib.util.spec_from_loader("make_test_model", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module.count_tokens(text, module.N_MERGES)


@pytest.fixture(scope="module")
def browser_gateway(shoal_bin, tmp_path_factory, log_dir):
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"Chromium is required at {CHROMIUM} (.ci/run installs Debian's `chromium`)")
    assert (BROWSER_DIR / "node_modules" / "playwright-core").is_dir(), \
        "tests/e2e/browser/node_modules is missing: tests/e2e/run.sh installs it (npm ci)"
    root = tmp_path_factory.mktemp("browser")
    gguf = root / "tiny.gguf"
    subprocess.run([sys.executable, str(MAKE_TEST_MODEL), str(gguf)], check=True, timeout=60)
    gw = Gateway(shoal_bin, root, log_dir, config_toml=f"worker_heartbeat_ms = {HEARTBEAT_MS}\nqueue_timeout_secs = 120\n",
                 extra_args=("--browser-gguf-4b", str(gguf)))
    link = gw.admin("browser-invite", "create", "--base-url", gw.base)
    assert link.startswith(gw.base + "/worker#invite=shoal-wt-")
    gw.invite = link.split("#invite=", 1)[1]
    yield gw
    gw.stop()


def drive(gw: Gateway, scenario: str, key: str, **extra: str) -> dict:
    node = shutil.which("node")
    assert node, "node is required (.ci/run installs it)"
    SHOTS.mkdir(exist_ok=True)
    env = dict(os.environ, SHOAL_BASE=gw.base, SHOAL_INVITE=gw.invite, SHOAL_KEY=key,
               SHOAL_SHOTS=str(SHOTS / scenario), CHROMIUM=CHROMIUM, **extra)
    (SHOTS / scenario).mkdir(exist_ok=True)
    out = subprocess.run([node, "drive.mjs", scenario], cwd=BROWSER_DIR, env=env, capture_output=True,
                         text=True, timeout=180, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, f"drive.mjs {scenario} failed ({out.returncode}):\n{out.stderr[-4000:]}"
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_tab_serves_and_the_gateway_counts_the_tokens(browser_gateway):
    gw = browser_gateway
    account = gw.new_account(credits=1000)
    seen = drive(gw, "serve", account.key)
    assert seen["availableAfterJoin"] is True
    assert seen["availableAfterStop"] is False, "a stopped tab must leave the pool"
    got = seen["got"]
    assert got["error"] is None and got["content"], got
    usage = got["usage"]
    # The prompt: the gateway's count is llama.cpp's (in the tab) and the generator's.
    assert usage["prompt_tokens"] == seen["tabPromptTokens"] == count_tokens(chatml(PROMPT))
    # The answer: the text the tab generated (seen on the wire), counted by the gateway; the
    # client sees it parsed (leading space trimmed, <think> text as reasoning).
    assert seen["raw"].strip().startswith(got["content"].strip()[:8]), (seen["raw"], got["content"])
    assert usage["completion_tokens"] == seen["tabCountOfAnswer"] == count_tokens(seen["raw"])
    assert seen["state"]["isolated"] is True, "the page must be cross-origin isolated (threads)"
    assert seen["state"]["jobs"] == 1 and seen["state"]["tier"] == "4b on CPU"
    assert seen["state"]["cached"] is False and not seen["state"].get("cacheError"), seen["state"]
    assert seen["secondVisit"] == {"phase": "serving", "cached": True}, "a second visit reads the stored file"
    after = settled(gw, account.key)
    assert after["total_spent"] == credits_for(usage["prompt_tokens"], usage["completion_tokens"])


def test_two_tabs_share_the_load(browser_gateway):
    gw = browser_gateway
    seen = drive(gw, "share", gw.new_account(credits=1000).key)
    assert seen["errors"] == 0
    assert sum(seen["jobs"]) == 6 and min(seen["jobs"]) >= 1, seen["jobs"]


def test_a_tab_closed_before_its_first_token_fails_over(browser_gateway):
    gw = browser_gateway
    seen = drive(gw, "closeBefore", gw.new_account(credits=1000).key)
    assert seen["held"] == 1
    assert seen["got"]["error"] is None and seen["got"]["content"], seen["got"]
    assert seen["jobsB"] == 1, "the other tab answered"


def test_a_tab_closed_after_its_first_token_ends_the_stream_billed(browser_gateway):
    gw = browser_gateway
    account = gw.new_account(credits=1000)
    seen = drive(gw, "closeAfter", account.key)
    got = seen["got"]
    assert got["error"] is not None and "mid-stream" in got["error"]["message"], got
    assert got["chunks"] >= 1 and got["usage"] is None
    # The few deltas that reached the client are billed: at least one credit, here exactly one.
    assert settled(gw, account.key)["total_spent"] == credits_for(0, 1)


def test_a_tab_that_goes_offline_is_dropped_after_the_heartbeat_window(browser_gateway):
    gw = browser_gateway
    seen = drive(gw, "offline", gw.new_account(credits=1000).key)
    assert seen["before"] is True
    assert seen["droppedAfterMs"] < 3 * HEARTBEAT_MS + 6000, seen


def test_the_tier_rules(browser_gateway):
    node = shutil.which("node")
    out = subprocess.run([node, "--test", "web/worker/tiers.test.mjs"], cwd=REPO_ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr


def test_a_tab_holds_structured_outputs(browser_gateway):
    """wllama samples with llama.cpp's grammar sampler: the gateway's grammar (from the same
    `grammar::plan` as the llama backend) makes the noise model's answers valid JSON of the
    schema, streamed and not."""
    from test_structured import PERSON, VALIDATOR
    gw = browser_gateway
    seen = drive(gw, "structured", gw.new_account(credits=100_000).key,
                 SHOAL_SCHEMA=json.dumps(PERSON), SHOAL_COUNT="20")
    assert seen["announced"] is True
    for a in seen["answers"]:
        assert a["finish"] == "stop", a
        VALIDATOR.validate(json.loads(a["content"]))
    seen = drive(gw, "structured", gw.new_account(credits=100_000).key, SHOAL_COUNT="10")
    objects = [a for a in seen["answers"] if a["finish"] == "stop"]
    assert len(objects) >= 5, seen["answers"]
    for a in objects:
        assert isinstance(json.loads(a["content"]), dict), a
