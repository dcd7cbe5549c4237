//! The OpenAI Responses API over real HTTP against the mock: the request
//! shape, a reasoning model's tool loop with its reasoning items carried
//! to the next request, requests the API would refuse, and a metered
//! client that completes requests from the model catalog and counts them.
#![allow(clippy::unwrap_used)]

mod common;

use std::sync::Arc;

use catui_protocol::{
    ContentBlock, Effort, Message, ModelRequest, ModelResponse, Reasoning, Role, StopReason,
    ToolChoice, ToolSpec,
};
use catui_providers::{
    MeteredClient, ModelCatalog, ModelClient, ProviderError, ProviderKind, UsageLedger, client_for,
};
use catui_testkit::{Block, MockServer, RecordedRequest, Script, Turn};
use common::{Events, KEY, config};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn read_tool() -> ToolSpec {
    ToolSpec {
        name: "Read".into(),
        description: "Reads a file".into(),
        input_schema: json!({"type": "object", "properties": {"file_path": {"type": "string"}},
                             "required": ["file_path"], "additionalProperties": false}),
    }
}

fn request(messages: Vec<Message>, reasoning: Reasoning) -> ModelRequest {
    ModelRequest {
        model: "gpt-5-codex".into(),
        system: "You are a coding agent.".into(),
        messages,
        tools: vec![read_tool()],
        tool_choice: ToolChoice::Auto,
        max_tokens: 4096,
        temperature: None,
        reasoning,
    }
}

async fn send(
    client: &dyn ModelClient,
    request: &ModelRequest,
) -> (Result<ModelResponse, ProviderError>, Events) {
    let events = Events::default();
    let sink = events.sink();
    let result = client
        .stream(request, &sink, &CancellationToken::new())
        .await;
    (result, events)
}

/// The input items of a request, by type.
fn item_types(r: &RecordedRequest) -> Vec<String> {
    r.messages()
        .iter()
        .map(|i| i["type"].as_str().unwrap_or("?").to_string())
        .collect()
}

#[tokio::test]
async fn reasoning_items_come_back_on_the_next_request_of_a_tool_loop() {
    let server = MockServer::start(
        Script::new()
            .turn(Turn::blocks(vec![
                Block::thinking("The file will say what to do.", "ENC-1"),
                Block::tool_use("call_1", "Read", json!({"file_path": "TODO.md"})),
            ]))
            // The API can only continue with the reasoning item back in place.
            .turn(Turn::text("The file says: ship it.").when(|r| {
                let items = r.messages();
                let reasoning = items.iter().position(|i| i["type"] == "reasoning");
                let call = items.iter().position(|i| i["type"] == "function_call");
                matches!((reasoning, call), (Some(a), Some(b)) if a < b)
                    && items[reasoning.unwrap()]["encrypted_content"] == "ENC-1"
                    && r.tool_result("call_1").is_some()
            })),
    )
    .await
    .unwrap();
    let client = client_for(config(ProviderKind::OpenAiResponses, &server)).unwrap();
    let reasoning = Reasoning {
        effort: Some(Effort::High),
        summaries: true,
        ..Default::default()
    };
    let mut messages = vec![Message::user_text("What does TODO.md say?")];
    let (first, events) = send(client.as_ref(), &request(messages.clone(), reasoning)).await;
    let first = first.unwrap();
    assert_eq!(first.stop_reason, StopReason::ToolUse);
    assert_eq!(
        first.message.content[0],
        ContentBlock::Reasoning {
            id: "rs_mock_1_0".into(),
            summary: "The file will say what to do.".into(),
            encrypted_content: Some("ENC-1".into()),
        }
    );
    assert!(
        events
            .all()
            .iter()
            .any(|e| matches!(e, catui_protocol::ModelEvent::ThinkingDelta { .. })),
        "the summary streams as thinking"
    );
    messages.push(first.message);
    messages.push(Message {
        role: Role::User,
        content: vec![ContentBlock::tool_result("call_1", "ship it", false)],
    });
    let (second, _) = send(client.as_ref(), &request(messages, reasoning)).await;
    assert_eq!(second.unwrap().message.text(), "The file says: ship it.");

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let r = &requests[0];
    assert_eq!(r.path, "/v1/responses");
    assert_eq!(
        r.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(r.body["store"], false);
    assert_eq!(r.body["stream"], true);
    assert_eq!(
        r.body["reasoning"],
        json!({"effort": "high", "summary": "auto"})
    );
    assert_eq!(r.body["include"], json!(["reasoning.encrypted_content"]));
    assert_eq!(r.system_text(), "You are a coding agent.");
    assert_eq!(r.tool_names(), ["Read"]);
    assert_eq!(
        item_types(&requests[1]),
        [
            "message",
            "reasoning",
            "function_call",
            "function_call_output"
        ]
    );
}

#[tokio::test]
async fn without_encrypted_reasoning_the_item_is_left_out_and_the_loop_goes_on() {
    let server = MockServer::start(
        Script::new()
            .turn(Turn::blocks(vec![
                Block::thinking("thought", "ignored"),
                Block::tool_use("call_1", "Read", json!({"file_path": "a"})),
            ]))
            .turn(Turn::text("done")),
    )
    .await
    .unwrap();
    let client = client_for(config(ProviderKind::OpenAiResponses, &server)).unwrap();
    let mut messages = vec![Message::user_text("go")];
    let (first, _) = send(
        client.as_ref(),
        &request(messages.clone(), Reasoning::default()),
    )
    .await;
    let first = first.unwrap();
    // Not asked for: no encrypted content, as with the real API.
    assert!(matches!(
        &first.message.content[0],
        ContentBlock::Reasoning {
            encrypted_content: None,
            ..
        }
    ));
    messages.push(first.message);
    messages.push(Message {
        role: Role::User,
        content: vec![ContentBlock::tool_result("call_1", "x", false)],
    });
    let (second, _) = send(client.as_ref(), &request(messages, Reasoning::default())).await;
    assert_eq!(second.unwrap().message.text(), "done");
    let requests = server.requests();
    assert!(requests[0].body.get("include").is_none());
    assert_eq!(
        item_types(&requests[1]),
        ["message", "function_call", "function_call_output"]
    );
}

#[tokio::test]
async fn a_request_the_api_would_refuse_is_a_clear_unretried_error() {
    let server = MockServer::start(Script::new().turn(Turn::text("never")))
        .await
        .unwrap();
    let client = client_for(config(ProviderKind::OpenAiResponses, &server)).unwrap();
    // A tool call whose result never came.
    let messages = vec![
        Message::user_text("go"),
        Message {
            role: Role::Assistant,
            content: vec![ContentBlock::ToolUse {
                id: "call_lost".into(),
                name: "Read".into(),
                input: json!({}),
            }],
        },
        Message::user_text("and?"),
    ];
    let (result, events) = send(client.as_ref(), &request(messages, Reasoning::default())).await;
    let err = result.unwrap_err();
    assert!(
        matches!(err, ProviderError::Http { status: 400, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("No tool output found"), "{err}");
    assert!(events.retries().is_empty());
    assert_eq!(server.unused_turns(), 1, "a refused request uses no turn");
}

#[tokio::test]
async fn a_metered_client_applies_the_catalog_and_counts_cost() {
    let server = MockServer::start(
        Script::new()
            .turn(Turn::text("one").usage(1_000, 100).cache_usage(9_000, 0))
            .turn(Turn::text("two").usage(500, 50)),
    )
    .await
    .unwrap();
    let inner: Arc<dyn ModelClient> =
        client_for(config(ProviderKind::OpenAiResponses, &server)).unwrap();
    let mut catalog = ModelCatalog::new();
    catalog.set_reasoning(
        "gpt-5-codex",
        Reasoning {
            effort: Some(Effort::Low),
            ..Default::default()
        },
    );
    let ledger = Arc::new(UsageLedger::new(catalog).with_budget(Some(0.004)));
    let client = MeteredClient::new(inner, ledger.clone());
    let (first, _) = send(
        &client,
        &request(vec![Message::user_text("a")], Reasoning::default()),
    )
    .await;
    first.unwrap();
    assert!(ledger.budget_exceeded().is_none());
    let (second, _) = send(
        &client,
        &request(vec![Message::user_text("b")], Reasoning::default()),
    )
    .await;
    second.unwrap();

    // The catalog's options reached the wire: the command line's effort
    // and, for a reasoning model, summaries.
    let body: Value = server.requests()[0].body.clone();
    assert_eq!(
        body["reasoning"],
        json!({"effort": "low", "summary": "auto"})
    );

    // gpt-5-codex: $1.25 input, $0.125 cached, $10 output per million.
    // (1000*1.25 + 9000*0.125 + 100*10 + 500*1.25 + 50*10) / 1e6
    let expected = (1_250.0 + 1_125.0 + 1_000.0 + 625.0 + 500.0) / 1e6;
    let models = ledger.models();
    let usage = &models["gpt-5-codex"];
    assert!(
        (usage.cost_usd - expected).abs() < 1e-12,
        "{}",
        usage.cost_usd
    );
    assert_eq!(usage.input_tokens, 1_500);
    assert_eq!(usage.cache_read_input_tokens, 9_000);
    assert_eq!(usage.output_tokens, 150);
    assert_eq!(usage.context_window, 400_000);
    assert_eq!(usage.requests, 2);
    assert!((ledger.total_cost_usd() - expected).abs() < 1e-12);
    let over = ledger.budget_exceeded().unwrap();
    assert!((over.spent_usd - expected).abs() < 1e-12 && over.limit_usd == 0.004);
    assert_eq!(
        client.model_info("gpt-5-codex").context_window,
        Some(400_000)
    );
    assert!(client.ledger().is_some());
}
