//! Reads the Responses API's typed SSE events into deltas and the final
//! [`ModelResponse`]: output items (`message`, `reasoning`,
//! `function_call`) are opened by `response.output_item.added`, grow by
//! their delta events, and are completed by `response.output_item.done`
//! (which carries a reasoning item's encrypted content); the response ends
//! with `response.completed` or `response.incomplete` (usage, status), or
//! fails with `response.failed` / `error`.

use std::collections::HashMap;

use catui_protocol::{ModelResponse, StopReason, Usage};
use serde_json::Value;

use crate::assemble::{Assembler, Partial};
use crate::http::snippet;
use crate::sse::SseEvent;
use crate::streaming::WireStream;
use crate::{EventSink, ProviderError};

/// What one streamed answer has produced so far.
pub(crate) struct StreamState<'a> {
    blocks: Assembler<'a>,
    /// `output_index` → position in `blocks` (items catui does not use,
    /// such as server-side tool calls, have none).
    items: HashMap<u64, usize>,
    /// The summary part last appended to, per reasoning item position.
    summary_parts: HashMap<usize, u64>,
    usage: Usage,
    stop_reason: Option<StopReason>,
    model: Option<String>,
}

impl<'a> WireStream<'a> for StreamState<'a> {
    fn start(sink: EventSink<'a>) -> Self {
        StreamState::new(sink)
    }

    fn handle(&mut self, event: &SseEvent) -> Result<bool, ProviderError> {
        StreamState::handle(self, event)
    }

    fn finish(self) -> ModelResponse {
        StreamState::finish(self)
    }
}

impl<'a> StreamState<'a> {
    pub fn new(sink: EventSink<'a>) -> StreamState<'a> {
        StreamState {
            blocks: Assembler::new(sink),
            items: HashMap::new(),
            summary_parts: HashMap::new(),
            usage: Usage::default(),
            stop_reason: None,
            model: None,
        }
    }

    /// Handles one event; `Ok(true)` once the response is complete.
    pub fn handle(&mut self, event: &SseEvent) -> Result<bool, ProviderError> {
        let data: Value = serde_json::from_str(&event.data).map_err(|e| {
            ProviderError::Malformed(format!(
                "openai-responses sent a `{}` event whose data is not JSON ({e}): {}",
                event.event,
                snippet(&event.data)
            ))
        })?;
        let kind = data
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(event.event.as_str());
        match kind {
            "response.created" | "response.in_progress" => self.read_response(&data["response"]),
            "response.output_item.added" => self.item_added(&data),
            "response.output_text.delta" | "response.refusal.delta" => {
                if let Some(pos) = self.position(&data) {
                    self.blocks.text(pos, str_of(&data, "delta"));
                }
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                self.reasoning_delta(&data)
            }
            "response.function_call_arguments.delta" => {
                if let Some(pos) = self.position(&data) {
                    self.blocks.tool_input(pos, str_of(&data, "delta"));
                }
            }
            "response.output_item.done" => self.item_done(&data),
            "response.completed" => {
                self.read_response(&data["response"]);
                return Ok(true);
            }
            "response.incomplete" => {
                let response = &data["response"];
                self.read_response(response);
                self.stop_reason = Some(match response["incomplete_details"]["reason"].as_str() {
                    Some("max_output_tokens") => StopReason::MaxTokens,
                    Some("content_filter") => StopReason::Refusal,
                    Some(other) => StopReason::Other(other.to_string()),
                    None => StopReason::Other("incomplete".into()),
                });
                return Ok(true);
            }
            "response.failed" => return Err(stream_error(&data["response"]["error"])),
            "error" => return Err(stream_error(data.get("error").unwrap_or(&data))),
            // Part and `.done` events repeat what the deltas said; event
            // types added later need nothing.
            _ => {}
        }
        Ok(false)
    }

    fn position(&self, data: &Value) -> Option<usize> {
        data["output_index"]
            .as_u64()
            .and_then(|i| self.items.get(&i))
            .copied()
    }

    fn item_added(&mut self, data: &Value) {
        let Some(index) = data["output_index"].as_u64() else {
            return;
        };
        let item = &data["item"];
        let part = match item["type"].as_str() {
            Some("message") => Partial::Text(String::new()),
            Some("reasoning") => Partial::Reasoning {
                id: str_of(item, "id").to_string(),
                summary: String::new(),
                encrypted_content: item["encrypted_content"].as_str().map(str::to_string),
            },
            Some("function_call") => Partial::ToolUse {
                id: str_of(item, "call_id").to_string(),
                name: str_of(item, "name").to_string(),
                json: String::new(),
                initial: Value::Null,
            },
            _ => return,
        };
        let pos = self.blocks.start(part);
        self.items.insert(index, pos);
    }

    fn reasoning_delta(&mut self, data: &Value) {
        let Some(pos) = self.position(data) else {
            return;
        };
        // Summary parts are paragraphs of their own.
        let part = data["summary_index"].as_u64().unwrap_or(0);
        let previous = self.summary_parts.insert(pos, part);
        if previous.is_some_and(|p| p != part) && !self.blocks.streamed(pos).is_empty() {
            self.blocks.reasoning(pos, "\n\n");
        }
        self.blocks.reasoning(pos, str_of(data, "delta"));
    }

    /// The finished item: fills in whatever its deltas did not carry.
    fn item_done(&mut self, data: &Value) {
        let Some(pos) = self.position(data) else {
            return;
        };
        let item = &data["item"];
        let nothing_streamed = self.blocks.streamed(pos).is_empty();
        match item["type"].as_str() {
            Some("reasoning") => {
                let summary = texts(&item["summary"], "summary_text").join("\n\n");
                self.blocks.reasoning_done(
                    pos,
                    str_of(item, "id"),
                    &summary,
                    item["encrypted_content"].as_str(),
                );
            }
            Some("function_call") if nothing_streamed => {
                let args = str_of(item, "arguments");
                if !args.is_empty() {
                    self.blocks.tool_input(pos, args);
                }
            }
            Some("message") if nothing_streamed => {
                let text = texts(&item["content"], "output_text").concat();
                if !text.is_empty() {
                    self.blocks.text(pos, &text);
                }
            }
            _ => {}
        }
    }

    /// Model name and usage, when the response object carries them.
    /// `input_tokens` includes cached tokens; catui's does not.
    fn read_response(&mut self, response: &Value) {
        if let Some(model) = response["model"].as_str() {
            self.model = Some(model.to_string());
        }
        let usage = &response["usage"];
        if !usage.is_object() {
            return;
        }
        let input = usage["input_tokens"].as_u64().unwrap_or(0);
        let cached = usage["input_tokens_details"]["cached_tokens"]
            .as_u64()
            .unwrap_or(0);
        self.usage = Usage {
            input_tokens: input.saturating_sub(cached),
            output_tokens: usage["output_tokens"].as_u64().unwrap_or(0),
            cache_read_input_tokens: cached,
            cache_creation_input_tokens: 0,
        };
    }

    pub fn finish(self) -> ModelResponse {
        let stop_reason = match self.stop_reason {
            Some(reason) => reason,
            None if self.blocks.has_tool_use() => StopReason::ToolUse,
            None => StopReason::EndTurn,
        };
        ModelResponse {
            message: self.blocks.into_message(),
            stop_reason,
            usage: self.usage,
            model: self.model,
        }
    }
}

fn str_of<'v>(v: &'v Value, name: &str) -> &'v str {
    v[name].as_str().unwrap_or_default()
}

/// The `text` of the parts of type `kind` in a list of content parts.
fn texts<'v>(parts: &'v Value, kind: &str) -> Vec<&'v str> {
    parts
        .as_array()
        .map(|parts| {
            parts
                .iter()
                .filter(|p| p["type"].as_str() == Some(kind))
                .filter_map(|p| p["text"].as_str())
                .collect()
        })
        .unwrap_or_default()
}

/// `{"code", "message"}` (or `type`) of a failed response or error event.
fn stream_error(error: &Value) -> ProviderError {
    let kind = error["code"]
        .as_str()
        .or_else(|| error["type"].as_str())
        .filter(|k| *k != "error")
        .unwrap_or("error")
        .to_string();
    let message = error["message"]
        .as_str()
        .unwrap_or("the server reported an error without a message")
        .to_string();
    ProviderError::StreamError {
        provider: "openai-responses",
        kind,
        message,
    }
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
