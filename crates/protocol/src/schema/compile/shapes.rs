//! Objects and arrays.

use serde_json::{Map, Value};

use super::{Compiled, Compiler};
use crate::schema::{ArrayNode, Node, ObjectNode, Property};

impl<'a> Compiler<'a> {
    pub(super) fn object(&mut self, s: &'a Map<String, Value>) -> Compiled<ObjectNode> {
        let required = self.required(s)?;
        let extra = self.extra(s, "additionalProperties")?;
        if let Some(Value::Object(_)) = s.get("unevaluatedProperties") {
            self.refuse(
                "unevaluatedProperties",
                "only `true` or `false` is supported",
            )?;
        }
        let mut properties = Vec::new();
        if let Some(props) = s.get("properties") {
            let Some(props) = props.as_object() else {
                return Err(self.error(Some("properties"), "must be an object of schemas"));
            };
            for (i, (name, schema)) in props.iter().enumerate() {
                let required = required.contains(&name.as_str());
                // A property whose schema is `false` may not be there at all.
                if schema == &Value::Bool(false) && !required {
                    continue;
                }
                let node = self.at(format!("properties[{i}]"), schema)?;
                properties.push(Property {
                    name: name.clone(),
                    node,
                    required,
                });
            }
        }
        for name in required {
            if properties.iter().any(|p| p.name == name) {
                continue;
            }
            // Required but not described: written with the schema of extra keys.
            let Some(node) = &extra else {
                return Err(self.error(
                    Some("required"),
                    "names a property that `additionalProperties: false` forbids",
                ));
            };
            properties.push(Property {
                name: name.to_owned(),
                node: (**node).clone(),
                required: true,
            });
        }
        self.object_counts(s, properties, extra)
    }

    /// `minProperties` and `maxProperties`, which must hold of every object the grammar can
    /// write (named properties), or be a limit on extra keys (a map).
    fn object_counts(
        &mut self,
        s: &'a Map<String, Value>,
        properties: Vec<Property>,
        extra: Option<Box<Node>>,
    ) -> Compiled<ObjectNode> {
        let min = self.count(s, "minProperties")?.unwrap_or(0);
        let max = self.count(s, "maxProperties")?;
        if properties.is_empty() {
            // Extra keys may repeat, and a repeated key counts once: one key is the most
            // the grammar can promise.
            if min > 1 || (min == 1 && extra.is_none()) {
                self.refuse("minProperties", "a minimum above 1 is not enforced on maps")?;
            }
            return Ok(ObjectNode {
                properties,
                extra,
                max_extra: max,
            });
        }
        let required = properties.iter().filter(|p| p.required).count();
        if (min as usize) > required {
            self.refuse(
                "minProperties",
                "must not be above the number of required properties",
            )?;
        }
        if max.is_some_and(|max| (max as usize) < properties.len()) {
            self.refuse(
                "maxProperties",
                "must not be below the number of properties named",
            )?;
        }
        Ok(ObjectNode {
            properties,
            extra: None,
            max_extra: None,
        })
    }

    fn required(&self, s: &'a Map<String, Value>) -> Compiled<Vec<&'a str>> {
        match s.get("required") {
            None => Ok(Vec::new()),
            Some(Value::Array(names)) if names.iter().all(Value::is_string) => {
                Ok(names.iter().filter_map(Value::as_str).collect())
            }
            Some(_) => Err(self.error(Some("required"), "must be an array of strings")),
        }
    }

    /// `additionalProperties` / `additionalItems` / `items`: absent or `true` is any value,
    /// `false` none (`None`), a schema its values.
    fn extra(
        &mut self,
        s: &'a Map<String, Value>,
        keyword: &'static str,
    ) -> Compiled<Option<Box<Node>>> {
        match s.get(keyword) {
            None | Some(Value::Bool(true)) => Ok(Some(Box::new(Node::Any))),
            Some(Value::Bool(false)) => Ok(None),
            Some(schema) => Ok(Some(Box::new(self.at(keyword.to_owned(), schema)?))),
        }
    }

    pub(super) fn array(&mut self, s: &'a Map<String, Value>) -> Compiled<ArrayNode> {
        let mut prefix = Vec::new();
        // Draft 2020-12 writes a tuple as `prefixItems` (then `items` for the rest); earlier
        // drafts as an array `items` (then `additionalItems`).
        let (tuple, tuple_keyword, rest_keyword) = match (s.get("prefixItems"), s.get("items")) {
            (Some(p), _) => (Some(p), "prefixItems", "items"),
            (None, Some(Value::Array(_))) => (s.get("items"), "items", "additionalItems"),
            (None, _) => (None, "items", "items"),
        };
        if let Some(tuple) = tuple {
            let Some(tuple) = tuple.as_array() else {
                return Err(self.error(Some(tuple_keyword), "must be an array of schemas"));
            };
            for (i, schema) in tuple.iter().enumerate() {
                prefix.push(self.at(format!("{tuple_keyword}[{i}]"), schema)?);
            }
        }
        let mut rest = self.extra(s, rest_keyword)?;
        match s.get("unevaluatedItems") {
            Some(Value::Bool(false)) if !s.contains_key(rest_keyword) => rest = None,
            Some(Value::Object(_)) => {
                self.refuse("unevaluatedItems", "only `true` or `false` is supported")?
            }
            _ => {}
        }
        let min_items = self.count(s, "minItems")?.unwrap_or(0);
        let mut max_items = self.count(s, "maxItems")?;
        if rest.is_none() {
            let len = prefix.len() as u32;
            max_items = Some(max_items.map_or(len, |max| max.min(len)));
        }
        if max_items.is_some_and(|max| max < min_items) {
            return Err(self.error(Some("minItems"), "is above the most items allowed"));
        }
        Ok(ArrayNode {
            prefix,
            rest,
            min_items,
            max_items,
        })
    }
}
