//! "Nobody is here" through the real binary: a plain `-p` run and a
//! stream-json run given `--unattended` tell the model that nobody can
//! answer and do not offer AskUserQuestion; a stream-json session whose
//! client answers `can_use_tool` keeps the interactive prompt and tools.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{RecordedRequest, Script, Turn};
use common::{Sandbox, StreamSession, output_within};

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
    assert!(system.contains(NOBODY), "{system}");
    assert!(system.contains("Never ask for clarification"), "{system}");
    assert!(system.contains("compacted automatically"), "{system}");
    assert!(system.contains("keep_running: true"), "{system}");
    assert!(!system.contains("ask the user how to continue"), "{system}");
    let tools = r.tool_names();
    assert!(!tools.contains(&"AskUserQuestion".to_string()), "{tools:?}");
    assert!(tools.contains(&"BashInput".to_string()), "{tools:?}");
    let bash = bash_description(r);
    assert!(!bash.contains("will be asked"), "{bash}");
    assert!(bash.contains("nobody is asked"), "{bash}");
}

#[test]
fn a_plain_print_run_tells_the_model_nobody_is_here() {
    let sb = Sandbox::new();
    let server = common::mock(Script::new().turn(Turn::text("done")));
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "tidy the project"]);
    let out = output_within(cmd, b"", 60);
    assert_eq!(out.status.code(), Some(0));
    assert_unattended(&server.requests()[0]);
}

#[test]
fn a_stream_json_run_given_unattended_is_told_too() {
    let sb = Sandbox::new();
    let server = common::mock(Script::new().turn(Turn::text("done")));
    let mut s = StreamSession::start(sb.catui(&server), &["--unattended"]);
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
    let mut s = StreamSession::start(sb.catui(&server), &["--permission-prompt-tool", "stdio"]);
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
    assert!(!system.contains(NOBODY), "{system}");
    assert!(system.contains("ask the user how to continue"), "{system}");
    assert!(
        first.tool_names().contains(&"AskUserQuestion".to_string()),
        "{:?}",
        first.tool_names()
    );
    assert!(bash_description(first).contains("the user will be asked"));
}

#[test]
fn bypass_permissions_bash_text_does_not_promise_a_question() {
    let sb = Sandbox::new();
    let server = common::mock(Script::new().turn(Turn::text("done")));
    let mut s = StreamSession::start(
        sb.catui(&server),
        &["--permission-mode", "bypassPermissions"],
    );
    s.send_user("hi");
    s.wait_type("result");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    let first = &server.requests()[0];
    let bash = bash_description(first);
    assert!(!bash.contains("will be asked"), "{bash}");
    // Someone is there: the prompt is the interactive one.
    assert!(!first.system_text().contains(NOBODY));
}
