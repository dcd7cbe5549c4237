//! Clean screens: what the terminal UI leaves in the scrollback and what
//! it prints, seen in a tmux pane running the real `catui` binary against
//! the testkit mock model. Nothing live (spinner, prompt echo, dialogs)
//! is ever committed to the scrollback, also across a resize; messages
//! say what happened; the replay of a session is its live transcript.
//!
//! Every wait polls the screen with a generous timeout. Without tmux the
//! tests fail.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use catui_testkit::{Script, Turn};
use common::tmux::*;

/// An answer of `n` numbered lines, each naming `marker`.
fn tall_answer(marker: &str, n: usize) -> String {
    (1..=n)
        .map(|i| format!("{marker} row {i:02} with some words to make the line longer than seventy columns, and more.\n\n"))
        .collect()
}

#[test]
fn narrowing_the_window_during_a_turn_commits_nothing_live() {
    require_tmux();
    narrowing_during_a_turn((80, 24), 70);
    narrowing_during_a_turn((120, 40), 100);
}

fn narrowing_during_a_turn(size: (u16, u16), narrower: u16) {
    let s = setup_sized(
        |_, _, _| {
            Script::new()
                .turn(Turn::text(tall_answer("FULL", 30)))
                .turn(Turn::text("SLOW answer arrived.").delay(Duration::from_secs(4)))
        },
        None,
        size,
    );
    launch(&s);
    s.tmux.type_text("fill the screen");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_history("FULL row 30");
    s.tmux.wait_screen("the first turn over", |sc| !sc.contains("esc to interrupt"));
    s.tmux.type_text("the second question");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("esc to interrupt");
    s.tmux.resize(narrower, size.1);
    s.tmux.wait_screen("the live area at the new width", |sc| {
        sc.lines().any(|l| l.contains("esc to interrupt"))
            && sc.lines().all(|l| l.chars().count() <= narrower as usize)
    });
    s.tmux.wait_history("SLOW answer arrived.");
    s.tmux.wait_screen("the turn over", |sc| !sc.contains("esc to interrupt"));
    let all = s.tmux.history();
    assert!(!all.contains("Working…"), "a spinner frame in the scrollback:\n{all}");
    assert_eq!(
        all.matches("> the second question").count(),
        1,
        "the prompt echo once:\n{all}"
    );
    assert_eq!(all.matches("Type a message").count(), 1, "{all}");
    quit_and_check_terminal(&s);
}
