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
    let (cache_read, cache_creation) = turn.cache_usage;
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
