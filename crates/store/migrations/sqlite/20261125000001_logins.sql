-- Logging in to the dashboard: a password per account (an Argon2id PHC string, hashed by
-- the gateway; NULL: no password, the account is used through API keys only) and login
-- sessions. Same as the PostgreSQL migration of the same name.
ALTER TABLE accounts ADD COLUMN password_hash TEXT;

-- Only the SHA-256 of a session token is stored, as for API keys.
CREATE TABLE sessions (
    token_hash  BLOB    NOT NULL PRIMARY KEY,
    account_id  INTEGER NOT NULL REFERENCES accounts (id),
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX sessions_account ON sessions (account_id);
CREATE INDEX sessions_expiry ON sessions (expires_at);
