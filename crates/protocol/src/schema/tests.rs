use serde_json::{json, Map, Value};

use super::*;

fn map(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

fn ok(v: Value) -> Schema {
    compile(&map(v.clone())).unwrap_or_else(|e| panic!("{v}: {e:?}"))
}

fn refused(v: Value) -> Unsupported {
    match compile(&map(v.clone())) {
        Ok(s) => panic!("{v} compiled: {s:?}"),
        Err(e) => e,
    }
}

fn string() -> Node {
    Node::String(StringNode::default())
}

#[test]
fn a_pydantic_model_compiles_whole() {
    // What `Model.model_json_schema()` writes for a nested model with an optional field.
    let s = ok(json!({
        "$defs": {
            "Address": {
                "properties": {"city": {"title": "City", "type": "string"}},
                "required": ["city"], "title": "Address", "type": "object",
                "additionalProperties": false
            },
            "Kind": {"enum": ["a", "b"], "title": "Kind", "type": "string"}
        },
        "properties": {
            "name": {"title": "Name", "type": "string", "description": "who"},
            "age": {"title": "Age", "type": "integer", "minimum": 0, "maximum": 150},
            "kinds": {"items": {"$ref": "#/$defs/Kind"}, "type": "array", "maxItems": 3},
            "home": {"$ref": "#/$defs/Address"},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}
        },
        "required": ["name", "age", "kinds", "home"],
        "title": "Person", "type": "object"
    }));
    let Node::Object(root) = s.root() else {
        panic!("{:?}", s.root())
    };
    let names: Vec<(&str, bool)> = (root.properties.iter())
        .map(|p| (p.name.as_str(), p.required))
        .collect();
    assert_eq!(
        names,
        [
            ("name", true),
            ("age", true),
            ("kinds", true),
            ("home", true),
            ("note", false)
        ]
    );
    assert_eq!(root.extra, None, "extra keys are never written");
    assert_eq!(
        root.properties[1].node,
        Node::Integer(IntRange {
            min: Some(0),
            max: Some(150)
        })
    );
    let Node::Array(kinds) = &root.properties[2].node else {
        panic!()
    };
    assert_eq!((kinds.min_items, kinds.max_items), (0, Some(3)));
    let Some(Node::Ref(kind)) = kinds.rest.as_deref() else {
        panic!()
    };
    assert_eq!(s.defs()[*kind], Node::Enum(vec![json!("a"), json!("b")]));
    let Node::Ref(home) = root.properties[3].node else {
        panic!()
    };
    assert!(matches!(&s.defs()[home], Node::Object(o) if o.properties[0].name == "city"));
    assert_eq!(
        root.properties[4].node,
        Node::AnyOf(vec![string(), Node::Null])
    );
    assert!(s.admits_only_objects());
}

#[test]
fn types_values_and_nullables() {
    assert_eq!(
        *ok(json!({"type": ["integer", "null"]})).root(),
        Node::AnyOf(vec![Node::Integer(IntRange::default()), Node::Null])
    );
    assert_eq!(
        *ok(json!({"type": "string", "nullable": true})).root(),
        Node::AnyOf(vec![string(), Node::Null])
    );
    // Values that do not match `type` are dropped; `const` is an enum of one.
    assert_eq!(
        *ok(json!({"type": "string", "enum": ["x", 1, null]})).root(),
        Node::Enum(vec![json!("x")])
    );
    assert_eq!(
        *ok(json!({"type": ["string", "null"], "enum": ["x", null]})).root(),
        Node::Enum(vec![json!("x"), Value::Null])
    );
    assert_eq!(
        *ok(json!({"const": {"a": [1]}})).root(),
        Node::Enum(vec![json!({"a": [1]})])
    );
    // No `type`: read from the keywords, or any value.
    assert!(matches!(
        ok(json!({"properties": {}})).root(),
        Node::Object(_)
    ));
    assert!(matches!(ok(json!({"items": {}})).root(), Node::Array(_)));
    assert!(matches!(
        ok(json!({"maxLength": 3})).root(),
        Node::String(_)
    ));
    assert_eq!(*ok(json!({"title": "x"})).root(), Node::Any);
    assert_eq!(
        *ok(json!({"allOf": [{"type": "boolean"}]})).root(),
        Node::Boolean
    );
    assert_eq!(
        refused(json!({"type": "string", "enum": [1]})).keyword,
        Some("enum")
    );
    assert_eq!(refused(json!({"type": "text"})).keyword, Some("type"));
}

#[test]
fn strings_and_bounds() {
    let s = ok(json!({"type": "string", "minLength": 2, "maxLength": 5}));
    assert_eq!(
        *s.root(),
        Node::String(StringNode {
            format: None,
            min_length: 2,
            max_length: Some(5)
        })
    );
    for format in ["date", "date-time", "time", "uuid", "email", "ipv4", "uri"] {
        let s = ok(json!({"type": "string", "format": format}));
        let Node::String(StringNode {
            format: Some(f), ..
        }) = s.root()
        else {
            panic!("{format}")
        };
        assert_eq!(f.name(), format);
    }
    let e = refused(json!({"type": "string", "format": "hostname"}));
    assert_eq!((e.path.as_str(), e.keyword), ("format", Some("format")));
    assert_eq!(
        refused(json!({"type": "string", "maxLength": 5000})).keyword,
        Some("maxLength")
    );
    assert_eq!(
        refused(json!({"type": "string", "minLength": 3, "maxLength": 2})).keyword,
        Some("maxLength")
    );

    let int = |v: Value| ok(v).root().clone();
    assert_eq!(
        int(json!({"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10})),
        Node::Integer(IntRange {
            min: Some(1),
            max: Some(9)
        })
    );
    assert_eq!(
        int(json!({"type": "integer", "minimum": 0.5, "maximum": 2.5})),
        Node::Integer(IntRange {
            min: Some(1),
            max: Some(2)
        })
    );
    // Draft 4's boolean exclusivity.
    assert_eq!(
        int(json!({"type": "integer", "minimum": 0, "exclusiveMinimum": true})),
        Node::Integer(IntRange {
            min: Some(1),
            max: None
        })
    );
    // Far bounds come in to 15 digits; the tighter of two bounds wins.
    assert_eq!(
        int(json!({"type": "number", "maximum": 1e300, "minimum": -3, "exclusiveMinimum": -3})),
        Node::Number(NumberRange {
            min: Some(Bound {
                value: -3,
                exclusive: true
            }),
            max: Some(Bound {
                value: MAX_MAGNITUDE,
                exclusive: false
            })
        })
    );
    let e = refused(json!({"type": "number", "maximum": 0.5}));
    assert_eq!((e.path.as_str(), e.keyword), ("maximum", Some("maximum")));
    assert_eq!(
        refused(json!({"type": "integer", "minimum": 5, "maximum": 4})).keyword,
        Some("maximum")
    );
    assert_eq!(
        refused(json!({"type": "number", "exclusiveMinimum": 1, "maximum": 1})).keyword,
        Some("maximum")
    );
}

#[test]
fn arrays_and_tuples() {
    let Node::Array(a) =
        ok(json!({"type": "array", "items": {"type": "null"}, "minItems": 1})).defs[0].clone()
    else {
        panic!()
    };
    assert_eq!(
        (a.prefix.len(), a.rest.as_deref(), a.min_items, a.max_items),
        (0, Some(&Node::Null), 1, None)
    );
    // 2020-12 and draft-4 tuples.
    for tuple in [
        json!({"type": "array", "prefixItems": [{"type": "string"}, {"type": "null"}], "items": false}),
        json!({"type": "array", "items": [{"type": "string"}, {"type": "null"}], "additionalItems": false}),
    ] {
        let Node::Array(a) = ok(tuple).defs[0].clone() else {
            panic!()
        };
        assert_eq!(a.prefix, vec![string(), Node::Null]);
        assert_eq!((a.rest, a.max_items), (None, Some(2)));
    }
    assert_eq!(
        refused(json!({"type": "array", "prefixItems": [{}], "items": false, "minItems": 2}))
            .keyword,
        Some("minItems")
    );
    assert_eq!(
        refused(json!({"type": "array", "uniqueItems": true})).keyword,
        Some("uniqueItems")
    );
    ok(json!({"type": "array", "uniqueItems": false}));
}

#[test]
fn objects_maps_and_required() {
    let Node::Object(o) = ok(
        json!({"type": "object", "additionalProperties": {"type": "integer"}, "maxProperties": 3}),
    )
    .defs[0]
        .clone()
    else {
        panic!()
    };
    assert!(o.properties.is_empty());
    assert_eq!(
        o.extra.as_deref(),
        Some(&Node::Integer(IntRange::default()))
    );
    assert_eq!(o.max_extra, Some(3));
    // A required name with no schema takes the extra keys' schema.
    let Node::Object(o) = ok(json!({"type": "object", "required": ["x"]})).defs[0].clone() else {
        panic!()
    };
    assert_eq!(o.properties[0].node, Node::Any);
    assert!(o.properties[0].required);
    assert_eq!(
        refused(json!({"type": "object", "required": ["x"], "additionalProperties": false}))
            .keyword,
        Some("required")
    );
    // A `false` property may not appear; required, nothing fits.
    let Node::Object(o) = ok(json!({"properties": {"a": false, "b": {}}})).defs[0].clone() else {
        panic!()
    };
    assert_eq!(o.properties.len(), 1);
    refused(json!({"properties": {"a": false}, "required": ["a"]}));
    assert_eq!(
        refused(json!({"properties": {"a": {}}, "minProperties": 1})).keyword,
        Some("minProperties")
    );
    ok(json!({"properties": {"a": {}}, "required": ["a"], "minProperties": 1, "maxProperties": 1}));
}

#[test]
fn every_refused_keyword_is_named_with_its_path() {
    for (keyword, schema) in [
        ("pattern", json!({"type": "string", "pattern": "^a"})),
        (
            "patternProperties",
            json!({"patternProperties": {"^a": {}}}),
        ),
        ("propertyNames", json!({"propertyNames": {"maxLength": 2}})),
        (
            "dependentRequired",
            json!({"dependentRequired": {"a": ["b"]}}),
        ),
        ("dependentSchemas", json!({"dependentSchemas": {"a": {}}})),
        ("dependencies", json!({"dependencies": {"a": ["b"]}})),
        ("if", json!({"if": {}, "then": {}})),
        ("else", json!({"else": {}})),
        ("not", json!({"not": {"type": "null"}})),
        ("contains", json!({"type": "array", "contains": {}})),
        ("multipleOf", json!({"type": "integer", "multipleOf": 2})),
        ("$dynamicRef", json!({"$dynamicRef": "#a"})),
        ("allOf", json!({"allOf": [{}, {}]})),
        ("allOf", json!({"type": "object", "allOf": [{}]})),
        ("anyOf", json!({"type": "string", "anyOf": [{}]})),
        ("$ref", json!({"$ref": "https://example.com/s.json"})),
        ("$ref", json!({"$ref": "#/$defs/missing"})),
        (
            "$ref",
            json!({"$ref": "#/$defs/a", "type": "string", "$defs": {"a": {}}}),
        ),
        (
            "unevaluatedProperties",
            json!({"unevaluatedProperties": {"type": "string"}}),
        ),
    ] {
        let e = refused(schema.clone());
        assert_eq!(e.keyword, Some(keyword), "{schema}");
        assert_eq!(e.path, keyword, "{schema}");
        assert!(e.message("p").contains(&format!("`{keyword}`")), "{schema}");
    }
    // Deep inside: the path counts properties and options, and never names them.
    let e = refused(json!({"type": "object", "properties": {
        "secret-name": {"type": "string"},
        "other-secret": {"anyOf": [{"type": "null"}, {"type": "array", "items": {"type": "string", "pattern": "x"}}]}
    }}));
    assert_eq!(e.path, "properties[1].anyOf[1].items.pattern");
    assert_eq!(
        e.param("schema"),
        "schema.properties[1].anyOf[1].items.pattern"
    );
    let message = e.message("response_format.json_schema.schema");
    assert!(!message.contains("secret"), "{message}");
    let e = refused(json!({"$defs": {"a-secret": {"not": {}}}, "$ref": "#/$defs/a-secret"}));
    assert_eq!(e.path, "$defs[0].not");
    // Not a schema at all.
    let e = refused(json!({"properties": {"a": 3}}));
    assert_eq!((e.path.as_str(), e.keyword), ("properties[0]", None));
}

#[test]
fn recursion_through_values_is_kept_and_other_recursion_refused() {
    // A tree: each node has children of the same kind, possibly none.
    let s = ok(json!({
        "$defs": {"node": {"type": "object", "properties": {
            "v": {"type": "integer"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}
        }, "required": ["v", "children"]}},
        "$ref": "#/$defs/node"
    }));
    assert_eq!(*s.root(), Node::Ref(1));
    // The root refers to itself by `#`.
    let s = ok(
        json!({"type": "object", "properties": {"next": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}}, "required": ["next"]}),
    );
    assert!(matches!(s.root(), Node::Object(_)));
    // Left recursion: a definition that is an option of itself.
    let e = refused(
        json!({"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}, {"type": "null"}]}}, "$ref": "#/$defs/a"}),
    );
    assert_eq!(
        (e.path.as_str(), e.keyword),
        ("$defs[0].$ref", Some("$ref"))
    );
    // No finite value: a required property that requires itself.
    let e =
        refused(json!({"type": "object", "properties": {"a": {"$ref": "#"}}, "required": ["a"]}));
    assert_eq!(e.keyword, Some("$ref"));
    // An optional property that could never end is dropped, not written.
    let s = ok(json!({
        "$defs": {"loop": {"type": "object", "properties": {"x": {"$ref": "#/$defs/loop"}}, "required": ["x"]}},
        "type": "object", "properties": {"a": {"type": "null"}, "b": {"$ref": "#/$defs/loop"}}
    }));
    let Node::Object(o) = s.root() else { panic!() };
    assert_eq!(o.properties.len(), 1);
    assert_eq!(o.properties[0].name, "a");
}

#[test]
fn lenient_drops_what_it_cannot_enforce() {
    let s = compile_lenient(&map(json!({"type": "object", "properties": {
        "a": {"type": "string", "pattern": "^x"},
        "b": {"$ref": "https://example.com/b"},
        "c": {"allOf": [{"type": "string"}, {"maxLength": 3}]}
    }})));
    let Node::Object(o) = s.root() else { panic!() };
    assert_eq!(o.properties[0].node, string());
    assert_eq!(o.properties[1].node, Node::Any);
    assert_eq!(o.properties[2].node, Node::Any);
    // What strict refuses for having no value, lenient makes any value.
    let s = compile_lenient(&map(json!({"type": "string", "enum": [1]})));
    assert_eq!(*s.root(), Node::Any);
}

#[test]
fn only_objects() {
    assert!(ok(json!({"type": "object"})).admits_only_objects());
    assert!(ok(json!({"anyOf": [{"type": "object"}, {"properties": {}}]})).admits_only_objects());
    assert!(!ok(json!({"type": ["object", "null"]})).admits_only_objects());
    assert!(!ok(json!({})).admits_only_objects());
    assert!(Schema::any_object().admits_only_objects());
}
