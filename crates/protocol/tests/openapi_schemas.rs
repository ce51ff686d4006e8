//! The Responses and Messages types describe themselves for the gateway's OpenAPI document
//! (feature `openapi`): every schema builds and names its fields.
#![cfg(feature = "openapi")]

use utoipa::PartialSchema;

fn schema_json<T: PartialSchema>() -> serde_json::Value {
    serde_json::to_value(T::schema()).expect("a schema serializes")
}

#[test]
fn request_and_answer_schemas_build() {
    use shoal_protocol::{messages, responses};
    let request = schema_json::<responses::ResponsesRequest>();
    assert!(request["properties"]["input"].is_object(), "{request}");
    assert!(schema_json::<responses::Response>()["properties"]["output"].is_object());
    let request = schema_json::<messages::MessagesRequest>();
    assert!(request["properties"]["max_tokens"].is_object(), "{request}");
    assert!(schema_json::<messages::Message>()["properties"]["content"].is_object());
    assert!(schema_json::<messages::MessagesErrorBody>()["properties"]["error"].is_object());
    assert!(schema_json::<messages::TokenCount>()["properties"]["input_tokens"].is_object());
    for value in [
        schema_json::<responses::InputItem>(),
        schema_json::<messages::Block>(),
        schema_json::<responses::ResponsesTool>(),
    ] {
        assert!(!value.is_null());
    }
}
