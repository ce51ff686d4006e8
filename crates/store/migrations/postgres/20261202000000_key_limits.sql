-- Keys for agents: per-key spending limits, management keys, and a record of each request.
-- Same tables and columns as the SQLite migration of the same name; here the limits' rules
-- are also SQL functions (beside `ledger_rules`, held equal to `money.rs` by the `rules`
-- tests), used by the single statements (`pg_ledger.rs`) and by `shoal_ledger_batch`.
--
-- api_keys.kind           'inference' (runs requests) or 'management' (manages the account's
--                         keys, runs no request).
-- api_keys.limit_credits  the most the key's requests may spend in a window (NULL: no
--                         limit), limit_reset when the window starts again.
-- api_keys.limit_window   the UTC day the counted window starts on; limit_spent what the
--                         key's requests spent in it; limit_held what its active holds
--                         reserve.
-- holds.key_limited       the hold counted towards its key's limit (the key had one when the
--                         hold was taken): its end gives back to limit_held and adds the
--                         charge to the window.
-- journal.key_window      on the rows of such an end: the window the charge counted in.
-- generations             one row per request: token counts, credits charged, timings, how it
--                         finished and what kind of worker served it. Never text, never which
--                         worker; kept for a bounded time (`Store::prune_generations`).
--
-- A key's counters are written only by transactions that hold its account's row lock first
-- (holds, ends, the reaper, a change of limit), so the lock order stays: account, then hold
-- or key.

ALTER TABLE api_keys
    ADD COLUMN kind TEXT NOT NULL DEFAULT 'inference'
        CHECK (kind IN ('inference', 'management')),
    ADD COLUMN limit_credits BIGINT CHECK (limit_credits >= 0),
    ADD COLUMN limit_reset TEXT NOT NULL DEFAULT 'never'
        CHECK (limit_reset IN ('daily', 'weekly', 'monthly', 'never')),
    ADD COLUMN limit_window BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN limit_spent BIGINT NOT NULL DEFAULT 0 CHECK (limit_spent >= 0),
    ADD COLUMN limit_held BIGINT NOT NULL DEFAULT 0 CHECK (limit_held >= 0);

ALTER TABLE holds ADD COLUMN key_limited BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE journal ADD COLUMN key_window BIGINT;

CREATE TABLE generations (
    id            TEXT    NOT NULL PRIMARY KEY,
    account_id    BIGINT  NOT NULL REFERENCES accounts (id),
    created_at    BIGINT  NOT NULL,
    model         TEXT    NOT NULL,
    input_tokens  BIGINT  NOT NULL CHECK (input_tokens >= 0),
    output_tokens BIGINT  NOT NULL CHECK (output_tokens >= 0),
    credits       BIGINT  NOT NULL CHECK (credits >= 0),
    latency_ms    BIGINT  NOT NULL CHECK (latency_ms >= 0),
    ttft_ms       BIGINT  CHECK (ttft_ms >= 0),
    finish_reason TEXT,
    worker_kind   TEXT    NOT NULL
);
CREATE INDEX generations_created ON generations (created_at);

-- money::limit_window: the UTC day the window containing `today` starts on (0: never).
CREATE FUNCTION shoal_limit_window(reset TEXT, today BIGINT)
RETURNS BIGINT LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE reset
        WHEN 'daily' THEN today
        WHEN 'weekly' THEN today - (((today + 3) % 7) + 7) % 7
        WHEN 'monthly' THEN (date_trunc('month', ('1970-01-01'::date + today::int)::timestamp)::date
                             - '1970-01-01'::date)::BIGINT
        ELSE 0 END
$$;

-- money::key_left: what the key may still reserve in the window `current`.
CREATE FUNCTION shoal_key_left(lim BIGINT, win BIGINT, spent BIGINT, held BIGINT,
                               current BIGINT)
RETURNS BIGINT LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT lim - CASE WHEN win >= current THEN spent ELSE 0 END - held
$$;

-- shoal_ledger_batch, now with key limits: a hold of a key with a limit must fit the key's
-- remaining as well as the account's credit ('key_limit' otherwise, with the remaining in
-- r_available and the limit and its reset in r_limit, r_reset); a management key holds
-- nothing ('management_key'); the end of a hold that counted towards its key's limit gives
-- the hold back and adds the charge to the key's window (`shoal_plan_day_after` and
-- `shoal_plan_used_after`, the daily buckets' rules, on the window). The accounts are locked
-- first (SKIP LOCKED, as in ledger_batch_skip_locked), so every later statement, each with
-- a snapshot of its own, reads the key rows as they are: their writers hold the same locks.
DROP FUNCTION shoal_ledger_batch(TEXT[], TEXT[], BIGINT[], BIGINT[], TEXT[], BIGINT[], BIGINT[],
                                 BIGINT[], BIGINT[], BIGINT[], BIGINT[], BIGINT[], BIGINT[]);

CREATE FUNCTION shoal_ledger_batch(
    p_kind             TEXT[],   -- 'hold' | 'settle' | 'void'
    p_request_id       TEXT[],
    p_account          BIGINT[], -- hold only
    p_credits          BIGINT[], -- hold: credits held; settle: billed (NULL: usage missing)
    p_model            TEXT[],   -- hold only
    p_expires_at       BIGINT[], -- hold only
    p_input_tokens     BIGINT[], -- settle only
    p_output_tokens    BIGINT[],
    p_reasoning_tokens BIGINT[],
    p_now              BIGINT[],
    p_today            BIGINT[], -- the UTC day of p_now (money::utc_day)
    p_free_daily       BIGINT[], -- hold only: free daily credits it may spend
    p_key_id           BIGINT[]  -- hold only: the API key (NULL: the dashboard's session)
) RETURNS TABLE (r_ord INT, r_outcome TEXT, r_hold BIGINT, r_plan BIGINT, r_balance BIGINT,
                 r_available BIGINT, r_free BIGINT, r_limit BIGINT, r_reset TEXT)
LANGUAGE plpgsql
-- Plans of the statements below are cached per session; with the default (`auto`),
-- PostgreSQL plans each of their first five executions anew, in every session.
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    job        RECORD;
    v_avail    BIGINT;
    v_attempt  INT;
    v_owner    BIGINT;
    v_hold     RECORD;
    v_acct     RECORD;
    v_key      RECORD;
    v_limited  BOOLEAN;
    v_kind     TEXT;
    v_left     BIGINT;
    v_plan     BIGINT;
    v_balance  BIGINT;
    v_day      BIGINT;
    v_free     BIGINT;
    v_free_day BIGINT;
    v_kwin     BIGINT;
    v_locked   BIGINT[];
BEGIN
    -- The batch's accounts, locked now in id order, skipping those another session holds.
    -- Their jobs come back as 'locked' without waiting: the writer runs them apart.
    v_locked := ARRAY(
        SELECT a.id FROM accounts a
         WHERE a.id IN (SELECT COALESCE(t.account, o.account_id)
                          FROM unnest(p_kind, p_request_id, p_account) AS t(kind, request_id, account)
                          LEFT JOIN holds o ON t.kind <> 'hold' AND o.request_id = t.request_id)
         ORDER BY a.id
           FOR UPDATE SKIP LOCKED);
    FOR job IN
        SELECT t.ord::INT AS ord, t.kind, t.request_id, t.credits, t.model, t.expires_at,
               t.input_tokens, t.output_tokens, t.reasoning_tokens, t.at, t.today,
               t.free_daily, t.key_id, COALESCE(t.account, o.account_id) AS account
          FROM unnest(p_kind, p_request_id, p_account, p_credits, p_model, p_expires_at,
                      p_input_tokens, p_output_tokens, p_reasoning_tokens, p_now, p_today,
                      p_free_daily, p_key_id)
               WITH ORDINALITY
               AS t(kind, request_id, account, credits, model, expires_at, input_tokens,
                    output_tokens, reasoning_tokens, at, today, free_daily, key_id, ord)
          LEFT JOIN holds o ON t.kind <> 'hold' AND o.request_id = t.request_id
         ORDER BY COALESCE(t.account, o.account_id), t.ord
    LOOP
        r_ord := job.ord;
        r_hold := NULL;
        r_plan := NULL;
        r_balance := NULL;
        r_available := NULL;
        r_free := NULL;
        r_limit := NULL;
        r_reset := NULL;
        v_limited := false;
        IF job.account IS NOT NULL AND NOT job.account = ANY (v_locked)
           AND EXISTS (SELECT 1 FROM accounts WHERE id = job.account) THEN
            r_outcome := 'locked';
            RETURN NEXT;
            CONTINUE;
        END IF;
        IF job.kind = 'hold' AND job.key_id IS NOT NULL THEN
            SELECT kind, limit_credits, limit_reset,
                   shoal_key_left(limit_credits, limit_window, limit_spent, limit_held,
                                  shoal_limit_window(limit_reset, job.today)) AS key_left
              INTO v_key
              FROM api_keys WHERE id = job.key_id AND account_id = job.account;
            IF FOUND AND v_key.kind = 'management' THEN
                r_outcome := 'management_key';
                RETURN NEXT;
                CONTINUE;
            END IF;
            v_limited := FOUND AND v_key.limit_credits IS NOT NULL;
            IF v_limited AND v_key.key_left < job.credits THEN
                r_outcome := 'key_limit';
                r_available := GREATEST(v_key.key_left, 0);
                r_limit := v_key.limit_credits;
                r_reset := v_key.limit_reset;
                RETURN NEXT;
                CONTINUE;
            END IF;
        END IF;
        IF job.kind = 'hold' THEN
            v_attempt := 0;
            LOOP
                v_attempt := v_attempt + 1;
                UPDATE accounts SET held = held + job.credits
                 WHERE id = job.account
                   AND shoal_available_free(job.free_daily, free_day, free_used,
                                            plan_daily_credits, plan_day, plan_used, credits,
                                            held, job.today) >= job.credits;
                IF FOUND THEN
                    INSERT INTO holds (request_id, account_id, credits, model, created_at,
                                       expires_at, free_daily, key_id, key_limited)
                         VALUES (job.request_id, job.account, job.credits, job.model,
                                 job.at, job.expires_at, job.free_daily, job.key_id, v_limited)
                    ON CONFLICT (request_id) DO NOTHING;
                    IF FOUND THEN
                        INSERT INTO journal (at, kind, account_id, request_id, model, credits,
                                             key_id)
                             VALUES (job.at, 'hold', job.account, job.request_id, job.model,
                                     job.credits, job.key_id);
                        IF v_limited THEN
                            UPDATE api_keys SET limit_held = limit_held + job.credits
                             WHERE id = job.key_id;
                        END IF;
                        r_outcome := 'held';
                    ELSE
                        -- Undo the admission: the request id is taken.
                        UPDATE accounts SET held = held - job.credits WHERE id = job.account;
                        r_outcome := 'duplicate';
                    END IF;
                    EXIT;
                END IF;
                -- Not admitted. Under READ COMMITTED a settle may have freed credit since
                -- the write looked; a fresh read tells, and a retry is a new conditional
                -- write.
                SELECT shoal_available_free(job.free_daily, free_day, free_used,
                                            plan_daily_credits, plan_day, plan_used, credits,
                                            held, job.today)
                  INTO v_avail
                  FROM accounts WHERE id = job.account;
                IF NOT FOUND THEN
                    r_outcome := 'no_account';
                    EXIT;
                END IF;
                IF v_avail < job.credits OR v_attempt >= 3 THEN
                    r_outcome := 'insufficient';
                    r_available := LEAST(GREATEST(v_avail, 0), job.credits - 1);
                    EXIT;
                END IF;
            END LOOP;
        ELSE
            -- The account first, then the hold: the order every ledger transaction takes
            -- locks in. A hold's account never changes, so it can be read unlocked (the
            -- ordering query above did, unless the hold was not there yet).
            v_owner := job.account;
            IF v_owner IS NULL THEN
                SELECT account_id INTO v_owner FROM holds WHERE request_id = job.request_id;
            END IF;
            IF v_owner IS NULL THEN
                r_outcome := 'unknown';
            ELSE
                SELECT credits, plan_daily_credits, plan_day, plan_used, free_day, free_used
                  INTO v_acct
                  FROM accounts WHERE id = v_owner
                   FOR UPDATE;
                v_left := shoal_plan_left(v_acct.plan_daily_credits, v_acct.plan_day,
                                          v_acct.plan_used, job.today);
                -- Ends the hold if still active (a concurrent end waits for the row, then
                -- finds it ended), charging free credits left first (the hold's allowance),
                -- then plan credits left, then the balance.
                UPDATE holds
                   SET state = CASE WHEN expires_at <= job.at THEN 'expired'
                                    WHEN job.kind = 'settle' THEN 'settled'
                                    ELSE 'voided' END,
                       ended_at = job.at,
                       charged_free = c.from_free,
                       charged_plan = shoal_from_plan(c.charge - c.from_free, v_left),
                       charged_balance = shoal_from_balance(c.charge - c.from_free, v_left,
                                                            v_acct.credits)
                  FROM (SELECT o.charge,
                               shoal_from_free(o.charge,
                                               shoal_plan_left(o.free_daily, v_acct.free_day,
                                                               v_acct.free_used, job.today))
                                   AS from_free
                          FROM (SELECT shoal_charge(job.kind = 'settle', h.expires_at <= job.at,
                                                    job.credits, h.credits) AS charge,
                                       h.free_daily
                                  FROM holds h WHERE h.request_id = job.request_id) o) c
                 WHERE request_id = job.request_id AND state = 'active'
                RETURNING account_id, credits, model, state, charged_free, charged_plan,
                          charged_balance, key_id, key_limited
                     INTO v_hold;
                IF NOT FOUND THEN
                    r_outcome := 'ended';
                ELSE
                    v_kind := CASE v_hold.state WHEN 'settled' THEN 'settle'
                                                WHEN 'voided' THEN 'void'
                                                ELSE 'expire' END;
                    v_free := v_hold.charged_free;
                    v_plan := v_hold.charged_plan;
                    v_balance := v_hold.charged_balance;
                    v_day := shoal_plan_day_after(v_acct.plan_day, job.today, v_plan);
                    v_free_day := shoal_plan_day_after(v_acct.free_day, job.today, v_free);
                    v_kwin := NULL;
                    IF v_hold.key_limited THEN
                        -- The key's window: the daily buckets' rules, on the window.
                        UPDATE api_keys k
                           SET limit_held = k.limit_held - v_hold.credits,
                               limit_window = shoal_plan_day_after(k.limit_window,
                                   shoal_limit_window(k.limit_reset, job.today),
                                   v_free + v_plan + v_balance),
                               limit_spent = shoal_plan_used_after(k.limit_window, k.limit_spent,
                                   shoal_limit_window(k.limit_reset, job.today),
                                   v_free + v_plan + v_balance)
                         WHERE k.id = v_hold.key_id
                        RETURNING k.limit_window INTO v_kwin;
                    END IF;
                    UPDATE accounts
                       SET held = held - v_hold.credits,
                           credits = credits - v_balance,
                           total_spent = total_spent + v_balance,
                           plan_used = shoal_plan_used_after(v_acct.plan_day, v_acct.plan_used,
                                                             job.today, v_plan),
                           plan_day = v_day,
                           free_used = shoal_plan_used_after(v_acct.free_day, v_acct.free_used,
                                                             job.today, v_free),
                           free_day = v_free_day
                     WHERE id = v_hold.account_id;
                    INSERT INTO journal (at, kind, account_id, request_id, model, input_tokens,
                                         output_tokens, reasoning_tokens, credits, bucket, plan_day,
                                         key_id, key_window)
                         VALUES (job.at, v_kind, v_hold.account_id, job.request_id, v_hold.model,
                                 CASE WHEN v_kind = 'settle' THEN job.input_tokens ELSE 0 END,
                                 CASE WHEN v_kind = 'settle' THEN job.output_tokens ELSE 0 END,
                                 CASE WHEN v_kind = 'settle' THEN job.reasoning_tokens ELSE 0 END,
                                 v_balance,
                                 CASE WHEN v_kind = 'settle' THEN 'balance' END,
                                 NULL, v_hold.key_id, v_kwin);
                    IF v_free > 0 THEN
                        INSERT INTO journal (at, kind, account_id, request_id, model, credits,
                                             bucket, plan_day, key_id, key_window)
                             VALUES (job.at, 'settle', v_hold.account_id, job.request_id, v_hold.model,
                                     v_free, 'free', v_free_day, v_hold.key_id, v_kwin);
                    END IF;
                    IF v_plan > 0 THEN
                        INSERT INTO journal (at, kind, account_id, request_id, model, credits,
                                             bucket, plan_day, key_id, key_window)
                             VALUES (job.at, 'settle', v_hold.account_id, job.request_id, v_hold.model,
                                     v_plan, 'plan', v_day, v_hold.key_id, v_kwin);
                    END IF;
                    r_outcome := v_kind;
                    r_hold := v_hold.credits;
                    r_plan := v_plan;
                    r_balance := v_balance;
                    r_free := v_free;
                END IF;
            END IF;
        END IF;
        RETURN NEXT;
    END LOOP;
END;
$$;
