//! Tests for AskUserQuestion: schema, validation, and turning the front
//! end's answers into the tool result.

use serde_json::{Value, json};

use super::*;
use crate::tools::test_support::{ctx, run, run_err};
use crate::tools::{Adapter, Tool};

fn question(text: &str, header: &str, labels: &[&str]) -> Value {
    let options: Vec<Value> = labels
        .iter()
        .map(|l| json!({"label": l, "description": format!("pick {l}")}))
        .collect();
    json!({"question": text, "header": header, "options": options, "multiSelect": false})
}

fn two_questions() -> Value {
    json!({"questions": [
        question("Which database?", "Database", &["Postgres", "SQLite"]),
        question("Which tests?", "Tests", &["Unit", "Integration", "Both"]),
    ]})
}

#[test]
fn schema_is_strict_and_hides_answers() {
    let schema = Adapter(std::sync::Arc::new(AskUserQuestionTool)).input_schema();
    assert_eq!(schema["additionalProperties"], false);
    let props = schema["properties"].as_object().unwrap();
    assert!(props.contains_key("questions"));
    assert!(
        !props.contains_key("answers"),
        "answers are for the front end only: {schema}"
    );
    let text = schema.to_string();
    assert!(text.contains("multiSelect"), "{text}");
    assert!(text.contains("header"), "{text}");
}

#[test]
fn always_asks_and_only_reads() {
    let dir = tempfile::tempdir().unwrap();
    let c = ctx(dir.path());
    let input: AskUserQuestionInput = serde_json::from_value(two_questions()).unwrap();
    assert_eq!(AskUserQuestionTool.access(&input, &c), Access::Interaction);
    assert!(AskUserQuestionTool.is_read_only(&input));
    assert_eq!(
        AskUserQuestionTool.summary(&input),
        "AskUserQuestion(Database, Tests)"
    );
}

#[tokio::test]
async fn answers_become_the_result_in_question_order() {
    let dir = tempfile::tempdir().unwrap();
    let c = ctx(dir.path());
    let mut input = two_questions();
    // The order of the map does not matter; the questions' order does.
    input["answers"] = json!({"Which tests?": "Both", "Which database?": "SQLite"});
    let out = run(AskUserQuestionTool, &c, input).await.unwrap();
    assert!(!out.is_error);
    assert!(
        out.content
            .contains(r#""Which database?" = "SQLite", "Which tests?" = "Both""#),
        "{}",
        out.content
    );
    assert_eq!(
        out.display.as_deref(),
        Some("· Database → SQLite\n· Tests → Both")
    );
}

#[tokio::test]
async fn lists_of_choices_and_missing_answers_are_rendered() {
    let dir = tempfile::tempdir().unwrap();
    let c = ctx(dir.path());
    let mut input = two_questions();
    input["questions"][1]["multiSelect"] = json!(true);
    input["answers"] = json!({"Which tests?": ["Unit", "Integration"]});
    let out = run(AskUserQuestionTool, &c, input).await.unwrap();
    assert!(
        out.content
            .contains(r#""Which tests?" = "Unit, Integration""#),
        "{}",
        out.content
    );
    assert!(
        out.content.contains(r#""Which database?" = "(no answer)""#),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn without_answers_the_call_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let c = ctx(dir.path());
    let err = run_err(AskUserQuestionTool, &c, two_questions()).await;
    assert!(err.contains("not answered"), "{err}");
    let mut empty = two_questions();
    empty["answers"] = json!({});
    let err = run_err(AskUserQuestionTool, &c, empty).await;
    assert!(err.contains("not answered"), "{err}");
}

#[tokio::test]
async fn multi_select_defaults_to_false() {
    let dir = tempfile::tempdir().unwrap();
    let c = ctx(dir.path());
    let input = json!({"questions": [{"question": "Q?", "header": "H",
        "options": [{"label": "a", "description": ""}, {"label": "b", "description": ""}]}],
        "answers": {"Q?": "a"}});
    let out = run(AskUserQuestionTool, &c, input).await.unwrap();
    assert!(out.content.contains(r#""Q?" = "a""#), "{}", out.content);
}

#[tokio::test]
async fn validation_rejects_bad_question_sets() {
    let dir = tempfile::tempdir().unwrap();
    let c = ctx(dir.path());
    let q = |t: &str| question(t, "H", &["a", "b"]);
    let cases: Vec<(Value, &str)> = vec![
        (json!({"questions": []}), "1 to 4 questions, got 0"),
        (
            json!({"questions": [q("1?"), q("2?"), q("3?"), q("4?"), q("5?")]}),
            "1 to 4 questions, got 5",
        ),
        (
            json!({"questions": [question("Q?", "H", &["only"])]}),
            "has 1 options",
        ),
        (
            json!({"questions": [question("Q?", "H", &["a", "b", "c", "d", "e"])]}),
            "has 5 options",
        ),
        (json!({"questions": [q("Same?"), q("Same?")]}), "repeats"),
        (
            json!({"questions": [question("Q?", "H", &["a", "a"])]}),
            "twice",
        ),
        (
            json!({"questions": [question("Q?", " ", &["a", "b"])]}),
            "empty header",
        ),
        (
            json!({"questions": [question("  ", "H", &["a", "b"])]}),
            "has no text",
        ),
        (
            json!({"questions": [question("Q?", "H", &["a", ""])]}),
            "empty label",
        ),
        (
            json!({"questions": [q("Q?")], "extra": 1}),
            "Invalid input for AskUserQuestion",
        ),
    ];
    for (input, want) in cases {
        let err = run_err(AskUserQuestionTool, &c, input.clone()).await;
        assert!(err.contains(want), "{input}: {err}");
    }
}
