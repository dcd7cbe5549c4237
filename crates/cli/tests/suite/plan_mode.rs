//! Plan mode end to end (issue "Plan mode", acceptance a–d): the real
//! binary in stream-json mode, the testkit mock model over HTTP, real files.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Block, RecordedRequest, Script, Turn};
use common::{Sandbox, StreamSession, plan_path_in, result_of, writes_plan_then_exits};
use serde_json::{Value, json};

const FULL: &str = "Plan mode is active.";
const SPARSE: &str = "Plan mode is still active";
const EXITED: &str = "## Exited Plan Mode";
const REENTRY: &str = "## Re-entering Plan Mode";

/// The text the latest human turn (plus its reminders) added to a request:
/// the last user message's text blocks.
fn last_user_blocks(r: &RecordedRequest) -> String {
    let msgs = r.body["messages"].as_array().unwrap();
    let last = msgs.iter().rev().find(|m| m["role"] == "user").unwrap();
    common::text_of(last, "\n")
}

#[test]
fn plan_mode_refuses_changes_then_approval_restores_edits() {
    let sb = Sandbox::new();
    // The plan contract (goal loop, drift questions) is not what this
    // test is about: today's note-only behaviour.
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let main_rs = sb.write("src/main.rs", "fn main() {}\n");
    let server = common::mock(Script::new());
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    let init = s.wait_for("init", |v| v["subtype"] == "init");
    assert_eq!(init["permission_mode"], "plan");
    let plan_file = init["plan_file"]
        .as_str()
        .expect("plan file reported in plan mode")
        .to_string();
    assert!(
        plan_file.starts_with(sb.config().to_str().unwrap()),
        "{plan_file}"
    );
    let main = main_rs.to_str().unwrap();
    let lib = sb.project().join("src/lib.rs");

    for turn in [
        common::write("w1", main, "hacked"),
        common::bash("b1", format!("rm {main}")),
        common::bash("b2", "ls src"),
        common::write("p1", &plan_file, "# Plan\n\n1. Add lib.rs\n"),
        common::exit_plan("x1"),
        common::write(
            "p2",
            &plan_file,
            "# Plan\n\n1. Add lib.rs\n2. Add tests\n\n## Verification\n- cargo test\n",
        ),
        common::exit_plan("x2"),
        common::write("w2", lib.to_str().unwrap(), "pub fn f() {}\n"),
        Turn::text("Implemented."),
    ] {
        server.push(turn);
    }
    s.send_user("Plan adding a library target.");

    // First presentation: no diff; the user keeps planning with feedback.
    let ask1 = s.wait_type("control_request");
    assert_eq!(ask1["request"]["tool_name"], "ExitPlanMode");
    let input1 = &ask1["request"]["input"];
    assert_eq!(input1["plan"], "# Plan\n\n1. Add lib.rs\n");
    assert_eq!(input1["planFilePath"], plan_file.as_str());
    assert!(input1["planDiff"].is_null());
    s.send(common::deny_request(
        ask1["request_id"].as_str().unwrap(),
        "Also add tests.",
    ));

    // Second presentation carries the diff; approve with auto-accept edits.
    let ask2 = s.wait_type("control_request");
    let input2 = ask2["request"]["input"].clone();
    let diff = input2["planDiff"]
        .as_str()
        .expect("a diff against the rejected revision");
    common::assert_contains(diff, "+2. Add tests");
    let mut approved = input2.clone();
    approved["mode"] = json!("acceptEdits");
    s.send(common::allow_request(
        ask2["request_id"].as_str().unwrap(),
        approved,
    ));

    let result = s.wait_type("result");
    assert_eq!(result["subtype"], "success", "{result}");
    assert_eq!(result["result"], "Implemented.");
    assert_eq!(result["permission_mode"], "acceptEdits");

    // Re-entering plan mode after an approved exit, with the plan on disk.
    server.push(Turn::text("Back to planning."));
    s.send_user("/plan look at error handling next");
    assert_eq!(s.wait_type("result")["result"], "Back to planning.");
    let (code, seen) = s.finish();
    assert_eq!(code, 0);

    // Nothing but the plan changed while planning; the edit after approval ran.
    assert_eq!(std::fs::read_to_string(&main_rs).unwrap(), "fn main() {}\n");
    assert_eq!(std::fs::read_to_string(&lib).unwrap(), "pub fn f() {}\n");
    assert!(
        std::fs::read_to_string(&plan_file)
            .unwrap()
            .contains("2. Add tests")
    );

    let reqs = server.requests();
    assert_eq!(reqs.len(), 10);
    let (w1, w1_err) = result_of(&reqs[1], "w1");
    assert!(w1_err && w1.to_lowercase().contains("plan mode"), "{w1}");
    // A mutating command is no longer refused while planning: it runs as a
    // dry run in a throwaway copy (issue 50), which says so and names what
    // it deleted there; the real file stays (checked above).
    let (b1, b1_err) = result_of(&reqs[2], "b1");
    assert!(!b1_err && b1.starts_with("Dry run:"), "{b1}");
    common::assert_contains(&b1, "1 deleted:\n- src/main.rs");
    // Later commands of the planning session see the copy.
    let (b2, b2_err) = result_of(&reqs[3], "b2");
    assert!(!b2_err && b2.starts_with("Dry run:"), "{b2}");
    common::assert_lacks(&b2, "main.rs");
    let (p1, p1_err) = result_of(&reqs[4], "p1");
    assert!(!p1_err, "{p1}");
    let (x1, x1_err) = result_of(&reqs[5], "x1");
    assert!(x1_err && x1.contains("Also add tests"), "{x1}");
    let (x2, x2_err) = result_of(&reqs[7], "x2");
    assert!(
        !x2_err && x2.contains("User has approved your plan. You can now start coding."),
        "{x2}"
    );
    common::assert_contains(&x2, "## Approved Plan:");
    // The request after approval carries the exit attachment, once.
    assert!(
        last_user_blocks(&reqs[7]).contains(EXITED),
        "{}",
        last_user_blocks(&reqs[7])
    );
    assert!(!last_user_blocks(&reqs[8]).contains(EXITED));
    let (w2, w2_err) = result_of(&reqs[8], "w2");
    assert!(!w2_err, "{w2}");
    let reentry = last_user_blocks(&reqs[9]);
    assert!(
        reentry.contains(REENTRY) && reentry.contains(FULL),
        "{reentry}"
    );
    assert!(
        reentry.find(REENTRY).unwrap() < reentry.find(FULL).unwrap(),
        "re-entry comes first"
    );

    // Exactly two prompts (both for ExitPlanMode); the mode events; the
    // verification steps surfaced at the end.
    let asks: Vec<&Value> = seen
        .iter()
        .filter(|v| v["type"] == "control_request")
        .collect();
    assert_eq!(asks.len(), 2);
    let modes: Vec<&Value> = seen
        .iter()
        .filter(|v| v["subtype"] == "permission_mode")
        .collect();
    assert_eq!(modes.len(), 2);
    assert_eq!(modes[0]["mode"], "acceptEdits");
    assert_eq!(modes[1]["mode"], "plan");
    assert_eq!(modes[1]["pre_plan_mode"], "acceptEdits");
    assert!(
        seen.iter().any(|v| v["key"] == "plan-verification"
            && v["text"].as_str().unwrap().contains("cargo test"))
    );
    assert!(
        seen.iter()
            .any(|v| v["subtype"] == "attachment" && v["attachment"]["type"] == "plan_mode_exit")
    );
}

#[test]
fn reminders_follow_the_human_turn_cadence() {
    let (sb, server) = common::with_mock(Script::new());
    for i in 1..=26 {
        server.push(Turn::text(format!("answer {i}")));
    }
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.wait_for("init", |v| v["subtype"] == "init");
    for i in 1..=26 {
        s.send_user(&format!("question {i}"));
        s.wait_type("result");
    }
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 26);
    let kinds: Vec<(usize, &str)> = reqs
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let text = last_user_blocks(r);
            if text.contains(FULL) {
                Some((i + 1, "full"))
            } else if text.contains(SPARSE) {
                Some((i + 1, "sparse"))
            } else {
                None
            }
        })
        .collect();
    assert_eq!(
        kinds,
        [
            (1, "full"),
            (6, "sparse"),
            (11, "sparse"),
            (16, "sparse"),
            (21, "sparse"),
            (26, "full")
        ]
    );
}

#[test]
fn reminders_are_not_repeated_inside_a_tool_loop() {
    let sb = Sandbox::new();
    sb.write("a.txt", "a\n");
    let server = common::mock(
        Script::new()
            .turn(Turn::tool_use("r", "Glob", json!({"pattern": "*.txt"})))
            .turn(Turn::text("done")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("look");
    s.wait_type("result");
    s.finish();
    let reqs = server.requests();
    assert!(last_user_blocks(&reqs[0]).contains(FULL));
    assert!(
        !last_user_blocks(&reqs[1]).contains(FULL) && !last_user_blocks(&reqs[1]).contains(SPARSE)
    );
}

#[test]
fn plan_command_enters_shows_opens_and_queries() {
    let sb = Sandbox::new();
    let editor = sb.dir.path().join("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\necho 'appended by the editor' >> \"$1\"\n",
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let server = common::mock(Script::new().turn(Turn::text("Planning the parser now.")));
    let mut cmd = sb.catui(&server);
    cmd.env("EDITOR", &editor);
    let mut s = StreamSession::start(cmd, &[]);

    s.send_user("/plan");
    let r = s.wait_type("result");
    assert_eq!(
        (r["result"].as_str(), r["num_turns"].as_u64()),
        (Some("Enabled plan mode"), Some(0))
    );
    assert_eq!(r["permission_mode"], "plan");
    let plan_file = r["plan_file"].as_str().unwrap().to_string();

    s.send_user("/plan");
    assert_eq!(
        s.wait_type("result")["result"],
        "Already in plan mode. No plan written yet."
    );

    std::fs::write(&plan_file, "# Parser plan\n").unwrap();
    s.send_user("/plan");
    let shown = s.wait_type("result")["result"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(shown.starts_with("Current Plan\n"), "{shown}");
    assert!(
        shown.contains(&plan_file) && shown.contains("# Parser plan"),
        "{shown}"
    );
    common::assert_contains(&shown, "\"/plan open\" to edit this plan in editor.sh");

    s.send_user("/plan open");
    let opened = s.wait_type("result");
    assert_eq!(
        opened["result"],
        format!("Opened plan in editor: {plan_file}")
    );
    assert_eq!(
        std::fs::read_to_string(&plan_file).unwrap(),
        "# Parser plan\nappended by the editor\n"
    );

    // Back to default, then `/plan <description>` enters and queries at once.
    s.send_user("/mode default");
    s.wait_type("result");
    s.send_user("/plan design the config parser");
    let r = s.wait_type("result");
    assert_eq!(r["result"], "Planning the parser now.");
    assert_eq!(r["num_turns"], 1);
    assert_eq!(r["permission_mode"], "plan");
    let (code, seen) = s.finish();
    assert_eq!(code, 0);
    let results = seen.iter().filter(|v| v["type"] == "result").count();
    assert_eq!(results, 6, "one result per input");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let text = last_user_blocks(&reqs[0]);
    assert!(text.contains("design the config parser"));
    // Leaving plan mode through /mode is not an approved exit: no re-entry note.
    common::assert_lacks(&text, REENTRY);
    assert!(text.contains(FULL));
}

#[test]
fn open_without_a_plan_in_default_mode_only_enters() {
    let (sb, server) = common::with_mock(Script::new());
    let mut cmd = sb.catui(&server);
    cmd.env("EDITOR", "/bin/false");
    let mut s = StreamSession::start(cmd, &[]);
    s.send_user("/plan open");
    assert_eq!(s.wait_type("result")["result"], "Enabled plan mode");
    s.finish();
    assert!(server.requests().is_empty());
}

#[test]
fn headless_planning_run_ends_with_the_plan() {
    let sb = Sandbox::new();
    let plans_dir = common::plans_dir(&sb);
    let server = common::mock(
        writes_plan_then_exits(&plans_dir, "# Plan\n\n1. Do it\n")
            .turn(Turn::text("should never be requested")),
    );
    let out = sb.run(&server, ["-p", "--permission-mode", "plan", "plan it"]);
    common::assert_ok(&out);
    let stdout = common::stdout(&out);
    let path = plan_path_in(&server.requests()[0], &plans_dir);
    assert_eq!(
        stdout.trim_end(),
        format!("# Plan\n\n1. Do it\n\nPlan saved to {path}")
    );
    assert_eq!(server.requests().len(), 2, "the run ends at ExitPlanMode");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "# Plan\n\n1. Do it\n"
    );

    // The same run in stream-json: the result is plan_ready and the session
    // stays in plan mode.
    let server = common::mock(writes_plan_then_exits(&plans_dir, "# Other plan\n"));
    let out = sb.run_planning(&server, "plan it");
    assert_eq!(out.status.code(), Some(0));
    let lines = common::json_lines(&out.stdout);
    let result = lines.last().unwrap();
    assert_eq!(result["subtype"], "plan_ready");
    assert_eq!(result["result"], "# Other plan\n");
    assert_eq!(result["permission_mode"], "plan");
    assert!(result["plan_file"].as_str().unwrap().ends_with(".md"));
}

#[test]
fn enter_plan_mode_is_offered_only_when_someone_can_approve() {
    let (sb, server) = common::with_mock(Script::new().turn(Turn::text("a")).turn(Turn::text("b")));
    let out = sb.run(&server, ["-p", "x"]);
    assert_eq!(out.status.code(), Some(0));
    let mut s = sb.stream(&server, &[]);
    s.send_user("y");
    s.wait_type("result");
    s.finish();
    let reqs = server.requests();
    assert!(!reqs[0].tool_names().iter().any(|t| t == "EnterPlanMode"));
    assert!(reqs[1].tool_names().iter().any(|t| t == "EnterPlanMode"));
    assert!(reqs[0].tool_names().iter().any(|t| t == "ExitPlanMode"));
}

#[test]
fn enter_plan_mode_tool_enters_through_the_transition() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::blocks(vec![
                Block::text("This touches many modules; let me plan first."),
                Block::tool_use("e", "EnterPlanMode", json!({})),
            ]))
            .turn(Turn::text("planning")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "acceptEdits"]);
    s.send_user("plan this big change");
    // The user is asked first, with the model's reason.
    let ask = s.wait_type("control_request");
    assert_eq!(ask["request"]["subtype"], "can_use_tool");
    assert_eq!(ask["request"]["tool_name"], "EnterPlanMode");
    assert_eq!(
        ask["request"]["input"]["reason"],
        "This touches many modules; let me plan first."
    );
    s.send(common::allow_request(
        ask["request_id"].as_str().unwrap(),
        ask["request"]["input"].clone(),
    ));
    let r = s.wait_type("result");
    assert_eq!(r["permission_mode"], "plan");
    let (_, seen) = s.finish();
    let mode = seen
        .iter()
        .find(|v| v["subtype"] == "permission_mode")
        .unwrap();
    assert_eq!(
        (mode["mode"].as_str(), mode["pre_plan_mode"].as_str()),
        (Some("plan"), Some("acceptEdits"))
    );
    let reqs = server.requests();
    let (text, is_error) = result_of(&reqs[1], "e");
    assert!(
        !is_error && text.starts_with("Entered plan mode."),
        "{text}"
    );
    // The short result does not carry the workflow; the attachment does.
    assert!(!text.contains("Phase 1"));
    assert!(last_user_blocks(&reqs[1]).contains(FULL));
}

#[test]
fn an_unanswered_approval_keeps_plan_mode() {
    let sb = Sandbox::new();
    let plans_dir = common::plans_dir(&sb);
    let server = common::mock(
        writes_plan_then_exits(&plans_dir, "# Plan\n").turn(Turn::text("still planning")),
    );
    // An allow rule for the tool cannot approve a plan: approval only comes
    // from the user.
    let mut s = sb.stream(
        &server,
        &[
            "--permission-mode",
            "plan",
            "--allowed-tools",
            "ExitPlanMode",
        ],
    );
    s.send_user("plan");
    let ask = s.wait_type("control_request");
    assert_eq!(ask["request"]["tool_name"], "ExitPlanMode");
    // The client goes away without answering: a denial, never an approval.
    let (code, seen) = s.finish();
    assert_eq!(code, 0);
    let result = seen.iter().find(|v| v["type"] == "result").unwrap();
    assert_eq!(result["permission_mode"], "plan");
    assert!(!seen.iter().any(|v| v["subtype"] == "permission_mode"));
    let (text, is_error) = result_of(&server.requests()[2], "x");
    assert!(is_error && text.contains("still in plan mode"), "{text}");
}

#[test]
fn exit_plan_mode_outside_plan_mode_is_refused_even_when_bypassing() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(common::exit_plan("x"))
            .turn(Turn::text("ok")),
    );
    let out = sb.run(
        &server,
        ["-p", "go", "--permission-mode", "bypassPermissions"],
    );
    assert_eq!(out.status.code(), Some(0));
    let (text, is_error) = result_of(&server.requests()[1], "x");
    assert!(is_error);
    assert_eq!(
        text,
        "You are not in plan mode. This tool is only for exiting plan mode after writing a plan. If your plan was already approved, continue with implementation."
    );
}

#[test]
fn the_model_cannot_fill_in_approval_fields() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::tool_use(
                "x",
                "ExitPlanMode",
                json!({"plan": "my own plan", "mode": "bypassPermissions"}),
            ))
            .turn(Turn::text("ok")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan");
    let r = s.wait_type("result");
    assert_eq!(r["permission_mode"], "plan");
    let (_, seen) = s.finish();
    assert!(!seen.iter().any(|v| v["type"] == "control_request"));
    let (text, is_error) = result_of(&server.requests()[1], "x");
    assert!(is_error && text.contains("unknown field"), "{text}");
}
