//! `Turn::forever` and `Script` iteration, over real HTTP.

#![allow(clippy::unwrap_used)]

use catui_testkit::{MockServer, Script, Turn};
use serde_json::json;

async fn ask(url: &str, model: &str) -> (u16, String) {
    let resp = reqwest::Client::new()
        .post(format!("{url}/v1/messages"))
        .header("x-api-key", "test-key")
        .json(&json!({"model": model, "max_tokens": 10, "stream": true,
                      "messages": [{"role": "user", "content": "hi"}]}))
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    (status, resp.text().await.unwrap())
}

#[tokio::test]
async fn a_forever_turn_answers_every_matching_request() {
    let server = MockServer::start(
        Script::new()
            .turn(Turn::text("once").when_model("a"))
            .turn(Turn::text("always").when_model("b").forever()),
    )
    .await
    .unwrap();
    for _ in 0..3 {
        let (status, body) = ask(&server.url(), "b").await;
        assert_eq!(status, 200);
        assert!(body.contains("always"), "{body}");
    }
    assert!(ask(&server.url(), "a").await.1.contains("once"));
    // The one-shot turn is used up; the forever turn does not match "a".
    assert_eq!(ask(&server.url(), "a").await.0, 500);
    assert_eq!(server.unused_turns(), 1);
}

#[test]
fn scripts_iterate_in_order() {
    let turns: Vec<Turn> = Script::new()
        .turn(Turn::text("1"))
        .turn(Turn::text("2"))
        .into_iter()
        .collect();
    assert_eq!(turns.len(), 2);
}
