//! Sending encoded OTLP requests to the collector, in the background:
//! one task posts them in order (each bounded by the configured timeout),
//! so no turn ever waits for the network. The first failure is reported
//! once — on stderr, or as a notification while the terminal UI runs — and
//! later ones are not: a collector that is down must not flood the user.
//! A report names the collector's address and the reason, never a header.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use catui_core::engine::EngineEvent;
use tokio::sync::mpsc::{UnboundedReceiver, WeakUnboundedSender};

use super::config::{Config, shown_origin};

/// One request to send.
pub enum Job {
    Traces(Vec<u8>),
    Metrics(Vec<u8>),
}

/// Posts every job of `jobs` until the channel closes.
pub async fn run(
    config: Arc<Config>,
    mut jobs: UnboundedReceiver<Job>,
    front_end: Option<WeakUnboundedSender<EngineEvent>>,
) {
    let Ok(client) = reqwest::Client::builder()
        .timeout(config.timeout)
        .default_headers(config.headers.clone())
        .build()
    else {
        let why = "telemetry is off: its HTTP client could not start";
        report(front_end.as_ref(), why.into());
        return;
    };
    let reported = AtomicBool::new(false);
    while let Some(job) = jobs.recv().await {
        let (url, body) = match job {
            Job::Traces(body) => (&config.traces_url, body),
            Job::Metrics(body) => (&config.metrics_url, body),
        };
        let sent = client
            .post(url.as_str())
            .header("content-type", "application/x-protobuf")
            .body(body)
            .send()
            .await;
        let why = match sent {
            Ok(r) if r.status().is_success() => continue,
            Ok(r) => format!("HTTP status {}", r.status().as_u16()),
            Err(e) if e.is_timeout() => format!("no answer within {:?}", config.timeout),
            Err(e) if e.is_connect() => "could not connect".into(),
            Err(_) => "the request failed".into(),
        };
        if !reported.swap(true, Ordering::Relaxed) {
            report(
                front_end.as_ref(),
                format!(
                    "telemetry: could not export to {} ({why}); further failures are not reported",
                    shown_origin(url)
                ),
            );
        }
    }
}

/// Tells the user: as a notification while a full-screen front end
/// listens, else on stderr.
fn report(front_end: Option<&WeakUnboundedSender<EngineEvent>>, text: String) {
    tracing::warn!("{text}");
    let event = EngineEvent::Notification {
        key: "telemetry".into(),
        text,
    };
    let unsent = match front_end.and_then(|f| f.upgrade()) {
        Some(tx) => tx.send(event).err().map(|e| e.0),
        None => Some(event),
    };
    if let Some(EngineEvent::Notification { text, .. }) = unsent {
        eprintln!("catui: {text}");
    }
}
