//! What the model is told about plan mode, and the lines a client sees of
//! it, through the real binary against the testkit mock model: plan mode
//! entered again right after a park (in the same session and after
//! `--resume`) is announced with the re-entry note and the workflow; the
//! plan attached after compaction is a stream-json `attachment` line; a
//! headless planning run, where nobody can answer, is never told to ask
//! with AskUserQuestion.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{MockServer, RecordedRequest, Turn};
use common::{Sandbox, StreamSession, deny, json_lines, plans_dir, writes_plan_then_exits};
use serde_json::json;

const PLAN: &str = "# Plan\n\n1. Add the flag\n\n## Verification\n- `true`\n";
const REENTRY: &str = "## Re-entering Plan Mode";
const WORKFLOW: &str = "Plan mode is active.";

/// The request that answered the user message `text`.
fn request_for(server: &MockServer, text: &str) -> RecordedRequest {
    server
        .requests()
        .into_iter()
        .find(|r| {
            r.messages()
                .iter()
                .any(|m| m.to_string().contains(&format!("\"{text}\"")))
        })
        .unwrap_or_else(|| panic!("no request for {text}"))
}

/// Writes the plan, presents it, and parks it when the client says so.
fn park_session(sb: &Sandbox) -> (MockServer, StreamSession) {
    let server = common::mock(
        writes_plan_then_exits(&plans_dir(sb), PLAN)
            .turn(Turn::text("Back on it.").when(|r| r.contains_text("go on with the plan"))),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan the flag");
    let ask = s.wait_type("control_request");
    s.send(deny(&ask, json!({"park": true, "message": "after lunch"})));
    let parked = s.wait_type("result");
    assert!(
        parked["result"].as_str().unwrap().contains("Plan parked"),
        "{parked}"
    );
    (server, s)
}

/// Park, then `/plan` at once: the next request carries the re-entry note
/// (the parked plan is still there) and the full workflow, although the
/// last plan-mode reminder was fewer than five turns ago.
#[test]
fn plan_mode_entered_again_after_a_park_is_announced_at_once() {
    let sb = Sandbox::new();
    let (server, s) = park_session(&sb);
    let told = reenter_and_go_on(s, &server);
    assert!(
        told.contains(WORKFLOW) && told.contains("### Phase 1"),
        "{told}"
    );
}

/// Turns plan mode on again in `s` and asks to go on; returns what the
/// model was told with that request, checked to announce the re-entry.
fn reenter_and_go_on(mut s: StreamSession, server: &MockServer) -> String {
    s.send_user("/plan");
    assert_eq!(s.wait_type("result")["result"], "Enabled plan mode");
    s.send_user("go on with the plan");
    assert_eq!(s.wait_type("result")["result"], "Back on it.");
    s.finish();
    let told = request_for(server, "go on with the plan")
        .last_user_text()
        .unwrap();
    common::assert_contains(&told, REENTRY);
    told
}

/// The same after the session ended: `--resume`, then `/plan`.
#[test]
fn plan_mode_entered_again_after_a_resume_of_a_parked_plan_is_announced() {
    let sb = Sandbox::new();
    let (server, s) = park_session(&sb);
    let (_, seen) = s.finish();
    let session = seen
        .iter()
        .find_map(|v| v["session_id"].as_str())
        .unwrap()
        .to_string();
    let s = sb.stream(&server, &["--resume", &session]);
    let told = reenter_and_go_on(s, &server);
    common::assert_contains(&told, WORKFLOW);
}

/// `/compact` attaches the plan to the new conversation: a client sees the
/// `plan_file_reference` attachment as it sees every other.
#[test]
fn the_plan_attached_after_compaction_is_a_stream_json_line() {
    let sb = Sandbox::new();
    let summary = |r: &RecordedRequest| r.tool_names().is_empty();
    let server = common::mock(
        writes_plan_then_exits(&plans_dir(&sb), PLAN)
            .turn(Turn::text("Second answer.").when(move |r| !summary(r)))
            .turn(Turn::text("Third answer.").when(move |r| !summary(r)))
            .turn(Turn::text("The summary.").when(summary)),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan the flag");
    let ask = s.wait_type("control_request");
    let plan_file = ask["request"]["input"]["planFilePath"]
        .as_str()
        .unwrap()
        .to_string();
    s.send(deny(&ask, json!({"message": "not yet"})));
    s.wait_type("result");
    s.send_user("more");
    s.wait_type("result");
    s.send_user("/compact");
    let compacted = s.wait_type("result");
    assert_eq!(compacted["is_error"], false, "{compacted}");
    let (_, seen) = s.finish();
    let line = seen
        .iter()
        .find(|v| v["subtype"] == "attachment" && v["attachment"]["type"] == "plan_file_reference")
        .unwrap_or_else(|| panic!("no plan_file_reference line: {seen:#?}"));
    assert_eq!(line["type"], "system");
    assert_eq!(line["attachment"]["planFilePath"], plan_file.as_str());
    assert_eq!(line["attachment"]["planContent"], PLAN);
}

/// A headless planning run: nobody can answer, so the workflow says to
/// settle open points as assumptions, and never to use AskUserQuestion.
#[test]
fn a_headless_planning_run_is_not_told_to_ask_questions() {
    let sb = Sandbox::new();
    let server = common::mock(writes_plan_then_exits(&plans_dir(&sb), PLAN));
    let out = sb.run_planning(&server, "plan the flag");
    assert_eq!(out.status.code(), Some(0));
    let last = json_lines(&out.stdout).pop().unwrap();
    assert_eq!(last["subtype"], "plan_ready", "{last}");
    let first = server.requests().remove(0);
    let told = first.last_user_text().unwrap();
    common::assert_contains(&told, "### Phase 1");
    common::assert_lacks(&told, "AskUserQuestion");
    common::assert_contains(&told, "**Assumptions**");
    common::assert_contains(&told, "Nobody can answer questions");

    // With someone to answer (stream-json), the questions stay.
    let (sb, server) =
        common::with_mock(catui_testkit::Script::new().turn(Turn::text("A question first?")));
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan the flag");
    s.wait_type("result");
    s.finish();
    let told = server.requests().remove(0).last_user_text().unwrap();
    common::assert_contains(&told, "AskUserQuestion");
}
