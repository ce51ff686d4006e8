-- Ledger movements in batches: one call, one transaction, one commit for many holds and
-- settles (the gateway's writer connections send what is waiting). Per job the rules are
-- the ones the single statements had, and the same as SQLite's:
--
-- hold    a conditional UPDATE admits it (available = plan credits left today + balance -
--         active holds >= credits); the hold row and its journal row follow. A request id
--         that already has a hold, or no such account, changes nothing.
-- settle  locks the account, then the active hold; a hold at or past its expiry ends as
-- void    'expire' with charge 0; otherwise the charge (settle: billed credits clamped to
--         [0, hold], NULL = the whole hold; void: 0) is spent plan credits left today
--         first, then the balance, never more than the balance; the plan day only moves
--         forward; the rest of the hold is released.
--
-- No job raises an error for any of those outcomes, so one job never aborts the others'
-- transaction. Locks are taken account first, then hold, by every ledger transaction
-- (this function, the single statements, the reaper), and the jobs of a batch run in
-- account order (a settle's account is read from its hold), so that batches of several
-- connections or gateways take locks in the same order and do not deadlock. Jobs of one
-- batch are concurrent requests: any order between them is one they could have arrived in.
--
-- Returns one row per job: its index (1-based), and
--   hold:   'held' | 'insufficient' (r_available) | 'duplicate' | 'no_account'
--   settle/void: 'settle' | 'void' | 'expire' (r_hold, r_plan, r_balance) | 'ended' | 'unknown'
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
    p_today            BIGINT[]  -- the UTC day of p_now (money::utc_day)
) RETURNS TABLE (r_ord INT, r_outcome TEXT, r_hold BIGINT, r_plan BIGINT, r_balance BIGINT,
                 r_available BIGINT)
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
    v_charge   BIGINT;
    v_left     BIGINT;
    v_plan     BIGINT;
    v_balance  BIGINT;
    v_day      BIGINT;
BEGIN
    FOR job IN
        SELECT t.ord::INT AS ord, t.kind, t.request_id, t.credits, t.model, t.expires_at,
               t.input_tokens, t.output_tokens, t.reasoning_tokens, t.at, t.today,
               COALESCE(t.account, o.account_id) AS account
          FROM unnest(p_kind, p_request_id, p_account, p_credits, p_model, p_expires_at,
                      p_input_tokens, p_output_tokens, p_reasoning_tokens, p_now, p_today)
               WITH ORDINALITY
               AS t(kind, request_id, account, credits, model, expires_at, input_tokens,
                    output_tokens, reasoning_tokens, at, today, ord)
          LEFT JOIN holds o ON t.kind <> 'hold' AND o.request_id = t.request_id
         ORDER BY COALESCE(t.account, o.account_id), t.ord
    LOOP
        r_ord := job.ord;
        r_hold := NULL;
        r_plan := NULL;
        r_balance := NULL;
        r_available := NULL;
        IF job.kind = 'hold' THEN
            v_attempt := 0;
            LOOP
                v_attempt := v_attempt + 1;
                UPDATE accounts SET held = held + job.credits
                 WHERE id = job.account
                   AND (CASE WHEN plan_day >= job.today
                             THEN GREATEST(plan_daily_credits - plan_used, 0)
                             ELSE plan_daily_credits END) + credits - held >= job.credits;
                IF FOUND THEN
                    INSERT INTO holds (request_id, account_id, credits, model, created_at,
                                       expires_at)
                         VALUES (job.request_id, job.account, job.credits, job.model,
                                 job.at, job.expires_at)
                    ON CONFLICT (request_id) DO NOTHING;
                    IF FOUND THEN
                        INSERT INTO journal (at, kind, account_id, request_id, model, credits)
                             VALUES (job.at, 'hold', job.account, job.request_id, job.model,
                                     job.credits);
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
                SELECT (CASE WHEN plan_day >= job.today
                             THEN GREATEST(plan_daily_credits - plan_used, 0)
                             ELSE plan_daily_credits END) + credits - held
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
                SELECT credits, plan_daily_credits, plan_day, plan_used INTO v_acct
                  FROM accounts WHERE id = v_owner
                   FOR UPDATE;
                v_left := CASE WHEN v_acct.plan_day >= job.today
                               THEN GREATEST(v_acct.plan_daily_credits - v_acct.plan_used, 0)
                               ELSE v_acct.plan_daily_credits END;
                -- Ends the hold if still active (a concurrent end waits for the row, then
                -- finds it ended). The charge: 0 when expired or voided, else the billed
                -- credits clamped to [0, hold], the whole hold when NULL; plan first, then
                -- the balance, never more than the balance.
                UPDATE holds
                   SET state = CASE WHEN expires_at <= job.at THEN 'expired'
                                    WHEN job.kind = 'settle' THEN 'settled'
                                    ELSE 'voided' END,
                       ended_at = job.at,
                       charged_plan = LEAST((CASE WHEN expires_at <= job.at OR job.kind <> 'settle' THEN 0
                                                 WHEN job.credits IS NULL THEN credits
                                                 ELSE LEAST(GREATEST(job.credits, 0), credits) END), v_left),
                       charged_balance = LEAST((CASE WHEN expires_at <= job.at OR job.kind <> 'settle' THEN 0
                                                    WHEN job.credits IS NULL THEN credits
                                                    ELSE LEAST(GREATEST(job.credits, 0), credits) END)
                                               - LEAST((CASE WHEN expires_at <= job.at OR job.kind <> 'settle' THEN 0
                                                            WHEN job.credits IS NULL THEN credits
                                                            ELSE LEAST(GREATEST(job.credits, 0), credits) END), v_left),
                                               GREATEST(v_acct.credits, 0))
                 WHERE request_id = job.request_id AND state = 'active'
                RETURNING account_id, credits, model, state, charged_plan, charged_balance
                     INTO v_hold;
                IF NOT FOUND THEN
                    r_outcome := 'ended';
                ELSE
                    v_kind := CASE v_hold.state WHEN 'settled' THEN 'settle'
                                                WHEN 'voided' THEN 'void'
                                                ELSE 'expire' END;
                    v_plan := v_hold.charged_plan;
                    v_balance := v_hold.charged_balance;
                    v_day := GREATEST(v_acct.plan_day, job.today);
                    UPDATE accounts
                       SET held = held - v_hold.credits,
                           credits = credits - v_balance,
                           total_spent = total_spent + v_balance,
                           plan_used = (CASE WHEN v_acct.plan_day >= job.today THEN v_acct.plan_used ELSE 0 END)
                                       + v_plan,
                           plan_day = v_day
                     WHERE id = v_hold.account_id;
                    INSERT INTO journal (at, kind, account_id, request_id, model, input_tokens,
                                         output_tokens, reasoning_tokens, credits, bucket, plan_day)
                         VALUES (job.at, v_kind, v_hold.account_id, job.request_id, v_hold.model,
                                 CASE WHEN v_kind = 'settle' THEN job.input_tokens ELSE 0 END,
                                 CASE WHEN v_kind = 'settle' THEN job.output_tokens ELSE 0 END,
                                 CASE WHEN v_kind = 'settle' THEN job.reasoning_tokens ELSE 0 END,
                                 v_balance,
                                 CASE WHEN v_kind = 'settle' THEN 'balance' END,
                                 NULL);
                    IF v_plan > 0 THEN
                        INSERT INTO journal (at, kind, account_id, request_id, model, credits,
                                             bucket, plan_day)
                             VALUES (job.at, 'settle', v_hold.account_id, job.request_id, v_hold.model,
                                     v_plan, 'plan', v_day);
                    END IF;
                    r_outcome := v_kind;
                    r_hold := v_hold.credits;
                    r_plan := v_plan;
                    r_balance := v_balance;
                END IF;
            END IF;
        END IF;
        RETURN NEXT;
    END LOOP;
END;
$$;
