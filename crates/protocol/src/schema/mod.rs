//! The JSON Schema subset Shoal's engines enforce, as a typed tree.
//!
//! [`compile`] reads a schema (a `response_format` `json_schema`, or a strict tool's
//! `parameters`) into a [`Schema`]: every keyword that constrains a value is either understood
//! (and so enforced by the grammar the worker builds from the tree) or refused with an
//! [`Unsupported`] naming it. Accepting a keyword and ignoring it would let an engine write
//! JSON the schema forbids, so there is no third case. Annotations (`title`, `description`,
//! `default`, `examples`, …) and keywords JSON Schema does not define are ignored, as the
//! specification says.
//!
//! The tree only ever narrows: where the schema allows more than the tree can say (an object
//! that may have extra keys, a number without a bound), the tree keeps to what it can say,
//! so that everything it admits validates against the schema. `docs/api.md` ("Structured
//! outputs") lists the subset for clients.
//!
//! [`compile_lenient`] is for schemas nobody asked to be enforced (a tool without `strict`,
//! whose forced call follows the schema as far as it can): it drops what it cannot enforce
//! instead of refusing it.

mod compile;
mod reach;

#[cfg(test)]
mod tests;

use serde_json::Value;

pub use compile::{compile, compile_lenient};

/// Repetition bounds (`maxLength`, `maxItems`, …) above this are refused: a grammar spells a
/// bound out, one rule per step.
pub const MAX_REPEAT: u32 = 1000;

/// Integers and bounds are kept within ±`MAX_MAGNITUDE`, so that they fit in 16 digits.
pub const MAX_MAGNITUDE: i64 = 999_999_999_999_999;

/// A compiled schema: definitions, the first of which is the root. A [`Node::Ref`] names one
/// by index; a definition may refer to itself through an object or an array, never before a
/// value starts (so a grammar from it is never left-recursive), and every definition admits
/// some finite value.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    defs: Vec<Node>,
}

impl Schema {
    /// What the whole value must be.
    pub fn root(&self) -> &Node {
        &self.defs[0]
    }

    /// Every definition, the root first.
    pub fn defs(&self) -> &[Node] {
        &self.defs
    }

    /// Whether every value admitted is an object (as a tool's arguments must be).
    pub fn admits_only_objects(&self) -> bool {
        self.only_objects(self.root(), &mut vec![false; self.defs.len()])
    }

    fn only_objects(&self, node: &Node, seen: &mut Vec<bool>) -> bool {
        match node {
            Node::Object(_) => true,
            Node::Enum(values) => values.iter().all(Value::is_object),
            Node::AnyOf(options) => options.iter().all(|o| self.only_objects(o, seen)),
            // A definition already on the way is checked where it was first met.
            Node::Ref(j) => {
                std::mem::replace(&mut seen[*j], true) || self.only_objects(&self.defs[*j], seen)
            }
            _ => false,
        }
    }

    /// A schema that admits any JSON value.
    pub fn any() -> Self {
        Schema {
            defs: vec![Node::Any],
        }
    }

    /// A schema that admits any JSON object (`response_format` `json_object`).
    pub fn any_object() -> Self {
        Schema {
            defs: vec![Node::Object(ObjectNode {
                properties: Vec::new(),
                extra: Some(Box::new(Node::Any)),
                max_extra: None,
            })],
        }
    }
}

/// What a value must be.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// Any JSON value.
    Any,
    Null,
    Boolean,
    /// One of these values (`const` is an enum of one). Never empty.
    Enum(Vec<Value>),
    String(StringNode),
    Integer(IntRange),
    /// A number (fraction and exponent allowed when unbounded).
    Number(NumberRange),
    Array(ArrayNode),
    Object(ObjectNode),
    /// Any one of these (`anyOf`, `oneOf`, type lists, nullable types). Never empty.
    AnyOf(Vec<Node>),
    /// The definition at this index of [`Schema::defs`].
    Ref(usize),
}

/// A string, with its length in characters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StringNode {
    pub format: Option<StringFormat>,
    pub min_length: u32,
    /// At most [`MAX_REPEAT`].
    pub max_length: Option<u32>,
}

/// The string formats written exactly (RFC 3339 dates and times, RFC 4122 UUIDs, and narrow
/// forms of e-mail addresses, IPv4 addresses and URIs that every validator accepts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StringFormat {
    Date,
    DateTime,
    Time,
    Uuid,
    Email,
    Ipv4,
    Uri,
}

impl StringFormat {
    /// The `format` value this is.
    pub fn name(self) -> &'static str {
        match self {
            StringFormat::Date => "date",
            StringFormat::DateTime => "date-time",
            StringFormat::Time => "time",
            StringFormat::Uuid => "uuid",
            StringFormat::Email => "email",
            StringFormat::Ipv4 => "ipv4",
            StringFormat::Uri => "uri",
        }
    }

    const ALL: [StringFormat; 7] = [
        StringFormat::Date,
        StringFormat::DateTime,
        StringFormat::Time,
        StringFormat::Uuid,
        StringFormat::Email,
        StringFormat::Ipv4,
        StringFormat::Uri,
    ];

    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// Integers from `min` to `max`, both inclusive and within ±[`MAX_MAGNITUDE`]; `None` is
/// unbounded on that side (up to 16 digits).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IntRange {
    pub min: Option<i64>,
    pub max: Option<i64>,
}

/// Numbers between whole-number bounds. A bounded number is written without an exponent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NumberRange {
    pub min: Option<Bound>,
    pub max: Option<Bound>,
}

/// A whole-number bound of a [`NumberRange`], within ±[`MAX_MAGNITUDE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bound {
    pub value: i64,
    /// `exclusiveMinimum` / `exclusiveMaximum`: the bound itself is not allowed.
    pub exclusive: bool,
}

/// An array: `prefix` items in order, then items of `rest`, `min_items..=max_items` in all.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayNode {
    pub prefix: Vec<Node>,
    /// `None`: nothing after the prefix.
    pub rest: Option<Box<Node>>,
    pub min_items: u32,
    /// At most [`MAX_REPEAT`]; with no `rest`, at most the prefix's length.
    pub max_items: Option<u32>,
}

/// An object: its named properties in schema order (each at most once, the required ones
/// always), or, when it names none, any keys with values of `extra`.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectNode {
    pub properties: Vec<Property>,
    /// Values of keys not named (a map, `additionalProperties: {…}`); only when `properties`
    /// is empty, since a grammar cannot keep extra keys from repeating named ones.
    pub extra: Option<Box<Node>>,
    /// At most this many extra keys (`maxProperties`).
    pub max_extra: Option<u32>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    pub name: String,
    pub node: Node,
    pub required: bool,
}

/// A schema outside the subset: where, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    /// Where in the schema, from its root: keywords, and indexes for array elements and for
    /// property or definition names (`properties[2].items.pattern`, `$defs[0].anyOf[1]`).
    /// Never a name from the schema itself: names are the client's text.
    pub path: String,
    /// The keyword refused, when one is (the path's last step).
    pub keyword: Option<&'static str>,
    /// Why, in fixed words.
    pub reason: &'static str,
}

impl Unsupported {
    /// The path below `prefix` (the field holding the schema, such as
    /// `response_format.json_schema.schema`).
    pub fn param(&self, prefix: &str) -> String {
        if self.path.is_empty() {
            prefix.to_owned()
        } else {
            format!("{prefix}.{}", self.path)
        }
    }

    /// A message for a client: the field, the keyword and the reason.
    pub fn message(&self, prefix: &str) -> String {
        let param = self.param(prefix);
        match self.keyword {
            Some(keyword) => format!(
                "`{param}`: the JSON Schema keyword `{keyword}` is not supported here: {}",
                self.reason
            ),
            None => format!("`{param}`: {}", self.reason),
        }
    }
}
