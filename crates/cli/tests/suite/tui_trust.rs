//! The trust dialog in the real terminal UI (tmux): the first launch in a
//! folder whose own configuration waits for trust names what it would
//! enable; "Continue without it" keeps the folder's allow rules and hooks
//! out, "Trust this folder" lets them in, "Quit" starts nothing, and the
//! answer is remembered for the folder.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::PathBuf;

use catui_testkit::{Script, Turn};
use common::tmux::{Setup, launch, require_tmux, setup};
use serde_json::json;

/// A folder that allows Write and runs a hook on every prompt (the hook
/// makes `hook-ran` beside the project); the model writes `out.txt`.
fn project(sb: &common::Sandbox, _: &str, _: &std::path::Path) -> Script {
    let hook = sb.dir.path().join("hook-ran");
    sb.write(
        ".catui/settings.json",
        &json!({
            "permissions": {"allow": ["Write"]},
            "hooks": {"UserPromptSubmit": [{"hooks": [
                {"type": "command", "command": format!("touch '{}'", hook.display())}
            ]}]}
        })
        .to_string(),
    );
    let out = sb.project().join("out.txt");
    Script::new()
        .turn(common::write("w", out.display().to_string(), "written"))
        .turn(Turn::text("All done here."))
}

/// Starts catui and waits for the trust dialog.
fn launch_to_dialog(s: &Setup) -> String {
    let bin = assert_cmd::cargo::cargo_bin("catui");
    s.tmux
        .type_text(&format!("'{}'; echo \"catui-exit=$?\"", bin.display()));
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("Do you trust the files in this folder?")
}

fn marker(s: &Setup, name: &str) -> PathBuf {
    s.sb.dir.path().join(name)
}

fn stored(s: &Setup) -> serde_json::Value {
    let text = std::fs::read_to_string(s.sb.config().join("projects.json")).unwrap();
    let all: serde_json::Value = serde_json::from_str(&text).unwrap();
    all[s.sb.project().display().to_string()].clone()
}

#[test]
fn continue_without_it_keeps_the_folders_configuration_out_and_is_remembered() {
    require_tmux();
    let s = setup(project, None);
    let hook = marker(&s, "hook-ran");
    let dialog = launch_to_dialog(&s);
    for needle in [
        "permissions.allow",
        "Write",
        "hooks",
        "UserPromptSubmit",
        "1. Trust this folder",
        "2. Continue without it",
        "3. Quit",
    ] {
        assert!(dialog.contains(needle), "{needle} missing:\n{dialog}");
    }
    s.tmux.keys(&["2"]);
    s.tmux.wait_text("Shift+Tab cycles permission modes");
    s.tmux.wait_history("catui trust");
    s.tmux.submit("write the file");
    s.tmux.wait_text("Do you want to proceed?");
    // "No" (Esc would stop the turn; declining with 3 lets the model go on).
    s.tmux.keys(&["3", "Enter"]);
    s.tmux.wait_text("All done here.");
    assert!(
        !s.sb.project().join("out.txt").exists(),
        "the allow rule applied"
    );
    assert!(!hook.exists(), "the hook ran");
    s.tmux.keys(&["C-c", "C-c"]);
    s.tmux.wait_text("catui-exit=0");
    let entry = stored(&s);
    assert_eq!(entry["trusted"], false);
    assert!(
        entry["declined"].as_object().is_some_and(|d| d.len() == 2),
        "{entry}"
    );

    // The next launch goes straight to the session.
    launch(&s);
    assert!(!s.tmux.screen().contains("Do you trust"));
    s.tmux.keys(&["C-c", "C-c"]);
    s.tmux.wait_history("catui-exit=0");
}

#[test]
fn trusting_in_the_dialog_lets_the_folders_configuration_in() {
    require_tmux();
    let s = setup(project, None);
    let hook = marker(&s, "hook-ran");
    launch_to_dialog(&s);
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("Shift+Tab cycles permission modes");
    s.tmux.submit("write the file");
    s.tmux.wait_text("All done here.");
    assert!(!s.tmux.history().contains("Do you want to proceed?"));
    assert_eq!(
        std::fs::read_to_string(s.sb.project().join("out.txt")).unwrap(),
        "written"
    );
    assert!(hook.exists(), "the trusted folder's hook did not run");
    s.tmux.keys(&["C-c", "C-c"]);
    s.tmux.wait_text("catui-exit=0");
    let entry = stored(&s);
    assert_eq!(entry["trusted"], true);
    assert_eq!(entry["accepted"].as_object().map(|a| a.len()), Some(2));
    launch(&s);
    s.tmux.keys(&["C-c", "C-c"]);
    s.tmux.wait_history("catui-exit=0");
}

#[test]
fn quitting_at_the_dialog_starts_nothing() {
    require_tmux();
    let s = setup(project, None);
    launch_to_dialog(&s);
    s.tmux.keys(&["3"]);
    s.tmux.wait_text("catui-exit=0");
    assert!(s.tmux.history().contains("nothing was started"));
    assert!(s.server.requests().is_empty());
    assert!(!s.sb.config().join("projects.json").exists());
    assert!(s.sb.transcripts().is_empty());
}
