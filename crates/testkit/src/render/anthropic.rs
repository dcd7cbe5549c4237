//! Anthropic Messages streaming format: `message_start`, `ping`,
//! `content_block_start/delta/stop` per block, `message_delta` with the
//! stop reason and usage, `message_stop`; `error` events for faults.

use bytes::Bytes;
use serde_json::{Value, json};

use super::{RenderCtx, named_frame, split_json, split_text};
use crate::script::{Block, Reply, Turn};

/// The SSE frames of a turn.
pub(crate) fn frames(turn: &Turn, ctx: &RenderCtx) -> Vec<Bytes> {
    let mut out = Vec::new();
    let blocks: &[Block] = match &turn.reply {
        Reply::Content(blocks) => blocks,
        _ => &[],
    };
    let (input, output) = ctx.usage(turn, blocks);
    let (cache_read, cache_creation) = ctx.cache(turn);
    out.push(named_frame(
        "message_start",
        &json!({
            "type": "message_start",
            "message": {
                "id": format!("msg_mock_{}", ctx.serial),
                "type": "message",
                "role": "assistant",
                "model": ctx.model,
                "content": [],
                "stop_reason": null,
                "stop_sequence": null,
                "usage": {
                    "input_tokens": input,
                    "output_tokens": 1,
                    "cache_read_input_tokens": cache_read,
                    "cache_creation_input_tokens": cache_creation
                }
            }
        }),
    ));
    out.push(named_frame("ping", &json!({"type": "ping"})));

    match &turn.reply {
        Reply::MalformedSse => {
            out.push(Bytes::from_static(
                b"event: content_block_start\ndata: {\"type\": \"content_block_start\", \"index\": 0, oops\n\n",
            ));
            return out;
        }
        Reply::StreamError { kind, message } => {
            out.push(named_frame(
                "error",
                &json!({"type": "error", "error": {"type": kind, "message": message}}),
            ));
            return out;
        }
        Reply::ErrorStatus { .. } | Reply::Content(_) => {}
    }

    for (index, block) in blocks.iter().enumerate() {
        block_frames(&mut out, index, block);
    }

    let stop_reason = turn.stop_reason.clone().unwrap_or_else(|| {
        if turn.has_tool_use() {
            "tool_use".into()
        } else {
            "end_turn".into()
        }
    });
    out.push(named_frame(
        "message_delta",
        &json!({
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason, "stop_sequence": null},
            "usage": {
                "input_tokens": input,
                "output_tokens": output,
                "cache_read_input_tokens": cache_read,
                "cache_creation_input_tokens": cache_creation
            }
        }),
    ));
    out.push(named_frame(
        "message_stop",
        &json!({"type": "message_stop"}),
    ));
    out
}

fn block_frames(out: &mut Vec<Bytes>, index: usize, block: &Block) {
    let (start, deltas): (Value, Vec<Value>) = match block {
        Block::Text(text) => (
            json!({"type": "text", "text": ""}),
            split_text(text)
                .into_iter()
                .map(|t| json!({"type": "text_delta", "text": t}))
                .collect(),
        ),
        Block::Thinking {
            thinking,
            signature,
        } => {
            let mut deltas: Vec<Value> = split_text(thinking)
                .into_iter()
                .map(|t| json!({"type": "thinking_delta", "thinking": t}))
                .collect();
            deltas.push(json!({"type": "signature_delta", "signature": signature}));
            (json!({"type": "thinking", "thinking": ""}), deltas)
        }
        Block::RedactedThinking { data } => (
            json!({"type": "redacted_thinking", "data": data}),
            Vec::new(),
        ),
        Block::ToolUse { id, name, input } => tool_use_parts(id, name, &input.to_string()),
        Block::ToolUseRaw { id, name, raw } => tool_use_parts(id, name, raw),
    };
    out.push(named_frame(
        "content_block_start",
        &json!({"type": "content_block_start", "index": index, "content_block": start}),
    ));
    for delta in deltas {
        out.push(named_frame(
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": index, "delta": delta}),
        ));
    }
    out.push(named_frame(
        "content_block_stop",
        &json!({"type": "content_block_stop", "index": index}),
    ));
}

fn tool_use_parts(id: &str, name: &str, input_text: &str) -> (Value, Vec<Value>) {
    (
        json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
        split_json(input_text)
            .into_iter()
            .map(|p| json!({"type": "input_json_delta", "partial_json": p}))
            .collect(),
    )
}

/// The JSON body of an HTTP error, as the Messages API sends it.
pub(crate) fn error_body(status: u16, message: &str) -> Value {
    let kind = match status {
        400 => "invalid_request_error",
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        529 => "overloaded_error",
        _ => "api_error",
    };
    json!({"type": "error", "error": {"type": kind, "message": message}})
}

/// Checks the extended-thinking rules the real API enforces, with its
/// error texts: a thinking budget of at least 1024 tokens and below
/// `max_tokens`, no temperature and no forced tool choice with thinking,
/// thinking blocks with their signatures, and, while thinking, a final
/// assistant message with tool calls that starts with its thinking (the
/// API needs it to continue the tool loop).
pub(crate) fn validate(body: &Value) -> Result<(), String> {
    let messages = body
        .get("messages")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for (i, m) in messages.iter().enumerate() {
        let blocks = m
            .get("content")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for (j, b) in blocks.iter().enumerate() {
            if b.get("type").and_then(Value::as_str) == Some("thinking")
                && b.get("signature")
                    .and_then(Value::as_str)
                    .is_none_or(str::is_empty)
            {
                return Err(format!(
                    "messages.{i}.content.{j}.thinking.signature: Field required"
                ));
            }
        }
    }
    let Some(thinking) = body.get("thinking") else {
        return Ok(());
    };
    let kind = thinking.get("type").and_then(Value::as_str).unwrap_or("");
    if kind == "disabled" {
        return Ok(());
    }
    if kind == "enabled" {
        let budget = thinking
            .get("budget_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let max = body.get("max_tokens").and_then(Value::as_u64).unwrap_or(0);
        if budget < 1024 {
            return Err(
                "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
                    .into(),
            );
        }
        if budget >= max {
            return Err("`max_tokens` must be greater than `thinking.budget_tokens`".into());
        }
    }
    if body
        .get("temperature")
        .is_some_and(|t| t.as_f64() != Some(1.0))
    {
        return Err("`temperature` may only be set to 1 when thinking is enabled".into());
    }
    if let Some(choice) = body
        .get("tool_choice")
        .and_then(|c| c.get("type"))
        .and_then(Value::as_str)
        && matches!(choice, "any" | "tool")
    {
        return Err("Thinking may not be enabled when tool_choice forces tool use.".into());
    }
    let last_assistant = messages
        .iter()
        .enumerate()
        .rev()
        .find(|(_, m)| m.get("role").and_then(Value::as_str) == Some("assistant"));
    if let Some((i, m)) = last_assistant {
        let blocks = m
            .get("content")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let kind_of = |b: &Value| {
            b.get("type")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let calls_tools = blocks.iter().any(|b| kind_of(b) == "tool_use");
        let first = blocks.first().map(kind_of).unwrap_or_default();
        if calls_tools && !matches!(first.as_str(), "thinking" | "redacted_thinking") {
            return Err(format!(
                "messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{first}`. When `thinking` is enabled, a final `assistant` message must start with a thinking block."
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinking_rules_are_checked() {
        let tool_loop = |first: Value| {
            json!({"max_tokens": 4096, "thinking": {"type": "enabled", "budget_tokens": 2048},
            "messages": [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": [first, {"type": "tool_use", "id": "t", "name": "R", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]}
            ]})
        };
        assert_eq!(
            validate(&tool_loop(
                json!({"type": "thinking", "thinking": "x", "signature": "s"})
            )),
            Ok(())
        );
        assert!(
            validate(&tool_loop(json!({"type": "text", "text": "x"})))
                .unwrap_err()
                .contains("must start with a thinking block")
        );
        assert!(
            validate(&tool_loop(json!({"type": "thinking", "thinking": "x"})))
                .unwrap_err()
                .contains("signature")
        );
        let mut body = tool_loop(json!({"type": "redacted_thinking", "data": "d"}));
        assert_eq!(validate(&body), Ok(()));
        body["max_tokens"] = json!(2048);
        assert!(validate(&body).unwrap_err().contains("max_tokens"));
        body["max_tokens"] = json!(9000);
        body["temperature"] = json!(0.5);
        assert!(validate(&body).unwrap_err().contains("temperature"));
        // Without thinking, text-first tool loops are fine.
        let mut plain = tool_loop(json!({"type": "text", "text": "x"}));
        plain.as_object_mut().unwrap().remove("thinking");
        assert_eq!(validate(&plain), Ok(()));
    }
}
