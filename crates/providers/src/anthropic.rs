//! Anthropic Messages API client: converts a [`ModelRequest`] to the
//! `POST {base}/v1/messages` body (streamed), and turns the SSE events
//! (`message_start`, `content_block_*`, `message_delta`, `message_stop`,
//! `ping`, `error`) into [`ModelEvent`](catui_protocol::ModelEvent) deltas and
//! the final [`ModelResponse`].

use std::collections::HashMap;

use async_trait::async_trait;
use catui_protocol::{
    ContentBlock, Effort, Message, ModelRequest, ModelResponse, Role, StopReason, Thinking,
    ToolChoice, ToolResultContent, Usage,
};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::assemble::{Assembler, Partial};
use crate::http::{self, snippet};
use crate::sse::SseEvent;
use crate::streaming::{self, WireStream};
use crate::{EventSink, ModelClient, ProviderConfig, ProviderError, ProviderKind};

/// The API version catui speaks.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// The beta that lets a request choose its effort (`output_config.effort`).
pub const EFFORT_BETA: &str = "effort-2025-11-24";

/// The smallest thinking budget the API accepts.
const MIN_THINKING_BUDGET: u32 = 1024;

/// Client for the Anthropic Messages API (or a compatible server).
pub struct AnthropicClient {
    config: ProviderConfig,
    http: reqwest::Client,
    url: String,
}

impl AnthropicClient {
    /// Fails when the key is empty or the base URL is not an http(s) URL.
    pub fn new(config: ProviderConfig) -> Result<Self, ProviderError> {
        if config.api_key.trim().is_empty() {
            return Err(ProviderError::Config(format!(
                "{} is not set: export your Anthropic API key, or choose another provider",
                config.kind.key_var()
            )));
        }
        http::validate_base_url(&config)?;
        Ok(Self {
            url: http::endpoint(&config, "/v1/messages"),
            http: http::build_client()?,
            config,
        })
    }
}

#[async_trait]
impl ModelClient for AnthropicClient {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Anthropic
    }

    async fn stream(
        &self,
        request: &ModelRequest,
        sink: EventSink<'_>,
        cancel: &CancellationToken,
    ) -> Result<ModelResponse, ProviderError> {
        let body = request_body(request);
        let effort = body.get("output_config").is_some();
        let build = || {
            let builder = self
                .http
                .post(&self.url)
                .header("x-api-key", &self.config.api_key)
                .header("anthropic-version", ANTHROPIC_VERSION)
                .header("accept", "text/event-stream");
            let builder = if effort {
                builder.header("anthropic-beta", EFFORT_BETA)
            } else {
                builder
            };
            builder.json(&body)
        };
        streaming::stream_with_retries::<StreamState<'_>>(
            &self.config,
            &self.url,
            &build,
            sink,
            cancel,
        )
        .await
    }
}

/// The Messages API body for `request`, with `stream: true`.
///
/// Prompt caching: the system prompt, the last tool and the last cacheable
/// block of the last message carry `cache_control`, so a conversation that
/// only grows re-reads its prefix from the cache.
///
/// Extended thinking: sent when the request enables it and lets the model
/// choose its tools (the API refuses thinking with a forced tool choice).
/// Thinking blocks go back to the API only in requests that think: there
/// they are required for a tool loop to continue (and kept otherwise), in
/// a request without thinking they have no place.
pub fn request_body(request: &ModelRequest) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    body.insert("max_tokens".into(), json!(request.max_tokens));
    if !request.system.is_empty() {
        body.insert(
            "system".into(),
            json!([{"type": "text", "text": request.system, "cache_control": {"type": "ephemeral"}}]),
        );
    }
    let thinking = thinking_param(request);
    let keep_thinking = thinking.is_some();
    let mut messages: Vec<Value> = request
        .messages
        .iter()
        .filter_map(|m| message(m, keep_thinking))
        .collect();
    if let Some(last) = messages.last_mut() {
        mark_last_cacheable(last);
    }
    body.insert("messages".into(), Value::Array(messages));
    if !request.tools.is_empty() {
        let mut tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
            .collect();
        if let Some(Value::Object(last)) = tools.last_mut() {
            last.insert("cache_control".into(), json!({"type": "ephemeral"}));
        }
        body.insert("tools".into(), Value::Array(tools));
        body.insert(
            "tool_choice".into(),
            match &request.tool_choice {
                ToolChoice::Auto => json!({"type": "auto"}),
                ToolChoice::Any => json!({"type": "any"}),
                ToolChoice::Tool { name } => json!({"type": "tool", "name": name}),
            },
        );
    }
    if let Some(thinking) = thinking {
        body.insert("thinking".into(), thinking);
    } else if let Some(t) = request.temperature {
        // Thinking works only at the default temperature.
        body.insert("temperature".into(), json!(t));
    }
    if let Some(effort) = request.reasoning.effort {
        body.insert(
            "output_config".into(),
            json!({"effort": effort_value(effort)}),
        );
    }
    body.insert("stream".into(), json!(true));
    Value::Object(body)
}

/// The `thinking` parameter, when the request thinks.
fn thinking_param(request: &ModelRequest) -> Option<Value> {
    if !matches!(request.tool_choice, ToolChoice::Auto) {
        return None;
    }
    let mut param = match request.reasoning.thinking? {
        Thinking::Disabled => return None,
        Thinking::Adaptive => json!({"type": "adaptive"}),
        Thinking::Enabled { budget_tokens } => {
            // The budget must be below max_tokens and at least the minimum.
            let budget = budget_tokens.min(request.max_tokens.saturating_sub(1));
            if budget < MIN_THINKING_BUDGET {
                return None;
            }
            json!({"type": "enabled", "budget_tokens": budget})
        }
    };
    if let Some(display) = request.reasoning.display {
        param["display"] = json!(display);
    }
    Some(param)
}

/// Anthropic's effort scale: low, medium, high, max.
fn effort_value(effort: Effort) -> &'static str {
    match effort {
        Effort::None | Effort::Minimal | Effort::Low => "low",
        Effort::Medium => "medium",
        Effort::High => "high",
        Effort::XHigh | Effort::Max => "max",
    }
}

/// One wire message; `None` when nothing in it can be sent.
fn message(m: &Message, keep_thinking: bool) -> Option<Value> {
    let content: Vec<Value> = m
        .content
        .iter()
        .filter(|b| {
            keep_thinking
                || !matches!(
                    b,
                    ContentBlock::Thinking { .. } | ContentBlock::RedactedThinking { .. }
                )
        })
        .filter_map(block)
        .collect();
    if content.is_empty() {
        return None;
    }
    let role = match m.role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    Some(json!({"role": role, "content": content}))
}

fn block(b: &ContentBlock) -> Option<Value> {
    Some(match b {
        // The API rejects empty text blocks.
        ContentBlock::Text { text } if text.is_empty() => return None,
        ContentBlock::Text { text } => json!({"type": "text", "text": text}),
        // Thinking goes back unchanged; without a signature (e.g. reasoning
        // from another provider) the API would reject it.
        ContentBlock::Thinking { signature, .. } if signature.is_empty() => return None,
        ContentBlock::Thinking {
            thinking,
            signature,
        } => json!({"type": "thinking", "thinking": thinking, "signature": signature}),
        ContentBlock::RedactedThinking { data } => {
            json!({"type": "redacted_thinking", "data": data})
        }
        // OpenAI reasoning cannot be read here.
        ContentBlock::Reasoning { .. } => return None,
        ContentBlock::ToolUse { id, name, input } => {
            // Malformed model JSON is stored as a string; the API needs an object.
            let input = if input.is_object() {
                input.clone()
            } else {
                json!({})
            };
            json!({"type": "tool_use", "id": id, "name": name, "input": input})
        }
        ContentBlock::ToolResult {
            tool_use_id,
            content,
            is_error,
        } => {
            let mut v = json!({"type": "tool_result", "tool_use_id": tool_use_id});
            v["content"] = match content {
                ToolResultContent::Text(t) => json!(t),
                ToolResultContent::Blocks(blocks) => {
                    Value::Array(blocks.iter().filter_map(block).collect())
                }
            };
            if *is_error {
                v["is_error"] = json!(true);
            }
            v
        }
        ContentBlock::Image { source } => json!({"type": "image", "source": source}),
    })
}

fn mark_last_cacheable(message: &mut Value) {
    let Some(blocks) = message.get_mut("content").and_then(Value::as_array_mut) else {
        return;
    };
    let cacheable = blocks.iter_mut().rev().find(|b| {
        !matches!(
            b.get("type").and_then(Value::as_str),
            Some("thinking" | "redacted_thinking")
        )
    });
    if let Some(Value::Object(b)) = cacheable {
        b.insert("cache_control".into(), json!({"type": "ephemeral"}));
    }
}

/// What one streamed answer has produced so far.
struct StreamState<'a> {
    blocks: Assembler<'a>,
    /// Wire block index → position in `blocks` (unknown block types are
    /// skipped and have no position).
    positions: HashMap<u64, usize>,
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
    fn new(sink: EventSink<'a>) -> StreamState<'a> {
        StreamState {
            blocks: Assembler::new(sink),
            positions: HashMap::new(),
            usage: Usage::default(),
            stop_reason: None,
            model: None,
        }
    }

    /// Handles one event; `Ok(true)` at `message_stop`.
    fn handle(&mut self, event: &SseEvent) -> Result<bool, ProviderError> {
        let data: Value = serde_json::from_str(&event.data).map_err(|e| {
            ProviderError::Malformed(format!(
                "anthropic sent a `{}` event whose data is not JSON ({e}): {}",
                event.event,
                snippet(&event.data)
            ))
        })?;
        let kind = data
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(event.event.as_str());
        match kind {
            "message_start" => {
                let message = &data["message"];
                self.model = message["model"].as_str().map(str::to_string);
                read_usage(&mut self.usage, &message["usage"]);
            }
            "content_block_start" => self.block_start(&data),
            "content_block_delta" => self.block_delta(&data),
            "message_delta" => {
                if let Some(reason) = data["delta"]["stop_reason"].as_str() {
                    self.stop_reason = Some(StopReason::from_wire(reason));
                }
                read_usage(&mut self.usage, &data["usage"]);
            }
            "message_stop" => return Ok(true),
            "error" => {
                let error = &data["error"];
                return Err(ProviderError::StreamError {
                    provider: "anthropic",
                    kind: error["type"].as_str().unwrap_or("error").to_string(),
                    message: error["message"]
                        .as_str()
                        .unwrap_or("the server reported an error without a message")
                        .to_string(),
                });
            }
            // `ping`, `content_block_stop` (tool input is parsed at the
            // end) and event types added later need nothing.
            _ => {}
        }
        Ok(false)
    }

    fn block_start(&mut self, data: &Value) {
        let Some(index) = data["index"].as_u64() else {
            return;
        };
        let block = &data["content_block"];
        let text = |name: &str| block[name].as_str().unwrap_or_default().to_string();
        let part = match block["type"].as_str() {
            Some("text") => Partial::Text(text("text")),
            Some("thinking") => Partial::Thinking {
                thinking: text("thinking"),
                signature: text("signature"),
            },
            Some("redacted_thinking") => Partial::RedactedThinking(text("data")),
            Some("tool_use") => Partial::ToolUse {
                id: text("id"),
                name: text("name"),
                json: String::new(),
                initial: block["input"].clone(),
            },
            _ => return,
        };
        let pos = self.blocks.start(part);
        self.positions.insert(index, pos);
    }

    fn block_delta(&mut self, data: &Value) {
        let Some(pos) = data["index"]
            .as_u64()
            .and_then(|i| self.positions.get(&i))
            .copied()
        else {
            return;
        };
        let delta = &data["delta"];
        let text = |name: &str| delta[name].as_str().unwrap_or_default();
        match delta["type"].as_str() {
            Some("text_delta") => self.blocks.text(pos, text("text")),
            Some("input_json_delta") => self.blocks.tool_input(pos, text("partial_json")),
            Some("thinking_delta") => self.blocks.thinking(pos, text("thinking")),
            Some("signature_delta") => self.blocks.signature(pos, text("signature")),
            _ => {}
        }
    }

    fn finish(self) -> ModelResponse {
        let has_tool_use = self.blocks.has_tool_use();
        let stop_reason = self.stop_reason.unwrap_or(if has_tool_use {
            StopReason::ToolUse
        } else {
            StopReason::EndTurn
        });
        ModelResponse {
            message: self.blocks.into_message(),
            stop_reason,
            usage: self.usage,
            model: self.model,
        }
    }
}

/// Overwrites the counts present in a wire `usage` object (`message_delta`
/// repeats or updates what `message_start` said).
fn read_usage(usage: &mut Usage, wire: &Value) {
    let set = |field: &mut u64, name: &str| {
        if let Some(n) = wire[name].as_u64() {
            *field = n;
        }
    };
    set(&mut usage.input_tokens, "input_tokens");
    set(&mut usage.output_tokens, "output_tokens");
    set(
        &mut usage.cache_read_input_tokens,
        "cache_read_input_tokens",
    );
    set(
        &mut usage.cache_creation_input_tokens,
        "cache_creation_input_tokens",
    );
}

#[cfg(test)]
#[path = "anthropic_tests.rs"]
mod tests;
