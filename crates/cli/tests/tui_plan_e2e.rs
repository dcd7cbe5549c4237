//! Plan mode's second pass in the terminal UI: the real `catui` binary in
//! a tmux pane against the testkit mock model — the EnterPlanMode consent
//! dialog (declined, then accepted) and `/clear` answered by the engine.
//! The tests skip, with a notice, only when tmux is not installed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use catui_testkit::{Block, Script, Turn};
use common::result_of;
use common::tmux::*;
use serde_json::json;

#[test]
fn enter_plan_mode_asks_and_can_be_declined_in_the_terminal_ui() {
    if !tmux_available() {
        eprintln!("SKIPPED tui_plan_e2e: tmux is not installed (apt-get install tmux)");
        return;
    }
    let s = setup(
        |_, _, _| {
            Script::new()
                .turn(Turn::blocks(vec![
                    Block::text("This is a wide change; I want to plan it first."),
                    Block::tool_use("e1", "EnterPlanMode", json!({})),
                ]))
                .turn(Turn::text("Understood, no planning."))
                .turn(Turn::tool_use("e2", "EnterPlanMode", json!({})))
                .turn(Turn::text("Now planning."))
        },
        None,
    );
    launch(&s);
    s.tmux.type_text("Rework the storage layer");
    s.tmux.wait_text("Rework the storage layer");
    s.tmux.keys(&["Enter"]);

    // Asked, with the model's reason; "No" with a note keeps the mode.
    s.tmux.wait_text("Enter plan mode?");
    s.tmux.wait_text("I want to plan it first.");
    s.tmux.keys(&["2"]);
    s.tmux.type_text("just do it");
    s.tmux.keys(&["Enter"]);
    let screen = s.tmux.wait_text("Understood, no planning.");
    assert_eq!(mode_on_screen(&screen), "default", "{screen}");

    // Asked again; "Yes" enters plan mode.
    s.tmux.type_text("ok, plan it then");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("Enter plan mode?");
    s.tmux.keys(&["1"]);
    let screen = s.tmux.wait_text("Now planning.");
    assert_eq!(mode_on_screen(&screen), "plan", "{screen}");

    let reqs = s.server.requests();
    let (declined, is_error) = result_of(&reqs[1], "e1");
    assert!(is_error && declined.contains("just do it"), "{declined}");
    let (entered, is_error) = result_of(&reqs[3], "e2");
    assert!(
        !is_error && entered.starts_with("Entered plan mode."),
        "{entered}"
    );
    quit_and_check_terminal(&s);
}

#[test]
fn clear_is_answered_by_the_engine_in_the_terminal_ui() {
    if !tmux_available() {
        eprintln!("SKIPPED tui_plan_e2e: tmux is not installed (apt-get install tmux)");
        return;
    }
    let s = setup(
        |_, _, _| {
            Script::new()
                .turn(Turn::text("The first answer mentions PINEAPPLE."))
                .turn(Turn::text("A fresh start."))
        },
        None,
    );
    launch(&s);
    s.tmux.type_text("say something");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("PINEAPPLE");
    s.tmux.type_text("/clear");
    s.tmux.keys(&["Enter"]);
    let screen = s.tmux.wait_text("Conversation cleared. Starting fresh.");
    assert!(!screen.contains("Unknown command"), "{screen}");
    s.tmux.type_text("hello again");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("A fresh start.");
    let reqs = s.server.requests();
    let sent = serde_json::to_string(reqs[1].messages()).unwrap();
    assert!(!sent.contains("PINEAPPLE"), "{sent}");
    quit_and_check_terminal(&s);
}

/// The fourth approval choice in the terminal UI: the work continues in a
/// fresh conversation holding the plan, with edits accepted; as todos
/// complete, the plan's progress is shown.
#[test]
fn approve_and_start_clean_then_progress_in_the_terminal_ui() {
    if !tmux_available() {
        eprintln!("SKIPPED tui_plan_e2e: tmux is not installed (apt-get install tmux)");
        return;
    }
    let todos = |done: usize| {
        let list: Vec<serde_json::Value> = ["Change the greeting", "Run it"]
            .iter()
            .enumerate()
            .map(|(i, s)| {
                json!({"content": s, "activeForm": format!("Doing: {s}"),
                    "status": if i < done { "completed" } else { "in_progress" }})
            })
            .collect();
        json!({ "todos": list })
    };
    let s = setup(
        |_, dir, _| {
            let dir = dir.to_string();
            Script::new()
                .turn(Turn::respond(move |r| {
                    Turn::tool_use(
                        "p1",
                        "Write",
                        json!({"file_path": common::plan_path_in(r, &dir),
                               "content": "# Greeting plan\n\n1. Change the greeting\n2. Run it\n"}),
                    )
                }))
                .turn(Turn::tool_use("x1", "ExitPlanMode", json!({})))
                .turn(Turn::tool_use("t1", "TodoWrite", todos(1)))
                .turn(Turn::text("Working from a clean slate."))
        },
        None,
    );
    launch(&s);
    s.tmux.type_text("Plan the greeting change, MANGO-TOPIC");
    cycle_mode_to(&s.tmux, "plan");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("Exit plan mode?");
    s.tmux
        .wait_text("Yes, clear the conversation and auto-accept edits");
    s.tmux.keys(&["4"]);
    let screen = s.tmux.wait_text("Working from a clean slate.");
    assert_eq!(mode_on_screen(&screen), "acceptEdits", "{screen}");
    s.tmux.wait_history("Plan progress: 1/2 steps");

    let reqs = s.server.requests();
    assert_eq!(reqs.len(), 4, "every scripted turn was used");
    let fresh = serde_json::to_string(reqs[2].messages()).unwrap();
    assert!(!fresh.contains("MANGO-TOPIC"), "{fresh}");
    assert!(fresh.contains("1. Change the greeting"), "{fresh}");
    quit_and_check_terminal(&s);
}
