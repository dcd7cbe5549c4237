//! Command hooks from settings, end to end: the real binary runs real bash
//! scripts at each hook event, against the testkit mock model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::PathBuf;

use catui_testkit::{MockServer, Script, Turn};
use common::{Sandbox, json_lines};
use serde_json::{Value, json};

/// Writes an executable bash script outside the project; returns the
/// command that runs it.
fn script(sb: &Sandbox, name: &str, body: &str) -> String {
    let path = sb.dir.path().join(format!("{name}.sh"));
    std::fs::write(&path, format!("#!/usr/bin/env bash\n{body}\n")).unwrap();
    format!("bash {}", path.display())
}

/// A file the scripts write into (outside the project).
fn log_path(sb: &Sandbox, name: &str) -> PathBuf {
    sb.dir.path().join(name)
}

/// The user settings with `hooks`.
fn user_hooks(sb: &Sandbox, hooks: Value) {
    std::fs::write(
        sb.config().join("settings.json"),
        json!({ "hooks": hooks }).to_string(),
    )
    .unwrap();
}

fn one(event: &str, matcher: Option<&str>, command: &str, timeout: Option<u64>) -> Value {
    let mut hook = json!({"type": "command", "command": command});
    if let Some(t) = timeout {
        hook["timeout"] = json!(t);
    }
    json!({ event: [{"matcher": matcher, "hooks": [hook]}] })
}

fn run_p(sb: &Sandbox, server: &MockServer, prompt: &str, extra: &[&str]) -> std::process::Output {
    sb.catui(server)
        .args(["-p", prompt])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn pre_tool_use_exit_2_blocks_the_call_and_gets_the_event_on_stdin() {
    let sb = Sandbox::new();
    let seen = log_path(&sb, "seen.json");
    let guard = script(
        &sb,
        "guard",
        &format!(
            "cat > {}\necho 'no touching in this repo' >&2\nexit 2",
            seen.display()
        ),
    );
    user_hooks(&sb, one("PreToolUse", Some("Bash"), &guard, None));
    let marker = sb.project().join("marker");
    let server = common::mock(
        Script::new()
            .turn(common::bash("t1", format!("touch {}", marker.display())))
            .turn(Turn::text("ok")),
    );
    let out = run_p(
        &sb,
        &server,
        "touch it",
        &["--permission-mode", "bypassPermissions"],
    );
    common::assert_ok(&out);
    assert!(!marker.exists(), "the blocked command must not run");
    let (text, is_error) = common::tool_result_in(&server.requests()[1].body, "t1");
    assert!(
        is_error && text.contains("no touching in this repo"),
        "{text}"
    );
    let input: Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_name"], "Bash");
    assert_eq!(input["tool_use_id"], "t1");
    assert!(
        input["tool_input"]["command"]
            .as_str()
            .unwrap()
            .starts_with("touch ")
    );
    assert_eq!(input["permission_mode"], "bypassPermissions");
    assert_eq!(input["cwd"], sb.project().display().to_string());
    assert!(input["session_id"].as_str().is_some_and(|s| !s.is_empty()));
    assert!(
        input["transcript_path"]
            .as_str()
            .unwrap()
            .ends_with(".jsonl")
    );
}

#[test]
fn a_json_deny_refuses_and_other_tools_are_not_matched() {
    let sb = Sandbox::new();
    let deny = script(
        &sb,
        "deny",
        r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"json says no"}}'"#,
    );
    user_hooks(&sb, one("PreToolUse", Some("Edit|Write"), &deny, None));
    let file = sb.write("a.txt", "old\n");
    let server = common::mock(
        Script::new()
            .turn(common::write("w", file.to_str().unwrap(), "new\n"))
            .turn(common::read("r", file.to_str().unwrap()))
            .turn(Turn::text("done")),
    );
    let out = run_p(
        &sb,
        &server,
        "write it",
        &["--permission-mode", "acceptEdits"],
    );
    common::assert_ok(&out);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "old\n");
    let reqs = server.requests();
    let (w, w_err) = common::tool_result_in(&reqs[1].body, "w");
    assert!(w_err && w.contains("json says no"), "{w}");
    let (r, r_err) = common::tool_result_in(&reqs[2].body, "r");
    assert!(!r_err && r.contains("old"), "Read is not matched: {r}");
}

#[test]
fn updated_input_rewrites_the_call() {
    let sb = Sandbox::new();
    let rewrite = script(
        &sb,
        "rewrite",
        r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"echo rewritten-by-hook"}}}'"#,
    );
    user_hooks(&sb, one("PreToolUse", Some("Bash"), &rewrite, None));
    let server = common::mock(
        Script::new()
            .turn(common::bash("b", "echo original"))
            .turn(Turn::text("done")),
    );
    let out = run_p(&sb, &server, "echo", &[]);
    common::assert_ok(&out);
    let (text, is_error) = common::tool_result_in(&server.requests()[1].body, "b");
    assert!(!is_error && text.contains("rewritten-by-hook"), "{text}");
    common::assert_lacks(&text, "original");
}

#[test]
fn a_hook_that_times_out_refuses_the_call() {
    let sb = Sandbox::new();
    let slow = script(&sb, "slow", "sleep 30");
    user_hooks(&sb, one("PreToolUse", None, &slow, Some(1)));
    let server = common::mock(
        Script::new()
            .turn(common::bash("b", "echo hi"))
            .turn(Turn::text("done")),
    );
    let out = run_p(&sb, &server, "echo", &[]);
    common::assert_ok(&out);
    let (text, is_error) = common::tool_result_in(&server.requests()[1].body, "b");
    assert!(
        is_error && text.contains("did not finish within 1s"),
        "{text}"
    );
}

#[test]
fn a_hook_cannot_open_a_write_in_plan_mode_but_can_deny_a_read() {
    let sb = Sandbox::new();
    let allow = script(
        &sb,
        "allow",
        r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'"#,
    );
    let deny_read = script(&sb, "deny-read", "echo 'reads are off' >&2; exit 2");
    user_hooks(
        &sb,
        json!({"PreToolUse": [
            {"matcher": "Write|Edit|Bash", "hooks": [{"type": "command", "command": allow}]},
            {"matcher": "Read", "hooks": [{"type": "command", "command": deny_read}]}]}),
    );
    let target = sb.project().join("new.txt");
    let marker = sb.project().join("marker");
    let server = common::mock(
        Script::new()
            .turn(common::write("w", target.to_str().unwrap(), "x"))
            .turn(common::bash("b", format!("touch {}", marker.display())))
            .turn(common::read("r", target.to_str().unwrap()))
            .turn(Turn::text("planned")),
    );
    let out = run_p(&sb, &server, "plan", &["--permission-mode", "plan"]);
    common::assert_ok(&out);
    assert!(
        !target.exists(),
        "a hook's allow must not open a write in plan mode"
    );
    assert!(!marker.exists(), "nor a mutating command");
    let reqs = server.requests();
    assert!(common::tool_result_in(&reqs[1].body, "w").1);
    // The mutating command ran as a dry run (in a throwaway copy): allowed
    // by plan mode itself, whatever the hook said, and the project untouched.
    let (b, b_err) = common::tool_result_in(&reqs[2].body, "b");
    assert!(!b_err && b.starts_with("Dry run:"), "{b}");
    let (r, r_err) = common::tool_result_in(&reqs[3].body, "r");
    assert!(r_err && r.contains("reads are off"), "{r}");
}

#[test]
fn post_tool_use_sees_the_result_and_adds_context() {
    let sb = Sandbox::new();
    let seen = log_path(&sb, "post.json");
    let post = script(
        &sb,
        "post",
        &format!(
            "cat > {}\necho '{{\"hookSpecificOutput\":{{\"hookEventName\":\"PostToolUse\",\"additionalContext\":\"POST-CONTEXT\"}}}}'",
            seen.display()
        ),
    );
    user_hooks(&sb, one("PostToolUse", Some("Bash"), &post, None));
    let server = common::mock(
        Script::new()
            .turn(common::bash("b", "echo visible-output"))
            .turn(Turn::text("done")),
    );
    let out = run_p(&sb, &server, "echo", &[]);
    common::assert_ok(&out);
    let (text, _) = common::tool_result_in(&server.requests()[1].body, "b");
    assert!(
        text.contains("visible-output") && text.contains("POST-CONTEXT"),
        "{text}"
    );
    let input: Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!(input["hook_event_name"], "PostToolUse");
    assert!(
        input["tool_response"]
            .as_str()
            .unwrap()
            .contains("visible-output")
    );
}

#[test]
fn session_start_and_prompt_submit_add_context_and_session_end_runs() {
    let sb = Sandbox::new();
    let ended = log_path(&sb, "ended.json");
    let start = script(&sb, "start", "echo 'START-CONTEXT from the hook'");
    let prompt = script(
        &sb,
        "prompt",
        r#"echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"PROMPT-CONTEXT"}}'"#,
    );
    let end = script(&sb, "end", &format!("cat > {}", ended.display()));
    user_hooks(
        &sb,
        json!({
            "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": start}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": prompt}]}],
            "SessionEnd": [{"hooks": [{"type": "command", "command": end}]}]
        }),
    );
    let server = common::mock(Script::new().turn(Turn::text("hello")));
    let out = run_p(&sb, &server, "hi", &[]);
    common::assert_ok(&out);
    let reqs = server.requests();
    assert!(reqs[0].contains_text("START-CONTEXT from the hook"));
    assert!(reqs[0].contains_text("PROMPT-CONTEXT"));
    let end: Value = serde_json::from_str(&std::fs::read_to_string(&ended).unwrap()).unwrap();
    assert_eq!(end["hook_event_name"], "SessionEnd");
    assert_eq!(end["reason"], "other");
}

#[test]
fn a_prompt_blocked_by_user_prompt_submit_never_reaches_the_model() {
    let sb = Sandbox::new();
    let block = script(&sb, "block", "echo 'no secrets in prompts' >&2; exit 2");
    user_hooks(&sb, one("UserPromptSubmit", None, &block, None));
    let server = common::mock(Script::new().turn(Turn::text("never")));
    let out = sb.run(
        &server,
        ["-p", "my password is hunter2", "--output-format", "json"],
    );
    assert_eq!(out.status.code(), Some(1));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["is_error"], true);
    assert!(
        result["result"]
            .as_str()
            .unwrap()
            .contains("no secrets in prompts"),
        "{result}"
    );
    assert!(server.requests().is_empty());
}

#[test]
fn a_stop_hook_sends_the_model_back_once() {
    let sb = Sandbox::new();
    let stop = script(
        &sb,
        "stop",
        r#"input=$(cat)
if [[ "$input" == *'"stop_hook_active":false'* ]]; then
  echo '{"decision":"block","reason":"run the tests too"}'
fi"#,
    );
    user_hooks(&sb, one("Stop", None, &stop, None));
    let server = common::mock(
        Script::new()
            .turn(Turn::text("done"))
            .turn(Turn::text("tests ran too")),
    );
    let out = run_p(&sb, &server, "work", &[]);
    common::assert_ok(&out);
    assert_eq!(common::stdout(&out).trim(), "tests ran too");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert!(reqs[1].contains_text("Stop hook feedback: run the tests too"));
}

#[test]
fn subagent_stop_pre_compact_and_notification_run() {
    let sb = Sandbox::new();
    let log = log_path(&sb, "events.log");
    let append = script(
        &sb,
        "append",
        &format!("cat >> {}\necho >> {}", log.display(), log.display()),
    );
    user_hooks(
        &sb,
        json!({
            "SubagentStop": [{"hooks": [{"type": "command", "command": append}]}],
            "PreCompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": append}]}],
            "Notification": [{"hooks": [{"type": "command", "command": append}]}]
        }),
    );
    let file = sb.project().join("new.txt");
    let server = common::mock(
        Script::new()
            .turn(common::agent("a", "look", "look around", "general-purpose"))
            .turn(Turn::text("nothing to see"))
            .turn(common::write("w", file.to_str().unwrap(), "x"))
            .turn(Turn::text("asked"))
            .turn(Turn::text("SUMMARY of it all")),
    );
    let mut s = sb.stream(&server, &[]);
    s.send_user("look and write");
    let perm = s.wait_for("can_use_tool", |v| v["type"] == "control_request");
    s.send(
        json!({"type": "control_response", "response": {"subtype": "success",
        "request_id": perm["request_id"], "response": {"behavior": "deny", "message": "no"}}}),
    );
    s.wait_type("result");
    s.send_user("/compact keep it short");
    s.wait_type("result");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    let text = std::fs::read_to_string(&log).unwrap();
    let events: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let names: Vec<&str> = events
        .iter()
        .map(|e| e["hook_event_name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["SubagentStop", "Notification", "PreCompact"],
        "{text}"
    );
    assert!(events[0]["agent_id"].as_str().is_some());
    assert_eq!(events[1]["notification_type"], "permission_prompt");
    assert!(events[1]["message"].as_str().unwrap().contains("Write"));
    assert_eq!(events[2]["trigger"], "manual");
    assert_eq!(events[2]["custom_instructions"], "keep it short");
}

#[test]
fn project_hooks_do_not_run_in_an_untrusted_project() {
    let sb = Sandbox::new();
    let marker = log_path(&sb, "ran");
    let planted = script(&sb, "planted", &format!("touch {}", marker.display()));
    sb.write(
        ".catui/settings.json",
        &json!({"hooks": one("UserPromptSubmit", None, &planted, None)}).to_string(),
    );
    let server = common::mock(Script::new().turn(Turn::text("hello")));
    let out = sb.run(
        &server,
        ["-p", "hi", "--output-format", "stream-json", "--verbose"],
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(!marker.exists(), "a cloned repository's hook must not run");
    let lines = json_lines(&out.stdout);
    assert!(
        lines.iter().any(|l| l["subtype"] == "notification"
            && l["text"]
                .as_str()
                .unwrap_or_default()
                .contains("not trusted")),
        "{lines:#?}"
    );
}

#[test]
fn malformed_hooks_are_reported() {
    let sb = Sandbox::new();
    user_hooks(&sb, json!({"PreToolUs": []}));
    let server = common::mock(Script::new().turn(Turn::text("hello")));
    let out = run_p(&sb, &server, "hi", &[]);
    assert_eq!(out.status.code(), Some(0));
    let err = common::stderr(&out);
    common::assert_contains(&err, "unknown hook event `PreToolUs`");
}

#[test]
fn project_hooks_run_once_the_user_trusts_the_project() {
    let sb = Sandbox::new();
    let marker = log_path(&sb, "ran");
    let planted = script(&sb, "planted", &format!("touch {}", marker.display()));
    sb.write(
        ".catui/settings.json",
        &json!({"hooks": one("UserPromptSubmit", None, &planted, None)}).to_string(),
    );
    let trust = sb.bare().arg("trust").output().unwrap();
    assert!(trust.status.success(), "{trust:?}");
    assert!(common::stdout(&trust).contains("Trusted"));
    let server = common::mock(Script::new().turn(Turn::text("hello")));
    let out = run_p(&sb, &server, "hi", &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(marker.exists(), "the trusted project's hook did not run");
}
