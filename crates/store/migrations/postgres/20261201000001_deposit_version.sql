-- Recording a deposit without holding an account's lock across round trips. The gateway
-- reads what it decides on (the account's deposits waiting below the minimum, its carried
-- remainder, and `version`) without locks, decides in Rust (`deposits::decide`), then
-- applies the decision with one call of `shoal_record_deposit`, which first moves `version`
-- on only if it is still what was read. Every deposit write goes through that check, so a
-- decision made on a state that changed meanwhile changes nothing ('retry') and is made
-- again. The account's row is locked only inside the call, on the server: a gateway that
-- freezes or loses the network between two round trips holds no lock.
--
-- Locks are taken in the order deposit_remainders, then accounts: no other transaction takes
-- them the other way round (holds, settles and the reaper lock accounts, then holds).

ALTER TABLE deposit_remainders ADD COLUMN version BIGINT NOT NULL DEFAULT 0;

CREATE FUNCTION shoal_record_deposit(
    p_version      BIGINT,  -- deposit_remainders.version as read
    p_chain_id     BIGINT,
    p_tx_hash      TEXT,
    p_log_index    BIGINT,
    p_block_number BIGINT,
    p_token        TEXT,
    p_account      BIGINT,
    p_amount       TEXT,    -- base units, decimal digits
    p_now          BIGINT,
    p_decision     TEXT,    -- 'wait' | 'credit' | 'too_large'
    p_credits      BIGINT,  -- credit: whole credits for the waiting deposits and this one
    p_remainder    BIGINT,  -- credit: the remainder carried after it
    p_max_credits  BIGINT,  -- the cap on an account's lifetime deposits
    p_reference    TEXT     -- the journal's reference: chain_id:tx_hash:log_index
) RETURNS TEXT             -- 'retry' | 'already' | 'waiting' | 'credited' | 'too_large'
LANGUAGE plpgsql
AS $$
DECLARE
    v_id BIGINT;
BEGIN
    UPDATE deposit_remainders SET version = version + 1
     WHERE account_id = p_account AND version = p_version;
    IF NOT FOUND THEN
        RETURN 'retry';
    END IF;
    INSERT INTO deposits (chain_id, tx_hash, log_index, block_number, token, account_id, amount,
                          state, recorded_at)
         VALUES (p_chain_id, p_tx_hash, p_log_index, p_block_number, p_token, p_account,
                 p_amount, 'below_minimum', p_now)
    ON CONFLICT (chain_id, tx_hash, log_index) DO NOTHING
    RETURNING id INTO v_id;
    IF v_id IS NULL THEN
        RETURN 'already';
    END IF;
    IF p_decision = 'wait' THEN
        RETURN 'waiting';
    END IF;
    IF p_decision = 'credit' AND p_credits > 0 THEN
        UPDATE accounts SET credits = credits + p_credits,
                            total_deposited = total_deposited + p_credits
         WHERE id = p_account AND total_deposited + p_credits <= p_max_credits;
        IF FOUND THEN
            INSERT INTO journal (at, kind, account_id, request_id, credits, bucket)
                 VALUES (p_now, 'deposit', p_account, p_reference, p_credits, 'balance');
        ELSE
            p_decision := 'too_large';
        END IF;
    END IF;
    IF p_decision = 'credit' THEN
        UPDATE deposit_remainders SET remainder = p_remainder WHERE account_id = p_account;
        UPDATE deposits
           SET state = 'credited', credited_at = p_now,
               credits = CASE WHEN id = v_id THEN p_credits ELSE 0 END
         WHERE account_id = p_account AND chain_id = p_chain_id AND token = p_token
           AND state = 'below_minimum';
        RETURN 'credited';
    END IF;
    UPDATE deposits SET state = 'too_large' WHERE id = v_id;
    RETURN 'too_large';
END;
$$;
