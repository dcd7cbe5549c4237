//! AskUserQuestion through the headless front ends: a stream-json client
//! answers `can_use_tool` with `updatedInput.answers`, and the answers reach
//! the model; in plain `-p` nobody can answer, so the call is refused.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::{Sandbox, StreamSession};
use serde_json::{Value, json};

fn questions() -> Value {
    json!({"questions": [
        {"question": "Which storage should the cache use?", "header": "Storage",
         "options": [{"label": "Memory", "description": "fast, lost on restart"},
                     {"label": "Disk", "description": "kept across restarts"}],
         "multiSelect": false},
        {"question": "Which platforms matter?", "header": "Platforms",
         "options": [{"label": "Linux", "description": ""},
                     {"label": "macOS", "description": ""},
                     {"label": "Windows", "description": ""}],
         "multiSelect": true}
    ]})
}

#[test]
fn a_stream_json_client_answers_the_questions() {
    let sb = Sandbox::new();
    let server = common::mock(
        Script::new()
            .turn(Turn::tool_use("q1", "AskUserQuestion", questions()))
            .turn(Turn::text("Thanks, going with that.")),
    );
    let mut s = StreamSession::start(sb.catui(&server), &[]);
    let init = s.wait_for("init", |v| v["subtype"] == "init");
    let tools: Vec<&str> = init["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(tools.contains(&"AskUserQuestion"), "{tools:?}");

    s.send_user("Add a cache.");
    let ask = s.wait_type("control_request");
    assert_eq!(ask["request"]["subtype"], "can_use_tool");
    assert_eq!(ask["request"]["tool_name"], "AskUserQuestion");
    assert_eq!(ask["request"]["tool_use_id"], "q1");
    let mut updated = ask["request"]["input"].clone();
    assert_eq!(updated["questions"], questions()["questions"]);
    updated["answers"] = json!({
        "Which storage should the cache use?": "Disk",
        "Which platforms matter?": "Linux, macOS",
    });
    s.send(
        json!({"type":"control_response","response":{"subtype":"success",
        "request_id": ask["request_id"],
        "response":{"behavior":"allow","updatedInput": updated}}}),
    );
    let result = s.wait_type("result");
    assert_eq!(result["subtype"], "success", "{result}");
    assert_eq!(result["result"], "Thanks, going with that.");
    let (code, _) = s.finish();
    assert_eq!(code, 0);

    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let seen = reqs[1].tool_results();
    let answer = seen.iter().find(|t| t.tool_use_id == "q1").unwrap();
    assert!(!answer.is_error, "{}", answer.content);
    assert!(
        answer.content.contains(
            r#""Which storage should the cache use?" = "Disk", "Which platforms matter?" = "Linux, macOS""#
        ),
        "{}",
        answer.content
    );
    // The schema the model sees never offers the answers field.
    let schema = reqs[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "AskUserQuestion")
        .unwrap()["input_schema"]
        .clone();
    assert!(schema["properties"].get("answers").is_none(), "{schema}");
}

#[test]
fn declining_reaches_the_model_and_plain_print_refuses() {
    let sb = Sandbox::new();
    let server = common::mock(
        Script::new()
            .turn(Turn::tool_use("q1", "AskUserQuestion", questions()))
            .turn(Turn::text("Understood.")),
    );
    let mut s = StreamSession::start(sb.catui(&server), &[]);
    s.send_user("Add a cache.");
    let ask = s.wait_type("control_request");
    s.send(
        json!({"type":"control_response","response":{"subtype":"success",
        "request_id": ask["request_id"],
        "response":{"behavior":"deny","message":"Decide yourself."}}}),
    );
    assert_eq!(s.wait_type("result")["result"], "Understood.");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    let seen = server.requests()[1].tool_results();
    assert!(seen[0].is_error);
    assert!(
        seen[0].content.contains("Decide yourself."),
        "{}",
        seen[0].content
    );

    // Plain -p: nobody can answer, so the tool is not offered, and a call
    // made anyway is refused with an error the model reads.
    let server = common::mock(
        Script::new()
            .turn(Turn::tool_use("q2", "AskUserQuestion", questions()))
            .turn(Turn::text("Proceeding on assumptions.")),
    );
    let out = sb.run(&server, ["-p", "Add a cache."]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(common::stdout(&out).trim(), "Proceeding on assumptions.");
    let reqs = server.requests();
    assert!(
        !reqs[0]
            .tool_names()
            .contains(&"AskUserQuestion".to_string())
    );
    let seen = reqs[1].tool_results();
    assert!(seen[0].is_error);
    assert!(
        seen[0].content.contains("AskUserQuestion"),
        "{}",
        seen[0].content
    );
}

#[test]
fn invalid_questions_are_refused_before_anyone_is_asked() {
    // The questions are validated before anyone is asked.
    let sb = Sandbox::new();
    let server = common::mock(
        Script::new()
            .turn(Turn::tool_use(
                "q1",
                "AskUserQuestion",
                json!({"questions": [{"question": "Q?", "header": "H",
                    "options": [{"label": "only", "description": ""}]}]}),
            ))
            .turn(Turn::text("Fixed.")),
    );
    // A client that answers questions: none is asked, the input is refused.
    let mut s = StreamSession::start(sb.catui(&server), &[]);
    s.send_user("go");
    assert_eq!(s.wait_type("result")["result"], "Fixed.");
    let (code, seen) = s.finish();
    assert_eq!(code, 0);
    assert!(
        !seen.iter().any(|v| v["type"] == "control_request"),
        "{seen:?}"
    );
    let seen = server.requests()[1].tool_results();
    assert!(seen[0].is_error);
    assert!(
        seen[0].content.contains("has 1 options"),
        "{}",
        seen[0].content
    );
}
