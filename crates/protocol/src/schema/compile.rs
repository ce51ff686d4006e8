//! JSON Schema (drafts 4 to 2020-12, as agent frameworks write them) into a [`Schema`].

use serde_json::{Map, Value};

use super::{
    reach, Bound, IntRange, Node, NumberRange, Schema, StringFormat, StringNode, Unsupported,
    MAX_MAGNITUDE, MAX_REPEAT,
};

type Compiled<T> = Result<T, Unsupported>;

/// Keywords no schema may use, with why.
const REFUSED: &[(&str, &str)] = &[
    ("pattern", "regular expressions are not enforced"),
    ("patternProperties", "regular expressions are not enforced"),
    ("propertyNames", "property names are not constrained"),
    ("dependentRequired", DEPENDENT),
    ("dependentSchemas", DEPENDENT),
    ("dependencies", DEPENDENT),
    ("if", CONDITIONAL),
    ("then", CONDITIONAL),
    ("else", CONDITIONAL),
    ("not", "negated schemas are not enforced"),
    ("contains", "`contains` is not enforced"),
    ("minContains", "`contains` is not enforced"),
    ("maxContains", "`contains` is not enforced"),
    ("multipleOf", "multiples are not enforced"),
    ("$dynamicRef", "dynamic references are not supported"),
    ("$recursiveRef", "dynamic references are not supported"),
];
const DEPENDENT: &str = "properties that depend on others are not enforced";
const CONDITIONAL: &str = "conditional schemas are not enforced";

/// Keywords that constrain a value: one beside `$ref`, `allOf` or `anyOf` would have to be
/// combined with it, which the subset does not do.
const ASSERTIONS: &[&str] = &[
    "type",
    "enum",
    "const",
    "nullable",
    "properties",
    "required",
    "additionalProperties",
    "unevaluatedProperties",
    "minProperties",
    "maxProperties",
    "items",
    "prefixItems",
    "additionalItems",
    "unevaluatedItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minLength",
    "maxLength",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "$ref",
    "allOf",
    "anyOf",
    "oneOf",
];

const OBJECT_KEYWORDS: &[&str] = &[
    "properties",
    "required",
    "additionalProperties",
    "unevaluatedProperties",
    "minProperties",
    "maxProperties",
];
const ARRAY_KEYWORDS: &[&str] = &[
    "items",
    "prefixItems",
    "additionalItems",
    "unevaluatedItems",
    "minItems",
    "maxItems",
];
const STRING_KEYWORDS: &[&str] = &["minLength", "maxLength", "format"];
const NUMBER_KEYWORDS: &[&str] = &["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"];

/// Reads `schema`, refusing the first keyword outside the subset.
pub fn compile(schema: &Map<String, Value>) -> Result<Schema, Unsupported> {
    Compiler::new(schema, true).run()
}

/// Reads `schema`, dropping what is outside the subset: an unenforced constraint is left out,
/// an unsupported structure (a remote `$ref`, `allOf` of several) becomes any value. Never
/// fails; the result admits at least every value the strict reading would.
pub fn compile_lenient(schema: &Map<String, Value>) -> Schema {
    Compiler::new(schema, false)
        .run()
        .unwrap_or_else(|_| Schema::any())
}

struct Compiler<'a> {
    root: &'a Map<String, Value>,
    strict: bool,
    defs: Vec<Node>,
    /// Each definition's place, for errors found after the walk.
    def_paths: Vec<String>,
    /// `$ref` targets seen, with their definition's index.
    refs: Vec<(&'a str, usize)>,
    path: Vec<String>,
}

impl<'a> Compiler<'a> {
    fn new(root: &'a Map<String, Value>, strict: bool) -> Self {
        Compiler {
            root,
            strict,
            defs: vec![Node::Any],
            def_paths: vec![String::new()],
            refs: vec![("#", 0)],
            path: Vec::new(),
        }
    }

    fn run(mut self) -> Compiled<Schema> {
        let root = self.map(self.root)?;
        self.defs[0] = root;
        match reach::check(&mut self.defs) {
            Ok(()) => Ok(Schema { defs: self.defs }),
            Err((def, reason)) => {
                self.path = vec![self.def_paths[def].clone()];
                self.path.retain(|p| !p.is_empty());
                Err(self.error(Some("$ref"), reason))
            }
        }
    }

    fn error(&self, keyword: Option<&'static str>, reason: &'static str) -> Unsupported {
        let mut path = self.path.join(".");
        if let Some(keyword) = keyword {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(keyword);
        }
        Unsupported {
            path,
            keyword,
            reason,
        }
    }

    /// Refuses `keyword` (strict), or lets the caller go on without it (lenient).
    fn refuse(&self, keyword: &'static str, reason: &'static str) -> Compiled<()> {
        if self.strict {
            Err(self.error(Some(keyword), reason))
        } else {
            Ok(())
        }
    }

    /// Compiles `value` at the path step `step`.
    fn at(&mut self, step: String, value: &'a Value) -> Compiled<Node> {
        self.path.push(step);
        let node = self.value(value);
        self.path.pop();
        node
    }

    /// A schema that may be a boolean (`true`: anything; `false`: nothing).
    fn value(&mut self, value: &'a Value) -> Compiled<Node> {
        match value {
            Value::Object(map) => self.map(map),
            Value::Bool(true) => Ok(Node::Any),
            Value::Bool(false) if self.strict => Err(self.error(None, "admits no value")),
            _ if self.strict => Err(self.error(None, "is not a JSON Schema (an object)")),
            _ => Ok(Node::Any),
        }
    }

    fn map(&mut self, s: &'a Map<String, Value>) -> Compiled<Node> {
        for (keyword, reason) in REFUSED {
            if s.contains_key(*keyword) {
                self.refuse(keyword, reason)?;
            }
        }
        if s.get("uniqueItems") == Some(&Value::Bool(true)) {
            self.refuse("uniqueItems", "items are not kept distinct")?;
        }
        if let Some(target) = s.get("$ref") {
            return self.reference(s, target);
        }
        if let Some(all) = s.get("allOf") {
            return self.all_of(s, all);
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(options) = s.get(keyword) {
                return self.any_of(s, keyword, options);
            }
        }
        if s.contains_key("const") || s.contains_key("enum") {
            return self.enumeration(s);
        }
        self.typed(s)
    }

    /// Keywords beside `keyword` that constrain the value too.
    fn beside(&self, s: &Map<String, Value>, keyword: &str, allowed: &[&str]) -> bool {
        s.keys().any(|k| {
            k != keyword && ASSERTIONS.contains(&k.as_str()) && !allowed.contains(&k.as_str())
        })
    }

    fn reference(&mut self, s: &'a Map<String, Value>, target: &'a Value) -> Compiled<Node> {
        if self.beside(s, "$ref", &[]) {
            self.refuse(
                "$ref",
                "`$ref` beside other keywords that constrain the value",
            )?;
        }
        let Some(target) = target.as_str() else {
            self.refuse("$ref", "must be a string")?;
            return Ok(Node::Any);
        };
        if let Some(&(_, index)) = self.refs.iter().find(|(r, _)| *r == target) {
            return Ok(Node::Ref(index));
        }
        let Some((step, schema)) = resolve(self.root, target) else {
            self.refuse(
                "$ref",
                "only `#` and references into the schema's own `$defs` or `definitions` \
                 are supported",
            )?;
            return Ok(Node::Any);
        };
        let index = self.defs.len();
        self.defs.push(Node::Any);
        self.def_paths.push(step.clone());
        self.refs.push((target, index));
        let saved = std::mem::replace(&mut self.path, vec![step]);
        let node = self.value(schema);
        self.path = saved;
        self.defs[index] = node?;
        Ok(Node::Ref(index))
    }

    fn all_of(&mut self, s: &'a Map<String, Value>, all: &'a Value) -> Compiled<Node> {
        match all.as_array().map(Vec::as_slice) {
            Some([one]) if !self.beside(s, "allOf", &[]) => self.at("allOf[0]".to_owned(), one),
            _ => {
                self.refuse(
                    "allOf",
                    "only an `allOf` of one schema, with nothing beside it, is supported",
                )?;
                Ok(Node::Any)
            }
        }
    }

    fn any_of(
        &mut self,
        s: &'a Map<String, Value>,
        keyword: &'static str,
        options: &'a Value,
    ) -> Compiled<Node> {
        if self.beside(s, keyword, &["nullable"]) {
            self.refuse(
                keyword,
                "beside other keywords that constrain the value; move them into each option",
            )?;
        }
        let options = match options.as_array() {
            Some(options) if !options.is_empty() => options,
            _ => {
                self.refuse(keyword, "must be a non-empty array of schemas")?;
                return Ok(Node::Any);
            }
        };
        let mut nodes = Vec::with_capacity(options.len() + 1);
        for (i, option) in options.iter().enumerate() {
            nodes.push(self.at(format!("{keyword}[{i}]"), option)?);
        }
        if s.get("nullable") == Some(&Value::Bool(true)) {
            nodes.push(Node::Null);
        }
        Ok(Node::AnyOf(nodes))
    }

    /// `const` and `enum`, keeping the values that also match `type`.
    fn enumeration(&mut self, s: &'a Map<String, Value>) -> Compiled<Node> {
        let types = self.types(s)?;
        let mut values: Vec<Value> = match (s.get("const"), s.get("enum")) {
            (Some(c), _) => vec![c.clone()],
            (None, Some(Value::Array(values))) => values.clone(),
            (None, _) => {
                self.refuse("enum", "must be an array")?;
                return self.typed(s);
            }
        };
        if let (Some(_), Some(Value::Array(allowed))) = (s.get("const"), s.get("enum")) {
            values.retain(|v| allowed.contains(v));
        }
        if s.get("nullable") == Some(&Value::Bool(true)) && !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
        if let Some(types) = &types {
            values.retain(|v| types.iter().any(|t| matches_type(v, t)));
        }
        if values.is_empty() {
            let keyword = if s.contains_key("const") {
                "const"
            } else {
                "enum"
            };
            return Err(self.error(Some(keyword), "admits no value"));
        }
        Ok(Node::Enum(values))
    }

    /// `type` as a list of names (`None`: absent).
    fn types(&self, s: &'a Map<String, Value>) -> Compiled<Option<Vec<&'a str>>> {
        const TYPES: &[&str] = &[
            "string", "integer", "number", "boolean", "null", "object", "array",
        ];
        let names: Vec<&str> = match s.get("type") {
            None => return Ok(None),
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
            Some(_) => vec![""],
        };
        let listed = s.get("type").and_then(Value::as_array).map_or(1, Vec::len);
        if names.len() != listed || names.is_empty() || !names.iter().all(|t| TYPES.contains(t)) {
            return Err(self.error(
                Some("type"),
                "must be a JSON Schema type name or a non-empty list of them",
            ));
        }
        Ok(Some(names))
    }

    /// A schema without `$ref`, combinators or values: by `type`, or by the keywords it has.
    fn typed(&mut self, s: &'a Map<String, Value>) -> Compiled<Node> {
        let types = match self.types(s)? {
            Some(types) => types,
            None => vec![inferred_type(s)],
        };
        let mut nodes = Vec::with_capacity(types.len() + 1);
        for t in types {
            nodes.push(match t {
                "string" => Node::String(self.string(s)?),
                "integer" => Node::Integer(self.integer(s)?),
                "number" => Node::Number(self.range(s, false)?),
                "boolean" => Node::Boolean,
                "null" => Node::Null,
                "object" => Node::Object(self.object(s)?),
                "array" => Node::Array(self.array(s)?),
                _ => Node::Any,
            });
        }
        if s.get("nullable") == Some(&Value::Bool(true)) && !nodes.contains(&Node::Null) {
            nodes.push(Node::Null);
        }
        Ok(match nodes.len() {
            1 => nodes.remove(0),
            _ => Node::AnyOf(nodes),
        })
    }

    /// A non-negative count keyword (`minLength`, `maxItems`, …), at most [`MAX_REPEAT`].
    fn count(&self, s: &Map<String, Value>, keyword: &'static str) -> Compiled<Option<u32>> {
        let Some(value) = s.get(keyword) else {
            return Ok(None);
        };
        let Some(n) = as_whole(value).filter(|n| *n >= 0) else {
            return Err(self.error(Some(keyword), "must be a non-negative integer"));
        };
        if n > i64::from(MAX_REPEAT) {
            self.refuse(keyword, "counts above 1000 are not enforced")?;
            return Ok(None);
        }
        Ok(Some(n as u32))
    }

    fn string(&mut self, s: &'a Map<String, Value>) -> Compiled<StringNode> {
        let format = match s.get("format") {
            None => None,
            Some(Value::String(name)) => match StringFormat::from_name(name) {
                Some(format) => Some(format),
                None => {
                    self.refuse(
                        "format",
                        "the formats enforced are date, date-time, time, uuid, email, ipv4 \
                         and uri",
                    )?;
                    None
                }
            },
            Some(_) => return Err(self.error(Some("format"), "must be a string")),
        };
        let mut min_length = self.count(s, "minLength")?.unwrap_or(0);
        let mut max_length = self.count(s, "maxLength")?;
        if max_length.is_some_and(|max| max < min_length) {
            return Err(self.error(Some("maxLength"), "is below `minLength`: no value fits"));
        }
        if format.is_some() && (min_length > 0 || max_length.is_some()) {
            let keyword = if min_length > 0 {
                "minLength"
            } else {
                "maxLength"
            };
            self.refuse(
                keyword,
                "lengths are not enforced on strings with a `format`",
            )?;
            (min_length, max_length) = (0, None);
        }
        Ok(StringNode {
            format,
            min_length,
            max_length,
        })
    }

    fn integer(&mut self, s: &'a Map<String, Value>) -> Compiled<IntRange> {
        let range = self.range(s, true)?;
        Ok(IntRange {
            min: range.min.map(|b| b.value + i64::from(b.exclusive)),
            max: range.max.map(|b| b.value - i64::from(b.exclusive)),
        })
    }

    /// The bounds of a number, or of an integer (whose fractional bounds are rounded inwards).
    fn range(&mut self, s: &'a Map<String, Value>, integer: bool) -> Compiled<NumberRange> {
        let mut range = NumberRange::default();
        for (keyword, exclusive, upper) in [
            ("minimum", false, false),
            ("exclusiveMinimum", true, false),
            ("maximum", false, true),
            ("exclusiveMaximum", true, true),
        ] {
            let Some(value) = s.get(keyword) else {
                continue;
            };
            // Draft 4 writes exclusivity as a boolean beside `minimum` / `maximum`.
            if let Value::Bool(_) = value {
                continue;
            }
            let draft4 = |name| s.get(name) == Some(&Value::Bool(true));
            let exclusive = exclusive
                || (keyword == "minimum" && draft4("exclusiveMinimum"))
                || (keyword == "maximum" && draft4("exclusiveMaximum"));
            let Some(bound) = self.bound(keyword, value, exclusive, upper, integer)? else {
                continue;
            };
            let slot = if upper {
                &mut range.max
            } else {
                &mut range.min
            };
            *slot = Some(match *slot {
                Some(old) if tighter(old, bound, upper) => old,
                _ => bound,
            });
        }
        if let (Some(min), Some(max)) = (range.min, range.max) {
            let (lo, hi) = if integer {
                (
                    min.value + i64::from(min.exclusive),
                    max.value - i64::from(max.exclusive),
                )
            } else {
                (min.value, max.value)
            };
            let empty = lo > hi || (!integer && lo == hi && (min.exclusive || max.exclusive));
            if empty {
                return Err(self.error(Some("maximum"), "is below the minimum: no value fits"));
            }
        }
        Ok(range)
    }

    /// One bound as a whole number. An integer's fractional bound is rounded inwards; a bound
    /// beyond 15 digits on the open side is brought in to 15 digits (the most a number is
    /// written with), which only narrows.
    fn bound(
        &self,
        keyword: &'static str,
        value: &Value,
        exclusive: bool,
        upper: bool,
        integer: bool,
    ) -> Compiled<Option<Bound>> {
        let Some(v) = value.as_f64() else {
            return Err(self.error(Some(keyword), "must be a number"));
        };
        let limit = MAX_MAGNITUDE as f64;
        if (upper && v > limit) || (!upper && v < -limit) {
            let value = if upper { MAX_MAGNITUDE } else { -MAX_MAGNITUDE };
            return Ok(Some(Bound {
                value,
                exclusive: false,
            }));
        }
        if v.abs() > limit {
            self.refuse(keyword, "bounds beyond 15 digits are not enforced")?;
            return Ok(None);
        }
        if v.fract() == 0.0 {
            return Ok(Some(Bound {
                value: v as i64,
                exclusive,
            }));
        }
        if integer {
            let whole = if upper { v.floor() } else { v.ceil() };
            return Ok(Some(Bound {
                value: whole as i64,
                exclusive: false,
            }));
        }
        self.refuse(keyword, "only whole-number bounds are enforced on numbers")?;
        Ok(None)
    }
}

/// Whether `b` leaves fewer values than `a` (for two bounds on the same side).
fn tighter(a: Bound, b: Bound, upper: bool) -> bool {
    let key = |x: Bound| (x.value, x.exclusive);
    let (a, b) = (key(a), key(b));
    if upper {
        // A lower maximum, or the same one exclusive.
        a.0 < b.0 || (a.0 == b.0 && a.1 >= b.1)
    } else {
        a.0 > b.0 || (a.0 == b.0 && a.1 >= b.1)
    }
}

/// The type a schema without `type` is read as, from its keywords. Reading it as that type
/// only narrows: the type-specific keywords apply to that type alone.
fn inferred_type(s: &Map<String, Value>) -> &'static str {
    let has = |keys: &[&str]| keys.iter().any(|k| s.contains_key(*k));
    if has(OBJECT_KEYWORDS) {
        "object"
    } else if has(ARRAY_KEYWORDS) {
        "array"
    } else if has(STRING_KEYWORDS) {
        "string"
    } else if has(NUMBER_KEYWORDS) {
        "number"
    } else {
        "any"
    }
}

fn matches_type(value: &Value, t: &str) -> bool {
    match (t, value) {
        ("string", Value::String(_))
        | ("number", Value::Number(_))
        | ("boolean", Value::Bool(_))
        | ("null", Value::Null)
        | ("object", Value::Object(_))
        | ("array", Value::Array(_)) => true,
        ("integer", Value::Number(n)) => as_whole(value).is_some() || n.is_u64(),
        _ => false,
    }
}

/// A JSON number that is a whole number (`3`, `3.0`).
pub(super) fn as_whole(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64().or_else(|| {
            let f = n.as_f64()?;
            (f.fract() == 0.0 && f.abs() < 9.0e15).then_some(f as i64)
        }),
        _ => None,
    }
}

/// The definition a local `$ref` names, with its path step (`$defs[2]`).
fn resolve<'a>(root: &'a Map<String, Value>, target: &str) -> Option<(String, &'a Value)> {
    for container in ["$defs", "definitions"] {
        let Some(name) = target
            .strip_prefix("#/")
            .and_then(|t| t.strip_prefix(container))
            .and_then(|t| t.strip_prefix('/'))
        else {
            continue;
        };
        if name.contains('/') {
            return None;
        }
        let name = name.replace("~1", "/").replace("~0", "~");
        let defs = root.get(container)?.as_object()?;
        let index = defs.keys().position(|k| *k == name)?;
        return Some((format!("{container}[{index}]"), &defs[&name]));
    }
    None
}

mod shapes;
