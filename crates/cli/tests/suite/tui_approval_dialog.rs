//! The approval dialog always shows what it approves (issue 47, item 9):
//! the real binary in tmux against the testkit mock model.
//!
//! - A command padded with sixty newlines shows its payload beside a
//!   marked run (`⏎×60`), its control characters as pictures, and the
//!   options; declining runs nothing.
//! - A command taller than the screen says so with the options on screen,
//!   `v` scrolls through all of it, and approving runs what was shown.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::tmux::*;

/// The dialog's rows on `screen`: from its top border down.
fn dialog(screen: &str) -> String {
    screen
        .lines()
        .skip_while(|l| !l.starts_with('╭'))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_newline_padded_command_shows_its_payload_and_the_options() {
    require_tmux();
    let command = format!("echo hello\x1b]52;c;QUFB\x07{}touch PWNED", "\n".repeat(60));
    let s = setup(
        move |_, _, _| {
            Script::new()
                .turn(common::bash("b1", &command))
                .turn(Turn::text("Understood, not running it."))
        },
        None,
    );
    launch(&s);
    s.tmux.submit("say hello");
    let screen = s.tmux.wait_text("Do you want to proceed?");
    let shown = dialog(&screen);
    assert!(shown.contains("echo hello␛]52;c;QUFB␇"), "{shown}");
    assert!(shown.contains("⏎×60"), "{shown}");
    assert!(shown.contains("touch PWNED"), "{shown}");
    assert!(shown.contains("1. Yes"), "{shown}");
    // No rule names this line (its words include the escape's pieces), so
    // there is no "don't ask again" offer: the refusal is option 2.
    assert!(shown.contains("2. No"), "{shown}");
    assert!(!shown.contains("don't ask again"), "{shown}");
    assert!(!shown.contains("Not all of it fits"), "it fits: {shown}");
    // The payload comes right after the marked run, not sixty rows down.
    let rows: Vec<&str> = shown.lines().collect();
    let run = rows.iter().position(|l| l.contains("⏎×60")).unwrap();
    assert!(rows[run + 1].contains("touch PWNED"), "{shown}");

    s.tmux.keys(&["Escape"]);
    s.tmux.wait_screen("the dialog to close", |sc| {
        !sc.contains("Do you want to proceed?")
    });
    assert!(!s.sb.project().join("PWNED").exists());
    quit_and_check_terminal(&s);
    assert!(!s.sb.project().join("PWNED").exists());
}

#[test]
fn a_command_taller_than_the_screen_says_so_and_scrolls_with_the_options_shown() {
    require_tmux();
    let command: String = (1..=80)
        .map(|i| format!("touch line-{i:02}"))
        .collect::<Vec<_>>()
        .join("\n");
    let s = setup_sized(
        move |_, _, _| {
            Script::new()
                .turn(common::bash("b1", &command))
                .turn(Turn::text("Made them all."))
        },
        None,
        (100, 30),
    );
    launch(&s);
    s.tmux.submit("make the files");
    let screen = s.tmux.wait_text("Do you want to proceed?");
    let shown = dialog(&screen);
    assert!(shown.contains("Not all of it fits"), "{shown}");
    assert!(shown.contains("v to view it whole"), "{shown}");
    assert!(shown.contains("touch line-01"), "{shown}");
    assert!(!shown.contains("touch line-80"), "{shown}");
    assert!(shown.contains("1. Yes"), "{shown}");

    s.tmux.type_text("v");
    s.tmux.wait_text("rows 1–");
    s.tmux.keys(&["End"]);
    let end = s.tmux.wait_text("touch line-80");
    let shown = dialog(&end);
    assert!(shown.contains("of 80"), "{shown}");
    assert!(shown.contains("1. Yes"), "the options stay: {shown}");
    assert!(!shown.contains("│   touch line-01 "), "{shown}");
    // Back to the question, then yes: what was shown runs, all of it.
    s.tmux.type_text("v");
    s.tmux.wait_text("Not all of it fits");
    s.tmux.type_text("1");
    s.tmux.wait_history("Made them all.");
    for i in [1, 40, 80] {
        let file = s.sb.project().join(format!("line-{i:02}"));
        assert!(file.exists(), "{} was not made", file.display());
    }
    quit_and_check_terminal(&s);
}
