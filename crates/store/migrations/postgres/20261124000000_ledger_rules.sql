-- The ledger's rules, defined once for PostgreSQL: `money.rs` states them (and SQLite
-- evaluates them there, in Rust); these functions are the same rules in SQL, used by the
-- single statements (`pg_writer.rs`) and by `shoal_ledger_batch`, and checked against
-- `money.rs` by the store's tests (`rules`). Plain SQL expressions, IMMUTABLE and without
-- SET clauses, so that the planner inlines them: a call costs nothing at execution.
--
-- The plan day moves only when a settle spends plan credits (see `money.rs`): a void, a
-- hold found expired or a charge paid without plan credits leave `plan_day` and
-- `plan_used` as they are.

-- money::plan_left: plan credits left on `today`.
CREATE FUNCTION shoal_plan_left(daily BIGINT, plan_day BIGINT, plan_used BIGINT, today BIGINT)
RETURNS BIGINT LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN plan_day >= today THEN GREATEST(daily - plan_used, 0)
                ELSE GREATEST(daily, 0) END
$$;

-- Credit available for a new hold: plan credits left today + balance - active holds.
CREATE FUNCTION shoal_available(daily BIGINT, plan_day BIGINT, plan_used BIGINT,
                                balance BIGINT, held BIGINT, today BIGINT)
RETURNS BIGINT LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT shoal_plan_left(daily, plan_day, plan_used, today) + balance - held
$$;

-- What ending a hold charges: 0 when voided or expired; a settle's billed credits clamped
-- to [0, hold] (money::clamp_charge), the whole hold when usage is missing (NULL).
CREATE FUNCTION shoal_charge(settle BOOLEAN, expired BOOLEAN, billed BIGINT, hold BIGINT)
RETURNS BIGINT LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN expired OR NOT settle THEN 0
                WHEN billed IS NULL THEN GREATEST(hold, 0)
                ELSE LEAST(GREATEST(billed, 0), GREATEST(hold, 0)) END
$$;

-- money::split_charge, plan part: plan credits left first.
CREATE FUNCTION shoal_from_plan(charge BIGINT, plan_left BIGINT)
RETURNS BIGINT LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT LEAST(GREATEST(charge, 0), GREATEST(plan_left, 0))
$$;

-- money::split_charge, balance part: the rest, never more than the balance.
CREATE FUNCTION shoal_from_balance(charge BIGINT, plan_left BIGINT, balance BIGINT)
RETURNS BIGINT LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT LEAST(GREATEST(charge, 0) - shoal_from_plan(charge, plan_left), GREATEST(balance, 0))
$$;

-- money::plan_after: the plan day after a settle on `today` spent `from_plan`.
CREATE FUNCTION shoal_plan_day_after(plan_day BIGINT, today BIGINT, from_plan BIGINT)
RETURNS BIGINT LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN from_plan > 0 THEN GREATEST(plan_day, today) ELSE plan_day END
$$;

-- money::plan_after: the plan credits used on that day.
CREATE FUNCTION shoal_plan_used_after(plan_day BIGINT, plan_used BIGINT, today BIGINT,
                                      from_plan BIGINT)
RETURNS BIGINT LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN from_plan <= 0 THEN plan_used
                WHEN plan_day >= today THEN plan_used + from_plan
                ELSE from_plan END
$$;

-- shoal_ledger_batch with the rules above (same arguments, results and locking as
-- before; see 20260301000001_ledger_batch.sql for the outcomes it returns).
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
                   AND shoal_available(plan_daily_credits, plan_day, plan_used, credits, held,
                                       job.today) >= job.credits;
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
                SELECT shoal_available(plan_daily_credits, plan_day, plan_used, credits, held,
                                       job.today)
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
                v_left := shoal_plan_left(v_acct.plan_daily_credits, v_acct.plan_day,
                                          v_acct.plan_used, job.today);
                -- Ends the hold if still active (a concurrent end waits for the row, then
                -- finds it ended), charging plan credits left first, then the balance.
                UPDATE holds
                   SET state = CASE WHEN expires_at <= job.at THEN 'expired'
                                    WHEN job.kind = 'settle' THEN 'settled'
                                    ELSE 'voided' END,
                       ended_at = job.at,
                       charged_plan = shoal_from_plan(
                           shoal_charge(job.kind = 'settle', expires_at <= job.at, job.credits,
                                        credits),
                           v_left),
                       charged_balance = shoal_from_balance(
                           shoal_charge(job.kind = 'settle', expires_at <= job.at, job.credits,
                                        credits),
                           v_left, v_acct.credits)
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
                    v_day := shoal_plan_day_after(v_acct.plan_day, job.today, v_plan);
                    UPDATE accounts
                       SET held = held - v_hold.credits,
                           credits = credits - v_balance,
                           total_spent = total_spent + v_balance,
                           plan_used = shoal_plan_used_after(v_acct.plan_day, v_acct.plan_used,
                                                             job.today, v_plan),
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
