//! AskUserQuestion through the headless front ends: a stream-json client
//! answers `can_use_tool` with `updatedInput.answers`, and the answers reach
//! the model; in plain `-p` nobody can answer, so the call is refused.
//!
//! "Nobody is here" through the real binary: a plain `-p` run and a
//! stream-json run given `--unattended` tell the model that nobody can
//! answer and do not offer AskUserQuestion; a stream-json session whose
//! client answers `can_use_tool` keeps the interactive prompt and tools.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{RecordedRequest, Script, Turn};
use common::{Sandbox, output_within};
use serde_json::{Value, json};

fn questions() -> Value {
    common::fixtures::cache_questions("Which storage should the cache use?")
}

#[test]
fn a_stream_json_client_answers_the_questions() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::tool_use("q1", "AskUserQuestion", questions()))
            .turn(Turn::text("Thanks, going with that.")),
    );
    let mut s = sb.stream(&server, &[]);
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
    let schema = common::offered_tool(&reqs[0], "AskUserQuestion")["input_schema"].clone();
    assert!(schema["properties"].get("answers").is_none(), "{schema}");
}

#[test]
fn declining_reaches_the_model_and_plain_print_refuses() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::tool_use("q1", "AskUserQuestion", questions()))
            .turn(Turn::text("Understood.")),
    );
    let mut s = sb.stream(&server, &[]);
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
    let (sb, server) = common::with_mock(
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
    let mut s = sb.stream(&server, &[]);
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

const NOBODY: &str = "# Nobody is here";

fn bash_description(r: &RecordedRequest) -> String {
    r.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "Bash")
        .map(|t| t["description"].as_str().unwrap().to_string())
        .unwrap()
}

fn assert_unattended(r: &RecordedRequest) {
    let system = r.system_text();
    common::assert_contains(&system, NOBODY);
    common::assert_contains(&system, "Never ask for clarification");
    common::assert_contains(&system, "compacted automatically");
    common::assert_contains(&system, "keep_running: true");
    common::assert_lacks(&system, "ask the user how to continue");
    let tools = r.tool_names();
    assert!(!tools.contains(&"AskUserQuestion".to_string()), "{tools:?}");
    assert!(tools.contains(&"BashInput".to_string()), "{tools:?}");
    let bash = bash_description(r);
    common::assert_lacks(&bash, "will be asked");
    common::assert_contains(&bash, "nobody is asked");
}

#[test]
fn a_plain_print_run_tells_the_model_nobody_is_here() {
    let (sb, server) = common::with_mock(Script::new().turn(Turn::text("done")));
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "tidy the project"]);
    let out = output_within(cmd, b"", 60);
    assert_eq!(out.status.code(), Some(0));
    assert_unattended(&server.requests()[0]);
}

#[test]
fn a_stream_json_run_given_unattended_is_told_too() {
    let (sb, server) = common::with_mock(Script::new().turn(Turn::text("done")));
    let mut s = sb.stream(&server, &["--unattended"]);
    s.send_user("tidy the project");
    s.wait_type("result");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    assert_unattended(&server.requests()[0]);
}

#[test]
fn an_sdk_session_that_answers_permission_prompts_keeps_the_interactive_prompt() {
    let sb = Sandbox::new();
    let target = sb.project().join("out.txt");
    let server = common::mock(
        Script::new()
            .turn(common::write("w1", &target, "written"))
            .turn(Turn::text("done")),
    );
    let mut s = sb.stream(&server, &["--permission-prompt-tool", "stdio"]);
    s.send_user("write the file");
    let ask = s.wait_for("a permission prompt", |v| {
        v["type"] == "control_request" && v["request"]["subtype"] == "can_use_tool"
    });
    s.send(common::allow(&ask, ask["request"]["input"].clone()));
    s.wait_type("result");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "written");
    let first = &server.requests()[0];
    let system = first.system_text();
    common::assert_lacks(&system, NOBODY);
    common::assert_contains(&system, "ask the user how to continue");
    assert!(
        first.tool_names().contains(&"AskUserQuestion".to_string()),
        "{:?}",
        first.tool_names()
    );
    assert!(bash_description(first).contains("the user will be asked"));
}

#[test]
fn bypass_permissions_bash_text_does_not_promise_a_question() {
    let (sb, server) = common::with_mock(Script::new().turn(Turn::text("done")));
    let mut s = sb.stream(&server, &["--permission-mode", "bypassPermissions"]);
    s.send_user("hi");
    s.wait_type("result");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    let first = &server.requests()[0];
    let bash = bash_description(first);
    common::assert_lacks(&bash, "will be asked");
    // Someone is there: the prompt is the interactive one.
    assert!(!first.system_text().contains(NOBODY));
}
