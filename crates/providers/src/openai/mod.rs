//! OpenAI-compatible Chat Completions client (OpenAI, Ollama, vLLM,
//! llama.cpp, LM Studio): converts a [`ModelRequest`] to the
//! `POST {base}/chat/completions` body (streamed, with usage) and turns the
//! `data:` chunks into [`ModelEvent`](catui_protocol::ModelEvent) deltas and
//! the final [`ModelResponse`].

use std::collections::HashMap;

use async_trait::async_trait;
use catui_protocol::{
    ContentBlock, Message, ModelRequest, ModelResponse, Role, StopReason, ToolChoice,
    ToolResultContent, Usage,
};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::assemble::{Assembler, Partial};
use crate::endpoint::Endpoint;
use crate::http::snippet;
use crate::sse::SseEvent;
use crate::streaming::WireStream;
use crate::{EventSink, ModelClient, ProviderConfig, ProviderError, ProviderKind};

/// Client for OpenAI-compatible Chat Completions servers.
pub struct OpenAiClient {
    endpoint: Endpoint,
}

impl OpenAiClient {
    /// The key may be empty (local servers need none); the base URL must
    /// be an http(s) URL.
    pub fn new(config: ProviderConfig) -> Result<Self, ProviderError> {
        Ok(Self {
            endpoint: Endpoint::new(config, "/chat/completions")?,
        })
    }
}

#[async_trait]
impl ModelClient for OpenAiClient {
    fn kind(&self) -> ProviderKind {
        ProviderKind::OpenAi
    }

    async fn stream(
        &self,
        request: &ModelRequest,
        sink: EventSink<'_>,
        cancel: &CancellationToken,
    ) -> Result<ModelResponse, ProviderError> {
        let body = request_body(request, uses_max_completion_tokens(&self.endpoint.config));
        let build = || self.endpoint.post_with_bearer().json(&body);
        self.endpoint
            .stream::<StreamState<'_>>(&build, sink, cancel)
            .await
    }
}

/// OpenAI's own API wants `max_completion_tokens` (its reasoning models
/// reject `max_tokens`); compatible servers know only `max_tokens`.
fn uses_max_completion_tokens(config: &ProviderConfig) -> bool {
    reqwest::Url::parse(&config.base_url)
        .ok()
        .and_then(|u| u.host_str().map(|h| h == "api.openai.com"))
        .unwrap_or(false)
}

/// The Chat Completions body for `request`, streamed with usage.
pub fn request_body(request: &ModelRequest, max_completion_tokens: bool) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    let mut messages = Vec::new();
    if !request.system.is_empty() {
        messages.push(json!({"role": "system", "content": request.system}));
    }
    for m in &request.messages {
        match m.role {
            Role::User => user_messages(m, &mut messages),
            Role::Assistant => messages.extend(assistant_message(m)),
        }
    }
    body.insert("messages".into(), Value::Array(messages));
    let max_key = if max_completion_tokens {
        "max_completion_tokens"
    } else {
        "max_tokens"
    };
    body.insert(max_key.into(), json!(request.max_tokens));
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.input_schema
                }})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        body.insert(
            "tool_choice".into(),
            match &request.tool_choice {
                ToolChoice::Auto => json!("auto"),
                ToolChoice::Any => json!("required"),
                ToolChoice::Tool { name } => {
                    json!({"type": "function", "function": {"name": name}})
                }
            },
        );
    }
    if let Some(t) = request.temperature {
        body.insert("temperature".into(), json!(t));
    }
    // Only when asked for: servers and models without reasoning reject it.
    if let Some(effort) = request.reasoning.effort {
        body.insert(
            "reasoning_effort".into(),
            json!(crate::responses::effort_value(effort)),
        );
    }
    body.insert("stream".into(), json!(true));
    body.insert("stream_options".into(), json!({"include_usage": true}));
    Value::Object(body)
}

/// A user message becomes `role: tool` messages for its tool results
/// (they must directly follow the assistant's tool calls), then a user
/// message for its text and images, if any.
fn user_messages(m: &Message, out: &mut Vec<Value>) {
    let mut parts = Vec::new();
    for b in &m.content {
        match b {
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
            } => {
                // A tool message carries text only: the images a result
                // holds follow in the user message after the tool messages.
                let images = result_images(content);
                if !images.is_empty() {
                    parts.push(json!({"type": "text", "text": format!(
                        "The image{} returned by tool call {tool_use_id}:",
                        if images.len() == 1 { "" } else { "s" }
                    )}));
                    parts.extend(images);
                }
                let text = result_text(content);
                // Chat Completions has no error flag; say it in the text.
                let text = if *is_error {
                    format!("Error: {text}")
                } else {
                    text
                };
                out.push(json!({"role": "tool", "tool_call_id": tool_use_id, "content": text}));
            }
            ContentBlock::Text { text } if !text.is_empty() => {
                parts.push(json!({"type": "text", "text": text}))
            }
            ContentBlock::Image { source } => {
                if let Some(url) = image_url(source) {
                    parts.push(json!({"type": "image_url", "image_url": {"url": url}}));
                }
            }
            _ => {}
        }
    }
    if parts.is_empty() {
        return;
    }
    // Plain text as a string: the form every compatible server accepts.
    let content = if parts.iter().all(|p| p["type"] == "text") {
        let texts: Vec<&str> = parts.iter().filter_map(|p| p["text"].as_str()).collect();
        json!(texts.join("\n\n"))
    } else {
        Value::Array(parts)
    };
    out.push(json!({"role": "user", "content": content}));
}

pub(crate) fn result_text(content: &ToolResultContent) -> String {
    match content {
        ToolResultContent::Text(t) => t.clone(),
        ToolResultContent::Blocks(blocks) => {
            let mut out = content.as_text();
            let mut note = |text: &str| {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(text);
            };
            if blocks
                .iter()
                .any(|b| matches!(b, ContentBlock::Image { .. }))
            {
                note("[the image is in the next user message]");
            }
            if blocks
                .iter()
                .any(|b| matches!(b, ContentBlock::Document { .. }))
            {
                note("[a document was left out: this provider does not take documents]");
            }
            out
        }
    }
}

/// The images of a tool result as Chat Completions `image_url` parts.
pub(crate) fn result_images(content: &ToolResultContent) -> Vec<Value> {
    let ToolResultContent::Blocks(blocks) = content else {
        return Vec::new();
    };
    blocks
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Image { source } => image_url(source),
            _ => None,
        })
        .map(|url| json!({"type": "image_url", "image_url": {"url": url}}))
        .collect()
}

/// A data URL (or plain URL) for an Anthropic-shaped image source.
pub(crate) fn image_url(source: &Value) -> Option<String> {
    match source["type"].as_str()? {
        "base64" => Some(format!(
            "data:{};base64,{}",
            source["media_type"].as_str()?,
            source["data"].as_str()?
        )),
        "url" => source["url"].as_str().map(str::to_string),
        _ => None,
    }
}

/// Text and tool calls; thinking is not sent back (no wire field for it).
fn assistant_message(m: &Message) -> Option<Value> {
    let text = m.text();
    let calls: Vec<Value> = m
        .tool_uses()
        .map(|(id, name, input)| {
            // Malformed model JSON is stored as a string; send an empty object.
            let arguments = if input.is_object() {
                input.to_string()
            } else {
                "{}".to_string()
            };
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
        })
        .collect();
    if text.is_empty() && calls.is_empty() {
        return None;
    }
    let mut v = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { json!(text) }});
    if !calls.is_empty() {
        v["tool_calls"] = Value::Array(calls);
    }
    Some(v)
}

/// What one streamed answer has produced so far.
struct StreamState<'a> {
    blocks: Assembler<'a>,
    /// Tool call `index` → position in `blocks`.
    calls: HashMap<u64, usize>,
    last_call: Option<usize>,
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

    /// Some servers close without `[DONE]`; a finish reason means the
    /// answer was complete.
    fn complete_at_close(&self) -> bool {
        self.stop_reason.is_some()
    }

    fn finish(self) -> ModelResponse {
        StreamState::finish(self)
    }
}

impl<'a> StreamState<'a> {
    fn new(sink: EventSink<'a>) -> StreamState<'a> {
        StreamState {
            blocks: Assembler::new(sink),
            calls: HashMap::new(),
            last_call: None,
            usage: Usage::default(),
            stop_reason: None,
            model: None,
        }
    }

    /// Handles one chunk; `Ok(true)` at `[DONE]`.
    fn handle(&mut self, event: &SseEvent) -> Result<bool, ProviderError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            return Ok(true);
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| {
            ProviderError::Malformed(format!(
                "openai sent a chunk that is not JSON ({e}): {}",
                snippet(data)
            ))
        })?;
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(stream_error(error));
        }
        if let Some(model) = chunk["model"].as_str() {
            self.model = Some(model.to_string());
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            self.read_usage(usage);
        }
        let Some(choice) = chunk["choices"].get(0) else {
            return Ok(false);
        };
        let delta = &choice["delta"];
        for field in ["reasoning_content", "reasoning"] {
            if let Some(text) = delta[field].as_str().filter(|t| !t.is_empty()) {
                let pos = self.blocks.current_thinking();
                self.blocks.thinking(pos, text);
            }
        }
        if let Some(text) = delta["content"].as_str().filter(|t| !t.is_empty()) {
            let pos = self.blocks.current_text();
            self.blocks.text(pos, text);
        }
        if let Some(calls) = delta["tool_calls"].as_array() {
            for call in calls {
                self.tool_call(call);
            }
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            self.stop_reason = Some(StopReason::from_wire(reason));
        }
        Ok(false)
    }

    /// One `tool_calls[]` piece: the first piece of a call carries its id
    /// and name; later ones (same `index`) carry argument text.
    fn tool_call(&mut self, call: &Value) {
        let function = &call["function"];
        let id = call["id"].as_str().filter(|s| !s.is_empty());
        let existing = match call["index"].as_u64() {
            Some(index) => self.calls.get(&index).copied(),
            // Servers that omit `index`: a new id starts a new call.
            None if id.is_some() => None,
            None => self.last_call,
        };
        let pos = match existing {
            Some(pos) => pos,
            None => {
                let id = id
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("call_{:016x}", rand::random::<u64>()));
                let pos = self.blocks.start(Partial::ToolUse {
                    id,
                    name: function["name"].as_str().unwrap_or_default().to_string(),
                    json: String::new(),
                    initial: Value::Null,
                });
                if let Some(index) = call["index"].as_u64() {
                    self.calls.insert(index, pos);
                }
                pos
            }
        };
        self.last_call = Some(pos);
        if let Some(args) = function["arguments"].as_str().filter(|a| !a.is_empty()) {
            self.blocks.tool_input(pos, args);
        }
    }

    /// `prompt_tokens` includes cached tokens; catui's `input_tokens`
    /// (like Anthropic's) does not, so they are split.
    fn read_usage(&mut self, wire: &Value) {
        let prompt = wire["prompt_tokens"].as_u64().unwrap_or(0);
        let cached = wire["prompt_tokens_details"]["cached_tokens"]
            .as_u64()
            .unwrap_or(0);
        self.usage.input_tokens = prompt.saturating_sub(cached);
        self.usage.cache_read_input_tokens = cached;
        self.usage.output_tokens = wire["completion_tokens"].as_u64().unwrap_or(0);
    }

    fn finish(self) -> ModelResponse {
        let has_tool_use = self.blocks.has_tool_use();
        // Some servers say `stop` even when they called tools.
        let stop_reason = match self.stop_reason {
            Some(StopReason::EndTurn) | None if has_tool_use => StopReason::ToolUse,
            Some(reason) => reason,
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

fn stream_error(error: &Value) -> ProviderError {
    let kind = error["type"]
        .as_str()
        .or_else(|| error["code"].as_str())
        .unwrap_or("error")
        .to_string();
    let message = error["message"]
        .as_str()
        .map(str::to_string)
        .or_else(|| error.as_str().map(str::to_string))
        .unwrap_or_else(|| "the server reported an error without a message".to_string());
    ProviderError::StreamError {
        provider: "openai",
        kind,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use catui_protocol::ModelEvent;
    use std::sync::Mutex;

    fn feed(
        chunks: &[&str],
    ) -> (
        Result<Option<ModelResponse>, ProviderError>,
        Vec<ModelEvent>,
    ) {
        let seen = Mutex::new(Vec::new());
        let sink = |e: ModelEvent| seen.lock().unwrap().push(e);
        let mut state = StreamState::new(&sink);
        let mut result = Ok(None);
        for data in chunks {
            let event = SseEvent {
                event: "message".into(),
                data: data.to_string(),
            };
            match state.handle(&event) {
                Ok(true) => {
                    result = Ok(Some(state.finish()));
                    break;
                }
                Ok(false) => {}
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        let events = seen.lock().unwrap().clone();
        (result, events)
    }

    #[test]
    fn tool_calls_without_index_and_stop_finish_reason() {
        // Some compatible servers send whole calls without `index` and say
        // `stop` although they called tools.
        let (result, events) = feed(&[
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"Read","arguments":"{\"p\":"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"1}"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"b","function":{"name":"Glob","arguments":"{}"}}]},"finish_reason":"stop"}]}"#,
            "[DONE]",
        ]);
        let response = result.unwrap().unwrap();
        let uses: Vec<_> = response.message.tool_uses().collect();
        assert_eq!(uses[0], ("a", "Read", &json!({"p": 1})));
        assert_eq!(uses[1], ("b", "Glob", &json!({})));
        assert_eq!(response.stop_reason, StopReason::ToolUse);
        assert_eq!(
            events
                .iter()
                .filter(|e| matches!(e, ModelEvent::ToolUseStart { .. }))
                .count(),
            2
        );
    }

    #[test]
    fn missing_call_id_gets_a_generated_one_and_reasoning_field_is_thinking() {
        let (result, _) = feed(&[
            r#"{"choices":[{"delta":{"reasoning":"hmm"}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"Bash","arguments":""}}]}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}],"usage":null}"#,
            "[DONE]",
        ]);
        let response = result.unwrap().unwrap();
        assert!(
            matches!(&response.message.content[0], ContentBlock::Thinking { thinking, .. } if thinking == "hmm")
        );
        let (id, name, input) = response.message.tool_uses().next().unwrap();
        assert!(id.starts_with("call_") && id.len() > 5);
        assert_eq!((name, input), ("Bash", &json!({})));
    }

    #[test]
    fn error_chunks_and_bad_json() {
        let (result, _) =
            feed(&[r#"{"error":{"message":"model overloaded","code":"server_error"}}"#]);
        let err = result.unwrap_err();
        assert!(err.is_retryable());
        assert_eq!(
            err.to_string(),
            "openai stream error (server_error): model overloaded"
        );
        let (result, _) = feed(&["{not json"]);
        assert!(matches!(result, Err(ProviderError::Malformed(_))));
    }

    #[test]
    fn max_completion_tokens_only_for_openai_itself() {
        let request = ModelRequest {
            model: "m".into(),
            system: String::new(),
            messages: vec![Message::user_text("hi")],
            tools: Vec::new(),
            tool_choice: ToolChoice::Auto,
            max_tokens: 10,
            temperature: None,
            reasoning: Default::default(),
        };
        let openai = ProviderConfig::new(ProviderKind::OpenAi, "https://api.openai.com/v1", "k");
        let ollama = ProviderConfig::new(ProviderKind::OpenAi, "http://localhost:11434/v1", "");
        let body = request_body(&request, uses_max_completion_tokens(&openai));
        assert_eq!(body["max_completion_tokens"], 10);
        assert!(body.get("max_tokens").is_none());
        assert!(body.get("tools").is_none(), "no tools, no tool_choice");
        assert!(body.get("tool_choice").is_none());
        assert!(body.get("reasoning_effort").is_none());
        let mut request = request;
        request.reasoning.effort = Some(catui_protocol::Effort::Max);
        let body = request_body(&request, true);
        assert_eq!(body["reasoning_effort"], "xhigh");
        let body = request_body(&request, uses_max_completion_tokens(&ollama));
        assert_eq!(body["max_tokens"], 10);
        assert_eq!(body["messages"], json!([{"role": "user", "content": "hi"}]));
    }
}
