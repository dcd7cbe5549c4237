//! One meaning per key, and hints that say what the key really does: the
//! real `catui` binary in a tmux pane against the testkit mock model.
//! Ctrl+C stops a turn, then clears the input, then quits, and the status
//! line names the next step; Esc on any dialog stops the turn with nothing
//! sent to the agent (on a permission prompt a reason carries on); the
//! dialogs' hint rows are whole at 80 columns; the `?` sheet at 80x24
//! starts at its top and scrolls; Home/End move through the plan in its
//! dialog; Shift+Enter as modifyOtherKeys and kitty send it starts a line.
//!
//! Every wait polls the screen with a generous timeout. Without tmux the
//! tests fail.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::Duration;

use catui_testkit::{Script, Turn};
use common::tmux::*;
use common::{last_user, plan_path_in, result_of};

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
        common::assert_lacks(&screen, "again to exit");

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
        common::assert_lacks(&all, "Too late.");
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
        common::assert_contains(&screen, "don't ask again for Bash(tee:*) this session");
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
    common::assert_lacks(&screen, "don't ask again");
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

#[test]
fn the_key_sheet_at_80x24_starts_at_its_top_and_scrolls() {
    let s = tmux_session_sized(Script::new(), (80, 24));
    launch(&s);
    s.tmux.type_text("?");
    let top = s.tmux.wait_text("any other key closes this sheet");
    for needle in ["Keys", "Enter", "Ctrl+J", "Up ", "Esc"] {
        assert!(top.contains(needle), "{needle} cut from the sheet:\n{top}");
    }
    // End reaches the sheet's last row: the rewind picker's keys come last,
    // after the commands and the question dialog's keys.
    s.tmux.keys(&["End"]);
    let bottom = s.tmux.wait_text("close; nothing is restored");
    common::assert_contains(&bottom, "In the rewind picker");
    s.tmux.keys(&["Home"]);
    s.tmux.wait_text("Ctrl+J");
    s.tmux.keys(&["Escape"]);
    s.tmux
        .wait_screen("the sheet closed", |sc| !sc.contains("closes this sheet"));
    quit_and_check_terminal(&s);
}

#[test]
fn ctrl_c_interrupts_puts_the_prompt_back_and_never_quits_over_a_draft() {
    let s = tmux_session(
        Script::new()
            .turn(Turn::text("too late").delay(Duration::from_secs(30)))
            .turn(Turn::text("Fixed.")),
    );
    launch(&s);
    s.tmux.submit("fix the bug in main");
    s.tmux.wait_text("esc to interrupt");
    // The slow first answer is under way (else the retry would get it).
    wait_for("the first request at the model", &s.tmux, || {
        (s.server.unused_turns() == 1).then_some(())
    });
    s.tmux.keys(&["C-c"]);
    let screen = s
        .tmux
        .wait_screen("the prompt back in the input box", |sc| {
            !sc.contains("esc to interrupt") && sc.contains("> fix the bug in main")
        });
    common::assert_lacks(&screen, "Input cleared");
    // Ctrl+C clears the draft, Ctrl+Y brings it back, Ctrl+C clears it
    // again: nothing quits over a draft.
    s.tmux.keys(&["C-c"]);
    s.tmux.wait_text("Input cleared (Ctrl+Y brings it back)");
    s.tmux.keys(&["C-y"]);
    s.tmux.wait_text("> fix the bug in main");
    s.tmux.keys(&["C-c"]);
    let cleared = s.tmux.wait_text("Input cleared");
    common::assert_lacks(&cleared, "catui-exit=0");
    s.tmux.keys(&["C-y"]);
    s.tmux.wait_text("> fix the bug in main");
    s.tmux.submit(" please");
    s.tmux.wait_history("Fixed.");
    let reqs = s.server.requests();
    assert_eq!(
        reqs.last().unwrap().last_user_text().as_deref(),
        Some("fix the bug in main please")
    );
    quit_and_check_terminal(&s);
}

#[test]
fn escape_on_a_permission_prompt_stops_the_turn_and_a_reason_carries_on() {
    let s = tmux_session(
        Script::new()
            .turn(common::bash("w1", "touch one"))
            .turn(common::bash("w2", "touch two"))
            .turn(Turn::text("Using the other way then.")),
    );
    launch(&s);
    s.tmux.submit("make file one");
    s.tmux.wait_text("Do you want to proceed?");
    s.tmux.keys(&["Escape"]);
    s.tmux.wait_text("Interrupted");
    s.tmux.wait_text("Type a message");
    assert_eq!(
        s.server.requests().len(),
        1,
        "the model was not asked again"
    );

    // "No" with a reason: the model hears it and carries on.
    s.tmux.submit("make file two");
    s.tmux.wait_text("Do you want to proceed?");
    s.tmux.keys(&["3"]);
    s.tmux.submit("use the Write tool instead");
    s.tmux.wait_history("Using the other way then.");
    let reqs = s.server.requests();
    let (result, is_error) = result_of(reqs.last().unwrap(), "w2");
    assert!(
        is_error && result.contains("use the Write tool instead"),
        "{result}"
    );
    assert!(!s.sb.project().join("one").exists() && !s.sb.project().join("two").exists());
    quit_and_check_terminal(&s);
}

/// Home and End move through a long plan in the approval dialog.
#[test]
fn home_and_end_move_through_the_plan_in_its_dialog() {
    require_tmux();
    let plan: String = std::iter::once("# Plan\n\n1. FIRST-STEP\n".to_string())
        .chain((2..=59).map(|i| format!("{i}. Step {i}\n")))
        .chain(std::iter::once("60. LAST-STEP\n".to_string()))
        .collect();
    let s = setup_sized(
        move |_, dir, _| {
            let dir = dir.to_string();
            Script::new()
                .turn(Turn::respond(move |r| {
                    common::write("p1", plan_path_in(r, &dir), plan.clone())
                }))
                .turn(common::exit_plan("x1"))
                .turn(Turn::text("Approved."))
        },
        None,
        (100, 30),
    );
    launch(&s);
    s.tmux.type_text("plan it");
    cycle_mode_to(&s.tmux, "plan");
    s.tmux.keys(&["Enter"]);
    let first = s.tmux.wait_screen("the plan dialog", |sc| {
        sc.contains("Exit plan mode?") && sc.contains("FIRST-STEP")
    });
    common::assert_lacks(&first, "LAST-STEP");
    s.tmux.keys(&["End"]);
    let end = s.tmux.wait_text("LAST-STEP");
    common::assert_lacks(&end, "FIRST-STEP");
    s.tmux.keys(&["Home"]);
    s.tmux.wait_screen("the plan's top again", |sc| {
        sc.contains("FIRST-STEP") && !sc.contains("LAST-STEP")
    });
    s.tmux.keys(&["1"]);
    s.tmux.wait_history("Approved.");
    quit_and_check_terminal(&s);
}

/// Sends raw bytes to the pane, as a terminal would for a key.
fn send_bytes(s: &Setup, bytes: &[u8]) {
    let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let mut args = vec!["send-keys", "-t", "e2e", "-H"];
    args.extend(hex.iter().map(String::as_str));
    assert!(s.tmux.run(&args).status.success(), "send-keys -H {hex:?}");
}

/// Shift+Enter in the forms terminals send it — xterm's modifyOtherKeys
/// (tmux with `extended-keys`) and the kitty protocol's — starts a new line
/// in the prompt; Alt+Enter too. Nothing is dropped or typed as text.
#[test]
fn shift_enter_in_the_modify_other_keys_form_starts_a_new_line() {
    let s = tmux_session(Script::new().turn(Turn::text("Got four lines.")));
    launch(&s);
    s.tmux.type_text("line one");
    send_bytes(&s, b"\x1b[27;2;13~");
    s.tmux.type_text("line two");
    send_bytes(&s, b"\x1b[13;2u");
    s.tmux.type_text("line three");
    send_bytes(&s, b"\x1b\r");
    s.tmux.type_text("line four");
    let screen = s.tmux.wait_text("line four");
    let rows: Vec<&str> = screen.lines().collect();
    let at = rows
        .iter()
        .position(|l| l.contains("line one"))
        .unwrap_or_else(|| panic!("{screen}"));
    for (i, text) in ["line two", "line three", "line four"].iter().enumerate() {
        assert!(
            rows[at + 1 + i].contains(text),
            "{text} on its own row:\n{screen}"
        );
    }
    assert!(
        !screen.contains("27;2;13") && !screen.contains("13;2u"),
        "{screen}"
    );
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_history("Got four lines.");
    let sent = serde_json::to_string(s.server.requests().last().unwrap().messages()).unwrap();
    common::assert_contains(&sent, r"line one\nline two\nline three\nline four");
    quit_and_check_terminal(&s);
}
