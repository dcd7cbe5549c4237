//! The terminal UI's daily details, end to end: the real `catui` binary in
//! a tmux pane against the testkit mock model. The todo panel after a long
//! plan, the `?` sheet at 80x24, Ctrl+C as an interrupt, Esc on a
//! permission prompt, dialogs that say things once, the commands `/help`
//! lists (`/mcp`, `/model`, `/resume`), Home/End in the plan dialog and
//! Shift+Enter as modifyOtherKeys and kitty send it.
//!
//! Without tmux the tests fail.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::Duration;

use catui_testkit::{Script, Turn};
use common::tmux::*;
use common::{plan_path_in, result_of};
use serde_json::json;

/// Rows of the todo panel on `screen` (☐ ☒ ◼ and the "+N more" line).
fn todo_panel_rows(screen: &str) -> usize {
    screen
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            t.starts_with(['☐', '☒', '◼']) || (t.starts_with("… +") && t.contains(" more ("))
        })
        .count()
}

#[test]
fn the_todo_panel_is_short_counts_the_rest_and_stays_while_todos_are_open() {
    require_tmux();
    let todos: Vec<serde_json::Value> = (1..=30)
        .map(|i| {
            json!({"content": format!("Step {i}: edit `src/mod{i}.rs`"),
                   "activeForm": format!("Editing `src/mod{i}.rs`"),
                   "status": if i < 3 { "completed" } else if i == 3 { "in_progress" } else { "pending" }})
        })
        .collect();
    let s = setup_sized(
        move |_, _, _| {
            Script::new()
                .turn(Turn::tool_use("t1", "TodoWrite", json!({ "todos": todos })))
                .turn(Turn::text("Working through the steps.").delay(Duration::from_secs(2)))
        },
        None,
        (80, 24),
    );
    launch(&s);
    s.tmux.submit("do the 30 steps");
    // A quarter of 24 rows: five steps and the count of the rest.
    let screen = s.tmux.wait_text("+25 more");
    assert!(screen.contains("(2/30 done)"), "{screen}");
    assert_eq!(todo_panel_rows(&screen), 6, "{screen}");
    let panel: Vec<&str> = screen
        .lines()
        .filter(|l| l.trim_start().starts_with(['☐', '☒', '◼']))
        .collect();
    assert!(
        panel.iter().any(|l| l.contains("◼ Editing src/mod3.rs")),
        "{screen}"
    );
    assert!(
        panel.iter().all(|l| !l.contains('`')),
        "no raw backticks:\n{screen}"
    );
    // The turn ends with todos still open: the panel stays.
    let screen = s.tmux.wait_text("Working through the steps.");
    assert_eq!(todo_panel_rows(&screen), 6, "{screen}");
    // The transcript's checklist draws code as the panel does.
    let all = s.tmux.history();
    assert!(all.contains("edit src/mod1.rs"), "{all}");
    assert!(
        !all.contains('`'),
        "no raw backticks in the transcript:\n{all}"
    );
    // Ctrl+T hides it between turns, and brings it back.
    s.tmux.keys(&["C-t"]);
    s.tmux
        .wait_screen("the panel hidden", |sc| todo_panel_rows(sc) == 0);
    s.tmux.keys(&["C-t"]);
    let screen = s
        .tmux
        .wait_screen("the panel back", |sc| todo_panel_rows(sc) == 6);
    assert!(screen.contains("◼ Editing src/mod3.rs"), "{screen}");
    s.tmux.keys(&["?"]);
    s.tmux.wait_text("Ctrl+T");
    s.tmux.keys(&["Escape"]);
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
    // End reaches the sheet's last row (the question dialog's keys come
    // after the commands).
    s.tmux.keys(&["End"]);
    let bottom = s.tmux.wait_text("on Submit: send the answers");
    assert!(bottom.contains("/rewind"), "{bottom}");
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
    assert!(!screen.contains("Input cleared"), "{screen}");
    // Ctrl+C clears the draft, Ctrl+Y brings it back, Ctrl+C clears it
    // again: nothing quits over a draft.
    s.tmux.keys(&["C-c"]);
    s.tmux.wait_text("Input cleared (Ctrl+Y brings it back)");
    s.tmux.keys(&["C-y"]);
    s.tmux.wait_text("> fix the bug in main");
    s.tmux.keys(&["C-c"]);
    let cleared = s.tmux.wait_text("Input cleared");
    assert!(!cleared.contains("catui-exit=0"), "{cleared}");
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
    assert!(!header.contains('…'), "{header}");
    quit_and_check_terminal(&s);
}

#[test]
fn help_lists_mcp_model_and_resume_and_model_switches() {
    let s = tmux_session(
        Script::new()
            .turn(Turn::text("First answer."))
            .turn(Turn::text("Answered by the other model.")),
    );
    launch(&s);
    s.tmux.submit("/help");
    let all = s.tmux.wait_history("/compact");
    assert!(all.contains("> /help"), "/help is echoed:\n{all}");
    for command in ["/mcp ", "/model ", "/resume "] {
        assert!(all.contains(command), "{command} missing:\n{all}");
    }
    s.tmux.type_text("/mo");
    let palette = s.tmux.wait_text("/model");
    assert!(palette.contains("/mode"), "{palette}");
    s.tmux.keys(&["C-u"]);
    s.tmux.submit("/model other-model");
    s.tmux.wait_text("Model set to other-model");
    s.tmux.wait_screen("the status line naming it", |sc| {
        status_line(sc).contains("other-model")
    });
    s.tmux.submit("hello");
    s.tmux.wait_history("First answer.");
    let reqs = s.server.requests();
    assert_eq!(reqs.last().unwrap().body["model"], "other-model");
    quit_and_check_terminal(&s);
}

#[test]
fn resume_in_a_session_switches_to_the_chosen_one() {
    let s = tmux_session(
        Script::new()
            .turn(Turn::text("Answer of the FIRST-SESSION."))
            .turn(Turn::text("Answer of the second session.")),
    );
    launch(&s);
    s.tmux.submit("first session question");
    s.tmux.wait_history("FIRST-SESSION");
    quit_and_check_terminal(&s);
    launch(&s);
    s.tmux.submit("second session question");
    s.tmux.wait_history("Answer of the second session.");
    s.tmux.submit("/resume");
    wait_for("the session picker", &s.tmux, || {
        (s.tmux.display("#{alternate_on}") == "1"
            && s.tmux.screen().contains("first session question"))
        .then_some(())
    });
    assert!(!s.tmux.screen().contains("second session question"));
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("Resumed this session");
    let all = s.tmux.history();
    let resumed = all.rfind("Resumed this session").unwrap();
    assert!(
        all[..resumed].rfind("> first session question").is_some(),
        "{all}"
    );
    assert!(all[..resumed].contains("FIRST-SESSION"), "{all}");
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
    assert!(!first.contains("LAST-STEP"), "{first}");
    s.tmux.keys(&["End"]);
    let end = s.tmux.wait_text("LAST-STEP");
    assert!(!end.contains("FIRST-STEP"), "{end}");
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
    assert!(
        sent.contains(r"line one\nline two\nline three\nline four"),
        "{sent}"
    );
    quit_and_check_terminal(&s);
}
