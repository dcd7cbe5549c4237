//! The broker goes away mid-session, through the real binary and a real
//! nats-server: the session says so, goes on answering locally, says when
//! the broker is back, and is listed again (`catui agents`) once it has
//! reconnected. Nothing of the session is printed with credentials: the
//! broker's URL carries a user and password, which never appear in the
//! session's output, its stderr or `catui agents`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::{Duration, Instant};

use catui_testkit::nats::NatsServer;
use catui_testkit::{Script, Turn};
use common::{Sandbox, StreamSession, last_user};
use serde_json::Value;

#[test]
fn a_session_goes_on_while_the_broker_is_away_and_reconnects() {
    let mut broker = NatsServer::start();
    let sb = Sandbox::new();
    let model = common::mock(
        Script::new()
            .turn(Turn::text("First answer.").when(|r| last_user(r).contains("first")))
            .turn(
                Turn::text("Answered while the broker was away.")
                    .when(|r| last_user(r).contains("second")),
            )
            .turn(Turn::text("Third answer.").when(|r| last_user(r).contains("third"))),
    );
    // A user and password in the URL (the server has no accounts, so it
    // takes them): they go to the NATS client only.
    let url = broker.url().replace("nats://", "nats://alice:s3cret-pw@");
    let mut cmd = sb.catui(&model);
    cmd.env("CATUI_HOST", "machine-a")
        .env("CATUI_BROKER", &url)
        .env("CATUI_BROKER_HEARTBEAT_MS", "300");
    let mut s = StreamSession::start(cmd, &[]);
    let init = s.wait_for("init", |v| v["type"] == "system" && v["subtype"] == "init");
    let session_id = init["session_id"].as_str().unwrap().to_string();
    s.send_user("first");
    assert_eq!(s.wait_type("result")["result"], "First answer.");

    let listed = |state: &str| {
        let mut agents = sb.bare();
        agents.env("CATUI_BROKER", &url).args(["agents", "--json"]);
        let out = common::output_within(agents, b"", 30);
        for bytes in [&out.stdout, &out.stderr] {
            assert!(
                !String::from_utf8_lossy(bytes).contains("s3cret-pw"),
                "a password in catui agents"
            );
        }
        let list: Vec<Value> = serde_json::from_slice(&out.stdout).ok()?;
        list.into_iter()
            .find(|e| e["session_id"] == session_id.as_str() && e["state"] == state)
    };
    common::eventually("the session listed idle", || listed("idle"));

    // The broker dies: the session says so and goes on.
    broker.kill();
    let gone = s.wait_for("the notice that the broker is gone", |v| {
        v["type"] == "system" && v["key"] == "broker"
    });
    let text = gone["text"].as_str().unwrap();
    assert!(
        text.contains("unreachable") && text.contains("goes on locally"),
        "{text}"
    );
    s.send_user("second");
    assert_eq!(
        s.wait_type("result")["result"],
        "Answered while the broker was away."
    );

    // It comes back: the session says so and is listed again.
    broker.restart();
    let back = s.wait_for("the notice that the broker is back", |v| {
        v["type"] == "system" && v["key"] == "broker"
    });
    assert!(
        back["text"].as_str().unwrap().contains("reconnected"),
        "{back}"
    );
    s.send_user("third");
    assert_eq!(s.wait_type("result")["result"], "Third answer.");
    let entry = common::eventually("the session listed again", || listed("idle"));
    assert_eq!(entry["host"], "machine-a");
    let mut table = sb.bare();
    table.env("CATUI_BROKER", &url).arg("agents");
    let out = common::output_within(table, b"", 30);
    let shown = common::stdout(&out);
    assert!(shown.contains(&session_id[..8]), "{shown}");
    assert!(!shown.contains("s3cret-pw"), "{shown}");

    let (code, seen) = s.finish();
    assert_eq!(code, 0);
    let printed = serde_json::to_string(&seen).unwrap();
    assert!(
        printed.contains("nats://alice:***@127.0.0.1:"),
        "the URL is shown without its password"
    );
    for secret in ["s3cret-pw"] {
        if let Some(at) = printed.find(secret) {
            panic!(
                "{secret} printed: {}",
                &printed[at.saturating_sub(300)..(at + 100).min(printed.len())]
            );
        }
    }
    for transcript in sb.transcripts() {
        let text = std::fs::read_to_string(&transcript).unwrap();
        assert!(!text.contains("s3cret-pw"), "{}", transcript.display());
    }
}
