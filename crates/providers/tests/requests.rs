//! What the clients put on the wire, checked on the requests the mock
//! server recorded: headers, system prompt, thinking sent back with its
//! signature, tool calls and results, tools and tool_choice.
#![allow(clippy::unwrap_used)]

mod common;

use catui_protocol::{ContentBlock, Message, ModelRequest, Role, ToolChoice, ToolSpec};
use catui_providers::{ProviderConfig, ProviderKind, client_for};
use catui_testkit::{MockServer, RecordedRequest, Script, Turn};
use common::{Events, KEY, config};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {"file_path": {"type": "string"}},
        "required": ["file_path"],
        "additionalProperties": false
    })
}

/// A conversation with every kind of block.
fn conversation() -> ModelRequest {
    ModelRequest {
        model: "test-model".into(),
        system: "You are catui.".into(),
        messages: vec![
            Message::user_text("read the file"),
            Message {
                role: Role::Assistant,
                content: vec![
                    ContentBlock::Thinking {
                        thinking: "I should read it.".into(),
                        signature: "sig-abc".into(),
                    },
                    ContentBlock::RedactedThinking {
                        data: "opaque".into(),
                    },
                    ContentBlock::text("Reading."),
                    ContentBlock::ToolUse {
                        id: "toolu_1".into(),
                        name: "Read".into(),
                        input: json!({"file_path": "a.rs"}),
                    },
                    ContentBlock::ToolUse {
                        id: "toolu_2".into(),
                        name: "Read".into(),
                        input: Value::String("{oops".into()),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![
                    ContentBlock::tool_result("toolu_1", "fn main() {}", false),
                    ContentBlock::tool_result("toolu_2", "input is not valid JSON", true),
                    ContentBlock::text("also look at this"),
                    ContentBlock::Image {
                        source: json!({"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}),
                    },
                ],
            },
        ],
        tools: vec![ToolSpec {
            name: "Read".into(),
            description: "Reads a file.".into(),
            input_schema: schema(),
        }],
        tool_choice: ToolChoice::Tool {
            name: "Read".into(),
        },
        max_tokens: 2048,
        temperature: Some(0.5),
        reasoning: Default::default(),
    }
}

async fn send(
    config: ProviderConfig,
    server: &MockServer,
    request: &ModelRequest,
) -> RecordedRequest {
    let client = client_for(config).unwrap();
    let events = Events::default();
    let sink = events.sink();
    client
        .stream(request, &sink, &CancellationToken::new())
        .await
        .unwrap();
    server.requests().pop().unwrap()
}

#[tokio::test]
async fn anthropic_request_shape() {
    let server = MockServer::start(Script::new().turn(Turn::text("ok")))
        .await
        .unwrap();
    let r = send(
        config(ProviderKind::Anthropic, &server),
        &server,
        &conversation(),
    )
    .await;
    assert_eq!(r.path, "/v1/messages");
    assert_eq!(r.header("x-api-key"), Some(KEY));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.header("authorization"), None);
    let b = &r.body;
    assert_eq!(b["model"], "test-model");
    assert_eq!(b["max_tokens"], 2048);
    assert_eq!(b["stream"], true);
    assert_eq!(b["temperature"], 0.5);
    assert_eq!(r.system_text(), "You are catui.");

    // This request does not think, so thinking blocks stay home.
    let assistant = &b["messages"][1]["content"];
    assert_eq!(assistant[0], json!({"type": "text", "text": "Reading."}));
    assert_eq!(assistant[1]["input"], json!({"file_path": "a.rs"}));
    assert_eq!(
        assistant[2]["input"],
        json!({}),
        "malformed input is sent as an empty object"
    );
    assert!(b.get("thinking").is_none());

    let user = &b["messages"][2]["content"];
    assert_eq!(
        user[0],
        json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": "fn main() {}"})
    );
    assert_eq!(user[1]["is_error"], true);
    assert_eq!(user[3]["type"], "image");
    assert_eq!(user[3]["source"]["media_type"], "image/png");

    assert_eq!(b["tools"][0]["name"], "Read");
    assert_eq!(b["tools"][0]["description"], "Reads a file.");
    assert_eq!(b["tools"][0]["input_schema"], schema());
    assert_eq!(b["tool_choice"], json!({"type": "tool", "name": "Read"}));
}

#[tokio::test]
async fn anthropic_thinking_request_sends_thinking_blocks_back_unchanged() {
    let server = MockServer::start(Script::new().turn(Turn::text("ok")))
        .await
        .unwrap();
    let mut request = conversation();
    request.tool_choice = ToolChoice::Auto;
    request.temperature = None;
    request.max_tokens = 8192;
    request.reasoning.thinking = Some(catui_protocol::Thinking::Enabled {
        budget_tokens: 4096,
    });
    request.reasoning.effort = Some(catui_protocol::Effort::Medium);
    // The mock refuses a tool loop whose thinking was dropped or changed.
    let r = send(config(ProviderKind::Anthropic, &server), &server, &request).await;
    let b = &r.body;
    assert_eq!(
        b["thinking"],
        json!({"type": "enabled", "budget_tokens": 4096})
    );
    assert_eq!(b["output_config"], json!({"effort": "medium"}));
    assert_eq!(r.header("anthropic-beta"), Some("effort-2025-11-24"));
    let assistant = &b["messages"][1]["content"];
    assert_eq!(
        assistant[0],
        json!({"type": "thinking", "thinking": "I should read it.", "signature": "sig-abc"})
    );
    assert_eq!(
        assistant[1],
        json!({"type": "redacted_thinking", "data": "opaque"})
    );
}

#[tokio::test]
async fn openai_request_shape() {
    let server = MockServer::start(Script::new().turn(Turn::text("ok")))
        .await
        .unwrap();
    let r = send(
        config(ProviderKind::OpenAi, &server),
        &server,
        &conversation(),
    )
    .await;
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(
        r.header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(r.header("x-api-key"), None);
    let b = &r.body;
    assert_eq!(b["stream"], true);
    assert_eq!(b["stream_options"], json!({"include_usage": true}));
    assert_eq!(b["max_tokens"], 2048);

    let m = b["messages"].as_array().unwrap();
    let roles: Vec<&str> = m.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        ["system", "user", "assistant", "tool", "tool", "user"]
    );
    assert_eq!(m[0]["content"], "You are catui.");
    assert_eq!(m[1]["content"], "read the file");
    assert_eq!(m[2]["content"], "Reading.");
    let calls = m[2]["tool_calls"].as_array().unwrap();
    assert_eq!(calls[0]["id"], "toolu_1");
    assert_eq!(calls[0]["type"], "function");
    assert_eq!(calls[0]["function"]["name"], "Read");
    let args: Value =
        serde_json::from_str(calls[0]["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, json!({"file_path": "a.rs"}));
    assert_eq!(calls[1]["function"]["arguments"], "{}");
    assert!(
        !r.contains_text("I should read it."),
        "thinking is not sent to OpenAI"
    );
    assert_eq!(
        m[3],
        json!({"role": "tool", "tool_call_id": "toolu_1", "content": "fn main() {}"})
    );
    assert_eq!(m[4]["content"], "Error: input is not valid JSON");
    assert_eq!(
        m[5]["content"][0],
        json!({"type": "text", "text": "also look at this"})
    );
    assert_eq!(
        m[5]["content"][1]["image_url"]["url"],
        "data:image/png;base64,iVBORw0KGgo="
    );

    assert_eq!(
        b["tools"][0],
        json!({"type": "function", "function": {"name": "Read", "description": "Reads a file.", "parameters": schema()}})
    );
    assert_eq!(
        b["tool_choice"],
        json!({"type": "function", "function": {"name": "Read"}})
    );
    let seen = r.tool_results();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[1].tool_use_id, "toolu_2");
}

#[tokio::test]
async fn openai_without_key_sends_no_authorization_and_maps_any_to_required() {
    let server = MockServer::start(Script::new().turn(Turn::text("ok")))
        .await
        .unwrap();
    let mut c = config(ProviderKind::OpenAi, &server);
    c.api_key = String::new();
    let mut request = conversation();
    request.tool_choice = ToolChoice::Any;
    let r = send(c, &server, &request).await;
    assert_eq!(r.header("authorization"), None);
    assert_eq!(r.body["tool_choice"], "required");
}

#[tokio::test]
async fn anthropic_requires_a_key_and_urls_are_checked() {
    let err = client_for(ProviderConfig::new(
        ProviderKind::Anthropic,
        "http://127.0.0.1:1",
        "",
    ))
    .err()
    .unwrap();
    assert!(err.to_string().contains("ANTHROPIC_API_KEY"), "{err}");
    let err = client_for(ProviderConfig::new(
        ProviderKind::OpenAi,
        "localhost:11434/v1",
        "",
    ))
    .err()
    .unwrap();
    assert!(err.to_string().contains("OPENAI_BASE_URL"), "{err}");
}
