//! Trust binds what runs, not names (issue 47, item 10), through the real
//! binary: a user who enabled an MCP server by name in their own settings
//! does not run an untrusted clone's server of that name; an approval
//! (`catui mcp approve`) covers the server's command, args and env as they
//! were, not what the name later stands for; and after `catui trust`, a
//! pull that changes only the script a trusted hook or MCP server runs
//! (`sh scripts/hook.sh`, `sh server.sh`) makes it wait again.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::{Path, PathBuf};

use catui_testkit::{Script, Turn};
use common::{Sandbox, output_within};
use serde_json::json;

/// A `-p hi` run in the project; its stderr.
fn run(sb: &Sandbox) -> String {
    let server = common::mock(Script::new().turn(Turn::text("ok")));
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "hi"]);
    let out = output_within(cmd, b"", 60);
    let stderr = common::stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    stderr
}

fn catui_sub(sb: &Sandbox, args: &[&str]) -> String {
    let out = sb.bare().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    common::stdout(&out)
}

/// A server that only leaves a mark that it was started (it never speaks
/// MCP: starting it is what matters).
fn marking_server(mark: &Path, word: &str) -> serde_json::Value {
    json!({"command": "sh", "args": ["-c", format!("echo {word} >> '{}'", mark.display())]})
}

fn marks(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Waits (bounded) for a mark a child may still be writing.
fn settle(path: &Path, want: &str) -> String {
    for _ in 0..100 {
        let text = marks(path);
        if text.contains(want) {
            return text;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    marks(path)
}

#[test]
fn a_name_in_the_users_settings_does_not_start_a_clones_server() {
    let sb = Sandbox::new();
    let mark = sb.dir.path().join("started.txt");
    sb.user_settings(&json!({"enabledMcpjsonServers": ["github"]}).to_string());
    sb.write(
        ".mcp.json",
        &json!({"mcpServers": {"github": marking_server(&mark, "clone")}}).to_string(),
    );
    run(&sb);
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(marks(&mark), "", "the clone's server ran");
    let listed = catui_sub(&sb, &["mcp", "list"]);
    common::assert_contains(&listed, "github\tproject\tneeds approval");
}

#[test]
fn an_approval_covers_the_command_it_saw_not_the_name() {
    let sb = Sandbox::new();
    let mark = sb.dir.path().join("started.txt");
    let mcp = |word: &str| {
        sb.write(
            ".mcp.json",
            &json!({"mcpServers": {"tools": marking_server(&mark, word)}}).to_string(),
        );
    };
    mcp("approved-one");
    catui_sub(&sb, &["mcp", "approve", "tools"]);
    run(&sb);
    assert!(settle(&mark, "approved-one").contains("approved-one"));
    // Another command under the approved name waits.
    mcp("swapped-in");
    run(&sb);
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!marks(&mark).contains("swapped-in"), "{}", marks(&mark));
    let listed = catui_sub(&sb, &["mcp", "list"]);
    common::assert_contains(&listed, "tools\tproject\tneeds approval");
    // Approved again, as it is now: it runs.
    catui_sub(&sb, &["mcp", "approve", "tools"]);
    run(&sb);
    assert!(settle(&mark, "swapped-in").contains("swapped-in"));
}

fn write_script(path: &PathBuf, mark: &Path, word: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!("echo {word} >> '{}'\n", mark.display())).unwrap();
}

#[test]
fn a_changed_script_of_a_trusted_hook_or_server_waits_again() {
    let sb = Sandbox::new();
    let hook_mark = sb.dir.path().join("hook.txt");
    let server_mark = sb.dir.path().join("server.txt");
    let hook = sb.project().join("scripts/hook.sh");
    let server = sb.project().join("server.sh");
    write_script(&hook, &hook_mark, "hook-v1");
    write_script(&server, &server_mark, "server-v1");
    sb.write(
        ".catui/settings.json",
        &json!({"hooks": {"UserPromptSubmit": [{"hooks": [
            {"type": "command", "command": "sh scripts/hook.sh"}
        ]}]}})
        .to_string(),
    );
    sb.write(
        ".mcp.json",
        &json!({"mcpServers": {"local": {"command": "sh", "args": ["server.sh"]}}}).to_string(),
    );
    catui_sub(&sb, &["trust"]);
    run(&sb);
    assert!(settle(&hook_mark, "hook-v1").contains("hook-v1"));
    assert!(settle(&server_mark, "server-v1").contains("server-v1"));

    // A pull changes only the scripts.
    write_script(&hook, &hook_mark, "hook-v2");
    write_script(&server, &server_mark, "server-v2");
    let stderr = run(&sb);
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        !marks(&hook_mark).contains("hook-v2"),
        "the changed hook ran"
    );
    assert!(
        !marks(&server_mark).contains("server-v2"),
        "the changed server ran"
    );
    assert!(stderr.contains("catui trust"), "the user is told: {stderr}");
    let show = catui_sub(&sb, &["trust", "--show"]);
    common::assert_contains(&show, "hooks");

    // Trusted again as it is now: both run.
    catui_sub(&sb, &["trust"]);
    run(&sb);
    assert!(settle(&hook_mark, "hook-v2").contains("hook-v2"));
    assert!(settle(&server_mark, "server-v2").contains("server-v2"));
}
