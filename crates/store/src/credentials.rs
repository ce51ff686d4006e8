//! API keys and worker tokens: their shape, generation and hashing. Pure, no I/O.
//!
//! A credential is a fixed prefix followed by random base62 characters from a CSPRNG
//! (`sk-shoal-` + 40 for API keys, `shoal-wt-` + 40 for worker tokens: about 238 bits).
//! The store keeps only [`hash_secret`] of it (SHA-256: enough for secrets this long, no
//! salt or stretching needed) and a short [`display_prefix`] to recognise it in listings.
//! The shape check ([`is_well_formed_api_key`]) runs before any lookup, so malformed input
//! never reaches the database.

use rand::distr::{Alphanumeric, SampleString};
use sha2::{Digest, Sha256};

/// Every API key starts with this.
pub const API_KEY_PREFIX: &str = "sk-shoal-";
/// Every worker token starts with this.
pub const WORKER_TOKEN_PREFIX: &str = "shoal-wt-";
/// Random characters in a freshly generated key or token.
pub const SECRET_RANDOM_CHARS: usize = 40;
/// Fewest random characters a presented key or token may have to be considered at all.
pub const MIN_RANDOM_CHARS: usize = 32;
/// Longest random part accepted (guards the hash against absurd input).
pub const MAX_RANDOM_CHARS: usize = 128;
/// Random characters kept in the display prefix.
pub const DISPLAY_RANDOM_CHARS: usize = 4;

fn generate(prefix: &str) -> String {
    let mut s = String::with_capacity(prefix.len() + SECRET_RANDOM_CHARS);
    s.push_str(prefix);
    // `rand::rng()` is a CSPRNG (ChaCha) seeded from the OS.
    Alphanumeric.append_string(&mut rand::rng(), &mut s, SECRET_RANDOM_CHARS);
    s
}

fn is_well_formed(prefix: &str, s: &str) -> bool {
    match s.strip_prefix(prefix) {
        Some(rest) => {
            (MIN_RANDOM_CHARS..=MAX_RANDOM_CHARS).contains(&rest.len())
                && rest.bytes().all(|b| b.is_ascii_alphanumeric())
        }
        None => false,
    }
}

fn display(prefix: &str, s: &str) -> String {
    let rest = s.strip_prefix(prefix).unwrap_or("");
    let shown: String = rest.chars().take(DISPLAY_RANDOM_CHARS).collect();
    format!("{prefix}{shown}")
}

/// A new API key: [`API_KEY_PREFIX`] + 40 base62 characters.
pub fn generate_api_key() -> String {
    generate(API_KEY_PREFIX)
}

/// `sk-shoal-` followed by 32 to 128 base62 characters, and nothing else.
pub fn is_well_formed_api_key(s: &str) -> bool {
    is_well_formed(API_KEY_PREFIX, s)
}

/// Every dashboard session token starts with this.
pub const SESSION_TOKEN_PREFIX: &str = "shoal-s-";

/// A new session token: [`SESSION_TOKEN_PREFIX`] + 40 base62 characters (a cookie value).
pub fn generate_session_token() -> String {
    generate(SESSION_TOKEN_PREFIX)
}

/// `shoal-s-` followed by 32 to 128 base62 characters, and nothing else.
pub fn is_well_formed_session_token(s: &str) -> bool {
    is_well_formed(SESSION_TOKEN_PREFIX, s)
}

/// Every password reset token (the link in a reset mail) starts with this.
pub const RESET_TOKEN_PREFIX: &str = "shoal-r-";

/// A new password reset token: [`RESET_TOKEN_PREFIX`] + 40 base62 characters.
pub fn generate_reset_token() -> String {
    generate(RESET_TOKEN_PREFIX)
}

/// `shoal-r-` followed by 32 to 128 base62 characters, and nothing else.
pub fn is_well_formed_reset_token(s: &str) -> bool {
    is_well_formed(RESET_TOKEN_PREFIX, s)
}

/// A new worker token: [`WORKER_TOKEN_PREFIX`] + 40 base62 characters.
pub fn generate_worker_token() -> String {
    generate(WORKER_TOKEN_PREFIX)
}

/// `shoal-wt-` followed by 32 to 128 base62 characters, and nothing else.
pub fn is_well_formed_worker_token(s: &str) -> bool {
    is_well_formed(WORKER_TOKEN_PREFIX, s)
}

/// SHA-256 of a key or token: what the store keeps and looks up by.
pub fn hash_secret(s: &str) -> [u8; 32] {
    Sha256::digest(s.as_bytes()).into()
}

/// What a listing shows of an API key: the prefix and its first 4 random characters.
pub fn display_prefix(key: &str) -> String {
    display(API_KEY_PREFIX, key)
}

/// What a listing shows of a worker token: the prefix and its first 4 random characters.
pub fn worker_token_display_prefix(token: &str) -> String {
    display(WORKER_TOKEN_PREFIX, token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_are_well_formed_and_distinct() {
        let a = generate_api_key();
        let b = generate_api_key();
        assert_ne!(a, b);
        assert_eq!(a.len(), API_KEY_PREFIX.len() + SECRET_RANDOM_CHARS);
        assert!(is_well_formed_api_key(&a));
        assert!(!is_well_formed_worker_token(&a));
        let t = generate_worker_token();
        assert!(is_well_formed_worker_token(&t));
        assert!(!is_well_formed_api_key(&t));
    }

    #[test]
    fn malformed_keys_are_rejected() {
        let good = format!("{API_KEY_PREFIX}{}", "a".repeat(32));
        assert!(is_well_formed_api_key(&good));
        for bad in [
            String::new(),
            API_KEY_PREFIX.to_string(),
            format!("{API_KEY_PREFIX}{}", "a".repeat(31)),
            format!("{API_KEY_PREFIX}{}", "a".repeat(129)),
            format!("{API_KEY_PREFIX}{}-", "a".repeat(32)),
            format!("{API_KEY_PREFIX}{} ", "a".repeat(32)),
            format!(" {API_KEY_PREFIX}{}", "a".repeat(32)),
            format!("{API_KEY_PREFIX}{}é", "a".repeat(32)),
            format!("SK-SHOAL-{}", "a".repeat(32)),
            format!("sk-other-{}", "a".repeat(32)),
        ] {
            assert!(!is_well_formed_api_key(&bad), "{bad:?}");
        }
    }

    #[test]
    fn display_prefix_and_hash() {
        let key = format!("{API_KEY_PREFIX}AbCdEfGh{}", "x".repeat(30));
        assert_eq!(display_prefix(&key), "sk-shoal-AbCd");
        let h = hash_secret(&key);
        assert_eq!(h, hash_secret(&key));
        assert_ne!(h, hash_secret(&format!("{key}y")));
        assert_eq!(
            hex::encode(hash_secret("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
