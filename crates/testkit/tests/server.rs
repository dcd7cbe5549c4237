//! The mock server over real HTTP: raw requests, SSE parsed by hand.
#![allow(clippy::unwrap_used)] // test helpers, outside #[test] fns

use std::io::{Read, Write};
use std::time::Duration;

use catui_testkit::{Block, MockServer, Script, Turn};
use eventsource_stream::Eventsource;
use futures::StreamExt;
use serde_json::{Value, json};

async fn post(url: &str, body: Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(url)
        .header("x-api-key", "test-key")
        .json(&body)
        .send()
        .await
        .unwrap()
}

/// (event name, data) of every SSE event.
async fn events(resp: reqwest::Response) -> Vec<(String, String)> {
    let mut stream = resp.bytes_stream().eventsource();
    let mut out = Vec::new();
    while let Some(ev) = stream.next().await {
        let ev = ev.unwrap();
        out.push((ev.event, ev.data));
    }
    out
}

fn anthropic_body(model: &str, text: &str) -> Value {
    json!({"model": model, "max_tokens": 100, "stream": true,
           "messages": [{"role": "user", "content": text}]})
}

fn openai_body(model: &str, text: &str) -> Value {
    json!({"model": model, "stream": true, "stream_options": {"include_usage": true},
           "messages": [{"role": "user", "content": text}]})
}

#[tokio::test]
async fn anthropic_text_streams_as_several_deltas() {
    let server =
        MockServer::start(Script::new().turn(Turn::text("one two three four five").usage(11, 7)))
            .await
            .unwrap();
    let resp = post(
        &format!("{}/v1/messages", server.url()),
        anthropic_body("m", "hi"),
    )
    .await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    let evs = events(resp).await;
    let names: Vec<&str> = evs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.first(), Some(&"message_start"));
    assert!(names.contains(&"ping"));
    assert_eq!(names.last(), Some(&"message_stop"));
    let mut text = String::new();
    let mut deltas = 0;
    for (name, data) in &evs {
        let v: Value = serde_json::from_str(data).unwrap();
        assert_eq!(v["type"], name.as_str(), "event name matches data type");
        if name == "content_block_delta" {
            text.push_str(v["delta"]["text"].as_str().unwrap());
            deltas += 1;
        }
        if name == "message_delta" {
            assert_eq!(v["delta"]["stop_reason"], "end_turn");
            assert_eq!(v["usage"]["output_tokens"], 7);
        }
        if name == "message_start" {
            assert_eq!(v["message"]["usage"]["input_tokens"], 11);
            assert_eq!(v["message"]["model"], "m");
        }
    }
    assert_eq!(text, "one two three four five");
    assert!(deltas >= 3);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].header("x-api-key"), Some("test-key"));
    assert_eq!(reqs[0].last_user_text().as_deref(), Some("hi"));
}

#[tokio::test]
async fn anthropic_thinking_and_tool_use_blocks() {
    let input = json!({"file_path": "src/lib.rs", "limit": 20});
    let server = MockServer::start(Script::new().turn(Turn::blocks(vec![
        Block::thinking("let me look", "sig-123"),
        Block::tool_use("toolu_1", "Read", input.clone()),
    ])))
    .await
    .unwrap();
    let evs = events(
        post(
            &format!("{}/v1/messages", server.url()),
            anthropic_body("m", "x"),
        )
        .await,
    )
    .await;
    let mut json_text = String::new();
    let mut json_pieces = 0;
    let mut signature = String::new();
    let mut stop_reason = Value::Null;
    for (_, data) in &evs {
        let v: Value = serde_json::from_str(data).unwrap();
        match v["delta"]["type"].as_str() {
            Some("input_json_delta") => {
                json_text.push_str(v["delta"]["partial_json"].as_str().unwrap());
                json_pieces += 1;
            }
            Some("signature_delta") => signature = v["delta"]["signature"].as_str().unwrap().into(),
            _ => {}
        }
        if v["type"] == "content_block_start" && v["index"] == 1 {
            assert_eq!(v["content_block"]["type"], "tool_use");
            assert_eq!(v["content_block"]["id"], "toolu_1");
            assert_eq!(v["content_block"]["name"], "Read");
        }
        if v["type"] == "message_delta" {
            stop_reason = v["delta"]["stop_reason"].clone();
        }
    }
    assert!(json_pieces > 1);
    assert_eq!(serde_json::from_str::<Value>(&json_text).unwrap(), input);
    assert_eq!(signature, "sig-123");
    assert_eq!(stop_reason, "tool_use");
}

#[tokio::test]
async fn openai_tool_call_chunks_usage_and_done() {
    let input = json!({"pattern": "fn main", "path": "."});
    let server = MockServer::start(
        Script::new().turn(
            Turn::blocks(vec![
                Block::text("Searching now."),
                Block::tool_use("call_1", "Grep", input.clone()),
            ])
            .usage(50, 9)
            .cache_usage(20, 0),
        ),
    )
    .await
    .unwrap();
    let resp = post(
        &format!("{}/chat/completions", server.openai_base_url()),
        openai_body("gpt", "q"),
    )
    .await;
    let evs = events(resp).await;
    assert_eq!(evs.last().unwrap().1, "[DONE]");
    let mut content = String::new();
    let mut args = String::new();
    let mut finish = Value::Null;
    let mut usage = Value::Null;
    for (_, data) in &evs[..evs.len() - 1] {
        let v: Value = serde_json::from_str(data).unwrap();
        if let Some(u) = v.get("usage") {
            usage = u.clone();
            continue;
        }
        let choice = &v["choices"][0];
        if let Some(c) = choice["delta"]["content"].as_str() {
            content.push_str(c);
        }
        if let Some(calls) = choice["delta"]["tool_calls"].as_array() {
            assert_eq!(calls[0]["index"], 0);
            if let Some(id) = calls[0].get("id") {
                assert_eq!(id, "call_1");
                assert_eq!(calls[0]["function"]["name"], "Grep");
            }
            args.push_str(calls[0]["function"]["arguments"].as_str().unwrap());
        }
        if !choice["finish_reason"].is_null() {
            finish = choice["finish_reason"].clone();
        }
    }
    assert_eq!(content, "Searching now.");
    assert_eq!(serde_json::from_str::<Value>(&args).unwrap(), input);
    assert_eq!(finish, "tool_calls");
    assert_eq!(usage["prompt_tokens"], 70);
    assert_eq!(usage["completion_tokens"], 9);
    assert_eq!(usage["prompt_tokens_details"]["cached_tokens"], 20);
    assert!(server.requests()[0].is_openai());
}

#[tokio::test]
async fn predicates_route_requests_and_exhaustion_is_a_clear_500() {
    let server = MockServer::start(
        Script::new()
            .turn(Turn::text("for the big model").when_model("big"))
            .turn(Turn::text("about cats").when_contains("cats"))
            .turn(Turn::text("anything")),
    )
    .await
    .unwrap();
    let url = format!("{}/v1/messages", server.url());
    let text_of = |evs: Vec<(String, String)>| -> String {
        evs.iter()
            .filter_map(|(_, d)| serde_json::from_str::<Value>(d).ok())
            .filter_map(|v| v["delta"]["text"].as_str().map(str::to_string))
            .collect()
    };
    assert_eq!(
        text_of(events(post(&url, anthropic_body("small", "tell me about cats")).await).await),
        "about cats"
    );
    assert_eq!(
        text_of(events(post(&url, anthropic_body("small", "dogs")).await).await),
        "anything"
    );
    assert_eq!(server.unused_turns(), 1);
    assert_eq!(
        text_of(events(post(&url, anthropic_body("big", "dogs")).await).await),
        "for the big model"
    );

    let resp = post(&url, anthropic_body("big", "more")).await;
    assert_eq!(resp.status(), 500);
    assert_eq!(
        resp.json::<Value>().await.unwrap(),
        json!({"error": "mock script exhausted"})
    );

    server.push(Turn::text("pushed later"));
    assert_eq!(
        text_of(events(post(&url, anthropic_body("x", "y")).await).await),
        "pushed later"
    );
    assert_eq!(server.requests().len(), 5);
}

#[tokio::test]
async fn error_status_has_provider_error_body_and_retry_after() {
    let server = MockServer::start(
        Script::new()
            .turn(Turn::error_status(529, "Overloaded").retry_after(3))
            .turn(Turn::error_status(401, "invalid x-api-key")),
    )
    .await
    .unwrap();
    let resp = post(
        &format!("{}/v1/messages", server.url()),
        anthropic_body("m", "x"),
    )
    .await;
    assert_eq!(resp.status(), 529);
    assert_eq!(resp.headers()["retry-after"], "3");
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["error"]["type"], "overloaded_error");
    assert_eq!(body["error"]["message"], "Overloaded");

    let resp = post(
        &format!("{}/chat/completions", server.openai_base_url()),
        openai_body("m", "x"),
    )
    .await;
    assert_eq!(resp.status(), 401);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["error"]["message"], "invalid x-api-key");
}

#[tokio::test]
async fn dropped_stream_breaks_the_connection_without_final_event() {
    let server =
        MockServer::start(Script::new().turn(Turn::text("a b c d e f g h").drop_after_events(4)))
            .await
            .unwrap();
    let resp = post(
        &format!("{}/v1/messages", server.url()),
        anthropic_body("m", "x"),
    )
    .await;
    let mut stream = resp.bytes_stream().eventsource();
    let mut names = Vec::new();
    let mut failed = false;
    while let Some(ev) = stream.next().await {
        match ev {
            Ok(ev) => names.push(ev.event),
            Err(_) => {
                failed = true;
                break;
            }
        }
    }
    assert!(failed, "the body must end with a transport error");
    assert_eq!(names.len(), 4);
    assert!(!names.iter().any(|n| n == "message_stop"));
}

#[tokio::test]
async fn malformed_sse_and_stream_errors() {
    let server = MockServer::start(
        Script::new()
            .turn(Turn::malformed_sse())
            .turn(Turn::stream_error("overloaded_error", "Overloaded"))
            .turn(Turn::stream_error("server_error", "boom")),
    )
    .await
    .unwrap();
    let evs = events(
        post(
            &format!("{}/v1/messages", server.url()),
            anthropic_body("m", "x"),
        )
        .await,
    )
    .await;
    assert!(
        evs.iter()
            .any(|(_, d)| serde_json::from_str::<Value>(d).is_err())
    );

    let evs = events(
        post(
            &format!("{}/v1/messages", server.url()),
            anthropic_body("m", "x"),
        )
        .await,
    )
    .await;
    let (name, data) = evs.last().unwrap();
    assert_eq!(name, "error");
    let v: Value = serde_json::from_str(data).unwrap();
    assert_eq!(v["error"]["type"], "overloaded_error");

    let evs = events(
        post(
            &format!("{}/chat/completions", server.openai_base_url()),
            openai_body("m", "x"),
        )
        .await,
    )
    .await;
    let v: Value = serde_json::from_str(&evs.last().unwrap().1).unwrap();
    assert_eq!(v["error"]["message"], "boom");
    assert!(!evs.iter().any(|(_, d)| d == "[DONE]"));
}

#[tokio::test]
async fn chunk_delay_spreads_events_out() {
    // Five events at 30 ms apart cannot arrive in under 4 gaps' time.
    let server = MockServer::start(
        Script::new().turn(Turn::text("x").chunk_delay(Duration::from_millis(30))),
    )
    .await
    .unwrap();
    let started = std::time::Instant::now();
    let evs = events(
        post(
            &format!("{}/v1/messages", server.url()),
            anthropic_body("m", "x"),
        )
        .await,
    )
    .await;
    assert!(evs.len() >= 6);
    assert!(started.elapsed() >= Duration::from_millis(30 * 5));
}

#[test]
fn blocking_server_answers_a_plain_socket() {
    let server =
        MockServer::start_blocking(Script::new().turn(Turn::text("hello from the mock"))).unwrap();
    let body = anthropic_body("m", "hi").to_string();
    let mut sock = std::net::TcpStream::connect(server.addr()).unwrap();
    write!(
        sock,
        "POST /v1/messages HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
        body.len(),
        body
    )
    .unwrap();
    let mut out = String::new();
    sock.read_to_string(&mut out).unwrap();
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");
    assert!(out.contains("event: message_stop"));
    assert!(out.contains("hello"));
    assert_eq!(server.requests()[0].model(), "m");
    drop(server);
}
