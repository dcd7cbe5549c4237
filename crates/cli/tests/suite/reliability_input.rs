//! Reliability of what catui reads before and between turns, through the
//! real binary: broken stream-json input lines and hostile settings files
//! never end a session silently nor drop a deny rule.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{MockServer, Script, Turn};
use common::{Sandbox, output_within};

#[test]
fn a_line_of_invalid_utf8_is_that_lines_error_not_the_sessions_end() {
    let (sb, server) = common::with_mock(Script::new().turn(Turn::text("still here")));
    let mut s = sb.stream(&server, &[]);
    s.wait_type("system");
    // A user message with one byte that is not UTF-8 in its text.
    s.send_raw(b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"caf\xe9\"}}\n");
    let note = s.wait_for("the invalid_input notification", |v| {
        v["subtype"] == "notification" && v["key"] == "invalid_input"
    });
    let text = note["text"].as_str().unwrap();
    assert!(text.contains("line 1") && text.contains("UTF-8"), "{text}");
    s.send_user("are you there?");
    let result = s.wait_type("result");
    assert_eq!(result["is_error"], false, "{result}");
    assert_eq!(result["result"], "still here");
    let (exit, _) = s.finish();
    assert_eq!(exit, 0);
    // Only the valid line reached the model.
    assert_eq!(server.requests().len(), 1);
    assert_eq!(
        server.requests()[0].last_user_typed().unwrap_or_default(),
        "are you there?"
    );
}

/// Whether any request sent to the model contains `needle`.
fn model_saw(server: &MockServer, needle: &str) -> bool {
    server
        .requests()
        .iter()
        .any(|r| r.body.to_string().contains(needle))
}

#[test]
fn a_settings_file_with_one_bad_value_still_denies_what_it_denies() {
    let sb = Sandbox::new();
    let settings = sb.write(
        ".catui/settings.json",
        r#"{"model": 5, "permissions": {"deny": ["Read(./.env)"]}}"#,
    );
    let env = sb.write(".env", "API_TOKEN=hunter2-secret\n");
    let server = common::mock(
        Script::new()
            .turn(common::read("r1", env.to_str().unwrap()))
            .turn(Turn::text("could not read it")),
    );
    let mut s = sb.stream(&server, &[]);
    let init = s.wait_type("system");
    assert_eq!(init["subtype"], "init", "{init}");
    let warnings = init["settings_warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{init}");
    let warning = warnings[0].as_str().unwrap();
    assert!(
        warning.contains(&settings.display().to_string())
            && warning.contains("`model`")
            && warning.contains("deny/ask rule still applies"),
        "{warning}"
    );
    let note = s.wait_for("the settings notification", |v| {
        v["subtype"] == "notification" && v["key"] == "settings"
    });
    assert_eq!(note["text"], warning);
    s.send_user("show me .env");
    let result = s.wait_type("result");
    assert_eq!(result["result"], "could not read it", "{result}");
    let (exit, _) = s.finish();
    assert_eq!(exit, 0);
    let (text, is_error) = common::result_of(&server.requests()[1], "r1");
    assert!(is_error && text.contains("Read(./.env)"), "{text}");
    assert!(
        !model_saw(&server, "hunter2-secret"),
        "the secret reached the model"
    );
}

#[test]
fn a_settings_file_that_cannot_be_read_makes_every_call_ask_and_never_hangs() {
    let sb = Sandbox::new();
    sb.write(".env", "API_TOKEN=hunter2-secret\n");
    let readme = sb.write("README.md", "readme-marker-7f3a\n");
    // `--settings` at a FIFO nobody writes to, and the project's settings
    // a symlink to /dev/zero: neither is opened, neither can hang.
    let fifo = sb.project().join("settings.fifo");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::create_dir_all(sb.project().join(".catui")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", sb.project().join(".catui/settings.json")).unwrap();
    let server = common::mock(
        Script::new()
            .turn(common::read("r1", readme.to_str().unwrap()))
            .turn(Turn::text("done")),
    );
    let mut cmd = sb.catui(&server);
    cmd.args([
        "-p",
        "read the readme",
        "--settings",
        fifo.to_str().unwrap(),
        "--permission-mode",
        "bypassPermissions",
    ]);
    let out = output_within(cmd, b"", 60);
    let stderr = common::stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    for what in ["a FIFO", "character device"] {
        assert!(
            stderr.contains(what) && stderr.contains("every tool call asks first"),
            "{what}: {stderr}"
        );
    }
    // Nobody can answer in `-p`: even in bypassPermissions the read is
    // refused, with what to fix.
    let (text, is_error) = common::result_of(&server.requests()[1], "r1");
    assert!(is_error && text.contains("could not be applied"), "{text}");
    assert!(
        !model_saw(&server, "readme-marker-7f3a"),
        "the file was read"
    );
}
