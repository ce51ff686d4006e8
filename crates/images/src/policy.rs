//! The prompt side of the safety line, in the gateway: `shoal-image-policy`'s check over the
//! prompt and the caller's negative prompt as one request, before anything is held or
//! dispatched. The built-in lexicons can be extended by the operator's file
//! (`image_policy_path`), whose terms go through the same normalisation as prompts, so a term
//! written in any script matches. A verdict names the rule that fired, never the text or the
//! term: blocked prompts appear nowhere.

use std::path::Path;
use std::sync::Arc;

use shoal_image_policy::{Policy, Request, Verdict};

pub use shoal_image_policy::Reason;

/// The compiled policy, shared by every request (cheap to clone).
#[derive(Debug, Clone)]
pub struct ContentPolicy(Arc<Policy>);

impl ContentPolicy {
    /// The built-in lexicons.
    pub fn builtin() -> Self {
        ContentPolicy(Arc::new(Policy::builtin()))
    }

    /// The built-in lexicons, extended by the operator's file when one is named.
    pub fn load(extra: Option<&Path>) -> anyhow::Result<Self> {
        let Some(path) = extra else {
            return Ok(Self::builtin());
        };
        let text = std::fs::read_to_string(path).map_err(|e| {
            anyhow::anyhow!("cannot read image policy file {}: {e}", path.display())
        })?;
        Self::with_operator_terms(&text)
            .map_err(|e| anyhow::anyhow!("image policy file {}: {e}", path.display()))
    }

    /// The built-in lexicons extended by an operator's file of the same shape (its text).
    pub fn with_operator_terms(toml: &str) -> anyhow::Result<Self> {
        Ok(ContentPolicy(Arc::new(Policy::with_operator_terms(toml)?)))
    }

    /// Checks a prompt with the caller's own negative prompt (not the service's baseline).
    pub fn check(&self, prompt: &str, negative_prompt: &str, nsfw: bool) -> Result<(), Reason> {
        let request = Request {
            prompt,
            negative_prompt,
            nsfw,
        };
        match self.0.check(&request) {
            Verdict::Allow => Ok(()),
            Verdict::Block(reason) => Err(reason),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_and_negative_prompt_are_one_request() {
        let policy = ContentPolicy::builtin();
        assert_eq!(policy.check("a kid goat on a farm", "", true), Ok(()));
        assert_eq!(
            policy.check("nude, explicit", "adult, old", false),
            Err(Reason::NegatedAdult)
        );
        assert!(policy.check("niña desnuda", "", false).is_err());
    }

    #[test]
    fn operator_terms_in_any_script_are_folded_like_prompts() {
        // A made-up word, so that only the operator's file can make it a minor term.
        let policy = ContentPolicy::with_operator_terms("minor = [\"ЗЁБРИК\"]").unwrap();
        assert_eq!(policy.check("зёбрик, portrait", "", false), Ok(()));
        assert_eq!(
            policy.check("зебрик, portrait", "", true),
            Err(Reason::MinorNsfw)
        );
        assert_eq!(policy.check("ЗЕБРИК", "", true), Err(Reason::MinorNsfw));
        assert!(ContentPolicy::builtin()
            .check("зебрик, portrait", "", true)
            .is_ok());
    }

    #[test]
    fn a_bad_operator_file_is_an_error_naming_the_file() {
        let dir = std::env::temp_dir().join(format!("shoal-policy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("policy.toml");
        std::fs::write(&path, "minr = [\"x\"]").unwrap();
        let e = ContentPolicy::load(Some(&path)).unwrap_err().to_string();
        assert!(e.contains("policy.toml"), "{e}");
        std::fs::write(&path, "sexual = [\"spicy\"]").unwrap();
        let policy = ContentPolicy::load(Some(&path)).unwrap();
        assert!(policy.check("spicy schoolgirl", "", false).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
