-- Password reset links sent by mail: only the SHA-256 of a token is stored; a token opens
-- one reset, before expires_at (Unix ms). Same as the PostgreSQL migration of the same name.
CREATE TABLE password_resets (
    token_hash  BLOB    NOT NULL PRIMARY KEY,
    account_id  INTEGER NOT NULL REFERENCES accounts (id),
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX password_resets_account ON password_resets (account_id);
