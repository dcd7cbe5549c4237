//! The scheduling of the status line command with a real `sh`: its line
//! shown, no second run while one is going or the session is unchanged,
//! a failure said once.

use std::time::{Duration, Instant};

use catui_core::status_line::StatusLineCommand;
use catui_protocol::PermissionMode;

use super::*;
use crate::state::SessionInfo;
use crate::transcript::EntryKind;

fn state(cwd: &std::path::Path) -> AppState {
    AppState::new(
        SessionInfo {
            model: "test-model".into(),
            cwd: cwd.display().to_string(),
            session_id: "s1".into(),
            ..Default::default()
        },
        PermissionMode::Plan,
    )
}

fn command(text: &str, cwd: &std::path::Path) -> StatusCommand {
    StatusCommand::new(StatusLineCommand::new(text, cwd, Default::default()))
}

/// Polls as the frame tick does until `done` holds.
async fn poll_until(
    status: &mut StatusCommand,
    state: &mut AppState,
    done: impl Fn(&AppState) -> bool,
) {
    let start = Instant::now();
    while !done(state) {
        assert!(start.elapsed() < Duration::from_secs(20), "never happened");
        status.poll(state, Instant::now());
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn errors(state: &AppState) -> usize {
    state
        .transcript
        .entries()
        .iter()
        .filter(|e| matches!(&e.kind, EntryKind::System { text, .. } if text.contains("status line command failed")))
        .count()
}

#[test]
fn the_json_carries_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = state(dir.path());
    s.plan_file = Some("/home/u/.catui/plans/quiet-river.md".into());
    s.cost_usd = 0.25;
    s.usage.input_tokens = 1200;
    s.usage.output_tokens = 34;
    let v: serde_json::Value = serde_json::from_str(&session_json(&s, Some("main"))).unwrap();
    assert_eq!(v["model"]["id"], "test-model");
    assert_eq!(v["permission_mode"], "plan");
    assert_eq!(v["plan"]["slug"], "quiet-river");
    assert_eq!(v["cost"]["total_cost_usd"], 0.25);
    assert_eq!(v["tokens"]["total"], 1234);
    assert_eq!(v["git_branch"], "main");
    assert_eq!(v["cwd"], dir.path().display().to_string());
}

#[tokio::test]
async fn the_line_is_shown_and_an_unchanged_session_is_not_run_again() {
    let dir = tempfile::tempdir().unwrap();
    let count = dir.path().join("runs");
    let mut s = state(dir.path());
    let mut status = command(
        &format!(
            "echo run >> '{}'; grep -o '\"permission_mode\":\"[a-zA-Z]*\"'",
            count.display()
        ),
        dir.path(),
    );
    poll_until(&mut status, &mut s, |s| s.custom_status.is_some()).await;
    assert_eq!(
        s.custom_status.as_deref(),
        Some(r#""permission_mode":"plan""#)
    );
    // Nothing changed: polling on runs nothing more.
    for _ in 0..40 {
        status.poll(&mut s, Instant::now());
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(std::fs::read_to_string(&count).unwrap().lines().count(), 1);
    s.mode = PermissionMode::AcceptEdits;
    poll_until(&mut status, &mut s, |s| {
        s.custom_status.as_deref() == Some(r#""permission_mode":"acceptEdits""#)
    })
    .await;
}

#[tokio::test]
async fn a_failure_is_said_once_and_the_built_in_line_returns() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let mut s = state(dir.path());
    let mut status = command(
        &format!(
            "echo run >> '{}'; echo broken-theme >&2; exit 2",
            runs.display()
        ),
        dir.path(),
    );
    s.custom_status = Some("stale".into());
    poll_until(&mut status, &mut s, |s| errors(s) == 1).await;
    assert_eq!(s.custom_status, None);
    let said = s.transcript.entries().last().unwrap();
    assert!(
        matches!(&said.kind, EntryKind::System { text, .. } if text.contains("status 2: broken-theme")),
        "{:?}",
        said.kind
    );
    // The session changes, the command runs and fails again: not said.
    s.mode = PermissionMode::Default;
    poll_until(&mut status, &mut s, |_| {
        std::fs::read_to_string(&runs).is_ok_and(|t| t.lines().count() == 2)
    })
    .await;
    let start = Instant::now();
    while status.running.is_some() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the run never ended"
        );
        status.poll(&mut s, Instant::now());
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(errors(&s), 1);
}
