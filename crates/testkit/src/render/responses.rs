//! OpenAI Responses streaming format: `response.created`, then per block
//! an output item (`message`, `reasoning` or `function_call`) opened by
//! `response.output_item.added`, grown by its delta events and closed by
//! `response.output_item.done`; `response.completed` (or
//! `response.incomplete` for a `max_tokens` stop) with usage. Faults:
//! `response.failed` for stream errors, a bad data line for malformed SSE.
//!
//! Thinking blocks become reasoning items whose summary is the thinking
//! text; their encrypted content (the block's signature, or a made-up
//! token) is only sent when the request asked for it with
//! `include: ["reasoning.encrypted_content"]`, as the real API does.

use bytes::Bytes;
use serde_json::{Value, json};

use super::{RenderCtx, named_frame, split_json, split_text};
use crate::script::{Block, Reply, Turn};

/// Numbers the events of one response, as the API does.
struct Frames {
    out: Vec<Bytes>,
    sequence: u64,
}

impl Frames {
    fn push(&mut self, kind: &str, mut data: Value) {
        data["type"] = json!(kind);
        data["sequence_number"] = json!(self.sequence);
        self.sequence += 1;
        self.out.push(named_frame(kind, &data));
    }
}

/// The SSE frames of a turn.
pub(crate) fn frames(turn: &Turn, ctx: &RenderCtx) -> Vec<Bytes> {
    let id = format!("resp_mock_{}", ctx.serial);
    let mut f = Frames {
        out: Vec::new(),
        sequence: 0,
    };
    let response = |status: &str, output: Value, usage: Value| {
        json!({"id": id, "object": "response", "created_at": 0, "status": status,
               "model": ctx.model, "output": output, "usage": usage})
    };
    f.push(
        "response.created",
        json!({"response": response("in_progress", json!([]), Value::Null)}),
    );
    f.push(
        "response.in_progress",
        json!({"response": response("in_progress", json!([]), Value::Null)}),
    );
    let blocks: &[Block] = match &turn.reply {
        Reply::Content(blocks) => blocks,
        Reply::MalformedSse => {
            f.out.push(Bytes::from_static(
                b"event: response.output_item.added\ndata: {\"type\": \"response.output_item.added\", oops\n\n",
            ));
            return f.out;
        }
        Reply::StreamError { kind, message } => {
            f.push(
                "response.failed",
                json!({"response": {"id": id, "object": "response", "status": "failed",
                       "model": ctx.model, "output": [],
                       "error": {"code": kind, "message": message}}}),
            );
            return f.out;
        }
        Reply::ErrorStatus { .. } => &[],
    };

    let mut output = Vec::new();
    for (index, block) in blocks.iter().enumerate() {
        if let Some(item) = block_frames(&mut f, index, block, ctx) {
            output.push(item);
        }
    }

    let (input, output_tokens) = ctx.usage(turn, blocks);
    let (cache_read, _) = ctx.cache(turn);
    let reasoning_tokens: usize = blocks
        .iter()
        .filter(|b| matches!(b, Block::Thinking { .. } | Block::RedactedThinking { .. }))
        .map(Block::streamed_len)
        .sum();
    // The API counts cached tokens inside input_tokens.
    let usage = json!({
        "input_tokens": input + cache_read,
        "input_tokens_details": {"cached_tokens": cache_read},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": (reasoning_tokens as u64).div_ceil(4)},
        "total_tokens": input + cache_read + output_tokens
    });
    match turn.stop_reason.as_deref() {
        Some("max_tokens") => f.push(
            "response.incomplete",
            json!({"response": {"id": id, "object": "response", "status": "incomplete",
                   "model": ctx.model, "output": output, "usage": usage,
                   "incomplete_details": {"reason": "max_output_tokens"}}}),
        ),
        _ => f.push(
            "response.completed",
            json!({"response": response("completed", Value::Array(output), usage)}),
        ),
    }
    f.out
}

/// The events of one output item; returns the finished item.
fn block_frames(f: &mut Frames, index: usize, block: &Block, ctx: &RenderCtx) -> Option<Value> {
    let item_id = |prefix: &str| format!("{prefix}_mock_{}_{index}", ctx.serial);
    match block {
        Block::Text(text) => {
            let id = item_id("msg");
            f.push(
                "response.output_item.added",
                json!({"output_index": index, "item": {"id": id, "type": "message",
                       "status": "in_progress", "role": "assistant", "content": []}}),
            );
            let part = json!({"type": "output_text", "text": "", "annotations": []});
            f.push(
                "response.content_part.added",
                json!({"item_id": id, "output_index": index, "content_index": 0, "part": part}),
            );
            for piece in split_text(text) {
                f.push(
                    "response.output_text.delta",
                    json!({"item_id": id, "output_index": index, "content_index": 0, "delta": piece}),
                );
            }
            f.push(
                "response.output_text.done",
                json!({"item_id": id, "output_index": index, "content_index": 0, "text": text}),
            );
            let part = json!({"type": "output_text", "text": text, "annotations": []});
            f.push(
                "response.content_part.done",
                json!({"item_id": id, "output_index": index, "content_index": 0, "part": part}),
            );
            let item = json!({"id": id, "type": "message", "status": "completed",
                              "role": "assistant", "content": [part]});
            f.push(
                "response.output_item.done",
                json!({"output_index": index, "item": item}),
            );
            Some(item)
        }
        Block::Thinking {
            thinking,
            signature,
        } => {
            let encrypted = if signature.is_empty() {
                format!("enc_mock_{}_{index}", ctx.serial)
            } else {
                signature.clone()
            };
            Some(reasoning_frames(
                f,
                index,
                &item_id("rs"),
                thinking,
                &encrypted,
                ctx,
            ))
        }
        Block::RedactedThinking { data } => {
            Some(reasoning_frames(f, index, &item_id("rs"), "", data, ctx))
        }
        Block::ToolUse { id, name, input } => Some(call_frames(
            f,
            index,
            &item_id("fc"),
            id,
            name,
            &input.to_string(),
        )),
        Block::ToolUseRaw { id, name, raw } => {
            Some(call_frames(f, index, &item_id("fc"), id, name, raw))
        }
    }
}

fn reasoning_frames(
    f: &mut Frames,
    index: usize,
    id: &str,
    summary: &str,
    encrypted: &str,
    ctx: &RenderCtx,
) -> Value {
    f.push(
        "response.output_item.added",
        json!({"output_index": index, "item": {"id": id, "type": "reasoning", "summary": []}}),
    );
    if !summary.is_empty() {
        f.push(
            "response.reasoning_summary_part.added",
            json!({"item_id": id, "output_index": index, "summary_index": 0,
                   "part": {"type": "summary_text", "text": ""}}),
        );
        for piece in split_text(summary) {
            f.push(
                "response.reasoning_summary_text.delta",
                json!({"item_id": id, "output_index": index, "summary_index": 0, "delta": piece}),
            );
        }
        f.push(
            "response.reasoning_summary_text.done",
            json!({"item_id": id, "output_index": index, "summary_index": 0, "text": summary}),
        );
        f.push(
            "response.reasoning_summary_part.done",
            json!({"item_id": id, "output_index": index, "summary_index": 0,
                   "part": {"type": "summary_text", "text": summary}}),
        );
    }
    let summary_parts = if summary.is_empty() {
        json!([])
    } else {
        json!([{"type": "summary_text", "text": summary}])
    };
    let mut item = json!({"id": id, "type": "reasoning", "summary": summary_parts});
    if ctx.encrypted_reasoning {
        item["encrypted_content"] = json!(encrypted);
    }
    f.push(
        "response.output_item.done",
        json!({"output_index": index, "item": item}),
    );
    item
}

fn call_frames(
    f: &mut Frames,
    index: usize,
    item_id: &str,
    call_id: &str,
    name: &str,
    arguments: &str,
) -> Value {
    f.push(
        "response.output_item.added",
        json!({"output_index": index, "item": {"id": item_id, "type": "function_call",
               "status": "in_progress", "call_id": call_id, "name": name, "arguments": ""}}),
    );
    for piece in split_json(arguments) {
        f.push(
            "response.function_call_arguments.delta",
            json!({"item_id": item_id, "output_index": index, "delta": piece}),
        );
    }
    f.push(
        "response.function_call_arguments.done",
        json!({"item_id": item_id, "output_index": index, "arguments": arguments}),
    );
    let item = json!({"id": item_id, "type": "function_call", "status": "completed",
                      "call_id": call_id, "name": name, "arguments": arguments});
    f.push(
        "response.output_item.done",
        json!({"output_index": index, "item": item}),
    );
    item
}

/// Checks what the real API checks before answering: known input item
/// types, every function call answered by an output and every output
/// answering an earlier call, reasoning items that can be resolved (with
/// `store: false`, only through their encrypted content) and that are
/// followed by the item they belong to. The error text is the API's.
pub(crate) fn validate(body: &Value) -> Result<(), String> {
    let items = match body.get("input") {
        Some(Value::Array(items)) => items.as_slice(),
        Some(Value::String(_)) => return Ok(()),
        _ => return Err("Missing required parameter: 'input'.".into()),
    };
    let stored = body.get("store").and_then(Value::as_bool) != Some(false);
    let mut calls: Vec<&str> = Vec::new();
    let mut answered: Vec<&str> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let kind = item
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("message");
        let field = |name: &str| item.get(name).and_then(Value::as_str).unwrap_or_default();
        match kind {
            "message" => {}
            "function_call" => calls.push(field("call_id")),
            "function_call_output" => {
                let call_id = field("call_id");
                if !calls.contains(&call_id) {
                    return Err(format!(
                        "No tool call found for function call output with call_id {call_id}."
                    ));
                }
                answered.push(call_id);
            }
            "reasoning" => {
                if !stored
                    && item
                        .get("encrypted_content")
                        .and_then(Value::as_str)
                        .is_none()
                {
                    return Err(format!(
                        "Item with id '{}' not found. Items are not persisted when `store` is set to false.",
                        field("id")
                    ));
                }
                if i + 1 == items.len() {
                    return Err(format!(
                        "Item '{}' of type 'reasoning' was provided without its required following item.",
                        field("id")
                    ));
                }
            }
            other => {
                return Err(format!(
                    "Invalid value: '{other}'. Supported values are: 'message', 'function_call', 'function_call_output' and 'reasoning'."
                ));
            }
        }
    }
    if let Some(call_id) = calls.iter().find(|c| !answered.contains(c)) {
        return Err(format!("No tool output found for function call {call_id}."));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_api_rules_are_checked() {
        let ok = json!({"store": false, "input": [
            {"type": "message", "role": "user", "content": "hi"},
            {"type": "reasoning", "summary": [], "encrypted_content": "e"},
            {"type": "function_call", "call_id": "c1", "name": "Read", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "x"}
        ]});
        assert_eq!(validate(&ok), Ok(()));
        let unanswered = json!({"input": [
            {"type": "function_call", "call_id": "c1", "name": "Read", "arguments": "{}"}
        ]});
        assert!(
            validate(&unanswered)
                .unwrap_err()
                .contains("No tool output found")
        );
        let orphan =
            json!({"input": [{"type": "function_call_output", "call_id": "c9", "output": ""}]});
        assert!(validate(&orphan).unwrap_err().contains("c9"));
        let unresolvable = json!({"store": false, "input": [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "message", "role": "assistant", "content": []}
        ]});
        assert!(
            validate(&unresolvable)
                .unwrap_err()
                .contains("not persisted")
        );
        let dangling = json!({"store": false, "input": [
            {"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": "e"}
        ]});
        assert!(
            validate(&dangling)
                .unwrap_err()
                .contains("required following item")
        );
        assert!(validate(&json!({})).is_err());
    }
}
