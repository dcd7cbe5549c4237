//! Plan mode in the terminal UI: the real `catui` binary in a tmux pane
//! against the testkit mock model — the EnterPlanMode consent dialog
//! (declined, then accepted), `/clear` answered by the engine, approval and
//! its review comments, parking a plan from the approval dialog, approving
//! part of a plan, and the model that plans and the one that implements.
//! Without tmux the tests fail.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Block, Script, Turn};
use common::result_of;
use common::tmux::*;
use serde_json::json;

#[test]
fn enter_plan_mode_asks_and_can_be_declined_in_the_terminal_ui() {
    let s = tmux_session(
        Script::new()
            .turn(Turn::blocks(vec![
                Block::text("This is a wide change; I want to plan it first."),
                Block::tool_use("e1", "EnterPlanMode", json!({})),
            ]))
            .turn(Turn::text("Understood, no planning."))
            .turn(Turn::tool_use("e2", "EnterPlanMode", json!({})))
            .turn(Turn::text("Now planning.")),
    );
    launch(&s);
    s.tmux.type_text("Rework the storage layer");
    s.tmux.wait_text("Rework the storage layer");
    s.tmux.keys(&["Enter"]);

    // Asked, with the model's reason; "No" with a note keeps the mode.
    s.tmux.wait_text("Enter plan mode?");
    s.tmux.wait_text("I want to plan it first.");
    s.tmux.keys(&["2"]);
    s.tmux.submit("just do it");
    let screen = s.tmux.wait_text("Understood, no planning.");
    assert_eq!(mode_on_screen(&screen), "default", "{screen}");

    // Asked again; "Yes" enters plan mode.
    s.tmux.submit("ok, plan it then");
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
    let s = tmux_session(
        Script::new()
            .turn(Turn::text("The first answer mentions PINEAPPLE."))
            .turn(Turn::text("A fresh start.")),
    );
    launch(&s);
    s.tmux.submit("say something");
    s.tmux.wait_text("PINEAPPLE");
    s.tmux.submit("/clear");
    let screen = s.tmux.wait_text("Conversation cleared. Starting fresh.");
    common::assert_lacks(&screen, "Unknown command");
    s.tmux.submit("hello again");
    s.tmux.wait_text("A fresh start.");
    let reqs = s.server.requests();
    let sent = serde_json::to_string(reqs[1].messages()).unwrap();
    common::assert_lacks(&sent, "PINEAPPLE");
    quit_and_check_terminal(&s);
}

/// The fourth approval choice in the terminal UI: the work continues in a
/// fresh conversation holding the plan, with edits accepted; as todos
/// complete, the plan's progress is shown.
#[test]
fn approve_and_start_clean_then_progress_in_the_terminal_ui() {
    require_tmux();
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
        |sb, dir, _| {
            // Not about the plan contract: no goal loop after approval.
            sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
            let dir = dir.to_string();
            Script::new()
                .turn(Turn::respond(move |r| {
                    common::write(
                        "p1",
                        common::plan_path_in(r, &dir),
                        "# Greeting plan\n\n1. Change the greeting\n2. Run it\n",
                    )
                }))
                .turn(common::exit_plan("x1"))
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
    s.tmux.wait_history("Working from a clean slate.");
    // The answer's text shows while its turn still streams; the mode is
    // read, the requests counted and Ctrl+C pressed only once it ended.
    let screen = s.tmux.wait_screen("the fresh turn over", |sc| {
        !sc.contains("esc to interrupt") && mode_on_screen(sc) != "unknown"
    });
    assert_eq!(mode_on_screen(&screen), "acceptEdits", "{screen}");
    s.tmux.wait_history("Plan progress: 1/2 steps");

    let reqs = s.server.requests();
    assert_eq!(reqs.len(), 4, "every scripted turn was used");
    let fresh = serde_json::to_string(reqs[2].messages()).unwrap();
    common::assert_lacks(&fresh, "MANGO-TOPIC");
    common::assert_contains(&fresh, "1. Change the greeting");
    quit_and_check_terminal(&s);
}

/// `/plan open` in the terminal UI runs the editor on the UI's own
/// terminal, outside the engine; with snapshots on, what the editor wrote
/// is still snapshotted, so a lost plan file comes back as edited, not as
/// the model's older Write.
#[test]
fn plan_open_in_the_terminal_ui_is_snapshotted() {
    require_tmux();
    use std::os::unix::fs::PermissionsExt;
    let tools = tempfile::tempdir().unwrap();
    let editor = tools.path().join("rewrite.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nprintf '# v2, from the editor in the TUI\\n' > \"$1\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    let s = setup(
        |_, dir, _| {
            let dir = dir.to_string();
            Script::new()
                .turn(Turn::respond(move |r| {
                    common::write("p1", common::plan_path_in(r, &dir), "# v1\n")
                }))
                .turn(Turn::text("Plan v1 written."))
        },
        Some(editor.to_str().unwrap()),
    );
    launch_with(&s, "CATUI_REMOTE=1 ");
    cycle_mode_to(&s.tmux, "plan");
    s.tmux.submit("write the plan");
    s.tmux.wait_text("Plan v1 written.");
    s.tmux.submit("/plan open");
    s.tmux.wait_text("Opened plan in editor");
    quit_and_check_terminal(&s);

    let transcripts = s.sb.transcripts();
    assert_eq!(transcripts.len(), 1, "{transcripts:?}");
    let session_id = transcripts[0]
        .file_stem()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let plan_file = std::fs::read_dir(&s.plans_dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "md"))
        .expect("a plan file");
    assert_eq!(
        std::fs::read_to_string(&plan_file).unwrap(),
        "# v2, from the editor in the TUI\n"
    );
    std::fs::remove_file(&plan_file).unwrap();
    let mut cmd = s.sb.catui(&s.server);
    cmd.env("CATUI_REMOTE", "1");
    let mut resumed = common::StreamSession::start(cmd, &["--resume", &session_id]);
    resumed.wait_for("init", |v| v["subtype"] == "init");
    resumed.finish();
    assert_eq!(
        std::fs::read_to_string(&plan_file).unwrap(),
        "# v2, from the editor in the TUI\n",
        "the snapshot taken after the editor brought the edited plan back"
    );
}

/// The approval dialog of the terminal UI, end to end: comments on lines
/// reach the model under the quoted lines; a plan rewritten while the
/// dialog is open is presented again by catui on its changes; once
/// approved, the plan's steps fill the todo panel before the model writes
/// any todo itself.
#[test]
fn review_comments_changed_plan_and_seeded_todos_in_the_terminal_ui() {
    require_tmux();
    let s = setup(
        |_, dir, _| {
            let dir = dir.to_string();
            Script::new()
                .turn(Turn::respond(move |r| {
                    common::write(
                        "p1",
                        common::plan_path_in(r, &dir),
                        "# Plan\n\n1. Parse the flag\n2. Print JSON\n",
                    )
                }))
                .turn(common::exit_plan("x1"))
                .turn(common::exit_plan("x2"))
                // Slow enough to see the todo list while the turn runs.
                .turn(Turn::text("Working from the plan.").delay(std::time::Duration::from_secs(2)))
        },
        None,
    );
    launch(&s);
    cycle_mode_to(&s.tmux, "plan");
    s.tmux.submit("plan the --json flag");
    s.tmux.wait_text("Would you like to proceed?");

    // `c`: review mode; the third line gets a comment; Esc leaves review
    // mode; "No, keep planning" with a note sends both.
    s.tmux.keys(&["c"]);
    s.tmux.wait_text("pick a line");
    s.tmux.keys(&["Down", "Down", "Enter"]);
    s.tmux.wait_text("Enter saves the comment");
    s.tmux.type_text("Also accept -j.");
    s.tmux.wait_text("Also accept -j.");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_screen("the comment saved", |sc| {
        !sc.contains("Enter saves the comment") && sc.contains("Also accept -j.")
    });
    s.tmux.keys(&["Escape"]);
    s.tmux.wait_text("1 comment · sent with");
    s.tmux.keys(&["3"]);
    s.tmux.wait_text("What should change?");
    s.tmux.type_text("two notes");
    s.tmux.wait_text("two notes");
    s.tmux.keys(&["Enter"]);

    // Presented again; the file changes while the dialog is open.
    wait_for("the second presentation", &s.tmux, || {
        (s.server.requests().len() == 3 && s.tmux.screen().contains("Would you like to proceed?"))
            .then_some(())
    });
    let (feedback, is_error) = result_of(&s.server.requests()[2], "x1");
    assert!(is_error, "{feedback}");
    assert!(
        feedback.contains(
            "two notes\n\nComments on lines of the plan:\n\n> line 3: 1. Parse the flag\nAlso accept -j."
        ),
        "{feedback}"
    );
    let plan_file = std::fs::read_dir(&s.plans_dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "md"))
        .expect("a plan file");
    std::fs::write(
        &plan_file,
        "# Plan\n\n1. Parse the flag\n2. Print JSON\n3. Add tests\n",
    )
    .unwrap();
    s.tmux.keys(&["1"]);
    let screen = s
        .tmux
        .wait_text("The plan file changed while you were reviewing it");
    assert!(
        screen.contains("Changes since the last revision") && screen.contains("3. Add tests"),
        "{screen}"
    );
    assert_eq!(
        s.server.requests().len(),
        3,
        "the model was not asked again"
    );
    s.tmux.keys(&["1"]);
    // The seeded todo list shows while the turn runs, and goes with it.
    let screen = s.tmux.wait_text("☐ Add tests");
    for step in ["☐ Parse the flag", "☐ Print JSON", "☐ Add tests"] {
        assert!(screen.contains(step), "{step} missing:\n{screen}");
    }
    let screen = s.tmux.wait_text("Working from the plan.");
    assert_eq!(mode_on_screen(&screen), "acceptEdits", "{screen}");
    let (approved, is_error) = result_of(&s.server.requests()[3], "x2");
    assert!(!is_error && approved.contains("3. Add tests"), "{approved}");
    quit_and_check_terminal(&s);
}

/// The terminal goes away (the window is closed) while the approval dialog
/// waits: catui exits instead of staying behind (it used to spin forever
/// in its input reader, on a terminal that reads EOF).
#[test]
fn closing_the_terminal_with_a_dialog_open_ends_catui() {
    require_tmux();
    let s = setup(
        |_, dir, _| {
            let dir = dir.to_string();
            Script::new()
                .turn(Turn::respond(move |r| {
                    common::write("p1", common::plan_path_in(r, &dir), "# Plan\n\n1. A\n")
                }))
                .turn(common::exit_plan("x1"))
        },
        None,
    );
    launch(&s);
    cycle_mode_to(&s.tmux, "plan");
    s.tmux.submit("plan it");
    s.tmux.wait_text("Would you like to proceed?");
    let shell = s.tmux.display("#{pane_pid}");
    let out = std::process::Command::new("pgrep")
        .args(["-P", shell.trim()])
        .output()
        .unwrap();
    let pid = common::stdout(&out).trim().to_string();
    assert!(!pid.is_empty(), "catui's pid under the shell {shell}");
    let proc_dir = std::path::PathBuf::from(format!("/proc/{pid}"));
    assert!(proc_dir.exists());
    assert!(s.tmux.run(&["kill-server"]).status.success());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    // Gone, or a zombie nobody reaps (its parent shell died with tmux).
    let alive = || {
        std::fs::read_to_string(proc_dir.join("stat")).is_ok_and(|stat| {
            stat.rsplit(')')
                .next()
                .is_some_and(|r| !r.trim_start().starts_with('Z'))
        })
    };
    while alive() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let still = alive();
    if still {
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid])
            .status();
    }
    assert!(
        !still,
        "catui (pid {pid}) was still running 15 s after its terminal went away"
    );
}

/// "Not now" in the dialog: plan mode ends in the mode from before it,
/// nothing is approved, the plan stays, the model is told not to
/// implement, and the input ends there.
#[test]
fn parking_a_plan_in_the_terminal_ui() {
    require_tmux();
    let s = setup(
        |_, dir, _| common::writes_and_presents(dir, "# Parser plan\n\n1. Rewrite the parser\n"),
        None,
    );
    launch(&s);
    cycle_mode_to(&s.tmux, "acceptEdits");
    cycle_mode_to(&s.tmux, "plan");
    s.tmux.submit("plan the parser rewrite");
    s.tmux
        .wait_text("Not now: park the plan (nothing is approved)");
    s.tmux.keys(&["6"]);
    let screen = s.tmux.wait_text("Plan parked, not approved");
    assert_eq!(mode_on_screen(&screen), "acceptEdits", "{screen}");
    let reqs = s.server.requests();
    assert_eq!(reqs.len(), 2, "the input ended at the park");
    quit_and_check_terminal(&s);

    let plan_file = std::fs::read_dir(&s.plans_dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "md"))
        .expect("the plan file is kept");
    assert_eq!(
        std::fs::read_to_string(&plan_file).unwrap(),
        "# Parser plan\n\n1. Rewrite the parser\n"
    );
    let transcript = std::fs::read_to_string(&s.sb.transcripts()[0]).unwrap();
    let tool_result = transcript
        .lines()
        .find(|l| l.contains("\"tool_use_id\":\"x1\""))
        .expect("the result of ExitPlanMode is recorded");
    common::assert_contains(tool_result, "Nothing was approved");
    common::assert_contains(&transcript, "\"plan_parked\"");
    common::assert_lacks(&transcript, "\"plan_approved\"");
}

/// `s` leaves steps out and `m` picks the model that implements: the
/// planning model (`planModel`) planned, the picked one implements, the
/// skipped step is marked and left out of the todo panel.
#[test]
fn skipping_a_step_and_picking_the_model_in_the_terminal_ui() {
    require_tmux();
    let s = setup(
        |sb, dir, _| {
            std::fs::write(
                sb.config().join("settings.json"),
                r#"{"planModel": "planner-model", "planGoal": false, "planDrift": "note"}"#,
            )
            .unwrap();
            common::writes_and_presents(
                dir,
                "# Plan\n\n1. Parse the flag\n2. Print JSON\n3. Add tests\n",
            )
            // Slow enough to see the todo list while the turn runs (it
            // goes with the turn).
            .turn(
                Turn::text("Implementing without step 2.").delay(std::time::Duration::from_secs(2)),
            )
        },
        None,
    );
    launch(&s);
    cycle_mode_to(&s.tmux, "plan");
    s.tmux.submit("plan the --json flag");
    s.tmux.wait_text("Implements: test-model");
    s.tmux.keys(&["s"]);
    s.tmux.wait_text("Steps to carry out");
    s.tmux.keys(&["Down", "Space"]);
    s.tmux.wait_text("Skipping step 2 when approved");
    s.tmux.keys(&["Escape"]);
    s.tmux.wait_screen("the step list closed", |sc| {
        !sc.contains("Steps to carry out")
    });
    s.tmux.keys(&["m"]);
    s.tmux.wait_text("Implementation model:");
    s.tmux.keys(&["C-u"]);
    s.tmux.type_text("builder-model");
    s.tmux.wait_text("builder-model");
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("Implements: builder-model");
    s.tmux.keys(&["1"]);
    let screen = s.tmux.wait_text("☐ Add tests");
    common::assert_contains(&screen, "☐ Parse the flag");
    common::assert_lacks(&screen, "☐ Print JSON");
    let screen = s.tmux.wait_text("Implementing without step 2.");
    assert_eq!(mode_on_screen(&screen), "acceptEdits", "{screen}");

    let reqs = s.server.requests();
    let models: Vec<&str> = reqs.iter().map(|r| r.model()).collect();
    assert_eq!(models, ["planner-model", "planner-model", "builder-model"]);
    let (approved, is_error) = result_of(&reqs[2], "x1");
    assert!(!is_error, "{approved}");
    common::assert_contains(&approved, "2. ~~Print JSON~~ (skipped by the user)");
    quit_and_check_terminal(&s);
}
