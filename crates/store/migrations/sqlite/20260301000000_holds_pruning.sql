-- 1. Ended holds by end time, for `prune_holds` (deletes those that ended before a cut-off)
--    without scanning the whole table. Same as the PostgreSQL migration.
-- 2. SQLite only: the CHECK rules on holds.state and journal.kind, spelled as OR chains.
--    SQLite evaluates `x IN (a, b, c, ...)` with more than two constants by building a
--    temporary index, on every execution of every statement that checks the rule (each
--    hold, settle and journal row): a third of the writer's work. `x = a OR x = b ...` is
--    the same rule at the cost of a few comparisons. SQLite cannot alter a CHECK, so both
--    tables are rebuilt, rows and ids kept. PostgreSQL keeps its IN lists (no such cost).

DROP TRIGGER journal_append_only_update;
DROP TRIGGER journal_append_only_delete;

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
    CHECK (charged_plan + charged_balance <= credits)
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
    bucket           TEXT CHECK (bucket IN ('plan', 'balance')),
    -- For plan spends: the UTC day whose plan credits were spent.
    plan_day         INTEGER
);
INSERT INTO journal_new (id, at, kind, account_id, request_id, model, input_tokens,
                         output_tokens, reasoning_tokens, credits, bucket, plan_day)
     SELECT id, at, kind, account_id, request_id, model, input_tokens,
            output_tokens, reasoning_tokens, credits, bucket, plan_day
       FROM journal;
DROP TABLE journal;
ALTER TABLE journal_new RENAME TO journal;

CREATE TRIGGER journal_append_only_update BEFORE UPDATE ON journal
BEGIN
    SELECT RAISE(ABORT, 'the journal is append-only');
END;
CREATE TRIGGER journal_append_only_delete BEFORE DELETE ON journal
BEGIN
    SELECT RAISE(ABORT, 'the journal is append-only');
END;
