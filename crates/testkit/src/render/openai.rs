//! OpenAI Chat Completions streaming format: `data: {chunk}` frames with
//! `choices[0].delta` (content, reasoning_content, tool_calls), a final
//! chunk with `finish_reason`, a usage chunk when asked for, `data: [DONE]`.

use bytes::Bytes;
use serde_json::{Value, json};

use super::{RenderCtx, data_frame, split_json, split_text};
use crate::script::{Block, Reply, Turn};

/// The SSE frames of a turn.
pub(crate) fn frames(turn: &Turn, ctx: &RenderCtx) -> Vec<Bytes> {
    let chunk = |delta: Value, finish: Value| -> Bytes {
        data_frame(
            &json!({
                "id": format!("chatcmpl-mock-{}", ctx.serial),
                "object": "chat.completion.chunk",
                "created": 0,
                "model": ctx.model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]
            })
            .to_string(),
        )
    };
    let mut out = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    let blocks: &[Block] = match &turn.reply {
        Reply::Content(blocks) => blocks,
        Reply::MalformedSse => {
            out.push(data_frame("{\"id\": \"chatcmpl-mock\", \"choices\": [oops"));
            return out;
        }
        Reply::StreamError { kind, message } => {
            out.push(data_frame(
                &json!({"error": {"message": message, "type": kind, "code": null}}).to_string(),
            ));
            return out;
        }
        Reply::ErrorStatus { .. } => &[],
    };

    let mut tool_index = 0usize;
    for block in blocks {
        match block {
            Block::Text(text) => {
                for piece in split_text(text) {
                    out.push(chunk(json!({"content": piece}), Value::Null));
                }
            }
            Block::Thinking { thinking, .. } => {
                for piece in split_text(thinking) {
                    out.push(chunk(json!({"reasoning_content": piece}), Value::Null));
                }
            }
            // OpenAI has no equivalent of redacted thinking.
            Block::RedactedThinking { .. } => {}
            Block::ToolUse { id, name, input } => {
                tool_call_chunks(&mut out, &chunk, tool_index, id, name, &input.to_string());
                tool_index += 1;
            }
            Block::ToolUseRaw { id, name, raw } => {
                tool_call_chunks(&mut out, &chunk, tool_index, id, name, raw);
                tool_index += 1;
            }
        }
    }

    let finish = match turn.stop_reason.as_deref() {
        Some("max_tokens") => "length".to_string(),
        Some("end_turn") => "stop".to_string(),
        Some("tool_use") => "tool_calls".to_string(),
        Some(other) => other.to_string(),
        None if turn.has_tool_use() => "tool_calls".to_string(),
        None => "stop".to_string(),
    };
    out.push(chunk(json!({}), json!(finish)));

    if ctx.include_usage {
        let (input, output) = ctx.usage(turn, blocks);
        let (cache_read, _) = ctx.cache(turn);
        // OpenAI counts cached tokens inside prompt_tokens.
        let prompt = input + cache_read;
        out.push(data_frame(
            &json!({
                "id": format!("chatcmpl-mock-{}", ctx.serial),
                "object": "chat.completion.chunk",
                "created": 0,
                "model": ctx.model,
                "choices": [],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": output,
                    "total_tokens": prompt + output,
                    "prompt_tokens_details": {"cached_tokens": cache_read}
                }
            })
            .to_string(),
        ));
    }
    out.push(data_frame("[DONE]"));
    out
}

fn tool_call_chunks(
    out: &mut Vec<Bytes>,
    chunk: &dyn Fn(Value, Value) -> Bytes,
    index: usize,
    id: &str,
    name: &str,
    arguments: &str,
) {
    out.push(chunk(
        json!({"tool_calls": [{
            "index": index,
            "id": id,
            "type": "function",
            "function": {"name": name, "arguments": ""}
        }]}),
        Value::Null,
    ));
    for piece in split_json(arguments) {
        out.push(chunk(
            json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
            Value::Null,
        ));
    }
}

/// The JSON body of an HTTP error, as OpenAI sends it.
pub(crate) fn error_body(status: u16, message: &str) -> Value {
    let kind = match status {
        400 => "invalid_request_error",
        401 => "invalid_api_key",
        403 => "permission_denied",
        404 => "not_found",
        429 => "rate_limit_exceeded",
        _ => "server_error",
    };
    json!({"error": {"message": message, "type": kind, "param": null, "code": null}})
}
