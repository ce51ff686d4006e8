-- Deposits seen on the chain but not final yet (crates/payments): what the chain watcher that
-- holds the lease found in the blocks after the last final one, replaced as a whole on each of
-- its scans, so every gateway sharing the database shows them and a transfer that a reorg
-- removes disappears at the next scan. Never credited from here: crediting reads final blocks
-- only (the deposits table). Same as the PostgreSQL migration of the same name.
CREATE TABLE pending_deposits (
    chain_id      INTEGER NOT NULL,
    token         TEXT    NOT NULL,
    tx_hash       TEXT    NOT NULL,
    log_index     INTEGER NOT NULL,
    block_number  INTEGER NOT NULL,
    account_id    INTEGER NOT NULL,
    -- The token's base units, as decimal digits.
    amount        TEXT    NOT NULL,
    PRIMARY KEY (chain_id, tx_hash, log_index)
);
CREATE INDEX pending_deposits_account ON pending_deposits (account_id);

-- The chain's head and last final block as the watcher last saw them (confirmations are
-- counted from head_block), and when.
CREATE TABLE deposit_heads (
    chain_id     INTEGER NOT NULL,
    token        TEXT    NOT NULL,
    head_block   INTEGER NOT NULL,
    final_block  INTEGER NOT NULL,
    observed_at  INTEGER NOT NULL,
    PRIMARY KEY (chain_id, token)
);
