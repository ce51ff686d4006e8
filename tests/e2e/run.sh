#!/usr/bin/env bash
# Runs the end-to-end tests (tests/e2e) against real `shoal serve` / `shoal worker` processes.
#   tests/e2e/run.sh [pytest args…]
# The binary: $SHOAL_BIN, else ${CARGO_TARGET_DIR:-target}/debug/shoal (build it first).
# Python packages go to a venv ($SHOAL_E2E_VENV, default .venv at the repository root),
# created on first use and reused while tests/e2e/requirements.txt is unchanged; the npm
# packages of tests/e2e/node likewise, from its package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/../.."

target="${CARGO_TARGET_DIR:-target}"
bin="${SHOAL_BIN:-$target/debug/shoal}"
if [ ! -x "$bin" ]; then
  echo "tests/e2e/run.sh: the shoal binary is missing at $bin; run \`cargo build\` or set SHOAL_BIN" >&2
  exit 1
fi
export SHOAL_BIN="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"

venv="${SHOAL_E2E_VENV:-.venv}"
req=tests/e2e/requirements.txt
stamp="$venv/.e2e-requirements"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if ! cmp -s "$req" "$stamp" 2>/dev/null; then
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req"
  cp "$req" "$stamp"
fi

# The node packages the suite drives, each installed from its lock file while that is
# unchanged: openai-node, the AI SDK and @anthropic-ai/sdk (test_node_sdk.py, test_api_shapes.py),
# anvil and solc-js (test_deposits.py, a local EVM chain), playwright-core (test_browser.py and
# the dashboard's pages).
npm_ci_once() {
  local dir=$1 stamp=$1/node_modules/.e2e-package-lock
  if command -v npm >/dev/null && ! cmp -s "$dir/package-lock.json" "$stamp" 2>/dev/null; then
    (cd "$dir" && npm ci --no-audit --no-fund --silent)
    cp "$dir/package-lock.json" "$stamp"
  fi
}
npm_ci_once tests/e2e/node
npm_ci_once tests/e2e/chain
npm_ci_once tests/e2e/browser
# Claude Code and Codex CLI (test_api_shapes.py, test_messages.py, test_responses.py): native
# binaries of about 0.5 GB, so only on request; their tests skip, saying so, when absent.
if [ "${SHOAL_E2E_AGENT_CLIS:-0}" = 1 ]; then
  npm_ci_once tests/e2e/agents
fi

exec "$venv/bin/python" -m pytest -q tests/e2e "$@"
