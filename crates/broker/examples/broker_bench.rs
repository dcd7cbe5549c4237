//! The broker's limits on this machine (docs/SCALE.md, numbers in
//! docs/BENCHMARKS.md): approvals answered per second, sessions the
//! registry lists, and the latency a team message adds over the broker
//! compared with the file mailboxes. Starts its own nats-server (loopback,
//! temporary store, killed when done).
//!
//! `cargo run --release -p catui-broker --example broker_bench [-- APPROVALS SESSIONS MESSAGES]`

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use catui_broker::approvals::{
    ApprovalAnswer, ApprovalRequest, RequestKind, Verdict, expires_after, new_request_id, stamp,
};
use catui_broker::{Approvals, Broker, BrokerConfig, BrokerMailboxes, Registry, SessionEntry};
use catui_core::teams::{MailMessage, MailboxBackend, Mailboxes};
use catui_testkit::nats::NatsServer;

fn arg(n: usize, default: usize) -> usize {
    std::env::args()
        .nth(n)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

fn request(id: &str) -> ApprovalRequest {
    ApprovalRequest {
        id: id.into(),
        kind: RequestKind::Permission,
        session_id: "bench".into(),
        host: "h".into(),
        user: "u".into(),
        project: "/p".into(),
        tool: "Bash".into(),
        summary: "Bash(cargo test)".into(),
        input: serde_json::json!({"command": "cargo test"}),
        reason: "bench".into(),
        plan: None,
        plan_file: None,
        plan_hash: None,
        diff: None,
        agent: None,
        created: stamp(),
        expires: expires_after(Duration::from_secs(600)),
    }
}

fn answer(id: &str) -> ApprovalAnswer {
    ApprovalAnswer {
        request_id: id.into(),
        plan_hash: None,
        verdict: Verdict::Approve,
        mode: None,
        skip_steps: Vec::new(),
        feedback: None,
        by: "bench".into(),
        at: stamp(),
    }
}

/// One approval, whole: published, answered (compare and set), and the
/// answer read back as the waiting run reads it.
async fn one_approval(approvals: &Approvals) {
    let id = new_request_id();
    approvals.publish(&request(&id)).await.unwrap();
    approvals.answer(&answer(&id)).await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    assert!(approvals.wait_answer(&id, deadline).await.is_some());
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

#[tokio::main]
async fn main() {
    let n_approvals = arg(1, 500);
    let n_sessions = arg(2, 5000);
    let n_messages = arg(3, 300);
    let server = NatsServer::start();
    let broker = Broker::connect(&BrokerConfig {
        account: "bench".into(),
        ..BrokerConfig::new(server.url())
    })
    .await
    .unwrap();

    // Approvals, one after another, then 16 at a time.
    let approvals = Arc::new(Approvals::open(&broker).await.unwrap());
    let start = Instant::now();
    for _ in 0..n_approvals {
        one_approval(&approvals).await;
    }
    let serial = n_approvals as f64 / start.elapsed().as_secs_f64();
    let start = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..16 {
        let approvals = approvals.clone();
        tasks.push(tokio::spawn(async move {
            for _ in 0..n_approvals / 16 {
                one_approval(&approvals).await;
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let parallel = (n_approvals / 16 * 16) as f64 / start.elapsed().as_secs_f64();
    println!(
        "approvals: {serial:.0}/s one at a time, {parallel:.0}/s 16 at a time ({n_approvals} each)"
    );

    // The registry: N sessions written, then listed as `catui agents` does.
    let registry = Registry::open(&broker).await.unwrap();
    let start = Instant::now();
    let mut tasks = Vec::new();
    for chunk in 0..16 {
        let registry = registry.clone();
        tasks.push(tokio::spawn(async move {
            for i in (chunk..n_sessions).step_by(16) {
                let entry = SessionEntry::new(
                    &format!("s{i:06}"),
                    "headless",
                    "/p",
                    Duration::from_secs(600),
                );
                registry.put(&entry).await.unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let puts = n_sessions as f64 / start.elapsed().as_secs_f64();
    let start = Instant::now();
    let listed = registry.list().await.unwrap().len();
    let list_time = start.elapsed();
    println!(
        "registry: {n_sessions} sessions written at {puts:.0}/s; listing {listed} took {:.0} ms",
        list_time.as_secs_f64() * 1e3
    );

    // A team message: appended by one member, taken by the reader of the
    // inbox (woken by its arrival), over the broker and over files.
    let mail = BrokerMailboxes::open(&broker).await.unwrap();
    let wake = mail.arrivals("bench", "reader").unwrap();
    let _ = mail.take_unread("bench", "reader").unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut over_broker = Vec::with_capacity(n_messages);
    for i in 0..n_messages {
        let start = Instant::now();
        mail.append(
            "bench",
            "reader",
            MailMessage::new("writer", format!("m{i}")),
        )
        .unwrap();
        loop {
            let got = mail.take_unread("bench", "reader").unwrap();
            if !got.is_empty() {
                break;
            }
            let _ = tokio::time::timeout(Duration::from_millis(50), wake.notified()).await;
        }
        over_broker.push(start.elapsed());
    }
    over_broker.sort();
    let dir = tempfile::tempdir().unwrap();
    let files = Mailboxes::new(dir.path());
    MailboxBackend::create_team(&files, "bench").unwrap();
    let mut over_files = Vec::with_capacity(n_messages);
    for i in 0..n_messages {
        let start = Instant::now();
        files
            .append(
                "bench",
                "reader",
                MailMessage::new("writer", format!("m{i}")),
            )
            .unwrap();
        assert_eq!(
            files.read_unread_and_mark("bench", "reader").unwrap().len(),
            1
        );
        over_files.push(start.elapsed());
    }
    over_files.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "mailbox message, append to taken ({n_messages}): broker median {:.2} ms p95 {:.2} ms; files median {:.2} ms p95 {:.2} ms",
        ms(percentile(&over_broker, 0.5)),
        ms(percentile(&over_broker, 0.95)),
        ms(percentile(&over_files, 0.5)),
        ms(percentile(&over_files, 0.95)),
    );
    broker.flush().await;
    drop(server);
}
