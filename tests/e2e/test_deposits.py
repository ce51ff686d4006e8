"""Buying credits with a stablecoin, against a real local chain: anvil and a 6-decimal ERC-20
compiled with solc-js (chain.py), with real `shoal serve` processes whose chain watcher reads
the node over JSON-RPC; the dashboard's Buy credits page in a real browser
(tests/e2e/node/buy.mjs: playwright-core driving Debian's Chromium, the QR code decoded from its
pixels with jsQR). Screenshots go to $SHOAL_SHOTS (default target/dashboard-shots, git-ignored).

Every gateway here has its own token contract (so its own scan cursor) on one anvil; accounts
get their deposit addresses from the development mnemonic's xpub, so account 1's address is the
published BIP44 address m/44'/60'/0'/0/1.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import uuid
from pathlib import Path
from typing import Optional

import httpx
import pytest

from chain import CHAIN_ID, DEV_XPUB, FUNDER, Anvil
from harness import E2E_DIR, REPO_ROOT, START_TIMEOUT_S, LineReader, Proc, clean_env, wait_for

CONFIRMATIONS = 3
ONE = 1_000_000  # one token in base units (6 decimals)
# m/44'/60'/0'/0/1 of the development mnemonic.
ACCOUNT_1_ADDRESS = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"


@pytest.fixture(scope="module")
def anvil(log_dir) -> Anvil:
    chain = Anvil(log_dir / "anvil.log")
    yield chain
    chain.stop()


def funded_token(anvil: Anvil) -> str:
    token = anvil.deploy_token()
    anvil.mint(token, FUNDER, 1_000_000 * ONE)
    return token


class PayGateway:
    """`shoal serve` with a [payments] section watching `token` on anvil."""

    def __init__(self, bin_path: Path, root: Path, log_dir: Path, anvil: Anvil, token: str,
                 database_url: Optional[str] = None, finality: str = f"{{ confirmations = {CONFIRMATIONS} }}",
                 extra: str = ""):
        self.bin, self.root, self.log_dir = bin_path, root, log_dir
        root.mkdir(parents=True, exist_ok=True)
        self.config = root / "shoal.toml"
        self.config.write_text(
            "[payments]\n"
            f'xpub = "{DEV_XPUB}"\n'
            "[[payments.chains]]\n"
            'name = "anvil"\n'
            f'rpc_url = "{anvil.url}"\n'
            f"chain_id = {CHAIN_ID}\n"
            f'token = "{token}"\n'
            'symbol = "TUSD"\n'
            "decimals = 6\n"
            f"finality = {finality}\n"
            "start_block = 0\n"
            "poll_interval_ms = 100\n"
            "lease_ms = 1500\n"
            + extra
        )
        self.store_args = ["--database-url", database_url] if database_url else ["--data-dir", str(root / "data")]
        self.http = httpx.Client(timeout=10)
        self.start()

    def start(self) -> None:
        tag = f"paygw-{uuid.uuid4().hex[:6]}"
        out_log, err_log = self.log_dir / f"{tag}.stdout.log", self.log_dir / f"{tag}.stderr.log"
        cmd = [str(self.bin), "serve", "--listen", "127.0.0.1:0", "--config", str(self.config), *self.store_args]
        popen = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=open(err_log, "wb"),
                                 stdin=subprocess.DEVNULL, env=clean_env(SHOAL_LOG="info"), cwd=self.root)
        self.proc = Proc(tag, popen, [out_log, err_log], shoal=True)
        line = LineReader(popen.stdout, out_log).wait_prefix("listening on ", START_TIMEOUT_S)
        if line is None:
            self.proc.kill()
            raise RuntimeError(f"shoal serve did not start\n{self.proc.log_tails()}")
        self.base = line.split("listening on ", 1)[1].strip()

    def admin(self, *args: str) -> str:
        cmd = [str(self.bin), "admin", "--config", str(self.config), *self.store_args, *args]
        out = subprocess.run(cmd, capture_output=True, timeout=60, env=clean_env(), stdin=subprocess.DEVNULL)
        assert out.returncode == 0, f"shoal admin {args} failed: {out.stderr.decode()}"
        return out.stdout.decode()

    def new_account(self) -> tuple[str, str]:
        account = self.admin("account", "create", "--email", f"pay-{uuid.uuid4().hex[:10]}@e2e.test").strip()
        key = self.admin("key", "create", "--account", account).strip()
        return account, key

    def get(self, path: str, key: str) -> dict:
        r = self.http.get(f"{self.base}/api/v1{path}", headers={"Authorization": f"Bearer {key}"})
        assert r.status_code == 200, r.text
        return r.json()

    def credits(self, key: str) -> int:
        return self.get("/balance", key)["credits"]

    def pending(self, key: str) -> list:
        return [d for d in self.get("/deposits", key)["deposits"] if d["state"] == "pending"]

    def metric(self, name: str) -> int:
        text = self.http.get(f"{self.base}/metrics").text
        m = re.search(rf"^shoal_{name}\{{[^}}]*\}} (\d+)", text, re.M)
        return int(m.group(1)) if m else 0

    def wait_scanned(self, block: int) -> None:
        """Until the watcher has scanned every block up to `block`."""
        wait_for(lambda: self.metric("deposit_last_scanned_block") >= block, 20, f"a scan through block {block}")


def final_after(anvil: Anvil, block: int) -> None:
    """Mines until `block` has CONFIRMATIONS blocks on top of it."""
    anvil.mine(max(0, block + CONFIRMATIONS - anvil.head()))


def test_credited_once_at_finality_not_before(shoal_bin, tmp_path, log_dir, anvil):
    token = funded_token(anvil)
    gw = PayGateway(shoal_bin, tmp_path, log_dir, anvil, token)
    account, key = gw.new_account()
    address = gw.admin("deposits", "address", "--account", account).strip()
    assert (account, address) == ("1", ACCOUNT_1_ADDRESS)

    block = int(anvil.transfer(token, address, ONE)["blockNumber"], 16)
    anvil.mine(CONFIRMATIONS - 1)
    gw.wait_scanned(block - 1)
    # Seen, with its confirmations (blocks on top of it), not credited.
    [seen] = wait_for(lambda: [d for d in gw.pending(key) if d["confirmations"] == CONFIRMATIONS - 1],
                      20, "the transfer pending with its confirmations")
    assert (seen["amount"], seen["credits"], seen["block_number"]) == ("1", 0, block)
    assert gw.credits(key) == 0, "credited before finality"
    wait_for(lambda: gw.metric("deposits_pending") == 1, 5, "the pending gauge")

    anvil.mine(1)
    wait_for(lambda: gw.credits(key) == 500, 20, "500 credits")
    # (The head is written just after the credit, in the same scan.)
    view = wait_for(lambda: (v := gw.get("/deposits", key))["options"][0]["head_block"] >= block + CONFIRMATIONS and v,
                    10, "the head after the credit")
    assert view["enabled"] and view["credits_per_usd"] == 500
    option = view["options"][0]
    assert (option["address"], option["chain_id"], option["decimals"]) == (address, CHAIN_ID, 6)
    assert option["payment_uri"] == f"ethereum:{option['token']}@{CHAIN_ID}/transfer?address={address}"
    assert option["confirmations_required"] == CONFIRMATIONS and option["head_block"] >= block + CONFIRMATIONS
    [dep] = view["deposits"]
    assert (dep["amount"], dep["credits"], dep["state"], dep["block_number"]) == ("1", 500, "credited", block)
    assert dep["confirmations"] >= CONFIRMATIONS

    # Another token to the same address: not ours, ignored.
    other = funded_token(anvil)
    stray = int(anvil.transfer(other, address, 5 * ONE)["blockNumber"], 16)
    final_after(anvil, stray)
    gw.wait_scanned(stray)
    assert gw.credits(key) == 500

    # 0.0013 token = 0.65 credit: nothing now, the fraction kept; 0.0007 more completes one.
    small = int(anvil.transfer(token, address, 1_300)["blockNumber"], 16)
    final_after(anvil, small)
    gw.wait_scanned(small)
    assert gw.credits(key) == 500
    deps = gw.get("/deposits", key)["deposits"]
    assert (deps[0]["amount"], deps[0]["credits"], deps[0]["state"]) == ("0.0013", 0, "credited")
    rest = int(anvil.transfer(token, address, 700)["blockNumber"], 16)
    final_after(anvil, rest)
    wait_for(lambda: gw.credits(key) == 501, 20, "the 501st credit")
    balance = gw.get("/balance", key)
    assert (balance["total_deposited"], balance["credits"]) == (501, 501)
    assert gw.metric("deposits_credited_total") == 3
    assert gw.metric("deposit_credits_total") == 501
    assert gw.admin("ledger", "verify").strip() == "ok"
    listed = gw.admin("deposits", "list").splitlines()
    assert len(listed) == 3 and all("\tcredited" in line for line in listed)


def test_reorg_before_finality_is_never_credited(shoal_bin, tmp_path, log_dir, anvil):
    token = funded_token(anvil)
    gw = PayGateway(shoal_bin, tmp_path, log_dir, anvil, token)
    account, key = gw.new_account()
    address = gw.admin("deposits", "address", "--account", account).strip()

    block = int(anvil.transfer(token, address, ONE)["blockNumber"], 16)
    wait_for(lambda: gw.pending(key), 20, "the transfer shown as pending")
    anvil.reorg(1)  # the transfer's block is replaced by an empty one
    wait_for(lambda: not gw.pending(key), 20, "the reorged transfer to disappear")
    final_after(anvil, block + 2)
    gw.wait_scanned(block + 2)
    assert gw.credits(key) == 0
    assert gw.get("/deposits", key)["deposits"] == []

    # The watcher is alive: a transfer that stays is credited.
    kept = int(anvil.transfer(token, address, 2 * ONE)["blockNumber"], 16)
    final_after(anvil, kept)
    wait_for(lambda: gw.credits(key) == 1000, 20, "1000 credits")
    assert len(gw.get("/deposits", key)["deposits"]) == 1


def test_restart_and_rescan_credit_once(shoal_bin, tmp_path, log_dir, anvil):
    token = funded_token(anvil)
    # The node's `finalized` tag this time (anvil finalizes 64 blocks behind the head).
    gw = PayGateway(shoal_bin, tmp_path, log_dir, anvil, token, finality='"finalized"')
    account, key = gw.new_account()
    address = gw.admin("deposits", "address", "--account", account).strip()

    first = int(anvil.transfer(token, address, ONE)["blockNumber"], 16)
    anvil.mine(63)
    assert int(anvil.rpc("eth_getBlockByNumber", "finalized", False)["number"], 16) < first
    gw.wait_scanned(anvil.head() - 64)
    assert gw.credits(key) == 0, "credited before the finalized tag reached it"
    anvil.mine(1)
    wait_for(lambda: gw.credits(key) == 500, 20, "500 credits")

    gw.proc.kill()  # SIGKILL mid-way: a deposit arrives while the gateway is down
    second = int(anvil.transfer(token, address, 2 * ONE)["blockNumber"], 16)
    anvil.mine(64)
    # And the operator rewinds the cursor to the start: everything is scanned again.
    gw.admin("deposits", "rescan", "--chain-id", str(CHAIN_ID), "--from-block", "0")
    gw.start()
    wait_for(lambda: gw.credits(key) == 1500, 20, "1500 credits")
    gw.wait_scanned(second)
    gw.wait_scanned(anvil.head() - 64)
    assert gw.credits(key) == 1500
    assert len(gw.get("/deposits", key)["deposits"]) == 2
    assert gw.admin("ledger", "verify").strip() == "ok"



def test_zero_value_spam_makes_no_row_and_history_pages(shoal_bin, tmp_path, log_dir, anvil):
    token = funded_token(anvil)
    gw = PayGateway(shoal_bin, tmp_path, log_dir, anvil, token)
    account, key = gw.new_account()
    address = gw.admin("deposits", "address", "--account", account).strip()

    # Address-poisoning spam sends zero-value transfers: never a row, pending or recorded.
    spam = int(anvil.transfer(token, address, 0)["blockNumber"], 16)
    wait_for(lambda: (gw.get("/deposits", key)["options"][0]["head_block"] or 0) >= spam, 20, "a read past the spam")
    assert gw.pending(key) == []
    for n in (1, 2, 3):
        last = int(anvil.transfer(token, address, n * ONE)["blockNumber"], 16)
    final_after(anvil, last)
    wait_for(lambda: gw.credits(key) == 3000, 20, "3000 credits")
    assert gw.admin("deposits", "list", "--account", account).count("\n") == 3

    first = gw.get("/deposits?limit=2", key)
    assert [d["amount"] for d in first["deposits"]] == ["3", "2"] and first["has_more"]
    rest = gw.get(f"/deposits?limit=2&before={first['next_before']}", key)
    assert [d["amount"] for d in rest["deposits"]] == ["1"]
    assert (rest["has_more"], rest["next_before"]) == (False, None)
    for bad, param in (("limit=0", "limit"), ("limit=101", "limit"), ("before=0", "before")):
        r = gw.http.get(f"{gw.base}/api/v1/deposits?{bad}", headers={"Authorization": f"Bearer {key}"})
        assert r.status_code == 400 and r.json()["error"]["param"] == param, (bad, r.text)
    r = gw.http.get(f"{gw.base}/api/v1/deposits?limit=x", headers={"Authorization": f"Bearer {key}"})
    assert r.status_code == 400 and r.json()["error"]["type"] == "invalid_request_error", r.text

@pytest.fixture
def pg_database():
    """A throwaway database on $SHOAL_TEST_POSTGRES_URL's server (as the Rust suites use)."""
    admin_url = os.environ.get("SHOAL_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    name = f"shoal_e2e_pay_{uuid.uuid4().hex[:10]}"
    subprocess.run(["psql", admin_url, "-qc", f"CREATE DATABASE {name}"], check=True, capture_output=True)
    yield admin_url.split("?")[0].rsplit("/", 1)[0] + "/" + name
    subprocess.run(["psql", admin_url, "-qc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], capture_output=True)


def test_two_gateways_on_postgres_credit_once(shoal_bin, tmp_path, log_dir, anvil, pg_database):
    token = funded_token(anvil)
    gws = [PayGateway(shoal_bin, tmp_path / f"gw{i}", log_dir, anvil, token, database_url=pg_database)
           for i in range(2)]
    account, key = gws[0].new_account()
    address = gws[0].admin("deposits", "address", "--account", account).strip()
    wait_for(lambda: sum(g.metric("deposit_watcher_active") for g in gws) == 1, 20, "one active watcher")

    block = int(anvil.transfer(token, address, ONE)["blockNumber"], 16)
    # Pending on both replicas, whichever holds the lease (the set is in the database).
    wait_for(lambda: all(g.pending(key) for g in gws), 20, "the transfer pending on both gateways")
    final_after(anvil, block)
    wait_for(lambda: gws[1].credits(key) == 500, 20, "500 credits")
    active = next(g for g in gws if g.metric("deposit_watcher_active") == 1)
    standby = next(g for g in gws if g is not active)
    assert active.metric("deposits_credited_total") == 1
    assert standby.metric("deposits_credited_total") == 0

    # The active gateway dies; the other takes the lease over once it expires.
    active.proc.kill()
    block = int(anvil.transfer(token, address, 3 * ONE)["blockNumber"], 16)
    final_after(anvil, block)
    wait_for(lambda: standby.credits(key) == 2000, 20, "2000 credits")
    standby.wait_scanned(block)
    assert standby.credits(key) == 2000
    assert standby.metric("deposit_watcher_active") == 1
    assert len(standby.get("/deposits", key)["deposits"]) == 2
    assert standby.admin("ledger", "verify").strip() == "ok"


def signup(base: str) -> str:
    """A new dashboard account; its session cookie."""
    email = f"buy-{uuid.uuid4().hex[:10]}@e2e.test"
    form = {"email": email, "password": "correct horse battery"}
    r = httpx.post(base + "/dashboard/signup", data=form, headers={"Sec-Fetch-Site": "same-origin"}, timeout=30)
    assert r.status_code == 303, r.text
    r = httpx.post(base + "/dashboard/login", data=form, headers={"Sec-Fetch-Site": "same-origin"}, timeout=30)
    assert r.status_code == 303, r.text
    return r.cookies["shoal_session"]


def test_deposits_off_without_a_payments_section(gateway, account):
    r = gateway.get("/deposits", account.key)
    assert r.status_code == 200, r.text
    assert r.json() == {"object": "deposits", "enabled": False, "credits_per_usd": 500, "options": [],
                        "deposits": [], "has_more": False, "next_before": None}
    r = gateway.get("/deposits", "sk-shoal-not-a-real-key")
    assert r.status_code == 401 and r.json()["error"]["code"] == "invalid_api_key", r.text
    # The Buy page says so, with the price.
    page = httpx.get(gateway.base + "/dashboard/buy", headers={"Cookie": f"shoal_session={signup(gateway.base)}"})
    assert page.status_code == 200
    assert "Buying credits is not set up on this server" in page.text and ">500<" in page.text
    assert "svg class=\"qr\"" not in page.text


def buy_page(step: str, base: str, cookie: str, **extra: str) -> dict:
    """Runs one step of tests/e2e/node/buy.mjs; what the browser saw."""
    node_dir = E2E_DIR / "node"
    assert shutil.which("node"), "node is required for the browser tests (.ci/run installs it)"
    assert (node_dir / "node_modules" / "jsqr").is_dir(), "tests/e2e/run.sh installs tests/e2e/node (npm ci)"
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, "chromium is required for the browser tests (.ci/run installs it)"
    shots = Path(os.environ.get("SHOAL_SHOTS", REPO_ROOT / "target" / "dashboard-shots"))
    shots.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, SHOAL_BASE=base, SHOAL_COOKIE=cookie, SHOAL_SHOTS=str(shots), CHROMIUM=chromium,
               **extra)
    out = subprocess.run(["node", "buy.mjs", step], cwd=node_dir, env=env, capture_output=True, text=True,
                         timeout=120, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, f"buy.mjs {step} failed ({out.returncode}):\n{out.stderr}"
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["errors"] == [], f"browser console errors in {step}: {got['errors']}"
    return got


def session_deposits(gw: PayGateway, cookie: str) -> list:
    r = gw.http.get(f"{gw.base}/dashboard/api/deposits",
                    headers={"Cookie": f"shoal_session={cookie}", "Sec-Fetch-Site": "same-origin"})
    assert r.status_code == 200, r.text
    return r.json()["deposits"]


def test_buy_page_pending_then_credited(shoal_bin, tmp_path, log_dir, anvil):
    token = funded_token(anvil)
    gw = PayGateway(shoal_bin, tmp_path, log_dir, anvil, token, extra='minimum = "0.5"\n')
    cookie = signup(gw.base)
    with sqlite3.connect(tmp_path / "data" / "shoal.db") as db:
        ((account,),) = db.execute("SELECT id FROM accounts").fetchall()
    address = gw.admin("deposits", "address", "--account", str(account)).strip()
    checksummed_token = gw.http.get(f"{gw.base}/dashboard/api/deposits", headers={
        "Cookie": f"shoal_session={cookie}", "Sec-Fetch-Site": "same-origin"}).json()["options"][0]["token"]
    assert checksummed_token.lower() == token.lower()

    # The address, its EIP-681 link, and a QR code that a camera reads back as that link.
    seen = buy_page("view", gw.base, cookie)
    link = f"ethereum:{checksummed_token}@{CHAIN_ID}/transfer?address={address}"
    assert (seen["address"], seen["link"], seen["qr"]) == (address, link, link)
    assert seen["copied"] == "Copied" and seen["clipboard"] in (address, None)
    assert "No deposits yet" in seen["empty"]
    assert "Deposits under 0.5 TUSD are kept" in seen["rules"], seen["rules"]
    assert seen["amountLink"] == seen["amountQr"] == f"{link}&uint256=2500000"
    assert seen["amountCredits"] == "1250"

    # 1.000000 token, one block on top: pending, 1 of 3 confirmations, nothing credited.
    block = int(anvil.transfer(token, address, ONE)["blockNumber"], 16)
    anvil.mine(1)
    wait_for(lambda: [d for d in session_deposits(gw, cookie) if d["confirmations"] == 1], 20,
             "the transfer pending with one confirmation")
    # The page is open while the last CONFIRMATIONS - 1 blocks are mined; it follows by itself.
    seen = buy_page("pending", gw.base, cookie, SHOAL_ANVIL=anvil.url, SHOAL_MINE=str(CONFIRMATIONS - 1))
    assert (seen["confirmations"], seen["badge"], seen["amount"]) == ("1 of 3", "Pending", "1 TUSD")
    assert seen["creditsBefore"] == 0
    assert seen["creditedCell"] == "+500" and seen["pendingLeft"] == 0
    assert seen["creditsAfter"] == seen["usageCredits"] == seen["creditsBefore"] + 500
    assert seen["phoneFits"] and seen["phoneFitsCredited"], "the Buy page scrolls sideways at phone width"
    [dep] = session_deposits(gw, cookie)
    assert (dep["state"], dep["credits"], dep["block_number"]) == ("credited", 500, block)
    assert gw.admin("ledger", "verify").strip() == "ok"
