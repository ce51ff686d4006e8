-- Usage by API key, and the usage page's rollup. Same as the PostgreSQL migration of the same
-- name.
--
-- holds.key_id, journal.key_id: the API key a request authenticated with (NULL for requests
-- from the dashboard's session, for the reaper's expiry rows, and for rows written before
-- this migration). The hold carries it to the rows of the hold's end.
--
-- usage_daily: settled usage per account, UTC day, model and key, kept by a trigger on the
-- journal in the same transaction as the settle rows it counts, so the dashboard reads a few
-- hundred rows instead of aggregating every settle of 30 days. key_id 0 is the dashboard's
-- session; -1 is usage from before keys were recorded. `requests` counts settles (one
-- 'balance' row each); credits are summed over every bucket; last_at is the latest settle
-- (a key's "last used"). `verify_ledger` checks it against the journal.

ALTER TABLE holds ADD COLUMN key_id INTEGER;
ALTER TABLE journal ADD COLUMN key_id INTEGER;

CREATE TABLE usage_daily (
    account_id    INTEGER NOT NULL REFERENCES accounts (id),
    day           INTEGER NOT NULL,
    model         TEXT    NOT NULL,
    key_id        INTEGER NOT NULL,
    requests      INTEGER NOT NULL,
    input_tokens  INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    credits       INTEGER NOT NULL,
    last_at       INTEGER NOT NULL,
    PRIMARY KEY (account_id, day, model, key_id)
) WITHOUT ROWID;

INSERT INTO usage_daily (account_id, day, model, key_id, requests, input_tokens,
                         output_tokens, credits, last_at)
     SELECT account_id, at / 86400000, COALESCE(model, ''), -1,
            COUNT(CASE WHEN bucket = 'balance' THEN 1 END), SUM(input_tokens),
            SUM(output_tokens), SUM(credits), MAX(at)
       FROM journal
      WHERE kind = 'settle'
      GROUP BY account_id, at / 86400000, COALESCE(model, '');

CREATE TRIGGER journal_usage AFTER INSERT ON journal WHEN NEW.kind = 'settle'
BEGIN
    INSERT INTO usage_daily (account_id, day, model, key_id, requests, input_tokens,
                             output_tokens, credits, last_at)
    VALUES (NEW.account_id, NEW.at / 86400000, COALESCE(NEW.model, ''),
            COALESCE(NEW.key_id, 0), NEW.bucket = 'balance', NEW.input_tokens,
            NEW.output_tokens, NEW.credits, NEW.at)
    ON CONFLICT (account_id, day, model, key_id) DO UPDATE
       SET requests = requests + excluded.requests,
           input_tokens = input_tokens + excluded.input_tokens,
           output_tokens = output_tokens + excluded.output_tokens,
           credits = credits + excluded.credits,
           last_at = MAX(last_at, excluded.last_at);
END;

-- The usage page read the journal through this index; it reads usage_daily now.
DROP INDEX journal_settles;
