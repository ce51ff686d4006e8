//! The model catalog: which model ids exist, what they can do, and which ids are deprecated
//! aliases. It is data: the built-in default below is replaced whole by `[[models]]` in the
//! config file.

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ModelSpec {
    pub id: String,
    #[serde(default = "default_owner")]
    pub owned_by: String,
    /// Unix seconds shown as `created`.
    #[serde(default)]
    pub created: i64,
    #[serde(default = "default_context")]
    pub context_length: u32,
    /// The most tokens one response may generate; sizes the credit hold when the request
    /// names no `max_tokens`.
    #[serde(default = "default_max_output")]
    pub max_output_tokens: u32,
    #[serde(default)]
    pub tools: bool,
    #[serde(default)]
    pub vision: bool,
    #[serde(default)]
    pub reasoning: bool,
    /// Makes this entry a deprecated alias of another model id.
    #[serde(default)]
    pub alias_of: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
}

fn default_owner() -> String {
    "shoal".into()
}
fn default_context() -> u32 {
    32_768
}
fn default_max_output() -> u32 {
    8_192
}

/// Release date of the built-in catalog, shown as `created` (2026-01-01T00:00:00Z).
const BUILTIN_CREATED: i64 = 1_767_225_600;

#[derive(Debug, Clone)]
pub struct Catalog {
    models: Vec<ModelSpec>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CatalogError {
    #[error("the catalog is empty")]
    Empty,
    #[error("model id `{0}` appears twice")]
    Duplicate(String),
    #[error(
        "alias `{0}` points at `{1}`, which is not a model in the catalog (or is itself an alias)"
    )]
    BadAlias(String, String),
    #[error("model `{0}`: max_output_tokens must be between 1 and context_length")]
    BadLimits(String),
}

impl Catalog {
    pub fn new(models: Vec<ModelSpec>) -> Result<Self, CatalogError> {
        if models.is_empty() {
            return Err(CatalogError::Empty);
        }
        for (i, m) in models.iter().enumerate() {
            if models[..i].iter().any(|o| o.id == m.id) {
                return Err(CatalogError::Duplicate(m.id.clone()));
            }
            if m.max_output_tokens == 0 || m.max_output_tokens > m.context_length {
                return Err(CatalogError::BadLimits(m.id.clone()));
            }
            if let Some(target) = &m.alias_of {
                let ok = models
                    .iter()
                    .any(|t| &t.id == target && t.alias_of.is_none());
                if !ok {
                    return Err(CatalogError::BadAlias(m.id.clone(), target.clone()));
                }
            }
        }
        Ok(Catalog { models })
    }

    /// The spec's four models and the two deprecated aliases.
    pub fn builtin() -> Self {
        let model =
            |id: &str, ctx: u32, out: u32, tools, vision, reasoning, desc: &str| ModelSpec {
                id: id.into(),
                owned_by: default_owner(),
                created: BUILTIN_CREATED,
                context_length: ctx,
                max_output_tokens: out,
                tools,
                vision,
                reasoning,
                alias_of: None,
                description: Some(desc.into()),
            };
        let alias = |id: &str, target: &ModelSpec| ModelSpec {
            id: id.into(),
            alias_of: Some(target.id.clone()),
            description: Some(format!("Deprecated alias of {}", target.id)),
            ..target.clone()
        };
        let large = model(
            "large-27b-uncensored",
            131_072,
            16_384,
            true,
            true,
            false,
            "Uncensored 27B model with tools, vision and a large context. Needs a native GPU worker.",
        );
        let think = model(
            "large-27b-uncensored-think",
            131_072,
            32_768,
            true,
            true,
            true,
            "The 27B model with extended chain-of-thought reasoning.",
        );
        let pro = model(
            "service-pro",
            32_768,
            8_192,
            true,
            false,
            false,
            "Uncensored model on the browser worker pool (9B or 4B, depending on the worker).",
        );
        let swarm = model(
            "service-swarm",
            65_536,
            8_192,
            true,
            false,
            false,
            "229B model served by the GPU swarm ring.",
        );
        let legacy = alias("large-26b-uncensored", &large);
        let code = alias("code", &large);
        Catalog::new(vec![large, think, pro, swarm, legacy, code])
            .expect("built-in catalog is valid")
    }

    pub fn entries(&self) -> &[ModelSpec] {
        &self.models
    }

    /// Resolves an id, following an alias to its target. `None`: unknown model.
    pub fn resolve(&self, id: &str) -> Option<&ModelSpec> {
        let entry = self.models.iter().find(|m| m.id == id)?;
        match &entry.alias_of {
            Some(target) => self.models.iter().find(|m| &m.id == target),
            None => Some(entry),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_resolves_aliases_to_their_target() {
        let c = Catalog::builtin();
        assert_eq!(c.resolve("code").unwrap().id, "large-27b-uncensored");
        assert_eq!(
            c.resolve("large-26b-uncensored").unwrap().id,
            "large-27b-uncensored"
        );
        assert_eq!(c.resolve("service-pro").unwrap().id, "service-pro");
        assert!(c.resolve("gpt-4o").is_none());
        assert!(c.resolve("").is_none());
    }

    #[test]
    fn only_the_27b_models_take_images() {
        let c = Catalog::builtin();
        let vision: Vec<_> = c
            .entries()
            .iter()
            .filter(|m| m.vision && m.alias_of.is_none())
            .map(|m| m.id.as_str())
            .collect();
        assert_eq!(
            vision,
            ["large-27b-uncensored", "large-27b-uncensored-think"]
        );
    }

    #[test]
    fn invalid_catalogs_are_refused() {
        let base = Catalog::builtin().entries()[0].clone();
        assert_eq!(Catalog::new(vec![]).unwrap_err(), CatalogError::Empty);
        assert!(matches!(
            Catalog::new(vec![base.clone(), base.clone()]),
            Err(CatalogError::Duplicate(_))
        ));
        let dangling = ModelSpec {
            id: "a".into(),
            alias_of: Some("nope".into()),
            ..base.clone()
        };
        assert!(matches!(
            Catalog::new(vec![base.clone(), dangling]),
            Err(CatalogError::BadAlias(..))
        ));
        let chained = ModelSpec {
            id: "b".into(),
            alias_of: Some("a".into()),
            ..base.clone()
        };
        let alias = ModelSpec {
            id: "a".into(),
            alias_of: Some(base.id.clone()),
            ..base.clone()
        };
        assert!(matches!(
            Catalog::new(vec![base.clone(), alias, chained]),
            Err(CatalogError::BadAlias(..))
        ));
        let limits = ModelSpec {
            max_output_tokens: 0,
            ..base
        };
        assert!(matches!(
            Catalog::new(vec![limits]),
            Err(CatalogError::BadLimits(_))
        ));
    }
}
