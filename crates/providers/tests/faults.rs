//! Failures over real HTTP: retried statuses, retry-after, dropped and
//! truncated streams, auth and request errors, giving up, idle timeouts,
//! stream error events, malformed SSE and cancellation.
#![allow(clippy::unwrap_used)]

mod common;

use std::time::{Duration, Instant};

use catui_protocol::{ModelEvent, ModelResponse};
use catui_providers::{ProviderConfig, ProviderError, ProviderKind, client_for};
use catui_testkit::{MockServer, Script, Turn};
use common::{Events, KEY, config, request};
use tokio_util::sync::CancellationToken;

async fn run_with(
    config: ProviderConfig,
    cancel: &CancellationToken,
) -> (Result<ModelResponse, ProviderError>, Events) {
    let client = client_for(config).unwrap();
    let events = Events::default();
    let sink = events.sink();
    let result = client.stream(&request("hello"), &sink, cancel).await;
    (result, events)
}

async fn run(
    server: &MockServer,
    kind: ProviderKind,
) -> (Result<ModelResponse, ProviderError>, Events) {
    run_with(config(kind, server), &CancellationToken::new()).await
}

fn script(turns: Vec<Turn>) -> Script {
    Script::from(turns)
}

#[tokio::test]
async fn overloaded_twice_then_success() {
    for kind in common::ALL_KINDS {
        let server = MockServer::start(script(vec![
            Turn::error_status(529, "Overloaded"),
            Turn::error_status(529, "Overloaded"),
            Turn::text("finally here"),
        ]))
        .await
        .unwrap();
        let (result, events) = run(&server, kind).await;
        assert_eq!(result.unwrap().message.text(), "finally here", "{kind:?}");
        assert_eq!(server.requests().len(), 3);
        let retries = events.retries();
        assert_eq!(retries.iter().map(|r| r.0).collect::<Vec<_>>(), [2, 3]);
        let reason = events.all().iter().find_map(|e| match e {
            ModelEvent::Retrying { reason, .. } => Some(reason.clone()),
            _ => None,
        });
        assert!(reason.unwrap().contains("529"));
    }
}

#[tokio::test]
async fn retry_after_is_honoured() {
    let server = MockServer::start(script(vec![
        Turn::error_status(429, "rate limited").retry_after(1),
        Turn::text("ok"),
    ]))
    .await
    .unwrap();
    let mut c = config(ProviderKind::Anthropic, &server);
    c.retry_max_delay = Duration::from_secs(5);
    let started = Instant::now();
    let (result, events) = run_with(c, &CancellationToken::new()).await;
    assert!(result.is_ok());
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(events.retries(), [(2, 1000)]);
    let reqs = server.requests();
    assert!(reqs[1].received_at.duration_since(reqs[0].received_at) >= Duration::from_millis(900));
}

#[tokio::test]
async fn dropped_stream_then_success_discards_the_partial_answer() {
    for kind in common::ALL_KINDS {
        // Break after some text deltas (the Responses API opens an item and
        // a content part first).
        let drop_after = match kind {
            ProviderKind::OpenAiResponses => 7,
            _ => 5,
        };
        let server = MockServer::start(script(vec![
            Turn::text("this answer breaks off midway through").drop_after_events(drop_after),
            Turn::text("complete answer"),
        ]))
        .await
        .unwrap();
        let (result, events) = run(&server, kind).await;
        assert_eq!(
            result.unwrap().message.text(),
            "complete answer",
            "{kind:?}"
        );
        assert_eq!(server.requests().len(), 2);
        assert_eq!(events.retries().len(), 1);
        assert!(
            events.text_deltas() > 2,
            "the broken attempt streamed text first"
        );
        assert_eq!(events.text_since_last_retry(), "complete answer");
    }
}

#[tokio::test]
async fn stream_that_ends_early_is_stream_ended_and_retried() {
    for kind in common::ALL_KINDS {
        let server = MockServer::start(script(vec![
            Turn::text("a b c d").end_after_events(3),
            Turn::text("whole"),
        ]))
        .await
        .unwrap();
        let (result, _) = run(&server, kind).await;
        assert_eq!(result.unwrap().message.text(), "whole");

        let server = MockServer::start(script(vec![Turn::text("a b c d").end_after_events(3)]))
            .await
            .unwrap();
        let mut c = config(kind, &server);
        c.max_attempts = 1;
        let (result, _) = run_with(c, &CancellationToken::new()).await;
        assert!(
            matches!(result, Err(ProviderError::StreamEnded)),
            "{kind:?}: {result:?}"
        );
    }
}

#[tokio::test]
async fn unauthorized_is_not_retried_and_names_the_key_variable() {
    for (kind, var) in [
        (ProviderKind::Anthropic, "ANTHROPIC_API_KEY"),
        (ProviderKind::OpenAi, "OPENAI_API_KEY"),
        (ProviderKind::OpenAiResponses, "OPENAI_API_KEY"),
    ] {
        let server = MockServer::start(script(vec![
            Turn::error_status(401, format!("invalid x-api-key {KEY}")),
            Turn::text("never"),
        ]))
        .await
        .unwrap();
        let (result, events) = run(&server, kind).await;
        let err = result.unwrap_err();
        assert!(
            matches!(err, ProviderError::Auth { status: 401, .. }),
            "{err:?}"
        );
        let text = err.to_string();
        assert!(text.contains(var), "{text}");
        assert!(
            !text.contains(KEY),
            "the key must never appear in errors: {text}"
        );
        assert_eq!(server.requests().len(), 1);
        assert!(events.retries().is_empty());
    }
}

#[tokio::test]
async fn bad_request_message_is_shown_as_is() {
    let message =
        "max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens";
    let server = MockServer::start(script(vec![Turn::error_status(400, message)]))
        .await
        .unwrap();
    let (result, _) = run(&server, ProviderKind::Anthropic).await;
    match result.unwrap_err() {
        ProviderError::Http {
            status, message: m, ..
        } => {
            assert_eq!(status, 400);
            assert_eq!(m, message);
        }
        other => panic!("expected Http, got {other:?}"),
    }
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn retries_are_exhausted_after_max_attempts() {
    let server = MockServer::start(script(vec![
        Turn::error_status(503, "upstream unavailable"),
        Turn::error_status(503, "upstream unavailable"),
        Turn::error_status(503, "upstream unavailable"),
        Turn::text("too late"),
    ]))
    .await
    .unwrap();
    let mut c = config(ProviderKind::OpenAi, &server);
    c.max_attempts = 3;
    let (result, events) = run_with(c, &CancellationToken::new()).await;
    let err = result.unwrap_err();
    let text = err.to_string();
    match err {
        ProviderError::RetriesExhausted { attempts, last } => {
            assert_eq!(attempts, 3);
            assert!(matches!(*last, ProviderError::Http { status: 503, .. }));
        }
        other => panic!("expected RetriesExhausted, got {other:?}"),
    }
    assert!(
        text.contains("503")
            && text.contains("upstream unavailable")
            && text.contains("3 attempts"),
        "{text}"
    );
    assert_eq!(server.requests().len(), 3);
    assert_eq!(events.retries().len(), 2);
}

#[tokio::test]
async fn default_policy_makes_eight_attempts_and_reports_the_exhausted_script() {
    let server = MockServer::start(Script::new()).await.unwrap();
    let (result, _) = run(&server, ProviderKind::Anthropic).await;
    let text = result.unwrap_err().to_string();
    assert!(
        text.contains("500")
            && text.contains("mock script exhausted")
            && text.contains("8 attempts"),
        "{text}"
    );
    assert_eq!(server.requests().len(), 8);
}

#[tokio::test]
async fn idle_stream_times_out_and_is_retried() {
    let server = MockServer::start(script(vec![
        Turn::text("slow words arrive here").chunk_delay(Duration::from_secs(5)),
        Turn::text("fast"),
    ]))
    .await
    .unwrap();
    let mut c = config(ProviderKind::Anthropic, &server);
    c.idle_timeout = Duration::from_millis(150);
    let (result, events) = run_with(c.clone(), &CancellationToken::new()).await;
    assert_eq!(result.unwrap().message.text(), "fast");
    let reason = events.all().iter().find_map(|e| match e {
        ModelEvent::Retrying { reason, .. } => Some(reason.clone()),
        _ => None,
    });
    assert!(reason.unwrap().contains("no data from the model"));

    let server = MockServer::start(script(vec![Turn::text("x").delay(Duration::from_secs(5))]))
        .await
        .unwrap();
    let mut c = config(ProviderKind::OpenAi, &server);
    c.idle_timeout = Duration::from_millis(150);
    c.max_attempts = 1;
    let (result, _) = run_with(c, &CancellationToken::new()).await;
    assert!(
        matches!(result, Err(ProviderError::IdleTimeout { .. })),
        "{result:?}"
    );
}

#[tokio::test]
async fn stream_error_events() {
    // Overloaded inside the stream: retried.
    let server = MockServer::start(script(vec![
        Turn::stream_error("overloaded_error", "Overloaded"),
        Turn::text("ok"),
    ]))
    .await
    .unwrap();
    let (result, _) = run(&server, ProviderKind::Anthropic).await;
    assert_eq!(result.unwrap().message.text(), "ok");
    assert_eq!(server.requests().len(), 2);

    // A request error inside the stream: shown as is, not retried.
    for kind in common::ALL_KINDS {
        let server = MockServer::start(script(vec![
            Turn::stream_error("invalid_request_error", "prompt is too long"),
            Turn::text("never"),
        ]))
        .await
        .unwrap();
        let (result, _) = run(&server, kind).await;
        match result.unwrap_err() {
            ProviderError::StreamError {
                kind: k, message, ..
            } => {
                assert_eq!(k, "invalid_request_error");
                assert_eq!(message, "prompt is too long");
            }
            other => panic!("{kind:?}: expected StreamError, got {other:?}"),
        }
        assert_eq!(server.requests().len(), 1);
    }
}

#[tokio::test]
async fn malformed_sse_is_a_clear_error() {
    for kind in common::ALL_KINDS {
        let server = MockServer::start(script(vec![Turn::malformed_sse()]))
            .await
            .unwrap();
        let (result, _) = run(&server, kind).await;
        let err = result.unwrap_err();
        assert!(
            matches!(err, ProviderError::Malformed(_)),
            "{kind:?}: {err:?}"
        );
        assert!(err.to_string().contains("not JSON"), "{err}");
    }
}

#[tokio::test]
async fn connection_refused_is_retried_then_reported() {
    // Bind and drop a listener to get a loopback port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut c = ProviderConfig::new(
        ProviderKind::OpenAi,
        format!("http://127.0.0.1:{port}/v1"),
        "",
    );
    c.retry_base_delay = Duration::from_millis(1);
    c.retry_max_delay = Duration::from_millis(5);
    c.max_attempts = 2;
    let (result, events) = run_with(c, &CancellationToken::new()).await;
    let err = result.unwrap_err();
    assert!(
        matches!(&err, ProviderError::RetriesExhausted { last, .. } if matches!(**last, ProviderError::Connection { .. })),
        "{err:?}"
    );
    assert!(
        err.to_string().contains(&format!("127.0.0.1:{port}")),
        "{err}"
    );
    assert_eq!(events.retries().len(), 1);
}

/// Cancels `after` from now.
fn cancel_after(after: Duration) -> CancellationToken {
    let token = CancellationToken::new();
    let t = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(after).await;
        t.cancel();
    });
    token
}

#[tokio::test]
async fn cancellation_stops_waiting_for_the_response() {
    let server = MockServer::start(script(vec![
        Turn::text("late").delay(Duration::from_secs(30)),
    ]))
    .await
    .unwrap();
    let started = Instant::now();
    let (result, _) = run_with(
        config(ProviderKind::Anthropic, &server),
        &cancel_after(Duration::from_millis(100)),
    )
    .await;
    assert!(
        matches!(result, Err(ProviderError::Cancelled)),
        "{result:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
async fn cancellation_stops_a_stalled_stream() {
    let server = MockServer::start(script(vec![
        Turn::text("one two three").chunk_delay(Duration::from_secs(30)),
    ]))
    .await
    .unwrap();
    let started = Instant::now();
    let (result, _) = run_with(
        config(ProviderKind::OpenAi, &server),
        &cancel_after(Duration::from_millis(100)),
    )
    .await;
    assert!(
        matches!(result, Err(ProviderError::Cancelled)),
        "{result:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
async fn cancellation_stops_the_backoff_sleep() {
    let server = MockServer::start(script(vec![
        Turn::error_status(529, "Overloaded").retry_after(30),
        Turn::text("never"),
    ]))
    .await
    .unwrap();
    let mut c = config(ProviderKind::Anthropic, &server);
    c.retry_max_delay = Duration::from_secs(60);
    let started = Instant::now();
    let (result, events) = run_with(c, &cancel_after(Duration::from_millis(150))).await;
    assert!(
        matches!(result, Err(ProviderError::Cancelled)),
        "{result:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(events.retries(), [(2, 30_000)]);
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn an_already_cancelled_token_sends_nothing() {
    let server = MockServer::start(script(vec![Turn::text("x")]))
        .await
        .unwrap();
    let token = CancellationToken::new();
    token.cancel();
    let (result, _) = run_with(config(ProviderKind::Anthropic, &server), &token).await;
    assert!(matches!(result, Err(ProviderError::Cancelled)));
    assert!(server.requests().is_empty());
}
