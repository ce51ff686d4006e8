-- Accounts an operator disabled or deleted (`shoal admin account disable / delete`).
-- Same as the PostgreSQL migration of the same name.
--
-- accounts.disabled_at  set: the account's keys and sessions open nothing and it cannot log
--                       in; cleared by `enable`.
-- accounts.deleted_at   set: the account was deleted. Its email became `deleted:<id>` (no
--                       address has that form), its password, sessions, reset links, key
--                       names and request records are gone, its keys revoked; its balance
--                       columns, holds and journal rows stay, so the ledger still verifies.
ALTER TABLE accounts ADD COLUMN disabled_at INTEGER;
ALTER TABLE accounts ADD COLUMN deleted_at INTEGER;
