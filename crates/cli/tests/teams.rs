//! Teams through the real binary: the lead model starts a teammate, the
//! teammate works on its own conversation and reports back by mailbox.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use catui_testkit::{MockServer, RecordedRequest, Script, Turn};
use common::{Sandbox, StreamSession};
use serde_json::json;

fn last_user(r: &RecordedRequest) -> String {
    r.last_user_text().unwrap_or_default()
}

fn has_result(r: &RecordedRequest, id: &str) -> bool {
    r.tool_results().iter().any(|t| t.tool_use_id == id)
}

#[test]
fn a_teammate_works_and_reports_to_the_lead() {
    let sb = Sandbox::new();
    let hello = sb.project().join("hello.txt");
    let hello_path = hello.to_str().unwrap().to_string();
    let server = MockServer::start_blocking(
        Script::new()
            .turn(
                Turn::tool_use(
                    "tc",
                    "TeamCreate",
                    json!({"team_name": "core", "members": [{"name": "amy", "prompt": "Please write hello.txt", "mode": "acceptEdits"}]}),
                )
                .when(|r| last_user(r).contains("start a team")),
            )
            .turn(
                Turn::tool_use("amy-w", "Write", json!({"file_path": hello_path, "content": "hi from amy\n"}))
                    .when(|r| last_user(r).contains("Please write hello.txt") && !has_result(r, "amy-w")),
            )
            .turn(
                Turn::tool_use("amy-s", "SendMessage", json!({"to": "team-lead", "message": "done: hello.txt written"}))
                    .when(|r| has_result(r, "amy-w") && !has_result(r, "amy-s")),
            )
            .turn(Turn::text("finished").when(|r| has_result(r, "amy-s")))
            .turn(Turn::text("Team started.").when(|r| has_result(r, "tc") && !last_user(r).contains("done: hello")))
            .turn(Turn::text("Thanks, amy.").when(|r| last_user(r).contains("done: hello.txt written"))),
    )
    .unwrap();
    let mut s = StreamSession::start(sb.catui(&server), &["--permission-mode", "acceptEdits"]);
    s.send_user("start a team for the greeting");
    assert_eq!(s.wait_type("result")["result"], "Team started.");
    // The teammate's message arrives as the lead's next input.
    let r = s.wait_for("the lead's answer to amy", |v| {
        v["type"] == "result" && v["result"] == "Thanks, amy."
    });
    assert_eq!(r["subtype"], "success");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    assert_eq!(std::fs::read_to_string(&hello).unwrap(), "hi from amy\n");
    let inbox = sb.config().join("teams/core/inboxes/team-lead.json");
    let mail: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(inbox).unwrap()).unwrap();
    assert_eq!(mail[0]["from"], "amy");
    assert!(
        mail[0]["text"]
            .as_str()
            .unwrap()
            .contains("done: hello.txt written")
    );
}
