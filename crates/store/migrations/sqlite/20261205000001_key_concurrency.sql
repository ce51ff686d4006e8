-- A key's own cap on its requests in flight at once (NULL: the gateway's
-- `key_concurrency`). Same as the PostgreSQL migration of the same name.
ALTER TABLE api_keys ADD COLUMN concurrency INTEGER CHECK (concurrency > 0);
