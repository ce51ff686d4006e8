-- A key's own cap on its requests in flight at once (NULL: the gateway's
-- `key_concurrency`). Same as the SQLite migration of the same name.
ALTER TABLE api_keys ADD COLUMN concurrency BIGINT CHECK (concurrency > 0);
