-- Shoal store schema, SQLite flavour. Money columns are integers (credits).
-- Kept in step with ../postgres/20260101000000_init.sql: same tables, columns and rules.

CREATE TABLE accounts (
    id                 INTEGER PRIMARY KEY,
    email              TEXT    NOT NULL,
    created_at         INTEGER NOT NULL,
    -- Purchased balance: always total_deposited - total_spent, never negative.
    credits            INTEGER NOT NULL DEFAULT 0,
    total_deposited    INTEGER NOT NULL DEFAULT 0,
    total_spent        INTEGER NOT NULL DEFAULT 0,
    -- Sum of this account's active holds.
    held               INTEGER NOT NULL DEFAULT 0,
    -- The plan's daily credits (0 = no plan), the UTC day (days since the epoch) they were
    -- last spent on, and how many were spent that day. Reset lazily when the day changes.
    -- Not to be confused with free web-chat credits, which API requests never use.
    plan_daily_credits INTEGER NOT NULL DEFAULT 0,
    plan_day           INTEGER NOT NULL DEFAULT 0,
    plan_used          INTEGER NOT NULL DEFAULT 0,
    CHECK (credits >= 0 AND total_deposited >= 0 AND total_spent >= 0 AND held >= 0),
    CHECK (credits = total_deposited - total_spent),
    CHECK (plan_daily_credits >= 0 AND plan_used >= 0)
);
CREATE UNIQUE INDEX accounts_email ON accounts (lower(email));

CREATE TABLE api_keys (
    id          INTEGER PRIMARY KEY,
    account_id  INTEGER NOT NULL REFERENCES accounts (id),
    name        TEXT,
    -- Display prefix only (e.g. sk-shoal-AbCd); the key itself is never stored.
    prefix      TEXT    NOT NULL,
    key_hash    BLOB    NOT NULL UNIQUE,
    rpm         INTEGER CHECK (rpm > 0),
    created_at  INTEGER NOT NULL,
    revoked_at  INTEGER
);
CREATE INDEX api_keys_account ON api_keys (account_id);

CREATE TABLE worker_tokens (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL,
    prefix      TEXT    NOT NULL,
    token_hash  BLOB    NOT NULL UNIQUE,
    created_at  INTEGER NOT NULL,
    revoked_at  INTEGER
);

-- One row per request that took a hold, keyed by its request id. A hold ends exactly once: state leaves 'active'
-- and never changes again; charged_plan/charged_balance record what the end spent.
CREATE TABLE holds (
    request_id      TEXT    NOT NULL PRIMARY KEY,
    account_id      INTEGER NOT NULL REFERENCES accounts (id),
    credits         INTEGER NOT NULL CHECK (credits > 0),
    model           TEXT    NOT NULL,
    created_at      INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL,
    state           TEXT    NOT NULL DEFAULT 'active'
                    CHECK (state IN ('active', 'settled', 'voided', 'expired')),
    ended_at        INTEGER,
    charged_plan    INTEGER NOT NULL DEFAULT 0 CHECK (charged_plan >= 0),
    charged_balance INTEGER NOT NULL DEFAULT 0 CHECK (charged_balance >= 0),
    CHECK (charged_plan + charged_balance <= credits)
) WITHOUT ROWID;
CREATE INDEX holds_active_expiry ON holds (expires_at) WHERE state = 'active';

-- Append-only record of every movement. Never prompt or completion text: there is no
-- column for it. `credits` by kind: deposit = added to the balance; hold = reserved;
-- settle = spent from `bucket` (a settle writes one 'balance' row carrying the token counts
-- and, when plan credits were spent, one 'plan' row); void/expire = 0 (nothing spent, the
-- hold is released); adjustment = signed change of the balance (+ deposited, - spent).
CREATE TABLE journal (
    id               INTEGER PRIMARY KEY,
    at               INTEGER NOT NULL,
    kind             TEXT    NOT NULL
                     CHECK (kind IN ('deposit', 'hold', 'settle', 'void', 'expire', 'adjustment')),
    account_id       INTEGER NOT NULL REFERENCES accounts (id),
    request_id       TEXT,
    model            TEXT,
    input_tokens     INTEGER NOT NULL DEFAULT 0,
    output_tokens    INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    credits          INTEGER NOT NULL,
    bucket           TEXT CHECK (bucket IN ('plan', 'balance')),
    -- For plan spends: the UTC day whose plan credits were spent.
    plan_day         INTEGER
);

CREATE TRIGGER journal_append_only_update BEFORE UPDATE ON journal
BEGIN
    SELECT RAISE(ABORT, 'the journal is append-only');
END;
CREATE TRIGGER journal_append_only_delete BEFORE DELETE ON journal
BEGIN
    SELECT RAISE(ABORT, 'the journal is append-only');
END;
