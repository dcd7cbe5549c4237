//! The SDK options on the command line, as `-p` users and the SDKs pass
//! them: `--json-schema`, `--agents`, `--system-prompt` (and its file
//! form), `--fallback-model`, `--resume-session-at` and
//! `--no-session-persistence`, against the real binary and the mock model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::{Sandbox, json_lines};
use serde_json::json;

const SCHEMA: &str =
    r#"{"type":"object","properties":{"answer":{"type":"integer"}},"required":["answer"]}"#;

#[test]
fn json_schema_returns_structured_output_in_the_json_result() {
    let sb = Sandbox::new();
    let mock = common::mock(Script::new().turn(Turn::tool_use(
        "s",
        "StructuredOutput",
        json!({"answer": 7}),
    )));
    let out = sb.run(
        &mock,
        [
            "-p",
            "answer",
            "--output-format",
            "json",
            "--json-schema",
            SCHEMA,
        ],
    );
    assert!(out.status.success(), "{out:?}");
    let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["structured_output"], json!({"answer": 7}));
    assert_eq!(result["result"], r#"{"answer":7}"#);
}

#[test]
fn bad_option_values_are_usage_errors_that_say_what_is_wrong() {
    let sb = Sandbox::new();
    let mock = common::mock(Script::new());
    for (args, says) in [
        (
            vec!["--json-schema", "{nope"],
            "--json-schema: not valid JSON",
        ),
        (
            vec!["--json-schema", r#"{"type":"array"}"#],
            "must describe an object",
        ),
        (vec!["--agents", "[1]"], "--agents"),
        (
            vec!["--agents", r#"{"r": {"description": "d"}}"#],
            "`prompt`",
        ),
        (
            vec!["--fallback-model", "test-model"],
            "--fallback-model test-model is the main model",
        ),
        (
            vec![
                "--resume-session-at",
                "00000000-0000-0000-0000-000000000000",
            ],
            "--resume-session-at needs --resume",
        ),
    ] {
        let out = sb
            .catui(&mock)
            .args(["-p", "hi"])
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let stderr = common::stderr(&out);
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    assert!(mock.requests().is_empty());
}

#[test]
fn agents_flag_and_system_prompt_file_shape_the_requests() {
    let sb = Sandbox::new();
    let prompt_file = sb.write("prompt.txt", "You are a release-notes writer.");
    let mock = common::mock(Script::new().turn(Turn::text("ok")));
    let out = sb
        .catui(&mock)
        .args(["-p", "hi", "--system-prompt-file"])
        .arg(&prompt_file)
        .args([
            "--agents",
            r#"{"linter": {"description": "Runs the linters", "prompt": "You lint.", "tools": ["Bash"]}}"#,
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let request = &mock.requests()[0];
    let system = request.system_text();
    assert!(
        system.starts_with("You are a release-notes writer."),
        "{system}"
    );
    common::assert_lacks(&system, "You are catui");
    let agent = common::offered_tool(request, "Agent").clone();
    assert!(
        agent["description"]
            .as_str()
            .unwrap()
            .contains("- linter: Runs the linters (tools: Bash)"),
        "{agent}"
    );
}

#[test]
fn fallback_model_is_announced_on_stderr() {
    let sb = Sandbox::new();
    let mut script = Script::new();
    for _ in 0..8 {
        script = script.turn(Turn::error_status(503, "unavailable").when_model("test-model"));
    }
    let mock = common::mock(script.turn(Turn::text("spare answer")));
    let out = sb.run(&mock, ["-p", "hi", "--fallback-model", "spare"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(common::stdout(&out).trim(), "spare answer");
    let stderr = common::stderr(&out);
    common::assert_contains(&stderr, "continuing with the fallback model spare");
    assert_eq!(mock.requests().last().unwrap().model(), "spare");
}

#[test]
fn no_session_persistence_writes_no_transcript() {
    let sb = Sandbox::new();
    let mock = common::mock(Script::new().turn(Turn::text("ok")));
    let out = sb.run(&mock, ["-p", "hi", "--no-session-persistence"]);
    assert!(out.status.success(), "{out:?}");
    assert!(sb.transcripts().is_empty(), "{:?}", sb.transcripts());
    // Without the flag there is one.
    let mock = common::mock(Script::new().turn(Turn::text("ok")));
    assert!(sb.run(&mock, ["-p", "hi"]).status.success());
    assert_eq!(sb.transcripts().len(), 1);
}

#[test]
fn resume_session_at_continues_from_the_message_with_that_uuid() {
    let sb = Sandbox::new();
    let mock = common::mock(
        Script::new()
            .turn(Turn::text("noted 42"))
            .turn(Turn::text("forgotten"))
            .turn(Turn::text("you said 42"))
            .turn(Turn::text("still 42")),
    );
    let run = |args: &[&str]| {
        let out = sb
            .catui(&mock)
            .args(["-p", "--output-format", "stream-json", "--verbose"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        json_lines(&out.stdout)
    };
    let first = run(&["Remember 42"]);
    let assistant = first.iter().find(|v| v["type"] == "assistant").unwrap();
    let uuid = assistant["uuid"].as_str().unwrap().to_string();
    let session = assistant["session_id"].as_str().unwrap().to_string();
    run(&["--resume", &session, "Actually, forget it"]);
    run(&[
        "--resume",
        &session,
        "--resume-session-at",
        &uuid,
        "What did I say?",
    ]);
    // A later plain resume continues from the same point.
    run(&["--resume", &session, "And now?"]);
    let requests = mock.requests();
    for r in &requests[2..] {
        let sent = r.body["messages"].to_string();
        assert!(
            sent.contains("Remember 42") && sent.contains("noted 42"),
            "{sent}"
        );
        assert!(
            !sent.contains("forget it") && !sent.contains("forgotten"),
            "{sent}"
        );
    }
    // An unknown uuid is refused.
    let out = sb.run(
        &mock,
        [
            "-p",
            "x",
            "--resume",
            &session,
            "--resume-session-at",
            "nope",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(common::stderr(&out).contains("has no message nope"));
}
