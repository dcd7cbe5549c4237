//! `catui demo` at a terminal runs in the real full-screen interface: the
//! scripted model plays, the user answers the real plan approval dialog
//! (here: reject with feedback, then approve the revised plan with
//! auto-accepted edits), and the demo reports what changed when the user
//! leaves. Driven in tmux like the other interface tests.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::tmux::*;

#[test]
fn the_interactive_demo_runs_in_the_terminal_ui_and_follows_the_users_choices() {
    require_tmux();
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let env = vec![
        (
            "PATH",
            std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into()),
        ),
        ("HOME", home.display().to_string()),
        ("TERM", "xterm-256color".to_string()),
        ("LANG", "C.UTF-8".to_string()),
        ("PS1", SHELL_PROMPT.to_string()),
        // A key in the environment must be neither needed nor used.
        ("ANTHROPIC_API_KEY", "must-not-be-sent".to_string()),
    ];
    let tmux = Tmux::start(dir.path(), dir.path(), &env);
    tmux.wait_text(SHELL_PROMPT.trim_end());
    let demo = dir.path().join("demo");
    let bin = assert_cmd::cargo::cargo_bin("catui");
    tmux.type_text(&format!(
        "'{}' demo --dir '{}'; echo \"catui-exit=$?\"",
        bin.display(),
        demo.display()
    ));
    tmux.keys(&["Enter"]);

    // The interface, in plan mode, with the scripted request sent.
    tmux.wait_text("plan mode on");
    let todo = demo.join("project/todo.py");
    let original = std::fs::read_to_string(&todo).unwrap();

    // The first plan arrives in the real approval dialog; nothing changed.
    let screen = tmux.wait_text("Exit plan mode?");
    assert_eq!(mode_on_screen(&screen), "plan", "{screen}");
    assert_eq!(std::fs::read_to_string(&todo).unwrap(), original);

    // Keep planning, with feedback typed into the dialog.
    tmux.keys(&["3"]);
    tmux.wait_text("What should change?");
    tmux.submit("Also cover the new flag with a unit test.");

    // The revised plan (it now has the test) comes back; approve it with
    // auto-accepted edits.
    tmux.wait_screen("the revised plan in the dialog", |s| {
        s.contains("Exit plan mode?") && s.contains("test_list_json")
    });
    tmux.keys(&["1"]);
    let test_file = demo.join("project/tests/test_list_json.py");
    wait_for("the new test file", &tmux, || {
        test_file.exists().then_some(())
    });
    let screen = tmux.wait_text("Done.");
    assert_eq!(mode_on_screen(&screen), "acceptEdits", "{screen}");
    assert!(
        std::fs::read_to_string(&todo).unwrap().contains("--json"),
        "todo.py was edited"
    );

    // Leaving the interface prints what changed.
    tmux.keys(&["C-c", "C-c"]);
    let screen = tmux.wait_history("catui-exit=0");
    assert!(
        screen.contains("created   tests/test_list_json.py"),
        "{screen}"
    );
    assert!(screen.contains("modified  todo.py"), "{screen}");
    assert!(
        !home.join(".catui").exists(),
        "the user's home is untouched"
    );
}
