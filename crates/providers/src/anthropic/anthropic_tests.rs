use super::*;
use catui_protocol::{ContentBlock, Message, ModelEvent, Role};

fn feed(events: &[Value]) -> ModelResponse {
    let sink = |_: ModelEvent| {};
    let mut state = StreamState::new(&sink);
    for data in events {
        let event = SseEvent {
            event: data["type"].as_str().unwrap().into(),
            data: data.to_string(),
        };
        if state.handle(&event).unwrap() {
            break;
        }
    }
    state.finish()
}

#[test]
fn unknown_blocks_are_skipped_and_usage_is_merged() {
    let response = feed(&[
        json!({"type": "message_start", "message": {"model": "claude-x", "usage": {"input_tokens": 12, "output_tokens": 1, "cache_read_input_tokens": 100}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "server_tool_use", "id": "s", "name": "web_search"}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{}"}}),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "t", "name": "Read", "input": {"file_path": "x"}}}),
        json!({"type": "content_block_stop", "index": 1}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 30}}),
        json!({"type": "message_stop"}),
    ]);
    assert_eq!(response.message.content.len(), 1);
    let (_, _, input) = response.message.tool_uses().next().unwrap();
    assert_eq!(
        input,
        &json!({"file_path": "x"}),
        "input given whole in the block start"
    );
    assert_eq!(response.usage.input_tokens, 12);
    assert_eq!(response.usage.output_tokens, 30);
    assert_eq!(response.usage.cache_read_input_tokens, 100);
    assert_eq!(response.model.as_deref(), Some("claude-x"));
    assert_eq!(response.stop_reason, StopReason::ToolUse);
}

#[test]
fn empty_parts_are_not_sent_and_caching_marks_the_prefix() {
    let request = ModelRequest {
        model: "m".into(),
        system: String::new(),
        messages: vec![
            Message::user_text(""),
            Message {
                role: Role::User,
                content: vec![
                    ContentBlock::text("question"),
                    ContentBlock::Thinking {
                        thinking: "foreign reasoning".into(),
                        signature: String::new(),
                    },
                ],
            },
        ],
        tools: Vec::new(),
        tool_choice: ToolChoice::Auto,
        max_tokens: 10,
        temperature: None,
        reasoning: Default::default(),
    };
    let body = request_body(&request);
    assert!(body.get("system").is_none());
    assert!(body.get("tool_choice").is_none());
    assert_eq!(
        body["messages"],
        json!([{"role": "user", "content": [
            {"type": "text", "text": "question", "cache_control": {"type": "ephemeral"}}
        ]}])
    );
}

fn thinking_conversation() -> ModelRequest {
    ModelRequest {
        model: "claude-sonnet-4-5".into(),
        system: "sys".into(),
        messages: vec![
            Message::user_text("read it"),
            Message {
                role: Role::Assistant,
                content: vec![
                    ContentBlock::Thinking {
                        thinking: "I should read".into(),
                        signature: "sig-1".into(),
                    },
                    ContentBlock::RedactedThinking { data: "R".into() },
                    ContentBlock::Reasoning {
                        id: "rs".into(),
                        summary: "openai".into(),
                        encrypted_content: Some("E".into()),
                    },
                    ContentBlock::ToolUse {
                        id: "t1".into(),
                        name: "Read".into(),
                        input: json!({}),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![ContentBlock::tool_result("t1", "ok", false)],
            },
        ],
        tools: vec![catui_protocol::ToolSpec {
            name: "Read".into(),
            description: "r".into(),
            input_schema: json!({"type": "object"}),
        }],
        tool_choice: ToolChoice::Auto,
        max_tokens: 16_000,
        temperature: Some(0.2),
        reasoning: catui_protocol::Reasoning {
            thinking: Some(Thinking::Enabled {
                budget_tokens: 20_000,
            }),
            effort: Some(Effort::XHigh),
            display: Some(catui_protocol::ThinkingDisplay::Summarized),
            summaries: false,
        },
    }
}

#[test]
fn thinking_requests_keep_thinking_blocks_and_fit_the_budget() {
    let body = request_body(&thinking_conversation());
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 15_999, "display": "summarized"})
    );
    assert!(
        body.get("temperature").is_none(),
        "thinking needs the default temperature"
    );
    assert_eq!(body["output_config"], json!({"effort": "max"}));
    let assistant = &body["messages"][1]["content"];
    assert_eq!(assistant[0]["type"], "thinking");
    assert_eq!(assistant[0]["signature"], "sig-1");
    assert_eq!(assistant[1]["type"], "redacted_thinking");
    assert_eq!(
        assistant[2]["type"], "tool_use",
        "OpenAI reasoning is left out"
    );
    assert_eq!(assistant.as_array().unwrap().len(), 3);
}

#[test]
fn requests_without_thinking_send_no_thinking_blocks() {
    let mut request = thinking_conversation();
    request.reasoning.thinking = Some(Thinking::Disabled);
    let body = request_body(&request);
    assert!(body.get("thinking").is_none());
    assert_eq!(body["temperature"], json!(0.2f32));
    assert_eq!(
        body["messages"][1]["content"],
        json!([{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}])
    );
    // A forced tool choice cannot think either.
    let mut request = thinking_conversation();
    request.tool_choice = ToolChoice::Tool {
        name: "Read".into(),
    };
    let body = request_body(&request);
    assert!(body.get("thinking").is_none());
    assert_eq!(body["messages"][1]["content"].as_array().unwrap().len(), 1);
    // Nor can a request whose max_tokens leaves no room for the minimum budget.
    let mut request = thinking_conversation();
    request.max_tokens = 1000;
    assert!(request_body(&request).get("thinking").is_none());
    request.reasoning.thinking = Some(Thinking::Adaptive);
    assert_eq!(
        request_body(&request)["thinking"],
        json!({"type": "adaptive", "display": "summarized"})
    );
}

/// Every kind of block, the tools and the caching marks, compared as a
/// whole (the body is serialized from typed wire structures).
#[test]
fn the_whole_body_has_the_wire_shape() {
    let request = ModelRequest {
        model: "m".into(),
        system: "sys".into(),
        messages: vec![
            Message {
                role: Role::User,
                content: vec![
                    ContentBlock::text("look"),
                    ContentBlock::Image {
                        source: json!({"type": "base64", "media_type": "image/png", "data": "AA=="}),
                    },
                ],
            },
            Message {
                role: Role::Assistant,
                content: vec![
                    ContentBlock::ToolUse {
                        id: "t1".into(),
                        name: "Read".into(),
                        input: json!({"file_path": "/a"}),
                    },
                    ContentBlock::ToolUse {
                        id: "t2".into(),
                        name: "Read".into(),
                        input: json!("{not json"),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![
                    ContentBlock::tool_result("t1", "text", false),
                    ContentBlock::ToolResult {
                        tool_use_id: "t2".into(),
                        content: catui_protocol::ToolResultContent::Blocks(vec![
                            ContentBlock::text(""),
                            ContentBlock::text("bad input"),
                        ]),
                        is_error: true,
                    },
                ],
            },
        ],
        tools: vec![
            catui_protocol::ToolSpec {
                name: "Read".into(),
                description: "reads".into(),
                input_schema: json!({"type": "object"}),
            },
            catui_protocol::ToolSpec {
                name: "Grep".into(),
                description: "searches".into(),
                input_schema: json!({"type": "object", "required": ["pattern"]}),
            },
        ],
        tool_choice: ToolChoice::Tool {
            name: "Read".into(),
        },
        max_tokens: 100,
        temperature: Some(0.5),
        reasoning: Default::default(),
    };
    let text = serde_json::to_string(&request_body(&request)).unwrap();
    let body: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        body,
        json!({
            "model": "m",
            "max_tokens": 100,
            "system": [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}],
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "look"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA=="}}
                ]},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/a"}},
                    {"type": "tool_use", "id": "t2", "name": "Read", "input": {}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "text"},
                    {"type": "tool_result", "tool_use_id": "t2", "is_error": true,
                     "content": [{"type": "text", "text": "bad input"}],
                     "cache_control": {"type": "ephemeral"}}
                ]}
            ],
            "tools": [
                {"name": "Read", "description": "reads", "input_schema": {"type": "object"}},
                {"name": "Grep", "description": "searches",
                 "input_schema": {"type": "object", "required": ["pattern"]},
                 "cache_control": {"type": "ephemeral"}}
            ],
            "tool_choice": {"type": "tool", "name": "Read"},
            "temperature": 0.5,
            "stream": true
        })
    );
    // The order of the keys is fixed: the system prompt and the
    // conversation come before everything a later request may change.
    assert!(
        text.starts_with(r#"{"model":"m","max_tokens":100,"system":"#),
        "{text}"
    );
}
