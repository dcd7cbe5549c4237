//! The terminal UI end to end: the real `catui` binary in a tmux pane,
//! driven by keystrokes and read back with `capture-pane`, against the
//! testkit mock model over HTTP, with real files in a temp project.
//!
//! The flow is the one a user follows: type a request, Shift+Tab into plan
//! mode, send; the model writes its plan and calls ExitPlanMode; the
//! approval dialog opens; "Yes, and auto-accept edits"; the model edits a
//! project file; Ctrl+C twice quits and the terminal is left in cooked mode.
//!
//! Every wait polls the screen with a generous timeout (the machine running
//! the tests may be loaded); nothing sleeps for a fixed time beyond a poll.
//! Without tmux the tests fail.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::{Path, PathBuf};

use catui_testkit::{Script, Turn};
use common::tmux::*;
use common::{plan_path_in, result_of};

/// The scripted model: writes the plan (to the path in its reminder), asks
/// for approval, then reads and edits `src/main.rs` and finishes.
fn plan_then_edit_script(plans_dir: &str, main_rs: &Path) -> Script {
    let dir = plans_dir.to_string();
    let main = main_rs.display().to_string();
    Script::new()
        .turn(Turn::respond(move |r| {
            common::write(
                "p1",
                plan_path_in(r, &dir),
                "# Greeting plan\n\n1. Change the greeting in src/main.rs\n2. Run the binary\n",
            )
        }))
        .turn(common::exit_plan("x1"))
        .turn(common::read("r1", &main))
        .turn(common::edit("e1", &main, "hello", "hello, plan mode"))
        .turn(Turn::text("Greeting changed as planned."))
}

#[test]
fn plan_mode_approval_and_edit_in_the_terminal_ui() {
    require_tmux();
    let s = setup(
        |sb, dir, main| {
            // Not about the plan contract: no goal loop after approval.
            sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
            plan_then_edit_script(dir, main)
        },
        None,
    );
    launch(&s);
    assert_eq!(mode_on_screen(&s.tmux.screen()), "default");

    s.tmux.type_text("Change the greeting");
    s.tmux.wait_text("Change the greeting");
    cycle_mode_to(&s.tmux, "plan");
    s.tmux.keys(&["Enter"]);

    // The plan arrives for approval, rendered with its path.
    let dialog = s.tmux.wait_text("Exit plan mode?");
    s.tmux.wait_text("Yes, and auto-accept edits");
    assert!(
        s.tmux.screen().contains("Greeting plan") || dialog.contains("Greeting plan"),
        "{dialog}"
    );
    assert_eq!(
        std::fs::read_to_string(&s.main_rs).unwrap(),
        "fn main() {\n    println!(\"hello\");\n}\n",
        "nothing changes before approval"
    );
    s.tmux.keys(&["1"]);

    // After approval with auto-accepted edits the edit runs unasked.
    wait_for("src/main.rs to change", &s.tmux, || {
        std::fs::read_to_string(&s.main_rs)
            .ok()
            .filter(|t| t.contains("hello, plan mode"))
    });
    let screen = s.tmux.wait_text("Greeting changed as planned.");
    assert_eq!(mode_on_screen(&screen), "acceptEdits", "{screen}");

    let reqs = s.server.requests();
    assert_eq!(reqs.len(), 5, "every scripted turn was used");
    let first = &reqs[0];
    assert!(
        first.body["messages"][0]["content"]
            .to_string()
            .contains("Change the greeting")
    );
    let approved = result_of(&reqs[2], "x1").0;
    common::assert_contains(&approved, "User has approved your plan");
    common::assert_contains(&approved, "## Approved Plan:");
    assert!(!result_of(&reqs[4], "e1").0.is_empty());
    let plan_path = plan_path_in(first, &s.plans_dir);
    assert!(
        std::fs::read_to_string(&plan_path)
            .unwrap()
            .starts_with("# Greeting plan"),
    );

    quit_and_check_terminal(&s);
}

/// Ctrl+G in the approval dialog opens the plan in `$VISUAL`; the edited
/// plan is what gets approved.
#[test]
fn ctrl_g_edits_the_plan_in_the_approval_dialog() {
    require_tmux();
    let editor_dir = tempfile::tempdir().unwrap();
    let editor = test_editor(editor_dir.path());
    let s = setup(
        |_, dir, main| plan_then_edit_script(dir, main),
        Some(&editor.display().to_string()),
    );
    launch(&s);
    s.tmux.type_text("Change the greeting");
    s.tmux.wait_text("Change the greeting");
    cycle_mode_to(&s.tmux, "plan");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("Exit plan mode?");
    s.tmux.wait_text("Yes, and auto-accept edits");
    s.tmux.keys(&["C-g"]);
    s.tmux.wait_text("Step added in the editor");
    s.tmux.keys(&["1"]);
    s.tmux.wait_text("Greeting changed as planned.");

    let reqs = s.server.requests();
    let approved = result_of(&reqs[2], "x1").0;
    common::assert_contains(&approved, "## Approved Plan (edited by user):");
    common::assert_contains(&approved, "3. Step added in the editor");
    let plan_path = plan_path_in(&reqs[0], &s.plans_dir);
    assert!(
        std::fs::read_to_string(&plan_path)
            .unwrap()
            .contains("3. Step added in the editor"),
        "the edited plan is written back to the plan file"
    );
    quit_and_check_terminal(&s);
}

/// Ctrl+G in the input box while planning opens the plan file itself once
/// it exists; before that it edits the input.
#[test]
fn ctrl_g_in_plan_mode_edits_the_input_then_the_plan_file() {
    require_tmux();
    let editor_dir = tempfile::tempdir().unwrap();
    let editor = test_editor(editor_dir.path());
    let s = setup(
        |_, dir, _| {
            let dir = dir.to_string();
            Script::new()
                .turn(Turn::respond(move |r| {
                    common::write("p1", plan_path_in(r, &dir), "# Plan\n\n1. First\n")
                }))
                .turn(common::exit_plan("x1"))
                .turn(Turn::text("Still planning."))
        },
        Some(&editor.display().to_string()),
    );
    launch(&s);
    s.tmux.type_text("Plan it");
    s.tmux.wait_text("Plan it");
    cycle_mode_to(&s.tmux, "plan");

    // No plan written yet: Ctrl+G edits the input.
    s.tmux.keys(&["C-g"]);
    s.tmux.wait_text("Step added in the editor");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("Exit plan mode?");
    s.tmux.wait_text("Yes, and auto-accept edits");
    let first = s.server.requests()[0].clone();
    assert!(
        first
            .last_user_text()
            .is_some_and(|t| t.starts_with("Plan it") && t.contains("Step added in the editor")),
        "the edited input was sent: {}",
        first.body["messages"]
    );
    let plan_path = plan_path_in(&first, &s.plans_dir);

    // Esc stops the turn; the session stays in plan mode.
    s.tmux.keys(&["Escape"]);
    let screen = s
        .tmux
        .wait_text("Interrupted · tell catui what to do instead");
    assert_eq!(mode_on_screen(&screen), "plan", "{screen}");

    // Now the plan file exists: Ctrl+G opens it.
    s.tmux.keys(&["C-g"]);
    s.tmux.wait_text("Opened plan in editor");
    assert_eq!(
        std::fs::read_to_string(&plan_path).unwrap(),
        "# Plan\n\n1. First\n3. Step added in the editor\n"
    );
    quit_and_check_terminal(&s);
}

/// The question dialog answers AskUserQuestion in the form the tool reads:
/// `answers` = {question: answer}, several choices comma-joined.
#[test]
fn ask_user_question_answers_reach_the_model() {
    require_tmux();
    let questions = super::tui_question::questions();
    let s = setup(
        move |_, _, _| {
            Script::new()
                .turn(Turn::tool_use("q1", "AskUserQuestion", questions))
                .turn(Turn::text("Noted your choices."))
        },
        None,
    );
    launch(&s);
    s.tmux.type_text("Add a cache");
    s.tmux.wait_text("Add a cache");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("Where should the cache live?");
    // Disk for the first question (single choice moves on), Linux and
    // Windows for the second, then Tab to Submit and Enter.
    s.tmux.keys(&["2"]);
    s.tmux.wait_text("Which platforms matter?");
    s.tmux.keys(&["1", "3", "Tab"]);
    super::tui_question::submit_and_check_answers(
        &s,
        r#""Where should the cache live?" = "Disk", "Which platforms matter?" = "Linux, Windows""#,
    );
}

/// A stand-in for `$VISUAL`: appends a line to the file it is given.
fn test_editor(dir: &Path) -> PathBuf {
    let editor = dir.join("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nprintf '3. Step added in the editor\\n' >> \"$1\"\n",
    )
    .unwrap();
    make_executable(&editor);
    editor
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let mut perms = std::fs::metadata(path).unwrap().permissions();
    perms.set_mode(0o755);
    std::fs::set_permissions(path, perms).unwrap();
}
