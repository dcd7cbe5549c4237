//! Snapshots of everything the model is told in a first request — the
//! system prompt, every tool's description and schema, and the first
//! message with its reminders — as the mock server receives them from the
//! real binary: default mode, plan mode and each built-in sub-agent. Any
//! change to a model-facing text shows up here in review; the sizes at the
//! top of each snapshot are the request-size budget of docs/PROMPTS.md.
//!
//! The facts of the machine in the first request, through the real
//! binary: the OS name and version from `/etc/os-release`, the versions of
//! the toolchains the project's files call for, and the project's top
//! level; remembered for the next run of the project.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Block, MockServer, RecordedRequest, Script, Turn};
use common::{Sandbox, output_within};
use serde_json::{Value, json};

/// The text blocks of a message's content, joined.
fn message_text(message: &Value) -> String {
    common::text_of(message, "\n----\n")
}

/// The request as a reviewer reads it, with sizes in characters (counted
/// after `normalize`, so that they do not change with temp paths).
fn render(r: &RecordedRequest, sb: &Sandbox) -> String {
    let system = normalize(&r.system_text(), sb);
    let tools = r.body["tools"].as_array().cloned().unwrap_or_default();
    let tools_chars: usize = tools.iter().map(|t| t.to_string().chars().count()).sum();
    let first = normalize(&message_text(&r.messages()[0]), sb);
    let reminders: usize = first
        .split("<system-reminder>")
        .skip(1)
        .map(|s| {
            s.split("</system-reminder>")
                .next()
                .unwrap_or_default()
                .chars()
                .count()
        })
        .sum();
    let mut out = format!(
        "model: {}\nsizes: system {} chars, tools {} chars ({} tools), reminders {} chars\n\n== system\n{system}\n== tools\n",
        r.model(),
        system.chars().count(),
        tools_chars,
        tools.len(),
        reminders,
    );
    for t in &tools {
        out.push_str(&format!(
            "### {}\n{}\n{}\n\n",
            t["name"].as_str().unwrap_or_default(),
            t["description"].as_str().unwrap_or_default(),
            serde_json::to_string_pretty(&t["input_schema"]).unwrap()
        ));
    }
    out.push_str("== first message\n");
    out.push_str(&first);
    out.push('\n');
    out
}

/// Replaces what differs between runs (temp paths, today's date, the plan
/// file's random name) with placeholders.
fn normalize(text: &str, sb: &Sandbox) -> String {
    let mut text = text
        .replace(&sb.project().display().to_string(), "[PROJECT]")
        .replace(&sb.config().display().to_string(), "[CONFIG]");
    if let Some(at) = text.find("Today's date: ") {
        let start = at + "Today's date: ".len();
        text.replace_range(start..start + 10, "[DATE]");
    }
    // The machine's own facts differ between machines.
    text = text
        .lines()
        .map(|line| {
            if line.starts_with("OS: ") {
                "OS: [OS], kernel [KERNEL]"
            } else if line.starts_with("Package manager: ") {
                "Package manager: [PACKAGE MANAGER]"
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let marker = "[CONFIG]/plans/";
    let mut from = 0;
    while let Some(at) = text[from..].find(marker) {
        let start = from + at + marker.len();
        let end = text[start..].find(".md").map_or(start, |e| start + e);
        text.replace_range(start..end, "[SLUG]");
        from = start;
    }
    text
}

/// An interactive (stream-json) session, as a front end runs one, that
/// says "hi" and ends when the answer is complete.
fn say_hi(sb: &Sandbox, server: &MockServer, extra: &[&str]) {
    let mut args = vec!["--small-model", "small-model"];
    args.extend_from_slice(extra);
    let mut s = sb.stream(server, &args);
    s.send_user("hi");
    s.wait_type("result");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
}

fn first_request(mode: &str) -> (Sandbox, RecordedRequest) {
    let sb = Sandbox::new();
    sb.write("src/lib.rs", "fn main() {}\n");
    let server = common::mock(Script::new().turn(Turn::text("hello").forever()));
    say_hi(&sb, &server, &["--permission-mode", mode]);
    let first = server.requests().into_iter().next().unwrap();
    (sb, first)
}

#[test]
fn default_mode_first_request() {
    let (sb, r) = first_request("default");
    insta::assert_snapshot!("default_mode", render(&r, &sb));
}

#[test]
fn plan_mode_first_request() {
    let (sb, r) = first_request("plan");
    insta::assert_snapshot!("plan_mode", render(&r, &sb));
}

/// A plain `-p` run: nobody is here, so the prompt says so and
/// AskUserQuestion is not offered.
#[test]
fn print_run_first_request() {
    let sb = Sandbox::new();
    sb.write("src/lib.rs", "fn main() {}\n");
    let server = common::mock(Script::new().turn(Turn::text("hello").forever()));
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "hi", "--small-model", "small-model"]);
    let out = common::output_within(cmd, b"", 60);
    assert_eq!(out.status.code(), Some(0));
    let first = server.requests().into_iter().next().unwrap();
    insta::assert_snapshot!("print_run", render(&first, &sb));
}

#[test]
fn built_in_sub_agents_first_requests() {
    let sb = Sandbox::new();
    sb.write("src/lib.rs", "fn main() {}\n");
    let kinds = [
        ("Explore", "explore-task"),
        ("Plan", "plan-task"),
        ("general-purpose", "general-task"),
    ];
    let calls = kinds
        .iter()
        .enumerate()
        .map(|(i, (kind, task))| Block::ToolUse {
            id: format!("a{i}"),
            name: "Agent".into(),
            input: json!({"description": "look", "prompt": format!("{task}: look at src"), "subagent_type": kind}),
        })
        .collect();
    let server = common::mock(
        Script::new()
            .turn(Turn::blocks(calls).when(|r| {
                r.messages().len() == 1 && message_text(&r.messages()[0]).starts_with("hi")
            }))
            .turn(Turn::text("done").forever()),
    );
    say_hi(&sb, &server, &[]);
    let reqs = server.requests();
    for (kind, task) in kinds {
        let r = reqs
            .iter()
            .find(|r| r.messages().len() == 1 && message_text(&r.messages()[0]).starts_with(task))
            .unwrap_or_else(|| panic!("no first request of {kind}"));
        insta::assert_snapshot!(format!("sub_agent_{kind}"), render(r, &sb));
    }
}

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
    common::assert_contains(&text, "# Machine");
    // This machine's own name and version (Debian here).
    common::assert_contains(&text, &os_release("NAME"));
    common::assert_contains(&text, &os_release("VERSION_ID"));
    common::assert_contains(&text, "cargo: cargo 1.");
    common::assert_contains(&text, "rustc: rustc 1.");
    common::assert_contains(&text, "Project top level: Cargo.toml, src/, tools/");
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
