//! After approval the plan is a contract, through the real binary over
//! stream-json against the testkit mock model: catui runs the approved
//! plan's verification commands itself once the steps are done and
//! reports them (`plan_verification`); the plan's goal keeps the work
//! going without a human turn until verification passes (`goal_check`);
//! one report ends the work (`plan_report`, and the result's
//! `plan_report`); a change to a file the plan does not name asks even in
//! acceptEdits (`planDrift: "ask"`), and an approved `AmendPlan` makes it
//! part of the plan (a new revision) so that it runs unasked; tool calls
//! carry the step they belong to (`plan_step`).
//!
//! The plan as a contract in the terminal UI: the real `catui` binary in a
//! tmux pane against the testkit mock model. The approval dialog lists the
//! exact verification commands approving lets catui run; once the step is
//! done catui runs them and shows the run and the end report in the
//! transcript. Without tmux the test fails.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{MockServer, RecordedRequest, Script, Turn};
use common::tmux::*;
use common::{Sandbox, StreamSession, allow, deny, plan_path_in, result_of};
use serde_json::{Value, json};

/// A todo list with `step` completed.
fn todos_done(step: &str) -> Value {
    json!({"todos": [{"content": step, "status": "completed", "activeForm": "Working"}]})
}

/// The model writes `plan` to its plan file, then presents it.
fn planning(sb: &Sandbox, plan: &'static str) -> Script {
    let plans = sb.config().join("plans").display().to_string();
    Script::new()
        .turn(Turn::respond(move |r| {
            let path = plan_path_in(r, &plans);
            common::write("p", &path, plan)
        }))
        .turn(common::exit_plan("x"))
}

/// Starts a stream-json session in plan mode, sends `ask`, approves the
/// plan with acceptEdits; returns the session and the approval request.
fn approve(sb: &Sandbox, server: &MockServer, ask: &str) -> (StreamSession, Value) {
    let mut s = sb.stream(server, &["--permission-mode", "plan"]);
    s.send_user(ask);
    let request = s.wait_for("the plan's approval", |v| {
        v["type"] == "control_request" && v["request"]["tool_name"] == "ExitPlanMode"
    });
    s.send(allow(&request, json!({"mode": "acceptEdits"})));
    (s, request)
}

fn lines<'a>(seen: &'a [Value], subtype: &str) -> Vec<&'a Value> {
    seen.iter().filter(|v| v["subtype"] == subtype).collect()
}

const PASSING: &str =
    "# Write hello\n\n1. Write hello.txt\n\n## Verification\n- `test -f hello.txt`\n";

#[test]
fn a_plan_whose_verification_passes_is_reported_met_and_the_run_ends() {
    let sb = Sandbox::new();
    let hello = sb.project().join("hello.txt").display().to_string();
    let server = common::mock(
        planning(&sb, PASSING)
            .turn(common::write("w", &hello, "hello\n"))
            .turn(Turn::tool_use(
                "t",
                "TodoWrite",
                todos_done("Write hello.txt"),
            ))
            .turn(Turn::text("Done: hello.txt is written.")),
    );
    let (s, request) = approve(&sb, &server, "write hello");
    // The approval request lists the exact commands approving runs.
    assert_eq!(
        request["request"]["input"]["verification"],
        json!(["test -f hello.txt"])
    );
    let (code, seen) = s.finish();
    assert_eq!(code, 0);

    let runs = lines(&seen, "plan_verification");
    assert_eq!(runs.len(), 1, "{seen:#?}");
    assert_eq!(runs[0]["type"], "system");
    assert_eq!(runs[0]["passed"], true);
    assert_eq!(runs[0]["commands"][0]["command"], "test -f hello.txt");
    assert_eq!(runs[0]["commands"][0]["exit_code"], 0);
    let checks = lines(&seen, "goal_check");
    assert_eq!(checks.len(), 1, "{checks:#?}");
    assert_eq!(
        (
            checks[0]["goal"].clone(),
            checks[0]["met"].clone(),
            checks[0]["continuation"].clone()
        ),
        (json!("plan"), json!(true), json!(0))
    );
    let report = lines(&seen, "plan_report");
    assert_eq!(report.len(), 1);
    assert_eq!(report[0]["goal_met"], true);
    assert_eq!(report[0]["steps_done"], json!(["Write hello.txt"]));
    assert_eq!(report[0]["verification"]["passed"], true);
    assert_eq!(report[0]["continuations"], 0);
    let result = seen.iter().rev().find(|v| v["type"] == "result").unwrap();
    assert_eq!(result["result"], "Done: hello.txt is written.");
    assert_eq!(result["goal"]["met"], true, "{result}");
    assert_eq!(result["plan_report"]["goal_met"], true, "{result}");
    // The model was never sent back: 5 requests in all.
    assert_eq!(server.requests().len(), 5);
    // Kept with the plan: its file's progress section, the transcript.
    let plan_file = request["request"]["input"]["planFilePath"]
        .as_str()
        .unwrap();
    let text = std::fs::read_to_string(plan_file).unwrap();
    assert!(text.contains("Verification ("), "{text}");
    common::assert_contains(&text, "passed");
    assert!(text.contains("Report ("), "{text}");
    let transcript = std::fs::read_to_string(&sb.transcripts()[0]).unwrap();
    assert!(transcript.contains("\"type\":\"plan_verification\""));
    assert!(transcript.contains("\"type\":\"plan_report\""));
}

const FIXABLE: &str =
    "# Fix hello\n\n1. Write hello.txt\n\n## Verification\n```sh\ngrep -q fixed hello.txt\n```\n";

#[test]
fn a_failing_verification_goes_back_to_the_model_which_fixes_it_without_a_human_turn() {
    let sb = Sandbox::new();
    let hello = sb.project().join("hello.txt").display().to_string();
    let hello2 = hello.clone();
    let told = |r: &RecordedRequest| r.contains_text("verification and it failed");
    let server = common::mock(
        planning(&sb, FIXABLE)
            .turn(common::write("w", &hello, "broken\n"))
            .turn(Turn::tool_use(
                "t",
                "TodoWrite",
                todos_done("Write hello.txt"),
            ))
            .turn(Turn::text("Done."))
            .turn(common::write("w2", &hello2, "fixed\n").when(told))
            .turn(Turn::text("Fixed it.")),
    );
    let (s, _) = approve(&sb, &server, "fix hello");
    let (code, seen) = s.finish();
    assert_eq!(code, 0);
    let runs = lines(&seen, "plan_verification");
    assert_eq!(runs.len(), 2, "{runs:#?}");
    assert_eq!(runs[0]["passed"], false);
    assert_eq!(runs[0]["commands"][0]["exit_code"], 1);
    assert_eq!(runs[1]["passed"], true);
    let checks: Vec<(Value, Value)> = lines(&seen, "goal_check")
        .iter()
        .map(|c| (c["met"].clone(), c["continuation"].clone()))
        .collect();
    assert_eq!(checks, [(json!(false), json!(1)), (json!(true), json!(0))]);
    let results: Vec<&Value> = seen.iter().filter(|v| v["type"] == "result").collect();
    assert_eq!(results.len(), 1, "one input, one result: {results:#?}");
    assert_eq!(results[0]["result"], "Fixed it.");
    assert_eq!(results[0]["goal"]["continuations"], 1);
    assert_eq!(results[0]["plan_report"]["continuations"], 1);
    assert_eq!(results[0]["plan_report"]["goal_met"], true);
    // What the model was told: the command, its exit code, its output.
    let reqs = server.requests();
    let reminder = reqs
        .iter()
        .find(|r| told(r))
        .unwrap()
        .last_user_text()
        .unwrap();
    common::assert_contains(&reminder, "$ grep -q fixed hello.txt");
    common::assert_contains(&reminder, "(exit 1)");
    assert_eq!(
        std::fs::read_to_string(sb.project().join("hello.txt")).unwrap(),
        "fixed\n"
    );
}

const TWO_FILES: &str = "# Hello\n\n1. Write hello.txt\n\n## Verification\n- `test -f hello.txt`\n";

#[test]
fn a_change_outside_the_plan_asks_even_in_accept_edits_and_can_be_refused() {
    let sb = Sandbox::new();
    // The drift gate alone: no goal loop after the turn.
    sb.user_settings(r#"{"planGoal": false}"#);
    let root = sb.project();
    let hello = root.join("hello.txt").display().to_string();
    let other = root.join("other.txt").display().to_string();
    let server = common::mock(
        planning(&sb, TWO_FILES)
            .turn(common::write("w1", &hello, "hello\n"))
            .turn(common::write("w2", &other, "surprise\n"))
            .turn(Turn::text("I will stay within the plan.")),
    );
    let (mut s, _) = approve(&sb, &server, "write hello");
    // hello.txt is in the plan: it runs without a prompt. other.txt asks.
    let ask = s.wait_for("the drift question", |v| v["type"] == "control_request");
    assert_eq!(ask["request"]["tool_name"], "Write");
    assert_eq!(ask["request"]["input"]["file_path"], other.as_str());
    let reason = ask["request"]["decision_reason"].as_str().unwrap();
    common::assert_contains(reason, "outside the approved plan");
    common::assert_contains(reason, "step 1/1 is in progress: Write hello.txt");
    s.send(deny(&ask, json!({"message": "not that file"})));
    let result = s.wait_type("result");
    assert_eq!(result["result"], "I will stay within the plan.");
    // The tool call carried its step.
    let (_, seen) = s.finish();
    let call = seen
        .iter()
        .find(|v| v["type"] == "assistant" && v.to_string().contains("\"w2\""))
        .unwrap();
    assert_eq!(call["plan_step"], 1, "{call}");
    assert!(!root.join("other.txt").exists());
    assert!(root.join("hello.txt").exists());
    let (text, is_error) = result_of(server.requests().last().unwrap(), "w2");
    assert!(is_error, "{text}");
    common::assert_contains(
        &text,
        "Stay within the plan, or propose an amendment with AmendPlan",
    );
    common::assert_contains(&text, "not that file");
}

#[test]
fn an_approved_amendment_becomes_a_plan_revision_and_its_file_then_changes_unasked() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"planGoal": false}"#);
    let root = sb.project();
    let notes = root.join("notes.md").display().to_string();
    let hello = root.join("hello.txt").display().to_string();
    let server = common::mock(
        planning(&sb, TWO_FILES)
            .turn(Turn::tool_use(
                "a",
                "AmendPlan",
                json!({"reason": "the change needs release notes", "change": "2. Write notes.md"}),
            ))
            .turn(common::write("w", &notes, "notes\n"))
            .turn(common::write("h", &hello, "hello\n"))
            .turn(common::todo_write(
                "t",
                json!([
                    {"content": "Write hello.txt", "status": "completed", "activeForm": "Writing"},
                    {"content": "Write notes.md", "status": "completed", "activeForm": "Writing"}
                ]),
            ))
            // No compliance note: the amended plan names notes.md and
            // both steps are done, so the first answer ends the turn.
            .turn(Turn::text("Amended and written.")),
    );
    let (mut s, request) = approve(&sb, &server, "write hello");
    let plan_file = request["request"]["input"]["planFilePath"]
        .as_str()
        .unwrap()
        .to_string();
    let ask = s.wait_for("the amendment", |v| v["type"] == "control_request");
    assert_eq!(ask["request"]["tool_name"], "AmendPlan");
    let input = &ask["request"]["input"];
    assert_eq!(input["reason"], "the change needs release notes");
    assert!(
        input["planDiff"]
            .as_str()
            .unwrap()
            .contains("+2. Write notes.md"),
        "{input}"
    );
    s.send(allow(&ask, input.clone()));
    let result = s.wait_type("result");
    assert_eq!(result["result"], "Amended and written.");
    let (_, seen) = s.finish();
    // No prompt for notes.md: only the plan and the amendment asked.
    let asked: Vec<&Value> = seen
        .iter()
        .filter(|v| v["type"] == "control_request")
        .map(|v| &v["request"]["tool_name"])
        .collect();
    assert_eq!(asked, [&json!("ExitPlanMode"), &json!("AmendPlan")]);
    assert_eq!(
        std::fs::read_to_string(root.join("notes.md")).unwrap(),
        "notes\n"
    );
    let plan = std::fs::read_to_string(&plan_file).unwrap();
    common::assert_contains(&plan, "## Amendments\n\n### Amendment 1");
    common::assert_contains(&plan, "Reason: the change needs release notes");
    let reqs = server.requests();
    let (text, is_error) = result_of(&reqs[3], "a");
    assert!(!is_error && text.contains("approved amendment 1"), "{text}");
    // The amended plan is the approved revision now.
    let slug = std::path::Path::new(&plan_file)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let out = sb.bare().args(["plans", "show", &slug]).output().unwrap();
    let shown = common::stdout(&out);
    common::assert_contains(&shown, "this is the approved revision");
    let transcript = std::fs::read_to_string(&sb.transcripts()[0]).unwrap();
    assert!(transcript.contains("\"key\":\"plan_amended\""));
}

#[test]
fn the_approval_dialog_lists_the_verification_commands_that_then_run() {
    require_tmux();
    let s = setup(
        |sb, dir, _| {
            let dir = dir.to_string();
            let hello = sb.project().join("hello.txt").display().to_string();
            Script::new()
                .turn(Turn::respond(move |r| {
                    common::write("p1", common::plan_path_in(r, &dir), "# Plan\n\n1. Write hello.txt\n\n## Verification\n- `test -f hello.txt`\n- `grep -q hi hello.txt`\n")
                }))
                .turn(common::exit_plan("x1"))
                .turn(common::write("w", &hello, "hi\n"))
                .turn(common::todo_write("t", json!([{"content": "Write hello.txt", "status": "completed", "activeForm": "Writing"}])))
                .turn(Turn::text("Written."))
        },
        None,
    );
    launch(&s);
    cycle_mode_to(&s.tmux, "plan");
    s.tmux.submit("write hello");
    let dialog = s.tmux.wait_text("Would you like to proceed?");
    common::assert_contains(
        &dialog,
        "Approving also lets catui run these verification commands",
    );
    common::assert_contains(&dialog, "$ test -f hello.txt");
    common::assert_contains(&dialog, "$ grep -q hi hello.txt");
    // Approve with auto-accepted edits: the work, then catui's own run.
    s.tmux.keys(&["1"]);
    let screen = s.tmux.wait_text("goal met");
    assert!(
        screen.contains("Verification of plan") && screen.contains("passed: 2 command(s)"),
        "{screen}"
    );
    common::assert_contains(&screen, "Written.");
}
