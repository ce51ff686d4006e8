-- Blocked image prompts, counted per API key (key_id 0: the dashboard's session) of an
-- account: counts only, never the prompt or why it was blocked. blocks counts within the
-- window that began at window_start (Unix ms); suspended_at is set when the key's blocks, or
-- its account's, reached the operator's limit, and stays until an operator clears the row.
-- Same as the SQLite migration of the same name.
CREATE TABLE image_blocks (
    account_id    BIGINT NOT NULL REFERENCES accounts (id),
    key_id        BIGINT NOT NULL,
    window_start  BIGINT NOT NULL,
    blocks        BIGINT NOT NULL,
    suspended_at  BIGINT,
    PRIMARY KEY (account_id, key_id)
);
