"""Fixtures that start real processes: the scripted upstream, `shoal serve`, `shoal worker`.

The binary is `$SHOAL_BIN`, else `${CARGO_TARGET_DIR:-target}/debug/shoal`. Session-wide there
is one gateway with one worker (fronting one upstream) serving `large-27b-uncensored` and
`large-27b-uncensored-think`; `service-pro` and `service-swarm` are left without a worker for
the tests that need that. Tests that kill or starve workers start their own gateway through
the factories. Every process is killed at teardown.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest

from harness import Gateway, Proc, Upstream, Worker, shoal_bin_path

# The shared worker's model mapping: catalog id = upstream model name.
SHARED_SERVES = [
    "large-27b-uncensored=upstream-large",
    "large-27b-uncensored-think=upstream-think",
]


@pytest.fixture(scope="session", autouse=True)
def _kill_everything_at_the_end():
    yield
    Proc.kill_all()


@pytest.fixture(scope="session")
def log_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("logs")


@pytest.fixture(scope="session")
def shoal_bin() -> Path:
    path = shoal_bin_path()
    if not path.is_file():
        pytest.fail(
            f"the shoal binary is missing at {path}: build it (cargo build) or set SHOAL_BIN",
            pytrace=False,
        )
    return path


# ---- session-wide processes ----------------------------------------------------------------


@pytest.fixture(scope="session")
def upstream(log_dir) -> Upstream:
    up = Upstream(log_dir, name="A")
    yield up
    up.stop()


@pytest.fixture(scope="session")
def gateway(shoal_bin, tmp_path_factory, log_dir) -> Gateway:
    gw = Gateway(shoal_bin, tmp_path_factory.mktemp("gateway"), log_dir)
    yield gw
    gw.stop()


@pytest.fixture(scope="session")
def worker(shoal_bin, gateway, upstream, log_dir) -> Worker:
    w = Worker(shoal_bin, gateway, upstream, SHARED_SERVES, log_dir, concurrency=4, name="worker-shared")
    yield w
    w.terminate(timeout=5)


# ---- per test ------------------------------------------------------------------------------


@pytest.fixture
def account(gateway):
    """A fresh account with 1000 credits and a key (high rpm: tests poll)."""
    return gateway.new_account(credits=1000)


@pytest.fixture
def client(gateway, account):
    c = gateway.client(account.key)
    yield c
    c.close()


@pytest.fixture
def nonce() -> str:
    """A unique word to put in a prompt, to find this test's requests at the upstream."""
    return f"nonce{uuid.uuid4().hex[:12]}"


@pytest.fixture
def upstream_factory(log_dir):
    started = []

    def start(name: str = "A", stall_all: bool = False, fail_all: bool = False) -> Upstream:
        up = Upstream(log_dir, name=name, stall_all=stall_all, fail_all=fail_all)
        started.append(up)
        return up

    yield start
    for up in started:
        up.stop()


@pytest.fixture
def gateway_factory(shoal_bin, tmp_path_factory, log_dir):
    started = []

    def start(config_toml: str | None = None) -> Gateway:
        gw = Gateway(shoal_bin, tmp_path_factory.mktemp("gateway"), log_dir, config_toml)
        started.append(gw)
        return gw

    yield start
    for gw in started:
        gw.stop()


@pytest.fixture
def worker_factory(shoal_bin, log_dir):
    started = []

    def start(gateway: Gateway, upstream: Upstream, serves: list, concurrency: int = 4,
              wait: bool = True) -> Worker:
        w = Worker(shoal_bin, gateway, upstream, serves, log_dir, concurrency=concurrency, wait=wait)
        started.append(w)
        return w

    yield start
    for w in started:
        w.kill()


# ---- logs of failed tests ------------------------------------------------------------------

_STARTED = pytest.StashKey[float]()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    item.stash[_STARTED] = time.monotonic()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test's report shows the log tails of the shoal processes it involved: those
    still running and those it started."""
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        started = item.stash.get(_STARTED, 0.0)
        for proc in Proc.registry:
            if proc.shoal and (proc.alive() or proc.started_at >= started):
                report.sections.append((f"log tail: {proc.name}", proc.log_tails()))
