//! `--permission-mode auto` and the `autoMode.enabled` opt-in, through the
//! real binary.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use catui_testkit::{MockServer, Script, Turn};
use common::Sandbox;

#[test]
fn auto_without_the_opt_in_is_a_usage_error() {
    let sb = Sandbox::new();
    let server = MockServer::start_blocking(Script::new().turn(Turn::text("unused"))).unwrap();
    let out = sb
        .catui(&server)
        .args(["-p", "hi", "--permission-mode", "auto"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("auto mode is not enabled"), "{err}");
    assert!(err.contains("\"autoMode\": {\"enabled\": true}"), "{err}");
    assert!(server.requests().is_empty(), "no model request was made");
}

#[test]
fn auto_with_the_opt_in_starts() {
    let sb = Sandbox::new();
    sb.write(".catui/settings.json", r#"{"autoMode": {"enabled": true}}"#);
    let server =
        MockServer::start_blocking(Script::new().turn(Turn::text("running in auto"))).unwrap();
    let out = sb
        .catui(&server)
        .args(["-p", "hi", "--permission-mode", "auto"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "running in auto"
    );
}
