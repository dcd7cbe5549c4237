//! The facts of the machine in the first request, through the real
//! binary: the OS name and version from `/etc/os-release`, the versions of
//! the toolchains the project's files call for, and the project's top
//! level; remembered for the next run of the project.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{MockServer, Script, Turn};
use common::{Sandbox, output_within};

/// The first request's first message, its text blocks joined.
fn first_message(server: &MockServer) -> String {
    let first = server.requests().into_iter().next().unwrap();
    first.messages()[0]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn os_release(key: &str) -> String {
    std::fs::read_to_string("/etc/os-release")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{key}=")))
        .unwrap()
        .trim_matches('"')
        .to_string()
}

#[test]
fn the_first_request_carries_the_os_toolchains_and_project_listing() {
    let sb = Sandbox::new();
    sb.write("Cargo.toml", "[package]\nname = \"demo\"\n");
    sb.write("src/main.rs", "fn main() {}\n");
    sb.write("tools/gen.py", "print(1)\n");
    let run = |sb: &Sandbox| {
        let server = common::mock(Script::new().turn(Turn::text("ok")));
        let mut cmd = sb.catui(&server);
        // The sandbox's HOME hides rustup's toolchains: name them.
        let home = std::env::var("HOME").unwrap();
        let rustup = std::env::var("RUSTUP_HOME").unwrap_or(format!("{home}/.rustup"));
        cmd.env("RUSTUP_HOME", rustup).args(["-p", "hi"]);
        let out = output_within(cmd, b"", 60);
        assert_eq!(out.status.code(), Some(0));
        first_message(&server)
    };
    let text = run(&sb);
    assert!(text.contains("# Machine"), "{text}");
    // This machine's own name and version (Debian here).
    assert!(text.contains(&os_release("NAME")), "{text}");
    assert!(text.contains(&os_release("VERSION_ID")), "{text}");
    assert!(text.contains("cargo: cargo 1."), "{text}");
    assert!(text.contains("rustc: rustc 1."), "{text}");
    assert!(
        text.contains("Project top level: Cargo.toml, src/, tools/"),
        "{text}"
    );
    // The listing is shallow, and a .py file below the top asks for nothing.
    assert!(
        !text.contains("main.rs") && !text.contains("python3:"),
        "{text}"
    );
    let facts = text.split("# Machine").nth(1).unwrap();
    let facts = facts.split("</system-reminder>").next().unwrap();
    assert!(facts.chars().count() <= 1_000, "{facts}");
    // The versions are remembered for the project's next run.
    let cache = std::fs::read_dir(sb.config().join("projects"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("machine.json"))
        .find(|p| p.exists())
        .expect("machine.json in the project's data directory");
    assert!(
        std::fs::read_to_string(&cache)
            .unwrap()
            .contains("cargo 1.")
    );
    assert!(run(&sb).contains("cargo: cargo 1."));
}
