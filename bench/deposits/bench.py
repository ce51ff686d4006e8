"""bench/deposits/run's body: see that script for what it measures and how to run it."""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Optional

import httpx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
from chain import CHAIN_ID, DEV_XPUB, FUNDER, Anvil  # noqa: E402

ONE = 1_000_000
ACCOUNTS = 20
BLOCKS_PER_SCAN = 100
PG_ADMIN = os.environ.get("SHOAL_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres")


class Gateway:
    def __init__(self, root: Path, anvil: Anvil, token: str, store_args: list, poll_ms: int, confirmations: int,
                 pending_blocks: Optional[int]):
        self.bin = os.environ["SHOAL_BIN"]
        root.mkdir(parents=True, exist_ok=True)
        self.config = root / "shoal.toml"
        self.config.write_text(
            f'[payments]\nxpub = "{DEV_XPUB}"\n[[payments.chains]]\nname = "anvil"\n'
            f'rpc_url = "{anvil.url}"\nchain_id = {CHAIN_ID}\ntoken = "{token}"\ndecimals = 6\n'
            f"finality = {{ confirmations = {confirmations} }}\nstart_block = 0\n"
            f"max_blocks_per_scan = {BLOCKS_PER_SCAN}\npoll_interval_ms = {poll_ms}\nlease_ms = {max(poll_ms * 5, 2000)}\n"
            + (f"pending_blocks = {pending_blocks}\n" if pending_blocks is not None else "")
        )
        self.store_args = store_args
        self.proc = subprocess.Popen(
            [self.bin, "serve", "--listen", "127.0.0.1:0", "--config", str(self.config), *store_args],
            stdout=subprocess.PIPE, stderr=open(root / "serve.log", "wb"), stdin=subprocess.DEVNULL,
            env={k: v for k, v in os.environ.items() if not k.startswith("SHOAL_")} | {"SHOAL_LOG": "warn"},
        )
        line = self.proc.stdout.readline().decode()
        assert line.startswith("listening on "), line
        self.base = line.split("listening on ", 1)[1].strip()
        self.http = httpx.Client(timeout=10)

    def admin(self, *args: str) -> str:
        out = subprocess.run([self.bin, "admin", "--config", str(self.config), *self.store_args, *args],
                             capture_output=True, check=True, timeout=60)
        return out.stdout.decode().strip()

    def credits(self, key: str) -> int:
        r = self.http.get(f"{self.base}/api/v1/balance", headers={"Authorization": f"Bearer {key}"})
        return r.json()["credits"]

    def metrics(self) -> str:
        return self.http.get(f"{self.base}/metrics").text

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


def metric(text: str, name: str) -> float:
    m = re.search(rf"^shoal_{name}\{{[^}}]*\}} ([0-9.e+-]+)", text, re.M)
    return float(m.group(1)) if m else 0.0


def accounts(gw: Gateway) -> list:
    out = []
    for i in range(ACCOUNTS):
        account = gw.admin("account", "create", "--email", f"bench-{uuid.uuid4().hex[:8]}@bench.test")
        key = gw.admin("key", "create", "--account", account, "--rpm", "1000000")
        out.append((key, gw.admin("deposits", "address", "--account", account)))
    return out


def one_deposit(anvil: Anvil, gw: Gateway, token: str, key: str, address: str, confirmations: int,
                poll_ms: int) -> float:
    """Seconds from the transfer's block becoming final to the credit being visible."""
    # A random phase against the watcher's poll: a deposit right after a credit would
    # otherwise always land a whole interval before the next tick.
    time.sleep(random.uniform(0, poll_ms / 1000))
    before = gw.credits(key)
    block = int(anvil.transfer(token, address, ONE)["blockNumber"], 16)
    anvil.mine(max(0, block + confirmations - anvil.head()))
    final_at = time.perf_counter()
    deadline = final_at + 10
    while gw.credits(key) != before + 500:
        if time.perf_counter() > deadline:
            raise RuntimeError("a deposit was not credited within 10 s")
        time.sleep(0.002)
    return time.perf_counter() - final_at


def pct(xs: list, p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deposits", type=int, default=100, help="per backend")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--poll-ms", type=int, default=250)
    ap.add_argument("--confirmations", type=int, default=2)
    ap.add_argument("--pending-blocks", type=int, default=None,
                    help="the chains' pending_blocks (0: no pending reads) [default: the config's default]")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-deposits-"))
    anvil = Anvil(tmp / "anvil.log")
    pg_name = f"shoal_bench_dep_{uuid.uuid4().hex[:8]}"
    subprocess.run(["psql", PG_ADMIN, "-qc", f"CREATE DATABASE {pg_name}"], check=True, capture_output=True)
    pg_url = PG_ADMIN.rsplit("/", 1)[0] + "/" + pg_name
    gws = {}
    try:
        for name, store_args in (("sqlite", ["--data-dir", str(tmp / "data")]), ("postgres", ["--database-url", pg_url])):
            token = anvil.deploy_token()
            anvil.mint(token, FUNDER, 10**9 * ONE)
            gw = Gateway(tmp / name, anvil, token, store_args, args.poll_ms, args.confirmations, args.pending_blocks)
            gws[name] = (gw, token, accounts(gw))
        lat = {name: [] for name in gws}
        per_round = max(1, args.deposits // args.rounds)
        for r in range(args.rounds):
            for name in (gws if r % 2 == 0 else reversed(list(gws))):
                gw, token, accts = gws[name]
                for i in range(per_round):
                    key, address = accts[i % len(accts)]
                    lat[name].append(one_deposit(anvil, gw, token, key, address, args.confirmations, args.poll_ms))
        report(args, gws, lat, anvil)
    finally:
        for gw, _, _ in gws.values():
            gw.stop()
        anvil.stop()
        subprocess.run(["psql", PG_ADMIN, "-qc", f"DROP DATABASE IF EXISTS {pg_name} WITH (FORCE)"], capture_output=True)


def rescan_cost(gw: Gateway, anvil: Anvil, confirmations: int) -> tuple:
    """Rewinds the cursor to block 0 and times the rescan to the final head (ranges of
    BLOCKS_PER_SCAN blocks scanned back to back, every deposit in them already recorded):
    (blocks, seconds, ranges)."""
    head = anvil.head() - confirmations
    ranges = head // BLOCKS_PER_SCAN + 1
    before = metric(gw.metrics(), "deposit_scan_seconds_count")
    start = time.perf_counter()
    gw.admin("deposits", "rescan", "--chain-id", str(CHAIN_ID), "--from-block", "0")
    deadline = start + 120
    while metric(gw.metrics(), "deposit_scan_seconds_count") < before + ranges:
        assert time.perf_counter() < deadline, "the rescan did not finish in 2 minutes"
        time.sleep(0.002)
    secs = time.perf_counter() - start
    return head + 1, secs, metric(gw.metrics(), "deposit_scan_seconds_count") - before


def report(args, gws, lat, anvil) -> None:
    pending = "default" if args.pending_blocks is None else args.pending_blocks
    print(f"deposits: {args.deposits} per backend in {args.rounds} alternating rounds, poll {args.poll_ms} ms, "
          f"{args.confirmations} confirmations, pending_blocks {pending}, {ACCOUNTS} accounts per gateway")
    print("finality -> credit visible (ms):")
    for name, xs in lat.items():
        print(f"  {name:9} n={len(xs)} p50={pct(xs, 50) * 1e3:.1f} p99={pct(xs, 99) * 1e3:.1f} "
              f"mean={statistics.mean(xs) * 1e3:.1f}")
    print(f"  ratio postgres/sqlite p50: {pct(lat['postgres'], 50) / pct(lat['sqlite'], 50):.2f}")
    print("watcher cost per scanned range (gateway's deposit_scan_seconds):")
    for name, (gw, _, _) in gws.items():
        m = gw.metrics()
        count, total = metric(m, "deposit_scan_seconds_count"), metric(m, "deposit_scan_seconds_sum")
        print(f"  {name:9} ranges={count:.0f} mean={total / max(count, 1) * 1e3:.2f} ms")
    print("pending read per caught-up tick (deposit_pending_scan_seconds: eth_getLogs over the blocks after the "
          "last final one, and the pending set's write when it changed):")
    for name, (gw, _, _) in gws.items():
        m = gw.metrics()
        count, total = metric(m, "deposit_pending_scan_seconds_count"), metric(m, "deposit_pending_scan_seconds_sum")
        print(f"  {name:9} reads={count:.0f} mean={total / max(count, 1) * 1e3:.2f} ms")
    for name, (gw, _, _) in gws.items():
        blocks, secs, ranges = rescan_cost(gw, anvil, args.confirmations)
        print(f"  {name:9} rescan of {blocks} blocks: {secs * 1e3:.0f} ms in {ranges:.0f} ranges "
              f"({secs / max(ranges, 1) * 1e3:.1f} ms per range, the admin command and one poll included)")


if __name__ == "__main__":
    main()
