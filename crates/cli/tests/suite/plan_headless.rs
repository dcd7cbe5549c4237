//! Plan mode where nobody is at the keyboard, through the real binary
//! against the testkit mock model: a question asked after `--resume` of a
//! headless planning run is answered (not replaced by the old plan), and
//! `/plan open` without a terminal fails at once when the editor needs one,
//! while an editor that runs never outlives catui.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::{Duration, Instant};

use catui_testkit::{Script, Turn};
use common::{Sandbox, StreamSession, json_lines, plans_dir, writes_plan_then_exits};

const PLAN: &str = "# Plan\n\n1. Add the flag\n";

/// Whether process `pid` runs (a zombie not reaped yet by its new parent
/// counts as ended).
fn alive(pid: i32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let state = stat
        .rsplit(')')
        .next()
        .and_then(|rest| rest.split_whitespace().next());
    state.is_some_and(|s| s != "Z")
}

/// The plan of a headless planning run stays on disk; a later question
/// on the same session that the model answers in words gets that answer.
#[test]
fn a_question_after_resuming_a_planning_run_gets_its_answer() {
    let sb = Sandbox::new();
    let server = common::mock(
        writes_plan_then_exits(&plans_dir(&sb), PLAN)
            .turn(Turn::text("Step 1 adds --json to the list command.")),
    );
    let run = |args: &[&str]| {
        let out = sb
            .catui(&server)
            .args(["-p", "--output-format", "stream-json"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        json_lines(&out.stdout).pop().unwrap()
    };
    let ready = run(&["--permission-mode", "plan", "plan the flag"]);
    assert_eq!(ready["subtype"], "plan_ready", "{ready}");
    let session = ready["session_id"].as_str().unwrap().to_string();
    let answer = run(&["--resume", &session, "what does step 1 do?"]);
    assert_eq!(answer["subtype"], "success", "{answer}");
    assert_eq!(answer["result"], "Step 1 adds --json to the list command.");
    assert_eq!(answer["permission_mode"], "plan");
}

/// No `$VISUAL`/`$EDITOR` and no terminal: `vi` cannot run, so `/plan
/// open` says so at once (naming the plan file) instead of waiting.
#[test]
fn plan_open_without_an_editor_or_a_terminal_fails_at_once() {
    let (sb, server) = common::with_mock(Script::new());
    let mut cmd = sb.catui(&server);
    common::without_terminal(&mut cmd);
    let mut s = StreamSession::start(cmd, &["--permission-mode", "plan"]);
    let init = s.wait_for("init", |v| v["subtype"] == "init");
    let plan_file = init["plan_file"].as_str().unwrap().to_string();
    std::fs::write(&plan_file, PLAN).unwrap();
    s.send_user("/plan open");
    let r = s.wait_type("result");
    let text = r["result"].as_str().unwrap();
    assert_eq!(r["is_error"], true, "{r}");
    assert!(
        text.starts_with("Failed to open plan in editor: vi needs a terminal"),
        "{text}"
    );
    assert!(
        text.contains("$VISUAL") && text.contains(&plan_file),
        "{text}"
    );
    // The session goes on.
    s.send_user("/plan");
    assert!(
        s.wait_type("result")["result"]
            .as_str()
            .unwrap()
            .contains("Add the flag")
    );
    s.finish();
}

/// An editor that runs (a script here) is ended with catui: killing
/// catui while the editor is open leaves nothing running.
#[test]
fn an_open_editor_ends_with_catui() {
    let sb = Sandbox::new();
    let pid_file = sb.dir.path().join("editor.pid");
    let editor = sb.dir.path().join("editor.sh");
    std::fs::write(
        &editor,
        format!(
            "#!/bin/sh\necho $$ > {}\nexec sleep 600\n",
            pid_file.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (_server, mut s, plan_file) = common::fixtures::plan_session_with_editor(&sb, &editor);
    std::fs::write(&plan_file, PLAN).unwrap();
    s.send_user("/plan open");
    let started = Instant::now();
    let pid: i32 = loop {
        if let Some(pid) = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            break pid;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the editor never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(alive(pid));
    s.child.kill().unwrap();
    s.child.wait().unwrap();
    let killed = Instant::now();
    while alive(pid) && killed.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left = alive(pid);
    if left {
        // Ends the process this test started, by its pid.
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    }
    assert!(!left, "the editor {pid} outlived catui");
}
