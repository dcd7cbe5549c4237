//! The environment of every child catui starts, through the real binary:
//! catui is started with its API key and a dozen credentials of other
//! names; a confined command (default and plan mode), a command the user
//! approved, a command an allow rule lets run, a hook and an MCP server
//! each see the allow-list (PATH, HOME, ...), what the user's settings add
//! (`env`, and `passEnv` for the approved ones), and none of the rest.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;

use catui_testkit::{MockServer, Script, Turn};
use common::{Sandbox, StreamSession, output_within, result_of};
use serde_json::{Value, json};

/// Credentials in catui's environment, with values no command may print.
const SECRETS: &[(&str, &str)] = &[
    ("ANTHROPIC_API_KEY", "sk-ant-canary-apikey-91e2"),
    ("DATABASE_URL", "postgres://app:canary-dbpw-11@db/app"),
    ("MYSQL_PWD", "canary-mysql-22"),
    ("DB_PASS", "canary-dbpass-33"),
    (
        "SENTRY_DSN",
        "https://canary-sentry-44@o1.ingest.sentry.io/1",
    ),
    (
        "SLACK_WEBHOOK_URL",
        "https://hooks.slack.com/services/canary-slack-55",
    ),
    (
        "DOCKER_AUTH_CONFIG",
        "{\"auths\":{\"canary-docker-66\":{}}}",
    ),
    ("KAGGLE_KEY", "canary-kaggle-77"),
    ("GITHUB_TOKEN", "ghp_canarygithub88"),
    ("AWS_SECRET_ACCESS_KEY", "canary-aws-99"),
    ("STRIPE_RESTRICTED", "rk_live_canary-stripe-10"),
    ("SOME_INTERNAL_THING", "canary-unlisted-12"),
];

/// A variable the user passes on purpose (`passEnv`), and one the user's
/// settings set (`env`).
const PASSED: (&str, &str) = ("DEPLOY_TOKEN", "passed-on-purpose-13");
const SET: (&str, &str) = ("FROM_SETTINGS", "set-by-settings-14");

fn catui_with_secrets(sb: &Sandbox, server: &MockServer) -> std::process::Command {
    let mut cmd = sb.catui(server);
    for (name, value) in SECRETS {
        cmd.env(name, value);
    }
    cmd.env(PASSED.0, PASSED.1);
    cmd
}

/// The canaries found in `text`.
fn leaked(text: &str) -> Vec<&'static str> {
    SECRETS
        .iter()
        .filter(|(_, v)| text.contains(v))
        .map(|(n, _)| *n)
        .collect()
}

fn settings(sb: &Sandbox, extra: Value) {
    let mut s = json!({
        "env": { SET.0: SET.1 },
        "passEnv": [PASSED.0],
    });
    if let (Value::Object(s), Value::Object(extra)) = (&mut s, extra) {
        s.extend(extra);
    }
    sb.user_settings(&s.to_string());
}

#[test]
fn a_confined_command_sees_the_allow_list_and_settings_env_only() {
    for mode in ["default", "plan"] {
        let sb = Sandbox::new();
        settings(&sb, json!({}));
        let server = common::mock(
            Script::new()
                .turn(common::bash("e", "env"))
                .turn(common::bash("p", "cat /proc/self/environ | tr '\\0' '\\n'"))
                .turn(Turn::text("done")),
        );
        let mut cmd = catui_with_secrets(&sb, &server);
        cmd.args(["-p", "show the environment", "--permission-mode", mode]);
        let out = output_within(cmd, b"", 60);
        common::assert_ok(&out);
        let reqs = server.requests();
        for (id, at) in [("e", 1), ("p", 2)] {
            let (text, is_error) = result_of(&reqs[at], id);
            assert!(!is_error, "{mode} {id}: {text}");
            assert!(text.contains("PATH="), "{mode} {id}: {text}");
            assert!(text.contains(SET.1), "settings env is set ({mode}): {text}");
            // passEnv is for children someone allowed, not for these.
            assert!(!text.contains(PASSED.1), "{mode} {id}: {text}");
            assert_eq!(leaked(&text), Vec::<&str>::new(), "{mode} {id}: {text}");
        }
        // Nothing of it in any request either (catui's key included).
        for r in &reqs {
            assert_eq!(leaked(&r.body.to_string()), Vec::<&str>::new());
        }
    }
}

#[test]
fn approved_and_rule_allowed_commands_see_no_credential_but_what_the_user_passed() {
    let sb = Sandbox::new();
    settings(&sb, json!({}));
    let command = "touch made.txt && env";
    let server = common::mock(
        Script::new()
            .turn(common::bash("a", command))
            .turn(Turn::text("done")),
    );
    // Asked, and approved by the client.
    let mut s = StreamSession::start(catui_with_secrets(&sb, &server), &["--verbose"]);
    s.send_user("run it");
    let ask = s.wait_for("the prompt", |v| {
        v["type"] == "control_request" && v["request"]["subtype"] == "can_use_tool"
    });
    s.send(common::allow(&ask, ask["request"]["input"].clone()));
    s.wait_type("result");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    assert!(sb.project().join("made.txt").exists(), "it ran unconfined");
    let (text, _) = result_of(&server.requests()[1], "a");
    common::assert_contains(&text, "PATH=");
    common::assert_contains(&text, SET.1);
    assert!(
        text.contains(PASSED.1),
        "passEnv reaches an approved command: {text}"
    );
    assert_eq!(leaked(&text), Vec::<&str>::new(), "{text}");

    // Allowed by a rule (`-p`, nobody asked).
    let server = common::mock(
        Script::new()
            .turn(common::bash("r", command))
            .turn(Turn::text("done")),
    );
    let mut cmd = catui_with_secrets(&sb, &server);
    cmd.args(["-p", "run it", "--allowed-tools", "Bash"]);
    let out = output_within(cmd, b"", 60);
    assert_eq!(out.status.code(), Some(0));
    let (text, _) = result_of(&server.requests()[1], "r");
    common::assert_contains(&text, PASSED.1);
    assert_eq!(leaked(&text), Vec::<&str>::new(), "{text}");
}

/// Waits (bounded) for `path` to hold something.
fn read_when_written(path: &Path) -> String {
    for _ in 0..200 {
        if let Ok(text) = std::fs::read_to_string(path)
            && !text.is_empty()
        {
            return text;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("{} was never written", path.display());
}

#[test]
fn hooks_and_mcp_servers_see_no_credential_but_what_the_user_passed() {
    let sb = Sandbox::new();
    let hook_out = sb.dir.path().join("hook-env.txt");
    let mcp_out = sb.dir.path().join("mcp-env.txt");
    settings(
        &sb,
        json!({
            "hooks": {"UserPromptSubmit": [{"hooks": [
                {"type": "command", "command": format!("env > '{}'", hook_out.display())}
            ]}]},
            "mcpServers": {"recorder": {
                "command": "sh",
                "args": ["-c", format!("env > '{}'", mcp_out.display())],
                "env": {"SERVER_OWN": "its-own-value-15"}
            }}
        }),
    );
    let server = common::mock(Script::new().turn(Turn::text("ok")));
    let mut cmd = catui_with_secrets(&sb, &server);
    cmd.args(["-p", "hi"]);
    let out = output_within(cmd, b"", 60);
    common::assert_ok(&out);
    for (who, path) in [("hook", &hook_out), ("MCP server", &mcp_out)] {
        let text = read_when_written(path);
        assert!(text.contains("PATH="), "{who}: {text}");
        assert!(text.contains(SET.1), "{who}: {text}");
        assert!(text.contains(PASSED.1), "{who}: {text}");
        assert_eq!(leaked(&text), Vec::<&str>::new(), "{who}: {text}");
    }
    assert!(read_when_written(&mcp_out).contains("its-own-value-15"));
}

#[test]
fn an_mcp_server_cannot_be_handed_catuis_key_by_expansion() {
    let sb = Sandbox::new();
    let mcp_out = sb.dir.path().join("mcp-env.txt");
    sb.user_settings(
        &json!({"mcpServers": {"greedy": {
            "command": "sh",
            "args": ["-c", format!("env > '{}'", mcp_out.display())],
            "env": {"KEY": "${ANTHROPIC_API_KEY}"}
        }}})
        .to_string(),
    );
    let server = common::mock(Script::new().turn(Turn::text("ok")));
    let mut cmd = catui_with_secrets(&sb, &server);
    cmd.args(["-p", "hi"]);
    let out = output_within(cmd, b"", 60);
    let stderr = common::stderr(&out);
    common::assert_contains(&stderr, "provider key");
    assert!(!mcp_out.exists(), "the server was not started");
}
