//! Settings files edited while a session runs take effect at the next
//! model request, through the real binary: a new deny rule applies, a
//! file broken mid-session fails closed, and in plan mode the auto-mode
//! classifier follows `autoMode.useDuringPlan` (`transitionPlanAutoMode`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{MockServer, RecordedRequest, Script, Turn};
use common::{Sandbox, StreamSession, result_of};
use serde_json::{Value, json};

fn is_classifier(r: &RecordedRequest) -> bool {
    r.body["tool_choice"]["name"] == "decide"
}

fn main_turn(turn: Turn) -> Turn {
    turn.when(|r| !is_classifier(r))
}

fn is_prompt(v: &Value) -> bool {
    v["type"] == "control_request" && v["request"]["subtype"] == "can_use_tool"
}

fn notification_with(seen: &[Value], key: &str, needle: &str) -> bool {
    seen.iter().any(|v| {
        v["subtype"] == "notification"
            && v["key"] == key
            && v["text"].as_str().is_some_and(|t| t.contains(needle))
    })
}

fn answer(s: &mut StreamSession, prompt: &Value, behavior: &str) {
    let id = prompt["request_id"].as_str().unwrap().to_string();
    let response = match behavior {
        "allow" => json!({"behavior": "allow"}),
        _ => json!({"behavior": "deny", "message": "not now"}),
    };
    s.send(
        json!({"type":"control_response","response":{"subtype":"success","request_id":id,
        "response": response}}),
    );
}

/// Waits for the result of the current input; a permission prompt is a
/// failure (after stopping the session).
fn result_without_prompt(s: &mut StreamSession) -> Value {
    let v = s.wait_for("a result, or a permission prompt", |v| {
        v["type"] == "result" || is_prompt(v)
    });
    if is_prompt(&v) {
        let _ = s.child.kill();
        panic!("asked the user: {v:#}");
    }
    v
}

/// A stream session whose model reads `notes` twice ("first", then
/// "second"); the first read has run, without a prompt.
fn read_twice_session(sb: &Sandbox, notes: &std::path::Path) -> (MockServer, StreamSession) {
    let read = |id: &str| common::read(id, notes.to_str().unwrap());
    let server = common::mock(
        Script::new()
            .turn(read("r1"))
            .turn(Turn::text("first"))
            .turn(read("r2"))
            .turn(Turn::text("second")),
    );
    let mut s = sb.stream(&server, &[]);
    s.send_user("read it");
    assert_eq!(result_without_prompt(&mut s)["result"], "first");
    (server, s)
}

#[test]
fn a_deny_rule_added_mid_session_applies_to_the_next_call() {
    let sb = Sandbox::new();
    let notes = sb.write("notes.txt", "hello\n");
    let (server, mut s) = read_twice_session(&sb, &notes);

    sb.write(
        ".catui/settings.json",
        r#"{"permissions": {"deny": ["Read(notes.txt)"]}}"#,
    );
    s.send_user("read it again");
    assert_eq!(result_without_prompt(&mut s)["result"], "second");
    let (code, seen) = s.finish();
    assert_eq!(code, 0);

    let reqs = server.requests();
    let (first, first_err) = result_of(&reqs[1], "r1");
    assert!(!first_err && first.contains("hello"), "{first}");
    let (second, second_err) = result_of(&reqs[3], "r2");
    assert!(second_err, "{second}");
    common::assert_lacks(&second, "hello");
    assert!(
        notification_with(&seen, "settings_reloaded", ".catui/settings.json"),
        "{seen:#?}"
    );
}

#[test]
fn a_settings_file_broken_mid_session_makes_calls_ask() {
    let sb = Sandbox::new();
    let notes = sb.write("notes.txt", "hello\n");
    sb.write(
        ".catui/settings.json",
        r#"{"permissions": {"deny": ["Bash(rm:*)"]}}"#,
    );
    let (server, mut s) = read_twice_session(&sb, &notes);

    // A torn write: the deny rule can no longer be told.
    sb.write(
        ".catui/settings.json",
        r#"{"permissions": {"deny": ["Bash(rm:*)"#,
    );
    s.send_user("read it again");
    let prompt = s.wait_for("a permission prompt", is_prompt);
    assert_eq!(prompt["request"]["tool_name"], "Read");
    answer(&mut s, &prompt, "deny");
    assert_eq!(s.wait_type("result")["result"], "second");
    let (code, seen) = s.finish();
    assert_eq!(code, 0);
    assert!(
        notification_with(&seen, "settings", "every tool call asks first"),
        "{seen:#?}"
    );
    let (denied, is_error) = result_of(&server.requests()[3], "r2");
    assert!(is_error && !denied.contains("hello"), "{denied}");
}

#[test]
fn in_plan_mode_the_classifier_follows_use_during_plan() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"autoMode": {"enabled": true}}"#);
    // Fetching asks in plan mode as in any mode (nothing listens on port 9:
    // only the permission decision matters here).
    let fetch = |id: &str| {
        main_turn(Turn::tool_use(
            id,
            "WebFetch",
            json!({"url": format!("http://127.0.0.1:9/{id}")}),
        ))
    };
    let server = common::mock(
        Script::new()
            .turn(fetch("o1"))
            .turn(main_turn(Turn::text("first")))
            .turn(fetch("o2"))
            .turn(
                Turn::tool_use(
                    "d",
                    "decide",
                    json!({"decision": "allow", "reason": "reading is what planning needs"}),
                )
                .when_model("small-model")
                .when(is_classifier),
            )
            .turn(main_turn(Turn::text("second")))
            .turn(main_turn(Turn::text("third"))),
    );
    let mut s = sb.stream(
        &server,
        &["--permission-mode", "plan", "--small-model", "small-model"],
    );

    // Without useDuringPlan, the fetch asks the user.
    s.send_user("one");
    let prompt = s.wait_for("a permission prompt", is_prompt);
    assert_eq!(prompt["request"]["tool_name"], "WebFetch");
    answer(&mut s, &prompt, "deny");
    assert_eq!(s.wait_type("result")["result"], "first");

    // With it, the classifier judges the same kind of call.
    sb.user_settings(r#"{"autoMode": {"enabled": true, "useDuringPlan": true}}"#);
    s.send_user("two");
    assert_eq!(result_without_prompt(&mut s)["result"], "second");

    // Switched off again: the model is told its calls are asked about again.
    sb.user_settings(r#"{"autoMode": {"enabled": true, "useDuringPlan": false}}"#);
    s.send_user("three");
    assert_eq!(result_without_prompt(&mut s)["result"], "third");
    let (code, seen) = s.finish();
    assert_eq!(code, 0);

    let reqs = server.requests();
    let reviews: Vec<&RecordedRequest> = reqs.iter().filter(|r| is_classifier(r)).collect();
    assert_eq!(reviews.len(), 1, "one call was judged");
    assert!(reviews[0].contains_text("Tool: WebFetch"));
    let main: Vec<&RecordedRequest> = reqs.iter().filter(|r| !is_classifier(r)).collect();
    // Allowed by the classifier, so the fetch itself ran (and found nobody).
    let (fetched, _) = result_of(main[3], "o2");
    common::assert_lacks(&fetched, "denied");
    const EXIT: &str = "Auto mode is no longer active";
    assert!(
        main[4].contains_text(EXIT),
        "the last request says auto mode ended"
    );
    assert!(!main[3].contains_text(EXIT));
    assert!(notification_with(
        &seen,
        "settings_reloaded",
        "now judges plan mode's calls"
    ));
    assert!(notification_with(
        &seen,
        "settings_reloaded",
        "no longer judges"
    ));
    assert!(
        seen.iter()
            .all(|v| v["permission_mode"].is_null() || v["permission_mode"] == "plan"),
        "still planning"
    );
}

#[test]
fn auto_mode_ends_when_its_opt_in_is_withdrawn() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"autoMode": {"enabled": true}}"#);
    let server = common::mock(
        Script::new()
            .turn(main_turn(Turn::text("first")))
            .turn(main_turn(Turn::text("second"))),
    );
    let mut s = sb.stream(
        &server,
        &["--permission-mode", "auto", "--small-model", "small-model"],
    );
    s.send_user("one");
    assert_eq!(result_without_prompt(&mut s)["result"], "first");
    sb.user_settings(r#"{"autoMode": {"enabled": false}, "model": "other-model"}"#);
    s.send_user("two");
    assert_eq!(result_without_prompt(&mut s)["result"], "second");
    let (code, seen) = s.finish();
    assert_eq!(code, 0);
    let mode = seen
        .iter()
        .find(|v| v["subtype"] == "permission_mode")
        .unwrap_or_else(|| panic!("no mode change: {seen:#?}"));
    assert_eq!(mode["mode"], "default");
    assert!(notification_with(
        &seen,
        "settings_reloaded",
        "now in default mode"
    ));
    assert!(notification_with(
        &seen,
        "settings_reloaded",
        "model changed and takes effect when catui starts again"
    ));
    let reqs = server.requests();
    assert!(reqs[1].contains_text("Auto mode is no longer active"));
    assert_eq!(reqs[1].model(), reqs[0].model(), "the model stays");
}
