//! The broker crate against a real nats-server with JetStream (started on
//! a free loopback port with a temporary store, killed by pid).

use std::time::Duration;

use catui_broker::approvals::{ApprovalAnswer, ApprovalRequest, RequestKind, Verdict};
use catui_broker::{
    AgentState, Approvals, Broker, BrokerConfig, BrokerError, Registry, SessionEntry,
};
use catui_testkit::nats::NatsServer;

fn config(url: &str) -> BrokerConfig {
    BrokerConfig {
        account: "test".into(),
        ..BrokerConfig::new(url)
    }
}

fn request(id: &str, plan_hash: Option<&str>) -> ApprovalRequest {
    ApprovalRequest {
        id: id.into(),
        kind: RequestKind::Plan,
        session_id: "s1".into(),
        host: "h".into(),
        user: "u".into(),
        project: "/p".into(),
        tool: "ExitPlanMode".into(),
        summary: "approve plan /p.md".into(),
        input: serde_json::json!({"plan": "# P"}),
        reason: "plan".into(),
        plan: Some("# P".into()),
        plan_file: Some("/p.md".into()),
        plan_hash: plan_hash.map(str::to_string),
        diff: None,
        agent: None,
        created: catui_broker::approvals::stamp(),
        expires: catui_broker::approvals::expires_after(Duration::from_secs(60)),
    }
}

fn answer(id: &str, verdict: Verdict, by: &str) -> ApprovalAnswer {
    ApprovalAnswer {
        request_id: id.into(),
        plan_hash: Some("h1".into()),
        verdict,
        mode: Some("acceptEdits".into()),
        skip_steps: vec![],
        feedback: None,
        by: by.into(),
        at: catui_broker::approvals::stamp(),
    }
}

#[tokio::test]
async fn an_unreachable_broker_is_a_clear_error_within_the_bound_and_hides_the_password() {
    // A port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("nats://amy:hunter2secret@127.0.0.1:{port}");
    let mut cfg = config(&url);
    cfg.connect_timeout = Duration::from_secs(2);
    let started = std::time::Instant::now();
    let err = Broker::connect(&cfg).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(10), "bounded");
    let text = err.to_string();
    assert!(matches!(err, BrokerError::Unreachable { .. }), "{text}");
    assert!(text.contains("cannot reach the broker"), "{text}");
    assert!(!text.contains("hunter2secret"), "{text}");
    assert!(text.contains("amy:***@127.0.0.1"), "{text}");

    let err = Broker::connect(&config("http://x")).await.unwrap_err();
    assert!(matches!(err, BrokerError::BadUrl(_)), "{err}");
}

#[tokio::test]
async fn sessions_are_listed_and_a_silent_one_turns_failed() {
    let server = NatsServer::start();
    let broker = Broker::connect(&config(&server.url())).await.unwrap();
    let registry = Registry::open(&broker).await.unwrap();
    let mut live = SessionEntry::new("live-1", "headless", "/p", Duration::from_secs(60));
    live.state = AgentState::WaitingForYou;
    registry.put(&live).await.unwrap();
    let mut silent = SessionEntry::new("silent-1", "teammate", "/q", Duration::from_millis(100));
    silent.updated = "2020-01-01T00:00:00.000Z".into();
    registry.put(&silent).await.unwrap();

    let listed = registry.list().await.unwrap();
    let by_id = |id: &str| listed.iter().find(|e| e.session_id == id).unwrap().clone();
    assert_eq!(by_id("live-1").state, AgentState::WaitingForYou);
    let failed = by_id("silent-1");
    assert_eq!(failed.state, AgentState::Failed);
    assert!(failed.detail.unwrap().contains("no heartbeat"));
}

#[tokio::test]
async fn one_answer_applies_and_everything_survives_a_broker_killed_and_restarted() {
    let mut server = NatsServer::start();
    let broker = Broker::connect(&config(&server.url())).await.unwrap();
    let approvals = Approvals::open(&broker).await.unwrap();
    approvals.publish(&request("r1", Some("h1"))).await.unwrap();
    let pending = approvals.list(false).await.unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].request.id, "r1");

    // The waiter is waiting while the broker dies and comes back.
    let waiter = {
        let approvals = approvals.clone();
        tokio::spawn(async move {
            approvals
                .wait_answer("r1", tokio::time::Instant::now() + Duration::from_secs(30))
                .await
        })
    };
    server.kill();
    tokio::time::sleep(Duration::from_millis(300)).await;
    server.restart();

    // Another machine's connection answers after the restart.
    let other = Broker::connect(&config(&server.url())).await.unwrap();
    let other = Approvals::open(&other).await.unwrap();
    assert_eq!(
        other
            .request("r1")
            .await
            .unwrap()
            .unwrap()
            .plan_hash
            .as_deref(),
        Some("h1"),
        "the request survived the restart"
    );
    other
        .answer(&answer("r1", Verdict::Approve, "amy@a"))
        .await
        .unwrap();
    let second = other
        .answer(&answer("r1", Verdict::Reject, "bob@b"))
        .await
        .unwrap_err();
    let text = second.to_string();
    assert!(
        matches!(second, BrokerError::AlreadyAnswered { .. }),
        "{text}"
    );
    assert!(
        text.contains("already answered") && text.contains("approved") && text.contains("amy@a"),
        "{text}"
    );

    let got = waiter
        .await
        .unwrap()
        .expect("the waiting side got the answer");
    assert_eq!(got.verdict, Verdict::Approve);
    assert_eq!(got.by, "amy@a");
    assert!(
        approvals.list(false).await.unwrap().is_empty(),
        "answered requests are not pending"
    );
    assert_eq!(approvals.list(true).await.unwrap().len(), 1);
}
