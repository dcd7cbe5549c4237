//! The terminal's scrollback holds each final transcript row once, and
//! nothing else: the real `catui` binary in a tmux pane against the
//! testkit mock model, read back with `capture-pane -S -` and checked by
//! counting copies of marker lines. A tall answer committed after a
//! spinner, a resize in the middle of a streaming answer, a full-screen
//! plan dialog changed and closed: no clipped frame, no old live area, no
//! copy of a dialog reaches the scrollback. A change of width prints what
//! is on the screen again at the new width.
//!
//! Without tmux the tests fail.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::Duration;

use catui_testkit::{Script, Turn};
use common::plan_path_in;
use common::tmux::*;

/// An answer of `n` numbered lines, each naming `marker`.
fn tall_answer(marker: &str, n: usize) -> String {
    (1..=n)
        .map(|i| format!("{marker} row {i:02}.\n\n"))
        .collect()
}

/// Status lines (the live area's last row) in the whole pane history.
fn status_lines(history: &str) -> usize {
    history
        .lines()
        .filter(|l| l.contains("test-model · "))
        .count()
}

/// After a tall answer: every row of it once, one live area, no spinner
/// line left behind.
fn assert_clean_history(s: &Setup, marker: &str, rows: usize) {
    s.tmux.wait_history(&format!("{marker} row {rows:02}."));
    // The turn has ended and the final frame is drawn: read it all now.
    s.tmux.wait_screen("the turn's end", |sc| {
        sc.contains("Type a message") && !sc.contains("esc to interrupt")
    });
    let all = s.tmux.history();
    for i in [1, rows / 2, rows] {
        let line = format!("{marker} row {i:02}.");
        assert_eq!(all.matches(&line).count(), 1, "{line} not once:\n{all}");
    }
    assert_eq!(status_lines(&all), 1, "old status lines kept:\n{all}");
    assert_eq!(all.matches("Type a message").count(), 1, "{all}");
    common::assert_lacks(&all, "esc to interrupt");
}

fn tall_after_spinner(size: (u16, u16)) {
    let s = tmux_session_sized(
        // A spinner first, then the answer streams in (frames of the
        // growing answer are drawn), then it is committed.
        Script::new().turn(
            Turn::text(tall_answer("TALL", 40))
                .delay(Duration::from_secs(1))
                .chunk_delay(Duration::from_millis(15)),
        ),
        size,
    );
    launch(&s);
    s.tmux.submit("a tall answer please");
    s.tmux.wait_text("esc to interrupt");
    assert_clean_history(&s, "TALL", 40);
    quit_and_check_terminal(&s);
}

#[test]
fn a_tall_answer_after_a_spinner_is_committed_once_at_80x24() {
    require_tmux();
    tall_after_spinner((80, 24));
}

#[test]
fn a_tall_answer_after_a_spinner_is_committed_once_at_120x40() {
    require_tmux();
    tall_after_spinner((120, 40));
}

#[test]
fn shrinking_the_window_mid_answer_commits_no_partial_frame() {
    let s = tmux_session_sized(
        Script::new()
            .turn(Turn::text(tall_answer("SHRINK", 40)).chunk_delay(Duration::from_millis(40))),
        (100, 30),
    );
    launch(&s);
    s.tmux.submit("stream a tall answer");
    s.tmux.wait_text("SHRINK row 08.");
    s.tmux.resize(100, 18);
    s.tmux.wait_text("SHRINK row 14.");
    s.tmux.resize(70, 14);
    assert_clean_history(&s, "SHRINK", 40);
    quit_and_check_terminal(&s);
}

/// A plan of 60 lines: the dialog fills a 120x40 window.
fn long_plan() -> String {
    let mut plan = String::from("# Long plan\n\n");
    for i in 1..=60 {
        if i == 30 {
            plan.push_str("30. PLAN-MARKER step in the middle\n");
        } else {
            plan.push_str(&format!("{i}. Step number {i}\n"));
        }
    }
    plan
}

#[test]
fn a_full_screen_plan_dialog_never_reaches_the_scrollback() {
    require_tmux();
    let editor_dir = tempfile::tempdir().unwrap();
    let editor = editor_dir.path().join("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nprintf '61. Added in the editor\\n' >> \"$1\"\n",
    )
    .unwrap();
    std::process::Command::new("chmod")
        .args(["+x", &editor.display().to_string()])
        .status()
        .unwrap();
    let s = setup_sized(
        |_, dir, _| {
            let dir = dir.to_string();
            Script::new()
                .turn(Turn::respond(move |r| {
                    common::write("p1", plan_path_in(r, &dir), long_plan())
                }))
                .turn(common::exit_plan("x1"))
                .turn(Turn::text("Approved, starting."))
        },
        Some(&editor.display().to_string()),
        (120, 40),
    );
    launch(&s);
    s.tmux.type_text("plan it");
    cycle_mode_to(&s.tmux, "plan");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("Exit plan mode?");
    s.tmux.keys(&["PageDown"]);
    s.tmux.wait_text("PLAN-MARKER");
    s.tmux.keys(&["PageDown", "Home"]);
    s.tmux.keys(&["C-g"]);
    s.tmux.wait_text("(edited)");
    s.tmux.keys(&["End"]);
    s.tmux.wait_text("61. Added in the editor");
    s.tmux.keys(&["1"]);
    s.tmux.wait_history("Approved, starting.");
    s.tmux.wait_text("Type a message");
    let all = s.tmux.history();
    assert_eq!(
        all.matches("Exit plan mode?").count(),
        0,
        "the dialog reached the scrollback:\n{all}"
    );
    assert!(all.matches("PLAN-MARKER").count() <= 1, "{all}");
    assert_eq!(status_lines(&all), 1, "{all}");
    quit_and_check_terminal(&s);
}

#[test]
fn a_wider_window_prints_the_screen_again_at_the_new_width() {
    require_tmux();
    let paragraph: String = (1..=40)
        .map(|i| format!("word{i:02}"))
        .collect::<Vec<_>>()
        .join(" ");
    let answer = format!("{paragraph} REFLOW-END");
    let s = setup_sized(
        move |_, _, _| Script::new().turn(Turn::text(answer)),
        None,
        (80, 24),
    );
    launch(&s);
    s.tmux.submit("one long paragraph");
    s.tmux.wait_text("REFLOW-END");
    let narrow = s.tmux.screen();
    assert!(narrow.lines().all(|l| l.chars().count() <= 80), "{narrow}");
    s.tmux.resize(120, 24);
    // The answer is wrapped at 120 columns now, and still there once.
    let wide = s
        .tmux
        .wait_screen("the answer re-wrapped at 120 columns", |sc| {
            sc.lines()
                .any(|l| l.contains("word01") && l.trim_end().chars().count() > 90)
        });
    common::assert_contains(&wide, "> one long paragraph");
    let all = s.tmux.history();
    assert_eq!(all.matches("REFLOW-END").count(), 1, "{all}");
    assert_eq!(all.matches("word20").count(), 1, "{all}");
    assert_eq!(all.matches("> one long paragraph").count(), 1, "{all}");
    quit_and_check_terminal(&s);
}
