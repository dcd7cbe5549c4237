//! The replay is the live transcript: a session resumed in the terminal UI
//! shows the calls the user declined exactly as they were shown live — the
//! model's words before a call, the declined call with the change it
//! proposed, the user's feedback, a call stopped with Esc — row for row. The real `catui` binary in
//! a tmux pane against the testkit mock model.
//!
//! Without tmux the tests fail.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Block, Script, Turn};
use common::tmux::*;
use serde_json::json;

/// Clears the pane and its scrollback, so only the next run's output is
/// there to be found.
fn clear_pane(s: &Setup) {
    s.tmux.type_text("clear");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_screen("a cleared screen", |sc| {
        !sc.contains("catui-exit") && sc.contains(SHELL_PROMPT.trim_end())
    });
    assert!(s.tmux.run(&["clear-history", "-t", "e2e"]).status.success());
}

/// The rows from the user's first prompt to the second call's result row,
/// as the pane's history holds them (trailing blanks trimmed).
fn the_turns(history: &str) -> Vec<String> {
    let rows: Vec<&str> = history.lines().collect();
    let from = rows
        .iter()
        .position(|r| r.contains("change the greeting"))
        .unwrap_or_else(|| panic!("no prompt:\n{history}"));
    let to = rows
        .iter()
        .rposition(|r| r.contains("Bash(rm -rf build)"))
        .unwrap_or_else(|| panic!("no stopped call:\n{history}"))
        + 1;
    rows[from..=to]
        .iter()
        .map(|r| r.trim_end().to_string())
        .collect()
}

#[test]
fn declined_calls_replay_as_they_were_shown_live() {
    require_tmux();
    for size in [(80, 24), (120, 40)] {
        let s = setup_sized(
            |_, _, _| {
                Script::new()
                    .turn(Turn::blocks(vec![
                        Block::text("I will make the greeting louder."),
                        Block::tool_use(
                            "e1",
                            "Edit",
                            json!({
                                "file_path": "src/main.rs",
                                "old_string": "println!(\"hello\");",
                                "new_string": "println!(\"HELLO\");"
                            }),
                        ),
                    ]))
                    .turn(Turn::text("Leaving the greeting as it is."))
                    .turn(Turn::blocks(vec![
                        Block::text("Cleaning the build output first."),
                        Block::tool_use("b1", "Bash", json!({"command": "rm -rf build"})),
                    ]))
            },
            None,
            // Tall enough for the whole turn to stay on screen and in the
            // history in both runs.
            (size.0, 60),
        );
        launch(&s);
        s.tmux.type_text("change the greeting");
        s.tmux.keys(&["Enter"]);
        s.tmux.wait_text("Do you want to");
        s.tmux.keys(&["3"]);
        s.tmux.wait_text("tell the agent");
        s.tmux.type_text("keep it quiet");
        s.tmux.keys(&["Enter"]);
        s.tmux.wait_history("Leaving the greeting as it is.");
        // A second call, stopped with Esc.
        s.tmux.type_text("tidy up");
        s.tmux.keys(&["Enter"]);
        s.tmux.wait_text("Do you want to proceed?");
        s.tmux.keys(&["Escape"]);
        // (Esc answers the prompt and stops the turn: the call reads
        // "Declined", or "Interrupted · not run" when the stop came first.)
        let live = the_turns(
            &s.tmux
                .wait_history("Interrupted · tell catui what to do instead"),
        );
        quit_and_check_terminal(&s);
        let joined = live.join("\n");
        // What the live run shows: the model's words, the declined call
        // with its diff, the user's feedback, the answer.
        for row in [
            "I will make the greeting louder.",
            "Edit(src/main.rs)",
            "+ ",
            "HELLO",
            "keep it quiet",
            "Leaving the greeting as it is.",
            "Cleaning the build output first.",
            "Bash(rm -rf build)",
        ] {
            assert!(joined.contains(row), "{row:?} live:\n{joined}");
        }
        assert!(!joined.contains('✗'), "{joined}");

        clear_pane(&s);
        launch_with_pid(&s, "--continue", false);
        let replay = the_turns(&s.tmux.wait_history("Bash(rm -rf build)"));
        assert_eq!(
            replay.join("\n"),
            joined,
            "at {size:?}: the replay differs from the live rows"
        );
        quit_and_check_terminal(&s);
    }
}
