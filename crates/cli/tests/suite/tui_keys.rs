//! One meaning per key, and hints that say what the key really does: the
//! real `catui` binary in a tmux pane against the testkit mock model.
//! Ctrl+C stops a turn, then clears the input, then quits, and the status
//! line names the next step; Esc on any dialog stops the turn with nothing
//! sent to the agent; the dialogs' hint rows are whole at 80 columns.
//!
//! Every wait polls the screen with a generous timeout. Without tmux the
//! tests fail.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::Duration;

use catui_testkit::{Script, Turn};
use common::last_user;
use common::tmux::*;

/// The input box's row (the one starting with the prompt marker).
fn input_row(screen: &str) -> String {
    screen
        .lines()
        .rev()
        .find(|l| l.starts_with("> ") || l.starts_with("❯ "))
        .unwrap_or("")
        .to_string()
}

#[test]
fn ctrl_c_interrupts_then_clears_then_quits_and_says_which_comes_next() {
    require_tmux();
    for size in [(80, 24), (120, 40)] {
        let s = tmux_session_sized(
            Script::new().turn(Turn::text("Too late.").delay(Duration::from_secs(30))),
            size,
        );
        launch(&s);
        s.tmux.submit("a slow question");
        s.tmux.wait_text("esc to interrupt");

        // The first press stops the turn; the prompt comes back to be
        // edited, so the next press clears it — and the status says so.
        s.tmux.keys(&["C-c"]);
        let screen = s.tmux.wait_text("Ctrl+C again clears the input");
        assert!(
            input_row(&screen).contains("a slow question"),
            "the prompt is back in the input:\n{screen}"
        );
        assert!(!screen.contains("again to exit"), "{screen}");

        s.tmux.keys(&["C-c"]);
        let screen = s.tmux.wait_text("Input cleared (Ctrl+Y brings it back)");
        assert!(
            status_line(&screen).contains("Ctrl+C again to exit"),
            "{screen}"
        );
        assert!(!input_row(&screen).contains("a slow question"), "{screen}");

        // Ctrl+Y brings the draft back; with a draft in the box, Ctrl+C
        // clears again rather than quitting.
        s.tmux.keys(&["C-y"]);
        s.tmux.wait_screen("the draft back", |sc| {
            input_row(sc).contains("a slow question")
        });
        quit_and_check_terminal(&s);
        let all = s.tmux.history();
        assert!(!all.contains("Too late."), "{all}");
    }
}

#[test]
fn esc_in_the_plan_dialog_stops_and_sends_nothing() {
    require_tmux();
    let s = setup_sized(
        |_, dir, _| common::presents_plan(dir, "Understood, waiting for the word."),
        None,
        (80, 24),
    );
    s.sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    launch(&s);
    cycle_mode_to(&s.tmux, "plan");
    s.tmux.submit("plan the parser rewrite");
    let dialog = s.tmux.wait_text("Would you like to proceed?");
    assert!(dialog.contains("Esc stop"), "the hint names Esc:\n{dialog}");
    s.tmux.keys(&["Escape"]);
    let screen = s.tmux.wait_screen("the prompt back", |sc| {
        !sc.contains("Would you like to proceed?")
    });
    assert_eq!(mode_on_screen(&screen), "plan", "{screen}");
    // The turn ended: the next request to the model is the user's own
    // next message, not an answer to a rejection.
    s.tmux.submit("hold on, one more thing");
    s.tmux.wait_history("Understood, waiting for the word.");
    let reqs = s.server.requests();
    assert_eq!(reqs.len(), 3, "one request per user message after the plan");
    assert!(
        last_user(&reqs[2]).contains("hold on, one more thing"),
        "{}",
        last_user(&reqs[2])
    );
    quit_and_check_terminal(&s);
}

#[test]
fn the_permission_prompt_offers_the_real_command_with_a_whole_hint_and_esc_stops() {
    require_tmux();
    for size in [(80, 24), (120, 40)] {
        let s = tmux_session_sized(
            Script::new()
                .turn(common::bash(
                    "b1",
                    "for i in 1 2 3; do echo $i | tee -a out.txt; done",
                ))
                .turn(Turn::text("Should not be asked for.")),
            size,
        );
        launch(&s);
        s.tmux.submit("write the numbers");
        let screen = s.tmux.wait_text("Do you want to proceed?");
        // "Don't ask again" names the command that really runs.
        assert!(
            screen.contains("don't ask again for Bash(tee:*) this session"),
            "{screen}"
        );
        assert!(!screen.contains("Bash(for"), "{screen}");
        let hint = screen
            .lines()
            .find(|l| l.contains("choose"))
            .unwrap_or_else(|| panic!("no hint row:\n{screen}"));
        assert!(
            // Option 4 and `d`: a shell command may run as a dry run.
            hint.contains("1-4 choose · Esc stop · d dry run"),
            "the whole hint on one row: {hint:?}\n{screen}"
        );
        s.tmux.keys(&["Escape"]);
        s.tmux.wait_screen("the dialog closed", |sc| {
            !sc.contains("Do you want to proceed?")
        });
        s.tmux
            .wait_screen("the turn over", |sc| !sc.contains("esc to interrupt"));
        assert_eq!(s.server.requests().len(), 1, "Esc stopped the turn");
        quit_and_check_terminal(&s);
    }
}

#[test]
fn a_command_with_no_name_of_its_own_offers_no_dont_ask_again() {
    let s = tmux_session_sized(
        Script::new()
            .turn(common::bash("b1", "$(echo ls)"))
            .turn(Turn::text("Fine, I will not.")),
        (80, 24),
    );
    launch(&s);
    s.tmux.submit("list it");
    let screen = s.tmux.wait_text("Do you want to proceed?");
    // No rule names this command: allowing all of Bash is not offered.
    assert!(!screen.contains("don't ask again"), "{screen}");
    let hint = screen
        .lines()
        .find(|l| l.contains("choose"))
        .unwrap_or_else(|| panic!("no hint row:\n{screen}"));
    assert!(hint.contains("1-3 choose"), "{hint:?}\n{screen}");
    // 2 is "No" now: it opens the note field, and the model hears it.
    s.tmux.keys(&["2"]);
    s.tmux.submit("do not run that");
    s.tmux.wait_history("Fine, I will not.");
    let reqs = s.server.requests();
    let (result, is_error) = common::result_of(reqs.last().unwrap(), "b1");
    assert!(is_error && result.contains("do not run that"), "{result}");
    quit_and_check_terminal(&s);
}
