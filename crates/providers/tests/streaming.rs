//! Streaming answers in every wire format over real HTTP against the mock:
//! text deltas, tool input assembled from pieces, thinking, malformed tool
//! JSON, usage and stop reasons.
#![allow(clippy::unwrap_used)]

mod common;

use catui_protocol::{ContentBlock, ModelEvent, ModelResponse, StopReason};
use catui_providers::{ProviderError, ProviderKind, client_for};
use catui_testkit::{Block, MockServer, Script, Turn};
use common::{Events, config, request};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const BOTH: [ProviderKind; 3] = common::ALL_KINDS;

async fn run(
    kind: ProviderKind,
    turn: Turn,
) -> (Result<ModelResponse, ProviderError>, Events, MockServer) {
    let server = MockServer::start(Script::new().turn(turn)).await.unwrap();
    let client = client_for(config(kind, &server)).unwrap();
    let events = Events::default();
    let sink = events.sink();
    let result = client
        .stream(&request("hello"), &sink, &CancellationToken::new())
        .await;
    (result, events, server)
}

#[tokio::test]
async fn text_streams_as_deltas_and_assembles() {
    let text = "Plan mode keeps the code untouched until the plan is approved.";
    for kind in BOTH {
        let (result, events, server) = run(kind, Turn::text(text)).await;
        let response = result.unwrap();
        assert_eq!(response.message.text(), text, "{kind:?}");
        assert_eq!(response.message.content.len(), 1, "{kind:?}");
        assert_eq!(response.stop_reason, StopReason::EndTurn);
        assert_eq!(response.model.as_deref(), Some("test-model"));
        assert!(
            events.text_deltas() >= 3,
            "{kind:?}: text must arrive in pieces"
        );
        assert_eq!(events.text_since_last_retry(), text);
        assert_eq!(server.requests().len(), 1);
    }
}

#[tokio::test]
async fn tool_input_is_assembled_from_several_deltas() {
    let input = json!({"pattern": "fn main", "path": "src", "output_mode": "content", "-n": true});
    for kind in BOTH {
        let turn = Turn::blocks(vec![
            Block::text("Let me search."),
            Block::tool_use("call_7", "Grep", input.clone()),
            Block::tool_use("call_8", "Glob", json!({"pattern": "**/*.rs"})),
        ]);
        let (result, events, _server) = run(kind, turn).await;
        let response = result.unwrap();
        assert_eq!(response.stop_reason, StopReason::ToolUse, "{kind:?}");
        let uses: Vec<_> = response.message.tool_uses().collect();
        assert_eq!(uses.len(), 2, "{kind:?}");
        assert_eq!(uses[0], ("call_7", "Grep", &input));
        assert_eq!(uses[1].2, &json!({"pattern": "**/*.rs"}));
        assert_eq!(response.message.text(), "Let me search.");

        let all = events.all();
        assert!(all.contains(&ModelEvent::ToolUseStart {
            id: "call_7".into(),
            name: "Grep".into()
        }));
        let pieces: Vec<&str> = all
            .iter()
            .filter_map(|e| match e {
                ModelEvent::ToolInputDelta { id, partial_json } if id == "call_7" => {
                    Some(partial_json.as_str())
                }
                _ => None,
            })
            .collect();
        assert!(pieces.len() > 1, "{kind:?}: input must arrive in pieces");
        assert_eq!(
            serde_json::from_str::<Value>(&pieces.concat()).unwrap(),
            input
        );
    }
}

#[tokio::test]
async fn thinking_and_signature_are_kept() {
    let turn = Turn::blocks(vec![
        Block::thinking("The user wants a greeting.", "sig-Zm9vYmFy"),
        Block::RedactedThinking {
            data: "opaque-bytes".into(),
        },
        Block::text("Hi!"),
    ]);
    let (result, events, _server) = run(ProviderKind::Anthropic, turn).await;
    let response = result.unwrap();
    assert_eq!(
        response.message.content,
        vec![
            ContentBlock::Thinking {
                thinking: "The user wants a greeting.".into(),
                signature: "sig-Zm9vYmFy".into()
            },
            ContentBlock::RedactedThinking {
                data: "opaque-bytes".into()
            },
            ContentBlock::text("Hi!"),
        ]
    );
    let thinking: String = events
        .all()
        .iter()
        .filter_map(|e| match e {
            ModelEvent::ThinkingDelta { thinking } => Some(thinking.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(thinking, "The user wants a greeting.");
}

#[tokio::test]
async fn openai_reasoning_content_becomes_thinking() {
    let turn = Turn::blocks(vec![
        Block::thinking("Short answer.", "ignored"),
        Block::text("Yes."),
    ]);
    let (result, events, _server) = run(ProviderKind::OpenAi, turn).await;
    let response = result.unwrap();
    assert_eq!(
        response.message.content[0],
        ContentBlock::Thinking {
            thinking: "Short answer.".into(),
            signature: String::new()
        }
    );
    assert_eq!(response.message.text(), "Yes.");
    assert!(
        events
            .all()
            .iter()
            .any(|e| matches!(e, ModelEvent::ThinkingDelta { .. }))
    );
}

#[tokio::test]
async fn malformed_tool_json_is_kept_as_a_string() {
    let raw = r#"{"file_path": "src/main.rs", "limit": 20"#;
    for kind in BOTH {
        let (result, _events, _server) = run(kind, Turn::tool_use_raw("t1", "Read", raw)).await;
        let response = result.unwrap();
        let (_, _, input) = response.message.tool_uses().next().unwrap();
        assert_eq!(input, &Value::String(raw.into()), "{kind:?}");
        assert_eq!(response.stop_reason, StopReason::ToolUse);
    }
}

#[tokio::test]
async fn usage_includes_cache_counts() {
    let (result, _, _server) = run(
        ProviderKind::Anthropic,
        Turn::text("ok").usage(100, 20).cache_usage(50, 10),
    )
    .await;
    let usage = result.unwrap().usage;
    assert_eq!(
        (
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_input_tokens,
            usage.cache_creation_input_tokens
        ),
        (100, 20, 50, 10)
    );
    // OpenAI counts cached tokens inside prompt_tokens; catui splits them out.
    let (result, _, _server) = run(
        ProviderKind::OpenAi,
        Turn::text("ok").usage(100, 20).cache_usage(30, 0),
    )
    .await;
    let usage = result.unwrap().usage;
    assert_eq!(
        (
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_input_tokens
        ),
        (100, 20, 30)
    );
    // So does the Responses API, in input_tokens.
    let (result, _, _server) = run(
        ProviderKind::OpenAiResponses,
        Turn::text("ok").usage(100, 20).cache_usage(30, 0),
    )
    .await;
    let usage = result.unwrap().usage;
    assert_eq!(
        (
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_input_tokens
        ),
        (100, 20, 30)
    );
}

#[tokio::test]
async fn stop_reason_max_tokens_maps_in_both_formats() {
    for kind in BOTH {
        let (result, _, _server) = run(kind, Turn::text("cut off").stop_reason("max_tokens")).await;
        assert_eq!(
            result.unwrap().stop_reason,
            StopReason::MaxTokens,
            "{kind:?}"
        );
    }
}
