-- Keys for agents: per-key spending limits, management keys, and a record of each request.
-- Same as the PostgreSQL migration of the same name (which also teaches its ledger function
-- and statements the limits; SQLite's writer applies `money`'s rules in Rust).
--
-- api_keys.kind           'inference' (runs requests) or 'management' (manages the account's
--                         keys, runs no request).
-- api_keys.limit_credits  the most the key's requests may spend in a window (NULL: no
--                         limit), limit_reset when the window starts again.
-- api_keys.limit_window   the UTC day the counted window starts on; limit_spent what the
--                         key's requests spent in it; limit_held what its active holds
--                         reserve (`money::key_left` and its neighbours).
-- holds.key_limited       the hold counted towards its key's limit (the key had one when the
--                         hold was taken): its end gives back to limit_held and adds the
--                         charge to the window.
-- journal.key_window      on the rows of such an end: the window the charge counted in.
-- generations             one row per request: token counts, credits charged, timings, how it
--                         finished and what kind of worker served it. Never text, never which
--                         worker; kept for a bounded time (`Store::prune_generations`).
-- CHECKs spelled as OR chains: SQLite evaluates an IN list of more than two constants with a
-- temporary index, and a limited key's row is written on every hold (see holds_pruning).

ALTER TABLE api_keys ADD COLUMN kind TEXT NOT NULL DEFAULT 'inference'
    CHECK (kind = 'inference' OR kind = 'management');
ALTER TABLE api_keys ADD COLUMN limit_credits INTEGER CHECK (limit_credits >= 0);
ALTER TABLE api_keys ADD COLUMN limit_reset TEXT NOT NULL DEFAULT 'never'
    CHECK (limit_reset = 'daily' OR limit_reset = 'weekly' OR limit_reset = 'monthly'
           OR limit_reset = 'never');
ALTER TABLE api_keys ADD COLUMN limit_window INTEGER NOT NULL DEFAULT 0;
ALTER TABLE api_keys ADD COLUMN limit_spent INTEGER NOT NULL DEFAULT 0 CHECK (limit_spent >= 0);
ALTER TABLE api_keys ADD COLUMN limit_held INTEGER NOT NULL DEFAULT 0 CHECK (limit_held >= 0);

ALTER TABLE holds ADD COLUMN key_limited INTEGER NOT NULL DEFAULT 0;
ALTER TABLE journal ADD COLUMN key_window INTEGER;

CREATE TABLE generations (
    id            TEXT    NOT NULL PRIMARY KEY,
    account_id    INTEGER NOT NULL REFERENCES accounts (id),
    created_at    INTEGER NOT NULL,
    model         TEXT    NOT NULL,
    input_tokens  INTEGER NOT NULL CHECK (input_tokens >= 0),
    output_tokens INTEGER NOT NULL CHECK (output_tokens >= 0),
    credits       INTEGER NOT NULL CHECK (credits >= 0),
    latency_ms    INTEGER NOT NULL CHECK (latency_ms >= 0),
    ttft_ms       INTEGER CHECK (ttft_ms >= 0),
    finish_reason TEXT,
    worker_kind   TEXT    NOT NULL
) WITHOUT ROWID;
CREATE INDEX generations_created ON generations (created_at);
