#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use serde_json::json;

fn answer_schema() -> Value {
    json!({"type": "object", "properties": {"answer": {"type": "integer"}},
           "required": ["answer"], "additionalProperties": false})
}

#[test]
fn schemas_must_describe_objects_and_compile() {
    assert_eq!(
        check_schema(&json!({"type": "array"})),
        Err(SchemaError::NotAnObject)
    );
    assert!(matches!(
        check_schema(&json!({"type": "object", "properties": {"a": {"type": 7}}})),
        Err(SchemaError::Invalid(_))
    ));
    // A `$ref` to a file is not followed.
    assert!(matches!(
        check_schema(
            &json!({"type": "object", "properties": {"a": {"$ref": "file:///etc/hostname"}}})
        ),
        Err(SchemaError::Invalid(_))
    ));
    assert_eq!(check_schema(&answer_schema()), Ok(()));
}

#[test]
fn validation_names_what_does_not_match() {
    let schema = answer_schema();
    assert_eq!(validate(&schema, &json!({"answer": 42})), Ok(()));
    let wrong = validate(&schema, &json!({"answer": "x"})).unwrap_err();
    assert!(
        matches!(&wrong, ValidationError::Mismatch(why) if why.contains("/answer")),
        "{wrong}"
    );
    let missing = validate(&schema, &json!({})).unwrap_err();
    assert!(
        matches!(&missing, ValidationError::Mismatch(why) if why.contains("answer")),
        "{missing}"
    );
    // A schema no value can match is the caller's to fix, not the value's.
    let broken = json!({"type": "object", "properties": {"a": {"type": 5}}});
    assert!(matches!(
        validate(&broken, &json!({})),
        Err(ValidationError::Schema(SchemaError::Invalid(_)))
    ));
}

#[test]
fn the_model_is_reminded_once_per_input() {
    let format = OutputFormat::default();
    assert_eq!(
        format.turn_ending(),
        TurnEnd::Accept,
        "no schema, no reminder"
    );
    format.set_schema(answer_schema()).unwrap();
    assert!(matches!(format.turn_ending(), TurnEnd::Continue(t) if t.contains(TOOL_NAME)));
    assert_eq!(format.turn_ending(), TurnEnd::Accept);
    format.input_handled();
    assert!(matches!(format.turn_ending(), TurnEnd::Continue(_)));
}
