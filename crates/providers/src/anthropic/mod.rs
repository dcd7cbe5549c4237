//! Anthropic Messages API client: converts a [`ModelRequest`] to the
//! `POST {base}/v1/messages` body (streamed), and turns the SSE events
//! (`message_start`, `content_block_*`, `message_delta`, `message_stop`,
//! `ping`, `error`) into [`ModelEvent`](catui_protocol::ModelEvent) deltas and
//! the final [`ModelResponse`].

mod body;

use std::collections::HashMap;

use async_trait::async_trait;
use catui_protocol::{
    Effort, ModelRequest, ModelResponse, StopReason, Thinking, ToolChoice, Usage,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::assemble::{Assembler, Partial};
use crate::endpoint::Endpoint;
use crate::http::snippet;
use crate::sse::SseEvent;
use crate::streaming::WireStream;
use crate::{EventSink, ModelClient, ProviderConfig, ProviderError, ProviderKind};

/// The API version catui speaks.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// The beta that lets a request choose its effort (`output_config.effort`).
pub const EFFORT_BETA: &str = "effort-2025-11-24";

/// The smallest thinking budget the API accepts.
const MIN_THINKING_BUDGET: u32 = 1024;

/// Client for the Anthropic Messages API (or a compatible server).
pub struct AnthropicClient {
    endpoint: Endpoint,
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
        Ok(Self {
            endpoint: Endpoint::new(config, "/v1/messages")?,
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
        // Serialized once, straight from the conversation; retries resend
        // the same bytes.
        let body =
            bytes::Bytes::from(serde_json::to_vec(&wire_body(request)).map_err(|e| {
                ProviderError::Config(format!("could not encode the request: {e}"))
            })?);
        let effort = request.reasoning.effort.is_some();
        let build = || {
            let builder = self
                .endpoint
                .post()
                .header("x-api-key", &self.endpoint.config.api_key)
                .header("anthropic-version", ANTHROPIC_VERSION);
            let builder = if effort {
                builder.header("anthropic-beta", EFFORT_BETA)
            } else {
                builder
            };
            builder
                .header("content-type", "application/json")
                .body(body.clone())
        };
        self.endpoint
            .stream::<StreamState<'_>>(&build, sink, cancel)
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
    serde_json::to_value(wire_body(request)).unwrap_or_default()
}

/// [`request_body`] as the typed structure that is serialized.
fn wire_body(request: &ModelRequest) -> body::Body<'_> {
    let output_config = request
        .reasoning
        .effort
        .map(|effort| json!({"effort": effort_value(effort)}));
    body::body(request, thinking_param(request), output_config)
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
