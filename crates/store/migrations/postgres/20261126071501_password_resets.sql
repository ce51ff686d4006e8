-- Password reset links sent by mail: only the SHA-256 of a token is stored; a token opens
-- one reset, before expires_at (Unix ms). Same as the SQLite migration of the same name.
CREATE TABLE password_resets (
    token_hash  BYTEA  NOT NULL PRIMARY KEY,
    account_id  BIGINT NOT NULL REFERENCES accounts (id),
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX password_resets_account ON password_resets (account_id);
