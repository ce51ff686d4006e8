"""A real local EVM chain for the deposit tests and bench/deposits: anvil (npm
`@foundry-rs/anvil-linux-amd64`, the binary package behind `@foundry-rs/anvil`, installed by
tests/e2e/run.sh into tests/e2e/chain; `$SHOAL_ANVIL` names another binary) and a 6-decimal
ERC-20 compiled with solc-js (tests/e2e/chain/TestToken.sol).

Transactions are sent from anvil's unlocked development accounts (`eth_sendTransaction`), one
block per transaction (automine); `mine` adds empty blocks and `reorg` replaces the last ones.
"""

from __future__ import annotations

import atexit
import json
import os
import socket
import subprocess
import time
from pathlib import Path
from typing import Optional

import httpx

CHAIN_DIR = Path(__file__).resolve().parent / "chain"
ANVIL = Path(os.environ.get("SHOAL_ANVIL") or CHAIN_DIR / "node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil")
CHAIN_ID = 31337
# The development mnemonic's first account (m/44'/60'/0'/0/0), unlocked in anvil.
FUNDER = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
# The extended public key of m/44'/60'/0'/0 of the same mnemonic (crates/payments checks it
# against the published BIP44 addresses): account n's deposit address is its child n.
DEV_XPUB = (
    "xpub6DyUKdwoLWmUJ4Tn9Bbsdtx7B5Ws18mEN19e5HT52ikE53FiUheSQXrZUNPovqfyKmw4579A1Mm3GXXKM39N64uooBfJ4tNAzFsEbodRTx4"
)
MINT = "0x40c10f19"  # mint(address,uint256)
TRANSFER = "0xa9059cbb"  # transfer(address,uint256)

_bytecode: Optional[str] = None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def token_bytecode() -> str:
    global _bytecode
    if _bytecode is None:
        out = subprocess.run(["node", str(CHAIN_DIR / "compile.mjs")], capture_output=True, timeout=120, check=True)
        _bytecode = json.loads(out.stdout)["bytecode"]
    return _bytecode


def _word(v) -> str:
    if isinstance(v, str):
        return v.lower().removeprefix("0x").rjust(64, "0")
    return format(v, "064x")


class Anvil:
    def __init__(self, log_path: Path):
        if not ANVIL.exists():
            raise RuntimeError(f"anvil is missing at {ANVIL}: run tests/e2e/run.sh (npm ci in tests/e2e/chain)")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [str(ANVIL), "--host", "127.0.0.1", "--port", str(self.port), "--chain-id", str(CHAIN_ID)],
            stdout=open(log_path, "wb"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )
        # Killed at exit too, whatever ends the test session or the benchmark.
        atexit.register(self.stop)
        self.http = httpx.Client(timeout=10)
        deadline = time.monotonic() + 30
        while True:
            try:
                if int(self.rpc("eth_chainId"), 16) == CHAIN_ID:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("anvil did not start")
            time.sleep(0.05)

    def rpc(self, method: str, *params):
        r = self.http.post(self.url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)})
        r.raise_for_status()
        body = r.json()
        if "error" in body:
            raise RuntimeError(f"{method}: {body['error']}")
        return body["result"]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()

    def head(self) -> int:
        return int(self.rpc("eth_blockNumber"), 16)

    def mine(self, blocks: int = 1) -> None:
        self.rpc("anvil_mine", hex(blocks))

    def reorg(self, depth: int) -> None:
        """Replaces the last `depth` blocks with empty ones (their transactions are gone)."""
        self.rpc("anvil_reorg", depth, [])

    def receipt(self, tx: str) -> dict:
        """The transaction's receipt, once its block is mined (automine: at once, or nearly)."""
        deadline = time.monotonic() + 10
        while (receipt := self.rpc("eth_getTransactionReceipt", tx)) is None:
            assert time.monotonic() < deadline, f"transaction {tx} was not mined"
            time.sleep(0.01)
        assert receipt["status"] == "0x1", receipt
        return receipt

    def send(self, to: str, data: str, sender: str = FUNDER) -> dict:
        return self.receipt(self.rpc("eth_sendTransaction", {"from": sender, "to": to, "data": data}))

    def deploy_token(self) -> str:
        tx = self.rpc("eth_sendTransaction", {"from": FUNDER, "data": token_bytecode()})
        return self.receipt(tx)["contractAddress"]

    def mint(self, token: str, to: str, units: int) -> dict:
        return self.send(token, MINT + _word(to) + _word(units))

    def transfer(self, token: str, to: str, units: int, sender: str = FUNDER) -> dict:
        """A token transfer of `units` base units; returns the receipt (its block is mined)."""
        return self.send(token, TRANSFER + _word(to) + _word(units), sender)
