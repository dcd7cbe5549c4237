#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::tools::registry::ToolSource;
use config::Source;
use serde_json::json;

fn manager(servers: serde_json::Value, source: Source, dir: &Path) -> McpManager {
    let (specs, errors) = config::parse_servers(&servers, &source, "test");
    assert!(errors.is_empty(), "{errors:?}");
    McpManager::new(
        specs,
        dir,
        &dir.join("home"),
        HashMap::new(),
        Default::default(),
        &|_: &ServerSpec| None,
    )
}

#[tokio::test]
async fn a_server_stuck_in_its_handshake_is_arriving_until_its_startup_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let mcp = manager(
        json!({"stuck": {"command": "sleep", "args": ["30"], "startupTimeoutMs": 300}}),
        Source::Flag,
        dir.path(),
    );
    let (events, mut received) = tokio::sync::mpsc::unbounded_channel();
    mcp.set_events(&events);
    assert!(mcp.arriving().is_empty(), "nothing arrives before start");
    let changed = ToolSource::changed(&mcp);
    mcp.start();
    let arriving = mcp.arriving();
    assert_eq!(arriving.len(), 1);
    assert_eq!(arriving[0].what, "MCP server `stuck`");
    assert!(arriving[0].until <= Instant::now() + Duration::from_millis(300));
    // Starting it was a change.
    tokio::time::timeout(Duration::from_secs(1), changed)
        .await
        .unwrap();

    let mut failed = None;
    let deadline = Instant::now() + Duration::from_secs(10);
    while failed.is_none() {
        assert!(Instant::now() < deadline, "the timeout never fired");
        let changed = ToolSource::changed(&mcp);
        if let State::Failed(why) = &mcp.status()[0].state {
            failed = Some(why.clone());
        } else {
            let _ = tokio::time::timeout(Duration::from_secs(1), changed).await;
        }
    }
    let why = failed.unwrap();
    assert!(
        why.contains("did not finish starting within 300 ms"),
        "{why}"
    );
    assert!(mcp.arriving().is_empty());
    // The failure is said even to a quiet front end.
    let mut advised = false;
    while let Ok(event) = received.try_recv() {
        if let EngineEvent::Advice { key, text } = event {
            advised |= key == "mcp" && text.contains("`stuck`") && text.contains("300 ms");
        }
    }
    assert!(advised, "the failure was not reported");
}

#[tokio::test]
async fn servers_not_being_started_are_not_waited_for() {
    let dir = tempfile::tempdir().unwrap();
    // A project's server nobody approved, and one switched off.
    let mcp = manager(
        json!({"held": {"command": "sleep", "args": ["30"]}}),
        Source::Project(dir.path().join(".mcp.json")),
        dir.path(),
    );
    mcp.start();
    assert_eq!(mcp.status()[0].state, State::NeedsApproval);
    assert!(mcp.arriving().is_empty());

    let other = manager(
        json!({"off": {"command": "sleep", "args": ["30"]}}),
        Source::Flag,
        dir.path(),
    );
    other.start();
    assert_eq!(other.arriving().len(), 1);
    other.set_enabled("off", false).unwrap();
    assert!(other.arriving().is_empty());
    assert_eq!(other.status()[0].state, State::Disabled);
    other.shutdown().await;
}

#[test]
fn durations_read_naturally() {
    assert_eq!(describe_duration(Duration::from_millis(250)), "250 ms");
    assert_eq!(describe_duration(Duration::from_secs(30)), "30 s");
    assert_eq!(describe_duration(Duration::from_millis(1500)), "1.5 s");
}
