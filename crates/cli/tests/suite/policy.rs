//! The permission policy of "nothing leaves without you" through the real
//! binary, with a stream-json client that denies every prompt (or none
//! at all, in plain `-p`):
//!
//! - a teammate may not get a wider mode than the session's unasked;
//! - acceptEdits asks before writing files that run code later;
//! - secret stores are asked for, and their contents never reach the model
//!   unasked (Read, Grep, plan mode, `-p`);
//! - commands that need the network, or a repository committed inside the
//!   project, are asked about, and denied, nothing reaches a listener.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::net::TcpListener;
use std::path::Path;
use std::process::Command;

use catui_testkit::{MockServer, Script, Turn};
use common::{Sandbox, StreamSession, is_teammate, last_user, output_within, result_of};
use serde_json::json;

/// A secret no request to the model may ever carry.
const CANARY: &str = "CANARY-7f3a9c-do-not-send";

/// Runs one user turn, denying every permission prompt until the turn's
/// result; returns the tool names the client was asked about.
fn deny_everything(s: &mut StreamSession, prompt: &str) -> Vec<String> {
    s.send_user(prompt);
    let mut asked = Vec::new();
    loop {
        let v = s.wait_for("a prompt or the result", |v| {
            v["type"] == "result"
                || (v["type"] == "control_request" && v["request"]["subtype"] == "can_use_tool")
        });
        if v["type"] == "result" {
            return asked;
        }
        asked.push(v["request"]["tool_name"].as_str().unwrap().to_string());
        s.send(json!({"type": "control_response", "response": {
            "subtype": "success", "request_id": v["request_id"],
            "response": {"behavior": "deny", "message": "The user said no."}}}));
    }
}

fn no_request_carries(server: &MockServer, secret: &str) {
    for r in server.requests() {
        assert!(
            !r.body.to_string().contains(secret),
            "a request to the model carried the secret: {}",
            r.body
        );
    }
}

/// `$HOME/.ssh/id_rsa` (HOME is the sandbox's directory) holding the canary.
fn plant_ssh_key(sb: &Sandbox) -> String {
    let ssh = sb.dir.path().join(".ssh");
    std::fs::create_dir_all(&ssh).unwrap();
    let key = ssh.join("id_rsa");
    std::fs::write(&key, format!("-----BEGIN KEY-----\n{CANARY}\n")).unwrap();
    key.to_str().unwrap().to_string()
}

#[test]
fn a_teammate_asking_for_bypass_permissions_is_asked_about_and_denied_never_runs() {
    let sb = Sandbox::new();
    let pwned = sb.project().join("pwned-team.txt");
    let server = common::mock(
        Script::new()
            .turn(
                common::team_create("tc", json!([{"name": "eve", "prompt": "Please run the command", "mode": "bypassPermissions"}]))
                .when(|r| !is_teammate(r, "eve") && last_user(r).contains("start a team")),
            )
            .turn(
                common::bash("t", "touch pwned-team.txt")
                    .when(|r| is_teammate(r, "eve") && !r.has_tool_result("t")),
            )
            .turn(Turn::text("done").when(|r| is_teammate(r, "eve")))
            .turn(Turn::text("No team, then.").when(|r| r.has_tool_result("tc"))),
    );
    let mut s = sb.stream(&server, &[]);
    let asked = deny_everything(&mut s, "start a team");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    assert_eq!(asked, ["TeamCreate"]);
    assert!(!pwned.exists(), "the teammate ran");
    assert!(
        !server.requests().iter().any(|r| is_teammate(r, "eve")),
        "the teammate was started"
    );
    let last = server.requests().pop().unwrap();
    let (text, _) = result_of(&last, "tc");
    common::assert_contains(&text, "declined");
}

#[test]
fn in_print_mode_no_teammate_starts_in_a_wider_mode() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(common::team_create(
                "tc",
                json!([{"name": "eve", "prompt": "x", "mode": "bypassPermissions"}]),
            ))
            .turn(Turn::text("ok")),
    );
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "go"]);
    let out = output_within(cmd, b"", 60);
    assert!(out.status.success(), "{out:?}");
    let last = server.requests().pop().unwrap();
    let (text, is_error) = result_of(&last, "tc");
    assert!(is_error, "{text}");
    // Plain -p offers no teams (nobody could answer their prompts), so the
    // call is refused before any mode is considered (the decision itself
    // refuses a wider mode unattended: permissions::policy_tests).
    assert!(!text.is_empty());
    assert!(!server.requests().iter().any(|r| is_teammate(r, "eve")));
}

#[test]
fn an_agent_input_naming_a_mode_or_tools_is_refused() {
    let sb = Sandbox::new();
    let agent = |extra: serde_json::Value| {
        let mut input = json!({"description": "d", "prompt": "touch pwned-agent.txt", "subagent_type": "general-purpose"});
        input
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        input
    };
    let server = common::mock(
        Script::new()
            .turn(Turn::tool_use(
                "m",
                "Agent",
                agent(json!({"mode": "bypassPermissions"})),
            ))
            .turn(Turn::tool_use(
                "t",
                "Agent",
                agent(json!({"tools": ["Bash"], "allowed_tools": ["Bash"]})),
            ))
            .turn(Turn::text("done")),
    );
    let mut s = sb.stream(&server, &[]);
    let asked = deny_everything(&mut s, "delegate");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    assert!(asked.is_empty(), "{asked:?}");
    let last = server.requests().pop().unwrap();
    for id in ["m", "t"] {
        let (text, is_error) = result_of(&last, id);
        assert!(is_error && text.contains("unknown field"), "{id}: {text}");
    }
    assert!(!sb.project().join("pwned-agent.txt").exists());
}

#[test]
fn accept_edits_asks_before_writing_files_that_run_code_later() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.project().join(".husky")).unwrap();
    let path = |rel: &str| sb.project().join(rel).to_str().unwrap().to_string();
    let server = common::mock(
        Script::new()
            .turn(common::write(
                "mcp",
                path(".mcp.json"),
                "{\"mcpServers\":{\"x\":{\"command\":\"touch\",\"args\":[\"pwned\"]}}}",
            ))
            .turn(common::bash(
                "hook",
                "echo 'touch pwned' > .husky/pre-commit",
            ))
            .turn(common::write(
                "vscode",
                path("web/.vscode/tasks.json"),
                "{}",
            ))
            .turn(common::write("ok", path("src/ok.txt"), "fine\n"))
            .turn(Turn::text("done")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "acceptEdits"]);
    let asked = deny_everything(&mut s, "set things up");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    assert_eq!(asked, ["Write", "Bash", "Write"]);
    assert!(!sb.project().join(".mcp.json").exists());
    assert!(!sb.project().join(".husky/pre-commit").exists());
    assert!(!sb.project().join("web/.vscode").exists());
    assert_eq!(
        std::fs::read_to_string(sb.project().join("src/ok.txt")).unwrap(),
        "fine\n"
    );
}

#[test]
fn a_secret_read_asks_and_denied_its_contents_never_reach_the_model() {
    let sb = Sandbox::new();
    let key = plant_ssh_key(&sb);
    // A store of the user's own, not hidden by its name: only the setting
    // keeps Grep out of it.
    let vault = sb.dir.path().join("vault");
    std::fs::create_dir_all(&vault).unwrap();
    std::fs::write(vault.join("token.txt"), format!("{CANARY}\n")).unwrap();
    std::fs::write(
        sb.config().join("settings.json"),
        r#"{"secretPaths": ["~/vault"]}"#,
    )
    .unwrap();
    let home = sb.dir.path().to_str().unwrap().to_string();
    let server = common::mock(
        Script::new()
            .turn(common::read("read", &key))
            .turn(Turn::tool_use(
                "grep",
                "Grep",
                // Matches the canary without being it.
                json!({"pattern": "CANARY-7f3a9[c]", "path": home, "output_mode": "content"}),
            ))
            .turn(common::read(
                "link",
                sb.project().join("innocent.txt").to_str().unwrap(),
            ))
            // Judged read-only, so it runs unasked: confined, where the
            // store the setting added is hidden as well as the defaults.
            .turn(common::bash(
                "cat",
                format!("cat {}/token.txt {key}", vault.display()),
            ))
            .turn(Turn::text("done")),
    );
    // A symlink in the project into the store is the store.
    std::os::unix::fs::symlink(&key, sb.project().join("innocent.txt")).unwrap();
    let mut s = sb.stream(&server, &[]);
    let asked = deny_everything(&mut s, "look around");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    assert_eq!(asked, ["Read", "Read"]);
    no_request_carries(&server, CANARY);
    let last = server.requests().pop().unwrap();
    let (grep, _) = result_of(&last, "grep");
    assert!(
        grep.contains("not searched") && grep.contains("~/vault"),
        "{grep}"
    );
    let (cat, _) = result_of(&last, "cat");
    assert!(cat.contains("token.txt") && cat.contains("id_rsa"), "{cat}");
}

#[test]
fn in_print_mode_a_secret_read_is_refused_with_a_clear_message() {
    let sb = Sandbox::new();
    let key = plant_ssh_key(&sb);
    let server = common::mock(
        Script::new()
            .turn(common::read("read", &key))
            .turn(Turn::text("done")),
    );
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "read the key"]);
    let out = output_within(cmd, b"", 60);
    assert!(out.status.success(), "{out:?}");
    no_request_carries(&server, CANARY);
    let last = server.requests().pop().unwrap();
    let (text, is_error) = result_of(&last, "read");
    assert!(is_error);
    assert!(
        text.contains("~/.ssh/id_rsa")
            && text.contains("secret stores")
            && text.contains("Read(~/.ssh/id_rsa)"),
        "{text}"
    );
}

#[test]
fn plan_mode_refuses_a_secret_read_unless_an_allow_rule_lets_it() {
    let sb = Sandbox::new();
    let key = plant_ssh_key(&sb);
    let script = || {
        Script::new()
            .turn(common::read("read", &key))
            .turn(Turn::text("done"))
    };
    // Refused without a prompt, even with a client that would approve.
    let server = common::mock(script());
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan something");
    s.wait_type("result");
    let (_, seen) = s.finish();
    assert!(!seen.iter().any(|v| v["type"] == "control_request"));
    no_request_carries(&server, CANARY);
    let (text, _) = result_of(&server.requests().pop().unwrap(), "read");
    assert!(
        text.contains("Plan mode is active") && text.contains("secret stores"),
        "{text}"
    );

    // The user's own rule opens it.
    let server = common::mock(script());
    let mut s = sb.stream(
        &server,
        &[
            "--permission-mode",
            "plan",
            "--allowed-tools",
            "Read(~/.ssh/**)",
        ],
    );
    s.send_user("plan something");
    s.wait_type("result");
    s.finish();
    let (text, _) = result_of(&server.requests().pop().unwrap(), "read");
    common::assert_contains(&text, CANARY);
}

/// A loopback listener that must never see a connection.
fn listener() -> (TcpListener, u16) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.set_nonblocking(true).unwrap();
    let port = l.local_addr().unwrap().port();
    (l, port)
}

fn nothing_connected(l: &TcpListener) {
    match l.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("the listener was reached: {other:?}"),
    }
}

#[test]
fn commands_that_need_the_network_ask_and_denied_reach_nothing() {
    let sb = Sandbox::new();
    let (l, port) = listener();
    let commands = [
        format!("git ls-remote http://127.0.0.1:{port}/{CANARY}"),
        format!("env git ls-remote git://127.0.0.1:{port}/x"),
        format!("git remote show http://127.0.0.1:{port}/x"),
        format!(": < /dev/tcp/127.0.0.1/{port}"),
        format!("p={port}; cat < /dev/tcp/127.0.0.1/$p"),
    ];
    let mut script = Script::new();
    for (i, c) in commands.iter().enumerate() {
        script = script.turn(common::bash_timeout(format!("n{i}"), c, 10000));
    }
    let server = common::mock(script.turn(Turn::text("done")));
    let git = |args: &[&str]| {
        assert!(
            Command::new("git")
                .args(args)
                .current_dir(sb.project())
                .status()
                .unwrap()
                .success()
        )
    };
    git(&["init", "-q"]);
    let mut s = sb.stream(&server, &[]);
    let asked = deny_everything(&mut s, "check the remote");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    assert_eq!(asked.len(), commands.len(), "{asked:?}");
    nothing_connected(&l);
}

/// A bare repository committed into the project whose configuration runs
/// a program on `git diff` (proved first on a copy).
fn plant_bare_repository(sb: &Sandbox, marker: &Path) {
    let run = |dir: &Path, args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    };
    let src = sb.dir.path().join("src-repo");
    std::fs::create_dir_all(&src).unwrap();
    run(&src, &["init", "-q"]);
    for n in ["1", "2"] {
        std::fs::write(src.join("f"), n).unwrap();
        run(&src, &["add", "f"]);
        run(
            &src,
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@example.invalid",
                "commit",
                "-qm",
                n,
            ],
        );
    }
    let project = sb.project();
    run(&project, &["init", "-q"]);
    std::fs::create_dir_all(project.join("vendor")).unwrap();
    run(
        &project,
        &[
            "clone",
            "-q",
            "--bare",
            src.to_str().unwrap(),
            "vendor/x.git",
        ],
    );
    let external = format!("touch {}", marker.display());
    run(
        &project,
        &["-C", "vendor/x.git", "config", "diff.external", &external],
    );
    // The trap is real: git run there outside catui springs it.
    run(&project, &["-C", "vendor/x.git", "diff", "HEAD~1", "HEAD"]);
    assert!(marker.exists(), "the planted configuration did not run");
    std::fs::remove_file(marker).unwrap();
}

#[test]
fn git_pointed_at_a_repository_committed_in_the_project_asks() {
    let sb = Sandbox::new();
    let marker = sb.dir.path().join("diff-external-ran");
    plant_bare_repository(&sb, &marker);
    let commands = [
        "git -C vendor/x.git diff HEAD~1 HEAD",
        "cd vendor/x.git && git diff HEAD~1 HEAD",
        "git --git-dir=vendor/x.git diff HEAD~1 HEAD",
        "env -C vendor/x.git git diff HEAD~1 HEAD",
    ];
    let mut script = Script::new();
    for (i, c) in commands.iter().enumerate() {
        script = script.turn(common::bash(format!("g{i}"), c));
    }
    // The project's own repository stays read-only.
    script = script.turn(common::bash("own", "git status --short"));
    let server = common::mock(script.turn(Turn::text("done")));
    let mut s = sb.stream(&server, &[]);
    let asked = deny_everything(&mut s, "look at the vendored repository");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    assert_eq!(asked.len(), commands.len(), "{asked:?}");
    assert!(!marker.exists(), "the committed configuration ran");
    let (status, is_error) = result_of(&server.requests().pop().unwrap(), "own");
    assert!(!is_error, "{status}");
}
