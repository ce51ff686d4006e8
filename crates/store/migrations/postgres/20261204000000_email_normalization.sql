-- Emails are stored and compared normalised (NFKC, Unicode lower case), a rule made in Rust
-- (store/emails.rs): at the first open after this migration the store normalises the emails
-- already stored, reports the accounts whose addresses collide once normalised, and deletes
-- this row. Same on both backends.
CREATE TABLE store_fixups (
    name TEXT NOT NULL PRIMARY KEY
);
INSERT INTO store_fixups (name) VALUES ('normalize_emails');
