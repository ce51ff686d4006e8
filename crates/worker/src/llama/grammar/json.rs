//! A compiled JSON Schema ([`Schema`]) as GBNF rules.
//!
//! Objects write their properties in schema order, each at most once and the required ones
//! always, with no other keys; arrays their items between the counts; strings, integers and
//! numbers within their bounds and formats. Every definition gets a rule, so `$ref` (recursive
//! ones included) is a rule reference.

use shoal_protocol::schema::{ArrayNode, Node, ObjectNode, Schema, StringNode};

use super::rules::{group, join, json_literal, literal, Rules};
use super::{formats, numbers};

/// Longest hint a rule name is made from.
const HINT: usize = 40;

/// Adds the rules for values of `schema`; returns the rule for its root.
pub(super) fn schema_rule(rules: &mut Rules, schema: &Schema, hint: &str) -> String {
    let names: Vec<String> = (0..schema.defs().len())
        .map(|i| match i {
            0 => rules.reserve(hint),
            i => rules.reserve(&format!("{hint}-def-{i}")),
        })
        .collect();
    let mut writer = Writer { rules, names };
    for (i, def) in schema.defs().iter().enumerate() {
        let name = writer.names[i].clone();
        let body = writer.node(def, &name);
        writer.rules.define(&name, body);
    }
    writer.names.swap_remove(0)
}

struct Writer<'r> {
    rules: &'r mut Rules,
    /// The rule of each definition.
    names: Vec<String>,
}

impl Writer<'_> {
    /// An expression for a value of `node`; `hint` names the rules it adds.
    fn node(&mut self, node: &Node, hint: &str) -> String {
        match node {
            Node::Any => "value".to_owned(),
            Node::Null => "null".to_owned(),
            Node::Boolean => "boolean".to_owned(),
            Node::Enum(values) => group(values.iter().map(json_literal).collect()),
            Node::String(s) => self.string(s),
            Node::Integer(range) => numbers::integer(*range),
            Node::Number(range) => numbers::number(*range),
            Node::Array(a) => {
                let body = self.array(a, hint);
                self.rules.add(hint, body)
            }
            Node::Object(o) => {
                let body = self.object(o, hint);
                self.rules.add(hint, body)
            }
            Node::AnyOf(options) => {
                let alternatives = options
                    .iter()
                    .enumerate()
                    .map(|(i, o)| self.node(o, &format!("{hint}-{i}")))
                    .collect();
                group(alternatives)
            }
            Node::Ref(j) => self.names[*j].clone(),
        }
    }

    /// `node` as a rule name (a rule is added when its expression is not one already).
    fn named(&mut self, node: &Node, hint: &str) -> String {
        let expression = self.node(node, hint);
        if expression.contains(' ') {
            self.rules.add(hint, expression)
        } else {
            expression
        }
    }

    fn string(&mut self, s: &StringNode) -> String {
        if let Some(format) = s.format {
            return formats::rule(self.rules, format).to_owned();
        }
        match (s.min_length, s.max_length) {
            (0, None) => "string".to_owned(),
            (_, Some(0)) => literal("\"\""),
            (min, max) => format!(
                "\"\\\"\" {} \"\\\"\"",
                repeat("ascii-char", min, max).unwrap_or_default()
            ),
        }
    }

    fn array(&mut self, a: &ArrayNode, hint: &str) -> String {
        let rest = (a.rest.as_deref()).map(|r| self.named(r, &format!("{hint}-item")));
        let prefix: Vec<String> = (a.prefix.iter().enumerate())
            .map(|(i, n)| self.named(n, &format!("{hint}-{i}")))
            .collect();
        let k = prefix
            .len()
            .min(a.max_items.map_or(usize::MAX, |m| m as usize));
        // How many items of `rest` may follow `written` items.
        let more = |written: u32| {
            let max = a.max_items.map(|m| m.saturating_sub(written));
            (a.min_items.saturating_sub(written), max)
        };
        if k == 0 {
            let (min, max) = more(0);
            let Some(item) = rest.filter(|_| max != Some(0)) else {
                return literal("[]");
            };
            let tail = format!("( \",\" ws {item} )");
            let tail = repeat(&tail, min.saturating_sub(1), max.map(|m| m - 1));
            let items = join(&item, tail.as_deref().unwrap_or_default());
            return if min == 0 {
                format!("\"[\" ( {items} )? \"]\"")
            } else {
                format!("\"[\" {items} \"]\"")
            };
        }
        // Items past the prefix, then the prefix's own items from the last one out.
        let mut inner = match &rest {
            Some(item) => {
                let (min, max) = more(k as u32);
                repeat(&format!("( \",\" ws {item} )"), min, max).unwrap_or_default()
            }
            None => String::new(),
        };
        for t in (1..=k).rev() {
            let comma = if t == 1 { "" } else { "\",\" ws " };
            let element = format!("{comma}{}", join(&prefix[t - 1], &inner));
            inner = if t as u32 <= a.min_items {
                element
            } else {
                format!("( {element} )?")
            };
        }
        format!("\"[\" {inner} \"]\"")
    }

    fn object(&mut self, o: &ObjectNode, hint: &str) -> String {
        if o.properties.is_empty() {
            let Some(extra) = o.extra.as_deref().filter(|_| o.max_extra != Some(0)) else {
                return literal("{}");
            };
            let value = self.named(extra, &format!("{hint}-value"));
            let pair = format!("string \":\" ws {value}");
            let more = repeat(
                &format!("( \",\" ws {pair} )"),
                0,
                o.max_extra.map(|m| m - 1),
            );
            return format!(
                "\"{{\" ( {} )? \"}}\"",
                join(&pair, more.as_deref().unwrap_or_default())
            );
        }
        let members: Vec<String> = o
            .properties
            .iter()
            .map(|p| {
                let key = serde_json::Value::String(p.name.clone()).to_string();
                let value = self.named(&p.node, &format!("{}-{}", hint, short(&p.name)));
                format!("{} ws {value}", literal(&format!("{key}:")))
            })
            .collect();
        // `tails[i]`: the members from `i` on, once one was written (each after a comma).
        let n = members.len();
        let mut tails = vec![String::new(); n + 1];
        for i in (1..n).rev() {
            let member = format!("\",\" ws {}", members[i]);
            let step = if o.properties[i].required {
                member
            } else {
                format!("( {member} )?")
            };
            let body = join(&step, &tails[i + 1]);
            tails[i] = if i + 1 < n {
                self.rules.add(&format!("{hint}-tail"), body)
            } else {
                body
            };
        }
        // The first member written: any optional one up to the first required one.
        let mut firsts = Vec::new();
        for (i, member) in members.iter().enumerate() {
            firsts.push(join(member, &tails[i + 1]));
            if o.properties[i].required {
                break;
            }
        }
        let all_optional = !o.properties.iter().any(|p| p.required);
        let body = format!("( {} )", firsts.join(" | "));
        let body = if all_optional { body + "?" } else { body };
        format!("\"{{\" {body} \"}}\"")
    }
}

/// `item` repeated `min..=max` times (`None`: no limit); `None` for zero times.
fn repeat(item: &str, min: u32, max: Option<u32>) -> Option<String> {
    Some(match (min, max) {
        (_, Some(0)) => return None,
        (1, Some(1)) => item.to_owned(),
        (0, Some(1)) => format!("{item}?"),
        (0, None) => format!("{item}*"),
        (1, None) => format!("{item}+"),
        (min, None) => format!("{item}{{{min},}}"),
        (min, Some(max)) if min == max => format!("{item}{{{min}}}"),
        (min, Some(max)) => format!("{item}{{{min},{max}}}"),
    })
}

/// A property name cut down for a rule name.
fn short(name: &str) -> &str {
    match name.char_indices().nth(HINT) {
        Some((at, _)) => &name[..at],
        None => name,
    }
}
