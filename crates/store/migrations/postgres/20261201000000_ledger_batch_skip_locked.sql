-- The ledger batch never waits for a row lock. It locks its accounts first, in id order,
-- with SKIP LOCKED; a job whose account another session holds locked (another gateway's
-- batch a moment longer, or a session frozen inside a transaction) comes back as 'locked'
-- at once, and the writer runs it apart, on a connection of its own that may wait at most
-- `lock_timeout`. So one account's lock never holds up the other accounts' jobs behind it.
-- Everything else is as in 20261126071500_usage_by_key.sql.
--
-- Outcomes: as before, and 'locked' for any job (nothing done).

CREATE OR REPLACE FUNCTION shoal_ledger_batch(
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
                 r_available BIGINT, r_free BIGINT)
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
    v_kind     TEXT;
    v_left     BIGINT;
    v_plan     BIGINT;
    v_balance  BIGINT;
    v_day      BIGINT;
    v_free     BIGINT;
    v_free_day BIGINT;
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
        IF job.account IS NOT NULL AND NOT job.account = ANY (v_locked)
           AND EXISTS (SELECT 1 FROM accounts WHERE id = job.account) THEN
            r_outcome := 'locked';
        ELSIF job.kind = 'hold' THEN
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
                                       expires_at, free_daily, key_id)
                         VALUES (job.request_id, job.account, job.credits, job.model,
                                 job.at, job.expires_at, job.free_daily, job.key_id)
                    ON CONFLICT (request_id) DO NOTHING;
                    IF FOUND THEN
                        INSERT INTO journal (at, kind, account_id, request_id, model, credits,
                                             key_id)
                             VALUES (job.at, 'hold', job.account, job.request_id, job.model,
                                     job.credits, job.key_id);
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
                          charged_balance, key_id
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
                                         key_id)
                         VALUES (job.at, v_kind, v_hold.account_id, job.request_id, v_hold.model,
                                 CASE WHEN v_kind = 'settle' THEN job.input_tokens ELSE 0 END,
                                 CASE WHEN v_kind = 'settle' THEN job.output_tokens ELSE 0 END,
                                 CASE WHEN v_kind = 'settle' THEN job.reasoning_tokens ELSE 0 END,
                                 v_balance,
                                 CASE WHEN v_kind = 'settle' THEN 'balance' END,
                                 NULL, v_hold.key_id);
                    IF v_free > 0 THEN
                        INSERT INTO journal (at, kind, account_id, request_id, model, credits,
                                             bucket, plan_day, key_id)
                             VALUES (job.at, 'settle', v_hold.account_id, job.request_id, v_hold.model,
                                     v_free, 'free', v_free_day, v_hold.key_id);
                    END IF;
                    IF v_plan > 0 THEN
                        INSERT INTO journal (at, kind, account_id, request_id, model, credits,
                                             bucket, plan_day, key_id)
                             VALUES (job.at, 'settle', v_hold.account_id, job.request_id, v_hold.model,
                                     v_plan, 'plan', v_day, v_hold.key_id);
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
