//! Live output in the terminal UI (the real binary in tmux against the
//! mock model): a running command's latest lines are on screen while it
//! runs, and once it ends its last lines are shown with how many more
//! there are. The command waits for a file this test creates, so "while it
//! runs" is decided by the test, not by timing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use catui_testkit::{Script, Turn};
use common::tmux::*;
use serde_json::json;

#[test]
fn a_running_command_shows_its_latest_lines_and_then_its_tail() {
    require_tmux();
    let s = setup(
        |sb, _, _| {
            let release = sb.dir.path().join("release");
            let command = format!(
                "echo starting; sleep 1; echo LINE-AT-$((0+1))-SECOND; \
                 while [ ! -e '{}' ]; do sleep 0.1; done; seq 1 20; echo ALL-DONE-$((6*7))",
                release.display()
            );
            Script::new()
                .turn(Turn::tool_use("b1", "Bash", json!({"command": command})))
                .turn(Turn::text("The command finished."))
        },
        None,
    );
    launch(&s);
    s.tmux.type_text("run the slow command");
    s.tmux.keys(&["Enter"]);
    // The markers are computed by the shell, so the command's own text
    // (shown above its output) never contains them.
    let screen = s.tmux.wait_screen("the live line while it runs", |sc| {
        sc.contains("LINE-AT-1-SECOND") && sc.contains("Running…")
    });
    assert!(!screen.contains("ALL-DONE-42"), "{screen}");
    std::fs::write(s.sb.dir.path().join("release"), "").unwrap();
    let done = s.tmux.wait_text("The command finished.");
    // The tail, not the head: the last line and how many are folded.
    assert!(done.contains("ALL-DONE-42"), "{done}");
    assert!(done.contains("… +19 lines (ctrl+o to expand)"), "{done}");
    assert!(!done.contains("Running…"), "{done}");
    quit_and_check_terminal(&s);
}
