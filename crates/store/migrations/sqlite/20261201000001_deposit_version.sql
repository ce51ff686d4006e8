-- deposit_remainders.version, as in the PostgreSQL migration of the same name (there a
-- deposit is decided on a state read without locks, and applied only if the version is
-- unchanged). SQLite's single writer decides inside its own transaction and does not read
-- it; the column keeps the two schemas the same.
ALTER TABLE deposit_remainders ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
