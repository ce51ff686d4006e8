//! Per-account deposit addresses: BIP32 public derivation from the operator's extended public
//! key, then the EVM address of the child key.
//!
//! The configured key is the one at `m/44'/60'/0'/0` (BIP44's external chain for Ethereum, the
//! parent of the receiving addresses wallets show), and account `n`'s address is its
//! non-hardened child `n`: `m/44'/60'/0'/0/n`. The operator's wallet holds the private key and
//! sweeps; this service cannot move funds.

use std::str::FromStr;

use bip32::{ChildNumber, XPub};
use sha3::{Digest, Keccak256};

/// A 20-byte EVM address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Address(pub [u8; 20]);

impl Address {
    /// `0x` + 40 lowercase hex digits (how addresses are stored and compared).
    pub fn lower(&self) -> String {
        format!("0x{}", hex::encode(self.0))
    }

    /// EIP-55 mixed-case checksum form (how addresses are shown).
    pub fn checksummed(&self) -> String {
        let lower = hex::encode(self.0);
        let hash = Keccak256::digest(lower.as_bytes());
        let mut out = String::with_capacity(42);
        out.push_str("0x");
        for (i, c) in lower.chars().enumerate() {
            let nibble = (hash[i / 2] >> if i % 2 == 0 { 4 } else { 0 }) & 0x0f;
            out.push(if c.is_ascii_alphabetic() && nibble >= 8 {
                c.to_ascii_uppercase()
            } else {
                c
            });
        }
        out
    }

    /// The address in a 32-byte log topic (left-padded with zeros).
    pub fn topic(&self) -> String {
        format!("0x{}{}", "0".repeat(24), hex::encode(self.0))
    }
}

impl FromStr for Address {
    type Err = String;
    /// `0x` + 40 hex digits, any case (checksums are not required on input).
    fn from_str(s: &str) -> Result<Self, String> {
        let digits = s
            .strip_prefix("0x")
            .filter(|d| d.len() == 40)
            .ok_or_else(|| "an address is 0x followed by 40 hex digits".to_string())?;
        let mut out = [0u8; 20];
        hex::decode_to_slice(digits, &mut out)
            .map_err(|_| "an address is 0x followed by 40 hex digits".to_string())?;
        Ok(Address(out))
    }
}

/// The operator's extended public key, from which every deposit address is derived.
#[derive(Clone)]
pub struct DepositKeys {
    xpub: XPub,
}

impl std::fmt::Debug for DepositKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DepositKeys").finish_non_exhaustive()
    }
}

impl DepositKeys {
    /// Parses a Base58Check `xpub…` (an `xprv` is refused: the service must never hold one).
    pub fn parse(xpub: &str) -> anyhow::Result<Self> {
        let xpub = xpub.trim();
        anyhow::ensure!(
            !xpub.starts_with("xprv") && !xpub.starts_with("tprv"),
            "payments.xpub is a private key: give the extended public key (xpub…) instead"
        );
        let xpub = XPub::from_str(xpub)
            .map_err(|e| anyhow::anyhow!("payments.xpub is not an extended public key: {e}"))?;
        Ok(DepositKeys { xpub })
    }

    /// The deposit address of `index` (an account id): the key's non-hardened child `index`.
    pub fn address(&self, index: u32) -> anyhow::Result<Address> {
        let child = ChildNumber::new(index, false)
            .map_err(|_| anyhow::anyhow!("index {index} is beyond the non-hardened range"))?;
        let key = self
            .xpub
            .derive_child(child)
            .map_err(|e| anyhow::anyhow!("cannot derive child {index}: {e}"))?;
        Ok(evm_address(&key))
    }
}

/// The EVM address of a public key: the last 20 bytes of Keccak-256 over the uncompressed
/// point without its 0x04 prefix.
fn evm_address(key: &XPub) -> Address {
    let point = key.public_key().to_encoded_point(false);
    let hash = Keccak256::digest(&point.as_bytes()[1..]);
    let mut out = [0u8; 20];
    out.copy_from_slice(&hash[12..]);
    Address(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use bip32::{Prefix, XPrv};

    /// BIP32 test vector 1: public derivation of m/0H/1/2H/2 and m/0H/1/2H/2/1000000000 from
    /// the published xpub of m/0H/1/2H.
    #[test]
    fn bip32_vector_1_public_derivation() {
        let parent = "xpub6D4BDPcP2GT577Vvch3R8wDkScZWzQzMMUm3PWbmWvVJrZwQY4VUNgqFJPMM3No2dFDFGTsxxpG5uJh7n7epu4trkrX7x7DogT5Uv6fcLW5";
        let keys = XPub::from_str(parent).unwrap();
        let m2 = keys
            .derive_child(ChildNumber::new(2, false).unwrap())
            .unwrap();
        assert_eq!(
            m2.to_string(Prefix::XPUB),
            "xpub6FHa3pjLCk84BayeJxFW2SP4XRrFd1JYnxeLeU8EqN3vDfZmbqBqaGJAyiLjTAwm6ZLRQUMv1ZACTj37sR62cfN7fe5JnJ7dh8zL4fiyLHV"
        );
        let m3 = m2
            .derive_child(ChildNumber::new(1_000_000_000, false).unwrap())
            .unwrap();
        assert_eq!(
            m3.to_string(Prefix::XPUB),
            "xpub6H1LXWLaKsWFhvm6RVpEL9P4KfRZSW7abD2ttkWP3SSQvnyA8FSVqNTEcYFgJS2UaFcxupHiYkro49S8yGasTvXEYBVPamhGW6cFJodrTHy"
        );
    }

    /// BIP32 test vector 2: m/0 from the master xpub.
    #[test]
    fn bip32_vector_2_public_derivation() {
        let master = "xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB";
        let m0 = XPub::from_str(master)
            .unwrap()
            .derive_child(ChildNumber::new(0, false).unwrap())
            .unwrap();
        assert_eq!(
            m0.to_string(Prefix::XPUB),
            "xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap6r1D3tgFxHmwMkQTPH"
        );
    }

    /// The widely published BIP44 Ethereum addresses of the development mnemonic
    /// (`test … junk`, Hardhat's and anvil's default accounts): m/44'/60'/0'/0/0 and /1.
    #[test]
    fn bip44_ethereum_addresses_of_the_dev_mnemonic() {
        let xpub = dev_xpub();
        assert_eq!(xpub, DEV_XPUB, "the xpub the e2e tests configure");
        let keys = DepositKeys::parse(&xpub).unwrap();
        assert_eq!(
            keys.address(0).unwrap().checksummed(),
            "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
        );
        assert_eq!(
            keys.address(1).unwrap().checksummed(),
            "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
        );
        assert_eq!(
            keys.address(2).unwrap().checksummed(),
            "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"
        );
    }

    /// m/44'/60'/0'/0 of the development mnemonic (tests/e2e/test_deposits.py uses it).
    pub const DEV_XPUB: &str = "xpub6DyUKdwoLWmUJ4Tn9Bbsdtx7B5Ws18mEN19e5HT52ikE53FiUheSQXrZUNPovqfyKmw4579A1Mm3GXXKM39N64uooBfJ4tNAzFsEbodRTx4";

    fn dev_xpub() -> String {
        let phrase = "test test test test test test test test test test test junk";
        // BIP39: the seed is PBKDF2-HMAC-SHA512 of the phrase, salt "mnemonic", 2048 rounds.
        let mut seed = [0u8; 64];
        pbkdf2::pbkdf2_hmac::<sha2::Sha512>(phrase.as_bytes(), b"mnemonic", 2048, &mut seed);
        let xprv = XPrv::derive_from_path(seed, &"m/44'/60'/0'/0".parse().unwrap()).unwrap();
        xprv.public_key().to_string(Prefix::XPUB)
    }

    #[test]
    fn refuses_private_keys_and_garbage() {
        assert!(DepositKeys::parse("xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi").is_err());
        assert!(DepositKeys::parse("not a key").is_err());
        assert!(DepositKeys::parse(DEV_XPUB)
            .unwrap()
            .address(1 << 31)
            .is_err());
    }

    #[test]
    fn addresses_parse_and_print() {
        let a: Address = "0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266"
            .parse()
            .unwrap();
        assert_eq!(a.lower(), "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266");
        assert_eq!(
            a.checksummed(),
            "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
        );
        assert_eq!(
            a.topic(),
            "0x000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266"
        );
        assert!("0x1234".parse::<Address>().is_err());
        assert!("f39fd6e51aad88f6f4ce6ab8827279cfffb92266"
            .parse::<Address>()
            .is_err());
    }
}
