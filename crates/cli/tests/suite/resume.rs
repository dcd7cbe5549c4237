//! Resume, continue and fork through the real binary, with the plan always
//! recovered.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::{Sandbox, json_lines, writes_plan_then_exits};
use serde_json::{Value, json};

/// A headless planning run; returns (session id, plan path).
fn plan_once(sb: &Sandbox) -> (String, String) {
    let plans_dir = common::plans_dir(sb);
    let server = common::mock(writes_plan_then_exits(&plans_dir, "# The plan\n1. step\n"));
    let out = sb.run_planning(&server, "plan it");
    common::assert_ok(&out);
    let lines = json_lines(&out.stdout);
    let result = lines.last().unwrap();
    assert_eq!(result["subtype"], "plan_ready");
    (
        result["session_id"].as_str().unwrap().to_string(),
        result["plan_file"].as_str().unwrap().to_string(),
    )
}

#[test]
fn resume_restores_plan_mode_the_plan_and_the_conversation_then_approves() {
    let sb = Sandbox::new();
    // Not about the plan contract: no goal loop after approval.
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let (session_id, plan_file) = plan_once(&sb);
    std::fs::remove_file(&plan_file).unwrap();

    let server = common::mock(
        Script::new()
            .turn(common::exit_plan("x2"))
            .turn(Turn::text("Implementing now.")),
    );
    let mut s = sb.stream(&server, &["--resume", &session_id]);
    let init = s.wait_for("init", |v| v["subtype"] == "init");
    assert_eq!(init["session_id"], session_id.as_str());
    assert_eq!(init["permission_mode"], "plan");
    assert_eq!(init["plan_file"], plan_file.as_str());
    // Recovered from the transcript (the revision presented for approval).
    assert_eq!(
        std::fs::read_to_string(&plan_file).unwrap(),
        "# The plan\n1. step\n"
    );

    s.send_user("looks good, present it again");
    let ask = s.wait_type("control_request");
    assert_eq!(ask["request"]["input"]["plan"], "# The plan\n1. step\n");
    s.send(json!({"type":"control_response","response":{"subtype":"success","request_id":ask["request_id"],
        "response":{"behavior":"allow","updatedInput":{"mode":"acceptEdits"}}}}));
    let r = s.wait_type("result");
    assert_eq!(r["result"], "Implementing now.");
    assert_eq!(r["permission_mode"], "acceptEdits");
    s.finish();
    // The earlier conversation was sent again.
    let first = &server.requests()[0];
    let texts: Vec<String> = first.messages().iter().map(|m| m.to_string()).collect();
    assert!(texts.iter().any(|t| t.contains("plan it")), "{texts:?}");
}

#[test]
fn continue_picks_the_latest_session_and_fork_gets_its_own_plan() {
    let sb = Sandbox::new();
    let (session_id, plan_file) = plan_once(&sb);

    let server = common::mock(Script::new().turn(Turn::text("forked answer")));
    let out = sb.run(
        &server,
        [
            "-p",
            "--continue",
            "--fork-session",
            "--output-format",
            "stream-json",
            "carry on",
        ],
    );
    common::assert_ok(&out);
    let lines = json_lines(&out.stdout);
    let init = &lines[0];
    assert_ne!(init["session_id"], session_id.as_str());
    assert_eq!(init["permission_mode"], "plan");
    let fork_plan = init["plan_file"].as_str().unwrap().to_string();
    assert_ne!(fork_plan, plan_file);
    assert_eq!(
        std::fs::read_to_string(&fork_plan).unwrap(),
        "# The plan\n1. step\n"
    );
    // Editing the fork's plan leaves the parent's alone.
    std::fs::write(&fork_plan, "changed in the fork\n").unwrap();
    assert_eq!(
        std::fs::read_to_string(&plan_file).unwrap(),
        "# The plan\n1. step\n"
    );
    assert!(server.requests()[0].contains_text("plan it"));
}

#[test]
fn resume_errors_are_clear() {
    let (sb, server) = common::with_mock(Script::new());
    let out = sb.run(&server, ["-p", "--continue", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(common::stderr(&out).contains("no sessions to resume"));
    let out = sb.run(&server, ["-p", "--fork-session", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(common::stderr(&out).contains("--fork-session needs --resume"));
    let _ = Value::Null;
}

#[test]
fn compact_keeps_plan_mode_and_reattaches_the_plan() {
    let (sb, server) = common::with_mock(Script::new());
    for i in 1..=3 {
        server.push(Turn::text(format!("answer {i}")));
    }
    server.push(Turn::text(
        "SUMMARY: the user asked three questions about the parser.",
    ));
    server.push(Turn::text("answer 4"));
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    let init = s.wait_for("init", |v| v["subtype"] == "init");
    let plan_file = init["plan_file"].as_str().unwrap().to_string();
    std::fs::write(&plan_file, "# Parser plan\n1. tokenise\n").unwrap();
    for i in 1..=3 {
        s.send_user(&format!("question {i}"));
        s.wait_type("result");
    }
    s.send_user("/compact focus on the parser");
    let r = s.wait_type("result");
    assert_eq!(r["subtype"], "success", "{r}");
    assert_eq!(r["num_turns"], 0);
    assert_eq!(r["permission_mode"], "plan");
    assert!(
        r["result"].as_str().unwrap().starts_with("Compacted"),
        "{r}"
    );
    s.send_user("question 4");
    assert_eq!(s.wait_type("result")["result"], "answer 4");
    s.finish();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 5);
    assert!(
        reqs[3].contains_text("focus on the parser"),
        "the instructions reach the summary request"
    );
    let after = &reqs[4];
    assert!(after.contains_text("SUMMARY: the user asked three questions"));
    assert!(
        after.contains_text("# Parser plan"),
        "the plan is re-attached after compaction"
    );
    assert!(!after.contains_text("answer 1"), "old turns are gone");
}

#[test]
fn a_killed_session_loses_no_completed_entry() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::text("first answer, complete"))
            .turn(
                Turn::text("a slow answer that never finishes streaming")
                    .chunk_delay(std::time::Duration::from_secs(2)),
            ),
    );
    let mut s = sb.stream(&server, &[]);
    s.send_user("first question");
    assert_eq!(s.wait_type("result")["result"], "first answer, complete");
    s.send_user("second question");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while server.requests().len() < 2 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    // SIGKILL mid-stream: no chance to flush or clean up.
    s.child.kill().unwrap();
    let _ = s.child.wait();

    let transcript = sb.transcripts().into_iter().next().unwrap();
    let text = std::fs::read_to_string(&transcript).unwrap();
    let entries: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let users: Vec<&Value> = entries.iter().filter(|e| e["type"] == "user").collect();
    let assistants: Vec<&Value> = entries
        .iter()
        .filter(|e| e["type"] == "assistant")
        .collect();
    assert_eq!(
        users.len(),
        2,
        "both questions were recorded before the kill: {text}"
    );
    assert_eq!(assistants.len(), 1);
    assert!(
        !text.contains("never finishes"),
        "a partial answer is never recorded"
    );

    // The session resumes with everything that was completed.
    let server2 = common::mock(Script::new().turn(Turn::text("resumed")));
    let out = sb.run(&server2, ["-p", "--continue", "third question"]);
    common::assert_ok(&out);
    let req = &server2.requests()[0];
    assert!(req.contains_text("first answer, complete") && req.contains_text("second question"));
}
