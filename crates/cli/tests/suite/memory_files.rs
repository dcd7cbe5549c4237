//! Memory files (`AGENTS.md`, `CLAUDE.md`, their `@` imports) through the
//! real binary: a cloned repository whose memory files link to catui's
//! environment, the user's SSH key, files elsewhere in the home directory
//! and catui's own settings puts none of it into the first request — in
//! default and in plan mode, from the root and from a sub-directory — and
//! the user is told what was left out.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::os::unix::fs::symlink;
use std::path::Path;

use catui_testkit::{Script, Turn};
use common::{Sandbox, output_within};

/// In catui's environment: `/proc/self/environ` would show it.
const ENV_CANARY: &str = "env-canary-7c1f0e";
const KEY_CANARY: &str = "ssh-key-canary-40d2";
const NOTES_CANARY: &str = "notes-canary-9b3e";
const SETTINGS_CANARY: &str = "settings-token-canary-55aa";
const AWS_CANARY: &str = "aws-canary-1d77";

/// A home (the sandbox's root) with secrets, and a clone in `project`
/// whose memory files and imports link out with relative links.
fn hostile_clone(sb: &Sandbox) {
    let home = sb.dir.path();
    let write = |p: &Path, text: &str| {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write(&home.join(".ssh/id_rsa"), KEY_CANARY);
    write(&home.join(".aws/credentials"), AWS_CANARY);
    write(&home.join("notes.txt"), NOTES_CANARY);
    sb.user_settings(&format!(
        r#"{{"env": {{"SOME_TOKEN": "{SETTINGS_CANARY}"}}}}"#
    ));
    let project = sb.project();
    std::fs::create_dir_all(project.join(".git")).unwrap();
    symlink("/proc/self/environ", project.join("CLAUDE.md")).unwrap();
    symlink("../.ssh/id_rsa", project.join("AGENTS.md")).unwrap();
    // A sub-directory's memory files, and an import that links out.
    std::fs::create_dir_all(project.join("sub/docs")).unwrap();
    symlink("../../notes.txt", project.join("sub/AGENTS.md")).unwrap();
    write(
        &project.join("sub/CLAUDE.md"),
        "Sub-project rules: keep it small. See @docs/more.md and @../cfg.json.",
    );
    symlink(
        "../../../.aws/credentials",
        project.join("sub/docs/more.md"),
    )
    .unwrap();
    symlink("../config/settings.json", project.join("cfg.json")).unwrap();
}

/// Runs `-p hi` in `cwd` (in `mode`) and returns the first request's
/// system prompt and catui's stderr.
fn first_prompt(sb: &Sandbox, cwd: &Path, mode: &str) -> (String, String) {
    let server = common::mock(Script::new().turn(Turn::text("ok")));
    let mut cmd = sb.catui(&server);
    cmd.current_dir(cwd)
        .env("CANARY_VARIABLE", ENV_CANARY)
        .args(["-p", "hi", "--permission-mode", mode]);
    let out = output_within(cmd, b"", 60);
    let stderr = common::stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let requests = server.requests();
    assert!(!requests.is_empty(), "no request: {stderr}");
    (requests[0].body.to_string(), stderr)
}

#[test]
fn linked_memory_files_and_imports_put_no_secret_in_the_prompt() {
    let sb = Sandbox::new();
    hostile_clone(&sb);
    for mode in ["default", "plan"] {
        for cwd in [sb.project(), sb.project().join("sub")] {
            let (body, stderr) = first_prompt(&sb, &cwd, mode);
            for canary in [
                ENV_CANARY,
                KEY_CANARY,
                NOTES_CANARY,
                SETTINGS_CANARY,
                AWS_CANARY,
            ] {
                assert!(
                    !body.contains(canary),
                    "{canary} reached the model ({mode}, {}): {body}",
                    cwd.display()
                );
            }
            // catui's API key (its environment) is not there either.
            common::assert_lacks(&body, "test-key-not-secret");
            // The user is told, by file, what was left out.
            common::assert_contains(&stderr, "CLAUDE.md was not read");
            common::assert_contains(&stderr, "procfs");
            common::assert_contains(&stderr, "AGENTS.md was not read");
            common::assert_contains(&stderr, "a secret store");
            if cwd.ends_with("sub") {
                // The sub-directory's own text is kept; its links are not.
                common::assert_contains(&body, "Sub-project rules");
                common::assert_contains(&stderr, "notes.txt");
                common::assert_contains(&stderr, "imports");
                common::assert_contains(&stderr, "more.md was not read");
                common::assert_contains(&stderr, "cfg.json was not read");
            }
        }
    }
}

#[test]
fn the_refusal_is_a_notification_in_stream_json() {
    let sb = Sandbox::new();
    hostile_clone(&sb);
    let server = common::mock(Script::new().turn(Turn::text("ok")));
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "hi", "--output-format", "stream-json", "--verbose"]);
    let out = output_within(cmd, b"", 60);
    assert_eq!(out.status.code(), Some(0));
    let lines = common::json_lines(&out.stdout);
    let notes: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l["subtype"] == "notification" && l["key"] == "file-gate")
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n["text"].as_str().unwrap().contains("procfs")),
        "{lines:#?}"
    );
}

#[test]
fn memory_files_and_imports_inside_the_project_still_reach_the_prompt() {
    let sb = Sandbox::new();
    sb.write("AGENTS.md", "Use tabs. Also follow @docs/style.md.");
    sb.write("docs/style.md", "Wrap at 100 columns.");
    std::fs::create_dir_all(sb.project().join("sub")).unwrap();
    symlink("../AGENTS.md", sb.project().join("sub/CLAUDE.md")).unwrap();
    let (body, stderr) = first_prompt(&sb, &sb.project(), "default");
    common::assert_contains(&body, "Use tabs.");
    common::assert_contains(&body, "Wrap at 100 columns.");
    common::assert_contains(&body, "imported by");
    common::assert_lacks(&stderr, "was not read");
}
