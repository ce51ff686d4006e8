-- Browser invites: worker tokens that admit only a `kind: browser` worker, until expires_at
-- (Unix ms). Tokens made before have neither limit.
ALTER TABLE worker_tokens ADD COLUMN browser_only BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE worker_tokens ADD COLUMN expires_at BIGINT;
