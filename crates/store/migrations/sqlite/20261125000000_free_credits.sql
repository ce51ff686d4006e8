-- The free daily credits: a third bucket, spent only by dashboard (session) requests, before
-- the plan's daily credits and the balance (`money::split_spend`). Same as the PostgreSQL
-- migration of the same name.
--
-- accounts: the UTC day free credits were last spent on and how many were spent that day
--           (the daily amount is the operator's setting, not a column).
-- holds:    the free daily credits the request may spend (0 for API-key requests) and what
--           its end spent from them.
-- journal:  a settle that spends free credits writes one 'free' row; `plan_day` is then the
--           UTC day whose free credits were spent.
-- SQLite cannot alter a CHECK, so holds and journal are rebuilt, rows and ids kept.

ALTER TABLE accounts ADD COLUMN free_day INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN free_used INTEGER NOT NULL DEFAULT 0 CHECK (free_used >= 0);

CREATE TABLE holds_new (
    request_id      TEXT    NOT NULL PRIMARY KEY,
    account_id      INTEGER NOT NULL REFERENCES accounts (id),
    credits         INTEGER NOT NULL CHECK (credits > 0),
    model           TEXT    NOT NULL,
    created_at      INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL,
    state           TEXT    NOT NULL DEFAULT 'active'
                    CHECK (state = 'active' OR state = 'settled' OR state = 'voided'
                           OR state = 'expired'),
    ended_at        INTEGER,
    charged_plan    INTEGER NOT NULL DEFAULT 0 CHECK (charged_plan >= 0),
    charged_balance INTEGER NOT NULL DEFAULT 0 CHECK (charged_balance >= 0),
    free_daily      INTEGER NOT NULL DEFAULT 0 CHECK (free_daily >= 0),
    charged_free    INTEGER NOT NULL DEFAULT 0 CHECK (charged_free >= 0),
    CHECK (charged_free + charged_plan + charged_balance <= credits)
) WITHOUT ROWID;
INSERT INTO holds_new (request_id, account_id, credits, model, created_at, expires_at, state,
                       ended_at, charged_plan, charged_balance)
     SELECT request_id, account_id, credits, model, created_at, expires_at, state,
            ended_at, charged_plan, charged_balance
       FROM holds;
DROP TABLE holds;
ALTER TABLE holds_new RENAME TO holds;
CREATE INDEX holds_active_expiry ON holds (expires_at) WHERE state = 'active';
CREATE INDEX holds_ended ON holds (ended_at) WHERE state <> 'active';

DROP TRIGGER journal_append_only_update;
DROP TRIGGER journal_append_only_delete;

CREATE TABLE journal_new (
    id               INTEGER PRIMARY KEY,
    at               INTEGER NOT NULL,
    kind             TEXT    NOT NULL
                     CHECK (kind = 'deposit' OR kind = 'hold' OR kind = 'settle' OR kind = 'void'
                            OR kind = 'expire' OR kind = 'adjustment'),
    account_id       INTEGER NOT NULL REFERENCES accounts (id),
    request_id       TEXT,
    model            TEXT,
    input_tokens     INTEGER NOT NULL DEFAULT 0,
    output_tokens    INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    credits          INTEGER NOT NULL,
    bucket           TEXT CHECK (bucket = 'plan' OR bucket = 'balance' OR bucket = 'free'),
    -- For plan and free spends: the UTC day whose daily credits were spent.
    plan_day         INTEGER
);
INSERT INTO journal_new (id, at, kind, account_id, request_id, model, input_tokens,
                         output_tokens, reasoning_tokens, credits, bucket, plan_day)
     SELECT id, at, kind, account_id, request_id, model, input_tokens,
            output_tokens, reasoning_tokens, credits, bucket, plan_day
       FROM journal;
DROP TABLE journal;
ALTER TABLE journal_new RENAME TO journal;
-- The dashboard's usage page reads one account's settles over a time range (settles only:
-- holds, half the rows, pay nothing for it).
CREATE INDEX journal_settles ON journal (account_id, at) WHERE kind = 'settle';

CREATE TRIGGER journal_append_only_update BEFORE UPDATE ON journal
BEGIN
    SELECT RAISE(ABORT, 'the journal is append-only');
END;
CREATE TRIGGER journal_append_only_delete BEFORE DELETE ON journal
BEGIN
    SELECT RAISE(ABORT, 'the journal is append-only');
END;
