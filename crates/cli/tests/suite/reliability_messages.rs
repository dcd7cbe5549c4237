//! What catui tells the user when something small goes wrong, through the
//! real binary: retries name the attempt that failed and the one that
//! starts, a rejected `plansDirectory` is reported on every front end, an
//! answer cut off before any output is a clear error, and resuming a
//! session that never planned says nothing about a plan file.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::{Sandbox, json_lines};

#[test]
fn a_retry_notification_names_the_attempt_that_failed_and_the_next_one() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::error_status(529, "Overloaded"))
            .turn(Turn::text("made it")),
    );
    let mut s = sb.stream(&server, &[]);
    s.send_user("hello");
    let note = s.wait_for("the retry notification", |v| {
        v["subtype"] == "notification" && v["key"] == "retrying"
    });
    let text = note["text"].as_str().unwrap();
    assert!(
        text.starts_with("attempt 1 failed") && text.contains("attempt 2 starts"),
        "{text}"
    );
    assert_eq!(s.wait_type("result")["result"], "made it");
    s.finish();
}

#[test]
fn a_rejected_plans_directory_is_reported_without_verbose() {
    let sb = Sandbox::new();
    let outside = sb.dir.path().join("elsewhere");
    sb.user_settings(&serde_json::json!({"plansDirectory": outside}).to_string());
    let server = common::mock(Script::new().turn(Turn::text("hi")));
    // stream-json: in the init line and as a notification.
    let mut s = sb.stream(&server, &[]);
    let init = s.wait_type("system");
    let warnings = init["settings_warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{init}");
    let warning = warnings[0].as_str().unwrap();
    assert!(
        warning.contains("plansDirectory") && warning.contains("outside the project root"),
        "{warning}"
    );
    let note = s.wait_for("the settings notification", |v| {
        v["subtype"] == "notification" && v["key"] == "settings"
    });
    assert_eq!(note["text"], warning);
    s.finish();
    // Plain -p: on stderr, without --verbose.
    let server = common::mock(Script::new().turn(Turn::text("hi")));
    let out = sb.run(&server, ["-p", "hello"]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = common::stderr(&out);
    common::assert_contains(&stderr, "plansDirectory");
}

#[test]
fn an_answer_cut_off_before_any_output_is_a_clear_error() {
    let (sb, server) =
        common::with_mock(Script::new().turn(Turn::text("").stop_reason("max_tokens")));
    let out = sb.run(
        &server,
        ["-p", "--output-format", "stream-json", "write a novel"],
    );
    let lines = json_lines(&out.stdout);
    let result = lines.last().unwrap();
    assert_eq!(result["type"], "result");
    assert_eq!(result["is_error"], true, "{result}");
    let text = result["result"].as_str().unwrap();
    assert!(
        text.contains("output limit") && text.contains("16384"),
        "{text}"
    );
}

#[test]
fn resuming_a_session_that_never_planned_says_nothing_about_a_plan_file() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::text("first answer"))
            .turn(Turn::text("second answer")),
    );
    let out = sb.run(&server, ["-p", "--output-format", "stream-json", "hello"]);
    assert_eq!(out.status.code(), Some(0));
    let lines = json_lines(&out.stdout);
    let session_id = lines.last().unwrap()["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let out = sb.run(&server, ["-p", "--resume", &session_id, "again"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(common::stdout(&out).trim(), "second answer");
    let stderr = common::stderr(&out);
    common::assert_lacks(&stderr, "plan file");
    // The earlier conversation was sent again.
    assert!(server.requests()[1].contains_text("first answer"));
}
