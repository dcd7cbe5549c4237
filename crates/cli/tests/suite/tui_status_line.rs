//! The status line command (setting `statusLine`) in the terminal UI
//! (tmux, 80x24): its first line is on screen, fed the session as JSON on
//! stdin; a failing command is reported once and the built-in line shows.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::tmux::{launch, quit_and_check_terminal, status_line, wait_for};

#[test]
fn the_commands_line_is_the_status_line_and_it_reads_the_session() {
    let s = common::tmux::tmux_session_sized(Script::new().turn(Turn::text("done")), (80, 24));
    let input = s.sb.dir.path().join("status-input.json");
    s.sb.user_settings(
        &serde_json::json!({
            "statusLine": {
                "type": "command",
                "command": format!(
                    "cat > '{}'; printf '\\033[31mmy-line\\033[0m key=[%s]\\nsecond-line\\n' \"${{ANTHROPIC_API_KEY:-none}}\"",
                    input.display()
                )
            }
        })
        .to_string(),
    );
    launch(&s);
    let screen = s.tmux.wait_screen("the command's line", |sc| {
        status_line(sc).contains("my-line")
    });
    let status = status_line(&screen);
    common::assert_contains(&status, "my-line key=[none]");
    assert!(
        status.contains("default mode"),
        "the mode is not in view: {status}"
    );
    common::assert_lacks(&screen, "second-line");
    let styled = s.tmux.screen_styled();
    assert!(
        !styled.contains("[31m"),
        "an escape sequence reached the terminal"
    );
    let json: serde_json::Value = wait_for("the JSON on stdin", &s.tmux, || {
        serde_json::from_str(&std::fs::read_to_string(&input).ok()?).ok()
    });
    assert_eq!(json["model"]["id"], "test-model");
    assert_eq!(json["permission_mode"], "default");
    assert_eq!(
        std::path::Path::new(json["cwd"].as_str().unwrap())
            .canonicalize()
            .unwrap(),
        s.sb.project().canonicalize().unwrap()
    );
    quit_and_check_terminal(&s);
}

#[test]
fn a_failing_command_is_reported_once_and_the_built_in_line_shows() {
    let s = common::tmux::tmux_session_sized(Script::new().turn(Turn::text("answered")), (80, 24));
    let runs = s.sb.dir.path().join("status-runs");
    s.sb.user_settings(
        &serde_json::json!({
            "statusLine": {
                "command": format!(
                    "echo run >> '{}'; echo theme-file-missing >&2; exit 3",
                    runs.display()
                )
            }
        })
        .to_string(),
    );
    let runs_so_far = || std::fs::read_to_string(&runs).map_or(0, |t| t.lines().count());
    launch(&s);
    s.tmux.wait_text("The status line command failed");
    let screen = s.tmux.wait_screen("the built-in line", |sc| {
        status_line(sc).contains("test-model")
    });
    common::assert_contains(&screen, "status 3: theme-file-missing");
    // A turn (tokens counted) and a mode change make it run twice more;
    // runs never overlap, so the second one's failure was taken before
    // the third started. It is not reported again.
    s.tmux.submit("hello");
    s.tmux.wait_text("answered");
    wait_for("a second run", &s.tmux, || {
        (runs_so_far() >= 2).then_some(())
    });
    s.tmux.keys(&["BTab"]);
    wait_for("a third run", &s.tmux, || {
        (runs_so_far() >= 3).then_some(())
    });
    let screen = s.tmux.screen();
    assert!(status_line(&screen).contains("test-model"), "{screen}");
    assert_eq!(
        s.tmux.copies_in_history("The status line command failed"),
        1,
        "{}",
        s.tmux.history()
    );
    quit_and_check_terminal(&s);
}
