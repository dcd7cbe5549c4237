//! The approval dialog always shows what it approves (issue 47, item 9):
//! the real binary in tmux against the testkit mock model.
//!
//! - A command padded with sixty newlines shows its payload beside a
//!   marked run (`⏎×60`), its control characters as pictures, and the
//!   options; declining runs nothing.
//! - A command taller than the screen says so with the options on screen,
//!   `v` scrolls through all of it, and approving runs what was shown.
//! - Dialogs name the command and the file once.

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
    common::assert_contains(&shown, "echo hello␛]52;c;QUFB␇");
    common::assert_contains(&shown, "⏎×60");
    common::assert_contains(&shown, "touch PWNED");
    common::assert_contains(&shown, "1. Yes");
    // No rule names this line (its words include the escape's pieces), so
    // there is no "don't ask again" offer: the refusal is option 2.
    common::assert_contains(&shown, "2. No");
    common::assert_lacks(&shown, "don't ask again");
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
    common::assert_contains(&shown, "Not all of it fits");
    common::assert_contains(&shown, "v to view it whole");
    common::assert_contains(&shown, "touch line-01");
    common::assert_lacks(&shown, "touch line-80");
    common::assert_contains(&shown, "1. Yes");

    s.tmux.type_text("v");
    s.tmux.wait_text("rows 1–");
    s.tmux.keys(&["End"]);
    let end = s.tmux.wait_text("touch line-80");
    let shown = dialog(&end);
    common::assert_contains(&shown, "of 80");
    assert!(shown.contains("1. Yes"), "the options stay: {shown}");
    common::assert_lacks(&shown, "│   touch line-01 ");
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

#[test]
fn dialogs_name_the_command_and_the_file_once() {
    require_tmux();
    let long = format!(
        "touch {}",
        (1..=12)
            .map(|i| format!("generated-file-{i:02}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    assert!(long.len() > 100);
    let command = long;
    let s = setup_sized(
        move |_, _, main| {
            let main = main.display().to_string();
            Script::new()
                .turn(common::read("r1", &main))
                .turn(common::edit("e1", &main, "hello", "bye"))
                .turn(common::bash("b1", &command))
                .turn(Turn::text("All done."))
        },
        None,
        (120, 40),
    );
    launch(&s);
    s.tmux.submit("edit and touch");
    let edit = s.tmux.wait_text("Do you want to proceed?");
    let project = s.sb.project().display().to_string();
    let dialog: String = edit
        .lines()
        .skip_while(|l| !l.starts_with('╭'))
        .take_while(|l| !l.starts_with('╰'))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(dialog.contains("╭ Edit src/main.rs"), "{edit}");
    assert!(!dialog.contains(&project), "no absolute path:\n{dialog}");
    assert_eq!(dialog.matches("main.rs").count(), 1, "{dialog}");
    s.tmux.keys(&["1"]);
    let bash = s.tmux.wait_text("generated-file-12");
    let bash = s
        .tmux
        .wait_screen("the Bash prompt", |sc| {
            sc.contains("Bash command") && sc.contains("Do you want to proceed?")
        })
        .max(bash);
    let dialog: String = bash
        .lines()
        .skip_while(|l| !l.starts_with('╭'))
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(
        dialog.matches("generated-file-05").count(),
        1,
        "the command is printed once:\n{dialog}"
    );
    s.tmux.keys(&["1"]);
    let done = s.tmux.wait_history("All done.");
    // The header names the whole command (wrapped under itself), not its
    // first 80 characters.
    let lines: Vec<&str> = done.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("Bash(touch"))
        .unwrap_or_else(|| panic!("{done}"));
    let header = lines[at..=at + 1].join("\n");
    assert!(header.contains("generated-file-12)"), "{header}");
    common::assert_lacks(&header, "…");
    quit_and_check_terminal(&s);
}
