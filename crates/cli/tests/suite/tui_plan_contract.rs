//! The plan as a contract in the terminal UI: the real `catui` binary in a
//! tmux pane against the testkit mock model. The approval dialog lists the
//! exact verification commands approving lets catui run; once the step is
//! done catui runs them and shows the run and the end report in the
//! transcript. Without tmux the test fails.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::tmux::*;
use serde_json::json;

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
                .turn(Turn::tool_use(
                    "t",
                    "TodoWrite",
                    json!({"todos": [{"content": "Write hello.txt", "status": "completed", "activeForm": "Writing"}]}),
                ))
                .turn(Turn::text("Written."))
        },
        None,
    );
    launch(&s);
    cycle_mode_to(&s.tmux, "plan");
    s.tmux.submit("write hello");
    let dialog = s.tmux.wait_text("Would you like to proceed?");
    assert!(
        dialog.contains("Approving also lets catui run these verification commands"),
        "{dialog}"
    );
    assert!(dialog.contains("$ test -f hello.txt"), "{dialog}");
    assert!(dialog.contains("$ grep -q hi hello.txt"), "{dialog}");
    // Approve with auto-accepted edits: the work, then catui's own run.
    s.tmux.keys(&["1"]);
    let screen = s.tmux.wait_text("goal met");
    assert!(
        screen.contains("Verification of plan") && screen.contains("passed: 2 command(s)"),
        "{screen}"
    );
    assert!(screen.contains("Written."), "{screen}");
}
