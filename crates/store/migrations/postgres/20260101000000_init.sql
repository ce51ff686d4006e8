-- Shoal store schema, PostgreSQL flavour. Money columns are BIGINT (credits).
-- Kept in step with ../sqlite/20260101000000_init.sql: same tables, columns and rules.

CREATE TABLE accounts (
    id                 BIGSERIAL PRIMARY KEY,
    email              TEXT   NOT NULL,
    created_at         BIGINT NOT NULL,
    -- Purchased balance: always total_deposited - total_spent, never negative.
    credits            BIGINT NOT NULL DEFAULT 0,
    total_deposited    BIGINT NOT NULL DEFAULT 0,
    total_spent        BIGINT NOT NULL DEFAULT 0,
    -- Sum of this account's active holds.
    held               BIGINT NOT NULL DEFAULT 0,
    -- The plan's daily credits (0 = no plan), the UTC day (days since the epoch) they were
    -- last spent on, and how many were spent that day. Reset lazily when the day changes.
    -- Not to be confused with free web-chat credits, which API requests never use.
    plan_daily_credits BIGINT NOT NULL DEFAULT 0,
    plan_day           BIGINT NOT NULL DEFAULT 0,
    plan_used          BIGINT NOT NULL DEFAULT 0,
    CHECK (credits >= 0 AND total_deposited >= 0 AND total_spent >= 0 AND held >= 0),
    CHECK (credits = total_deposited - total_spent),
    CHECK (plan_daily_credits >= 0 AND plan_used >= 0)
);
CREATE UNIQUE INDEX accounts_email ON accounts (lower(email));

CREATE TABLE api_keys (
    id          BIGSERIAL PRIMARY KEY,
    account_id  BIGINT NOT NULL REFERENCES accounts (id),
    name        TEXT,
    -- Display prefix only (e.g. sk-shoal-AbCd); the key itself is never stored.
    prefix      TEXT   NOT NULL,
    key_hash    BYTEA  NOT NULL UNIQUE,
    rpm         BIGINT CHECK (rpm > 0),
    created_at  BIGINT NOT NULL,
    revoked_at  BIGINT
);
CREATE INDEX api_keys_account ON api_keys (account_id);

CREATE TABLE worker_tokens (
    id          BIGSERIAL PRIMARY KEY,
    name        TEXT   NOT NULL,
    prefix      TEXT   NOT NULL,
    token_hash  BYTEA  NOT NULL UNIQUE,
    created_at  BIGINT NOT NULL,
    revoked_at  BIGINT
);

-- One row per request that took a hold, keyed by its request id. A hold ends exactly once: state leaves 'active'
-- and never changes again; charged_plan/charged_balance record what the end spent.
CREATE TABLE holds (
    request_id      TEXT   NOT NULL PRIMARY KEY,
    account_id      BIGINT NOT NULL REFERENCES accounts (id),
    credits         BIGINT NOT NULL CHECK (credits > 0),
    model           TEXT   NOT NULL,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL,
    state           TEXT   NOT NULL DEFAULT 'active'
                    CHECK (state IN ('active', 'settled', 'voided', 'expired')),
    ended_at        BIGINT,
    charged_plan    BIGINT NOT NULL DEFAULT 0 CHECK (charged_plan >= 0),
    charged_balance BIGINT NOT NULL DEFAULT 0 CHECK (charged_balance >= 0),
    CHECK (charged_plan + charged_balance <= credits)
);
CREATE INDEX holds_active_expiry ON holds (expires_at) WHERE state = 'active';

-- Append-only record of every movement. Never prompt or completion text: there is no
-- column for it. `credits` by kind: deposit = added to the balance; hold = reserved;
-- settle = spent from `bucket` (a settle writes one 'balance' row carrying the token counts
-- and, when plan credits were spent, one 'plan' row); void/expire = 0 (nothing spent, the
-- hold is released); adjustment = signed change of the balance (+ deposited, - spent).
CREATE TABLE journal (
    id               BIGSERIAL PRIMARY KEY,
    at               BIGINT NOT NULL,
    kind             TEXT   NOT NULL
                     CHECK (kind IN ('deposit', 'hold', 'settle', 'void', 'expire', 'adjustment')),
    account_id       BIGINT NOT NULL REFERENCES accounts (id),
    request_id       TEXT,
    model            TEXT,
    input_tokens     BIGINT NOT NULL DEFAULT 0,
    output_tokens    BIGINT NOT NULL DEFAULT 0,
    reasoning_tokens BIGINT NOT NULL DEFAULT 0,
    credits          BIGINT NOT NULL,
    bucket           TEXT CHECK (bucket IN ('plan', 'balance')),
    -- For plan spends: the UTC day whose plan credits were spent.
    plan_day         BIGINT
);

CREATE FUNCTION journal_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the journal is append-only';
END;
$$;
CREATE TRIGGER journal_append_only
    BEFORE UPDATE OR DELETE ON journal
    FOR EACH STATEMENT EXECUTE FUNCTION journal_append_only();
