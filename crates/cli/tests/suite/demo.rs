//! `catui demo --print` end to end: the real binary runs the offline demo
//! and the narration and the sample project show what the script did.
//!
//! `catui demo` at a terminal runs in the real full-screen interface: the
//! scripted model plays, the user answers the real plan approval dialog
//! (here: reject with feedback, then approve the revised plan with
//! auto-accepted edits), and the demo reports what changed when the user
//! leaves. Driven in tmux like the other interface tests.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use assert_cmd::Command;

use crate::common;
use common::tmux::*;

fn run_demo(dir: &std::path::Path) -> String {
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let out = Command::cargo_bin("catui")
        .unwrap()
        .args(["demo", "--print", "--dir"])
        .arg(dir.join("demo"))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", &home)
        // A real key in the environment must not be used or needed.
        .env("ANTHROPIC_API_KEY", "must-not-be-sent")
        .env("CATUI_MODEL", "must-not-be-used")
        .output()
        .unwrap();
    let stdout = common::stdout(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{stdout}\nstderr:\n{}",
        common::stderr(&out)
    );
    // Nothing was written to the user's catui home.
    assert!(!home.join(".catui").exists());
    stdout
}

#[test]
fn demo_print_narrates_the_plan_mode_session_and_changes_the_sample() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run_demo(tmp.path());
    let project = tmp.path().join("demo/project");
    assert!(out.contains(&format!(
        "Project: {}",
        project.canonicalize().unwrap().display()
    )));

    // Three Explore agents, launched together, then the Plan agent.
    assert_eq!(out.matches("⏺ Agent(Explore:").count(), 3, "{out}");
    for n in 1..=3 {
        common::assert_contains(&out, &format!("Explore #{n} done:"));
    }
    common::assert_contains(&out, "3 agents ran side by side");
    assert!(out.contains("⏺ Agent(Plan:"), "{out}");
    common::assert_contains(&out, "Plan #4 done:");

    // Where `needle` stands in the narration; fails saying `what` if absent.
    let at = |needle: &str, what: &str| out.find(needle).expect(what);
    // The early edit is refused by plan mode, before the plan is approved.
    let refused = at(
        "✗ refused: Plan mode is active: Edit may not change todo.py",
        "the refused edit is narrated",
    );
    // Rejected with feedback, revised (with a diff), then approved.
    let rejected = at(
        "demo script picks 3 with feedback",
        "first presentation rejected",
    );
    let approved = at("demo script picks 1", "second approved");
    let diff = at("+4. Add `tests/test_list_json.py`", "diff shown");
    let mode = at("[permission mode → acceptEdits]", "mode restored");
    assert!(refused < rejected && rejected < diff && diff < approved && approved < mode);
    assert_eq!(out.matches("━━ The plan is ready for approval").count(), 2);

    // The sample really changed as scripted; nothing before approval did.
    let todo = std::fs::read_to_string(project.join("todo.py")).unwrap();
    assert!(todo.contains("list_p.add_argument(\"--json\""), "{todo}");
    assert!(todo.contains("print(json.dumps(load_tasks(), indent=2))"));
    let readme = std::fs::read_to_string(project.join("README.md")).unwrap();
    assert!(readme.contains("list --json"));
    let test = std::fs::read_to_string(project.join("tests/test_list_json.py")).unwrap();
    assert!(test.contains("class ListJsonTest(unittest.TestCase):\n    def test_"));
    assert!(out.contains("modified  todo.py") && out.contains("created   tests/test_list_json.py"));

    // The plan file holds the approved revision, inside the demo's config dir.
    let plans: Vec<_> = std::fs::read_dir(tmp.path().join("demo/config/plans"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(plans.len(), 1);
    let plan = std::fs::read_to_string(plans[0].path()).unwrap();
    common::assert_contains(&plan, "## Verification");

    // The way to run catui for real closes the demo.
    for hint in [
        "Shift+Tab",
        "Ctrl+G",
        "Esc",
        "ANTHROPIC_API_KEY",
        "--permission-mode plan",
    ] {
        assert!(out.contains(hint), "{hint} missing");
    }
}

#[test]
fn demo_refuses_a_directory_that_already_holds_a_project() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("project")).unwrap();
    let out = Command::cargo_bin("catui")
        .unwrap()
        .args(["demo", "--print", "--dir"])
        .arg(tmp.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = common::stderr(&out);
    assert!(
        err.contains("already exists") && err.contains("--dir"),
        "{err}"
    );
}

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
    common::assert_contains(&screen, "created   tests/test_list_json.py");
    common::assert_contains(&screen, "modified  todo.py");
    assert!(
        !home.join(".catui").exists(),
        "the user's home is untouched"
    );
}
