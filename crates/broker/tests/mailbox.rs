//! Team mailboxes on a real nats-server (loopback, temporary store, killed
//! by pid): a message sent while its reader is away and the broker is
//! killed and restarted is delivered once; secrets never reach the broker.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use catui_broker::{Broker, BrokerConfig, BrokerMailboxes};
use catui_core::session::redact::Redactor;
use catui_core::teams::{MailMessage, MailboxBackend};
use catui_testkit::nats::NatsServer;

fn config(url: &str) -> BrokerConfig {
    BrokerConfig {
        account: "test".into(),
        ..BrokerConfig::new(url)
    }
}

/// Takes from `inbox` until `n` messages came or 20 s passed.
async fn take(mail: &BrokerMailboxes, name: &str, n: usize) -> Vec<MailMessage> {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut got = Vec::new();
    while got.len() < n && Instant::now() < deadline {
        got.extend(mail.take_unread("core", name).unwrap());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    got
}

#[tokio::test]
async fn a_message_survives_a_restart_is_delivered_once_and_is_redacted() {
    let mut server = NatsServer::start();
    let sender = Broker::connect(&config(&server.url())).await.unwrap();
    let outbox = BrokerMailboxes::open_redacting(&sender, Redactor::new(["sk-test-0123456789"]))
        .await
        .unwrap();
    outbox
        .append(
            "core",
            "amy",
            MailMessage::new("team-lead", "use key sk-test-0123456789 for the test"),
        )
        .unwrap();
    // Published before the broker dies (the outbox retries in the
    // background; wait for the stream to hold it).
    tokio::time::sleep(Duration::from_millis(500)).await;
    server.kill();
    tokio::time::sleep(Duration::from_millis(300)).await;
    server.restart();

    // Amy's machine reads her inbox after the restart.
    let reader = Broker::connect(&config(&server.url())).await.unwrap();
    let inbox = BrokerMailboxes::open_redacting(&reader, Redactor::default())
        .await
        .unwrap();
    let got = take(&inbox, "amy", 1).await;
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].from, "team-lead");
    assert_eq!(got[0].text, "use key [REDACTED] for the test");

    // A second message arrives; nothing is handed out twice.
    outbox
        .append("core", "amy", MailMessage::new("bob", "second"))
        .unwrap();
    let got = take(&inbox, "amy", 2).await;
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].text, "second");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(inbox.take_unread("core", "amy").unwrap().is_empty());
}
