use super::*;
use catui_protocol::{ContentBlock, ModelEvent};
use serde_json::json;
use std::sync::Mutex;

fn feed(events: &[Value]) -> (Result<ModelResponse, ProviderError>, Vec<ModelEvent>) {
    let seen = Mutex::new(Vec::new());
    let sink = |e: ModelEvent| seen.lock().unwrap().push(e);
    let mut state = StreamState::new(&sink);
    let mut result = None;
    for data in events {
        let event = SseEvent {
            event: data["type"].as_str().unwrap_or("message").into(),
            data: data.to_string(),
        };
        match state.handle(&event) {
            Ok(true) => {
                result = Some(Ok(()));
                break;
            }
            Ok(false) => {}
            Err(e) => {
                result = Some(Err(e));
                break;
            }
        }
    }
    let result = match result {
        Some(Ok(())) => Ok(state.finish()),
        Some(Err(e)) => Err(e),
        None => Err(ProviderError::StreamEnded),
    };
    (result, seen.into_inner().unwrap())
}

#[test]
fn reasoning_text_and_calls_come_out_in_order() {
    let (response, events) = feed(&[
        json!({"type": "response.created", "response": {"model": "gpt-5-codex", "usage": null}}),
        json!({"type": "response.output_item.added", "output_index": 0,
               "item": {"type": "reasoning", "id": "rs_1", "summary": []}}),
        json!({"type": "response.reasoning_summary_text.delta", "output_index": 0, "summary_index": 0, "delta": "First "}),
        json!({"type": "response.reasoning_summary_text.delta", "output_index": 0, "summary_index": 0, "delta": "idea."}),
        json!({"type": "response.reasoning_summary_text.delta", "output_index": 0, "summary_index": 1, "delta": "Second."}),
        json!({"type": "response.output_item.done", "output_index": 0,
               "item": {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "ENC"}}),
        json!({"type": "response.output_item.added", "output_index": 1,
               "item": {"type": "web_search_call", "id": "ws_1"}}),
        json!({"type": "response.output_item.added", "output_index": 2,
               "item": {"type": "message", "id": "msg_1", "role": "assistant", "content": []}}),
        json!({"type": "response.output_text.delta", "output_index": 2, "content_index": 0, "delta": "Let me "}),
        json!({"type": "response.output_text.delta", "output_index": 2, "content_index": 0, "delta": "look."}),
        json!({"type": "response.output_item.added", "output_index": 3,
               "item": {"type": "function_call", "id": "fc_1", "call_id": "call_9", "name": "Read", "arguments": ""}}),
        json!({"type": "response.function_call_arguments.delta", "output_index": 3, "delta": "{\"file_path\":"}),
        json!({"type": "response.function_call_arguments.delta", "output_index": 3, "delta": "\"a.rs\"}"}),
        json!({"type": "response.output_item.done", "output_index": 3,
               "item": {"type": "function_call", "call_id": "call_9", "name": "Read", "arguments": "{\"file_path\":\"a.rs\"}"}}),
        json!({"type": "response.completed", "response": {"status": "completed", "model": "gpt-5-codex",
               "usage": {"input_tokens": 1200, "input_tokens_details": {"cached_tokens": 1000},
                         "output_tokens": 80, "output_tokens_details": {"reasoning_tokens": 50}}}}),
    ]);
    let response = response.unwrap();
    assert_eq!(
        response.message.content,
        vec![
            ContentBlock::Reasoning {
                id: "rs_1".into(),
                summary: "First idea.\n\nSecond.".into(),
                encrypted_content: Some("ENC".into()),
            },
            ContentBlock::text("Let me look."),
            ContentBlock::ToolUse {
                id: "call_9".into(),
                name: "Read".into(),
                input: json!({"file_path": "a.rs"}),
            },
        ]
    );
    assert_eq!(response.stop_reason, StopReason::ToolUse);
    assert_eq!(response.model.as_deref(), Some("gpt-5-codex"));
    assert_eq!(
        response.usage,
        Usage {
            input_tokens: 200,
            output_tokens: 80,
            cache_read_input_tokens: 1000,
            cache_creation_input_tokens: 0,
        }
    );
    let thinking: String = events
        .iter()
        .filter_map(|e| match e {
            ModelEvent::ThinkingDelta { thinking } => Some(thinking.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(thinking, "First idea.\n\nSecond.");
    assert!(events.contains(&ModelEvent::ToolUseStart {
        id: "call_9".into(),
        name: "Read".into()
    }));
}

#[test]
fn finished_items_fill_in_what_was_not_streamed() {
    let (response, _) = feed(&[
        json!({"type": "response.output_item.added", "output_index": 0,
               "item": {"type": "reasoning", "id": "", "summary": []}}),
        json!({"type": "response.output_item.done", "output_index": 0,
               "item": {"type": "reasoning", "id": "rs_7", "encrypted_content": "E",
                        "summary": [{"type": "summary_text", "text": "Plan."}]}}),
        json!({"type": "response.output_item.added", "output_index": 1,
               "item": {"type": "function_call", "call_id": "c1", "name": "Glob"}}),
        json!({"type": "response.output_item.done", "output_index": 1,
               "item": {"type": "function_call", "call_id": "c1", "name": "Glob", "arguments": "{\"pattern\":\"*\"}"}}),
        json!({"type": "response.output_item.added", "output_index": 2, "item": {"type": "message"}}),
        json!({"type": "response.output_item.done", "output_index": 2,
               "item": {"type": "message", "content": [{"type": "output_text", "text": "Done."}]}}),
        json!({"type": "response.completed", "response": {"status": "completed"}}),
    ]);
    let m = response.unwrap().message;
    assert_eq!(
        m.content[0],
        ContentBlock::Reasoning {
            id: "rs_7".into(),
            summary: "Plan.".into(),
            encrypted_content: Some("E".into())
        }
    );
    assert_eq!(m.tool_uses().next().unwrap().2, &json!({"pattern": "*"}));
    assert_eq!(m.text(), "Done.");
}

#[test]
fn incomplete_answers_keep_their_reason() {
    let (response, _) = feed(&[
        json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "message"}}),
        json!({"type": "response.output_text.delta", "output_index": 0, "delta": "Partial"}),
        json!({"type": "response.incomplete", "response": {"status": "incomplete",
               "incomplete_details": {"reason": "max_output_tokens"},
               "usage": {"input_tokens": 10, "output_tokens": 4}}}),
    ]);
    let response = response.unwrap();
    assert_eq!(response.stop_reason, StopReason::MaxTokens);
    assert_eq!(response.message.text(), "Partial");
    assert_eq!(response.usage.input_tokens, 10);
}

#[test]
fn failures_become_stream_errors_that_say_whether_to_retry() {
    let (result, _) = feed(&[
        json!({"type": "response.failed", "response": {"status": "failed",
        "error": {"code": "rate_limit_exceeded", "message": "slow down"}}}),
    ]);
    let err = result.unwrap_err();
    assert!(err.is_retryable(), "{err}");
    assert!(err.to_string().contains("slow down"));

    let (result, _) = feed(&[json!({"type": "error", "code": "invalid_prompt",
        "message": "Item 'rs_1' was provided without its required following item."})]);
    let err = result.unwrap_err();
    assert!(!err.is_retryable());
    assert!(err.to_string().contains("invalid_prompt"), "{err}");

    let seen = Mutex::new(Vec::new());
    let sink = |e: ModelEvent| seen.lock().unwrap().push(e);
    let mut state = StreamState::new(&sink);
    let err = state
        .handle(&SseEvent {
            event: "response.created".into(),
            data: "{oops".into(),
        })
        .unwrap_err();
    assert!(matches!(err, ProviderError::Malformed(_)));

    // A stream that stops before `response.completed` is not an answer.
    let (result, _) = feed(&[json!({"type": "response.created", "response": {}})]);
    assert!(matches!(result, Err(ProviderError::StreamEnded)));
}
