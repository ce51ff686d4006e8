-- Stablecoin deposits (crates/payments): one row per final Transfer log to an account's deposit
-- address, unique on (chain_id, tx_hash, log_index) so that restarts, overlapping scans and two
-- watchers record (and credit) a transfer once. Kept in step with ../postgres/20261124120000_deposits.sql.
-- state: 'credited' (its credits, possibly 0, are in the balance and the journal),
-- 'below_minimum' (waiting until this account's pending deposits of the token reach the
-- chain's minimum; then all of them are credited together), 'too_large' (an amount beyond what
-- the ledger can hold: recorded for the operator, never credited).
CREATE TABLE deposits (
    id            INTEGER PRIMARY KEY,
    chain_id      INTEGER NOT NULL,
    tx_hash       TEXT    NOT NULL,
    log_index     INTEGER NOT NULL,
    block_number  INTEGER NOT NULL,
    token         TEXT    NOT NULL,
    account_id    INTEGER NOT NULL REFERENCES accounts (id),
    -- The token's base units (uint256), as decimal digits.
    amount        TEXT    NOT NULL,
    credits       INTEGER NOT NULL DEFAULT 0 CHECK (credits >= 0),
    state         TEXT    NOT NULL
                  CHECK (state = 'credited' OR state = 'below_minimum' OR state = 'too_large'),
    recorded_at   INTEGER NOT NULL,
    credited_at   INTEGER,
    UNIQUE (chain_id, tx_hash, log_index)
);
CREATE INDEX deposits_account ON deposits (account_id, id);

-- What deposits paid beyond whole credits, per account, in 10^-18 credit: carried into the
-- next deposit, never rounded away.
CREATE TABLE deposit_remainders (
    account_id INTEGER NOT NULL PRIMARY KEY REFERENCES accounts (id),
    remainder  INTEGER NOT NULL CHECK (remainder >= 0 AND remainder < 1000000000000000000)
);

-- The watcher's progress per chain and token: every block below next_block is scanned.
CREATE TABLE deposit_cursors (
    chain_id   INTEGER NOT NULL,
    token      TEXT    NOT NULL,
    next_block INTEGER NOT NULL CHECK (next_block >= 0),
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (chain_id, token)
);

-- Named leases: one holder at a time (the chain watcher among several gateways).
CREATE TABLE leases (
    name       TEXT    NOT NULL PRIMARY KEY,
    holder     TEXT    NOT NULL,
    expires_at INTEGER NOT NULL
);
