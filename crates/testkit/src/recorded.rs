//! The requests the mock server received, with helpers that read them the
//! same way whichever wire format (Anthropic, OpenAI Chat Completions or
//! OpenAI Responses) they used.

use std::time::Instant;

use serde_json::Value;

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// The URL path, e.g. `/v1/messages`.
    pub path: String,
    /// Header names are lowercase.
    pub headers: Vec<(String, String)>,
    /// The JSON body (`Value::Null` when the body was not JSON).
    pub body: Value,
    pub received_at: Instant,
}

/// A tool result found in a request, in either wire format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenToolResult {
    pub tool_use_id: String,
    /// The result text (text blocks joined by newlines).
    pub content: String,
    /// Anthropic `is_error`; always false for OpenAI, which has no such flag.
    pub is_error: bool,
}

impl RecordedRequest {
    /// The first header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The requested model, or `""` when absent.
    pub fn model(&self) -> &str {
        self.body
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// True for Chat Completions requests, false for Anthropic Messages
    /// and Responses requests.
    pub fn is_openai(&self) -> bool {
        self.path.ends_with("/chat/completions")
    }

    /// True for OpenAI Responses API requests.
    pub fn is_responses(&self) -> bool {
        self.path.ends_with("/responses")
    }

    /// Whether the request asked for a streamed answer.
    pub fn is_streaming(&self) -> bool {
        self.body.get("stream").and_then(Value::as_bool) == Some(true)
    }

    /// The wire messages (OpenAI's system message included); for the
    /// Responses API, the `input` items (messages, function calls and
    /// their outputs, reasoning items).
    pub fn messages(&self) -> &[Value] {
        let key = if self.is_responses() {
            "input"
        } else {
            "messages"
        };
        self.body
            .get(key)
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// The system prompt: Anthropic `system` (string or text blocks),
    /// Responses `instructions`, or the Chat Completions `system`/`developer`
    /// messages, joined by newlines.
    pub fn system_text(&self) -> String {
        if self.is_responses() {
            return content_text(self.body.get("instructions"));
        }
        if self.is_openai() {
            let parts: Vec<String> = self
                .messages()
                .iter()
                .filter(|m| matches!(role(m), "system" | "developer"))
                .map(|m| content_text(m.get("content")))
                .collect();
            parts.join("\n")
        } else {
            content_text(self.body.get("system"))
        }
    }

    /// The text of the last user message that has any text (tool-result
    /// only messages are skipped), or `None`.
    pub fn last_user_text(&self) -> Option<String> {
        self.messages()
            .iter()
            .rev()
            .filter(|m| role(m) == "user")
            .map(|m| content_text(m.get("content")))
            .find(|t| !t.is_empty())
    }

    /// [`Self::last_user_text`] without the `<system-reminder>` blocks catui
    /// added (the git snapshot, the machine's facts): what was typed.
    pub fn last_user_typed(&self) -> Option<String> {
        let mut text = self.last_user_text()?;
        while let Some(mut start) = text.find("<system-reminder>") {
            let end = text[start..]
                .find("</system-reminder>")
                .map_or(text.len(), |e| start + e + "</system-reminder>".len());
            // The block's separator from what precedes it goes too.
            if text[..start].ends_with('\n') {
                start -= 1;
            }
            text.replace_range(start..end, "");
        }
        Some(text)
    }

    /// Every tool result in the conversation, in order: Anthropic
    /// `tool_result` blocks, OpenAI `role: tool` messages, or Responses
    /// `function_call_output` items.
    pub fn tool_results(&self) -> Vec<SeenToolResult> {
        let mut out = Vec::new();
        for m in self.messages() {
            if self.is_responses() {
                if m.get("type").and_then(Value::as_str) == Some("function_call_output") {
                    out.push(SeenToolResult {
                        tool_use_id: str_field(m, "call_id"),
                        content: content_text(m.get("output")),
                        is_error: false,
                    });
                }
                continue;
            }
            if self.is_openai() {
                if role(m) == "tool" {
                    out.push(SeenToolResult {
                        tool_use_id: str_field(m, "tool_call_id"),
                        content: content_text(m.get("content")),
                        is_error: false,
                    });
                }
                continue;
            }
            let Some(blocks) = m.get("content").and_then(Value::as_array) else {
                continue;
            };
            for b in blocks {
                if b.get("type").and_then(Value::as_str) == Some("tool_result") {
                    out.push(SeenToolResult {
                        tool_use_id: str_field(b, "tool_use_id"),
                        content: content_text(b.get("content")),
                        is_error: b.get("is_error").and_then(Value::as_bool) == Some(true),
                    });
                }
            }
        }
        out
    }

    /// The result of tool call `id`, if the conversation has one.
    pub fn tool_result(&self, id: &str) -> Option<SeenToolResult> {
        self.tool_results()
            .into_iter()
            .find(|t| t.tool_use_id == id)
    }

    /// Whether the conversation has a result for tool call `id`.
    pub fn has_tool_result(&self, id: &str) -> bool {
        self.tool_result(id).is_some()
    }

    /// The names of the tools offered, in order, in either format.
    pub fn tool_names(&self) -> Vec<String> {
        let Some(tools) = self.body.get("tools").and_then(Value::as_array) else {
            return Vec::new();
        };
        tools
            .iter()
            .filter_map(|t| {
                t.get("name")
                    .or_else(|| t.get("function").and_then(|f| f.get("name")))
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .collect()
    }

    /// Whether any string in the system prompt or messages contains `needle`.
    pub fn contains_text(&self, needle: &str) -> bool {
        let in_system = ["system", "instructions"]
            .iter()
            .any(|key| self.body.get(*key).is_some_and(|v| any_string(v, needle)));
        in_system || self.messages().iter().any(|m| any_string(m, needle))
    }
}

fn role(m: &Value) -> &str {
    m.get("role").and_then(Value::as_str).unwrap_or_default()
}

fn str_field(v: &Value, name: &str) -> String {
    v.get(name)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// Text of a content value: a string, or the `text` of its text blocks
/// (Anthropic `text` blocks and OpenAI `text` parts look the same; the
/// Responses API calls them `input_text` and `output_text`).
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|b| {
                    matches!(
                        b.get("type").and_then(Value::as_str),
                        Some("text" | "input_text" | "output_text")
                    )
                })
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            texts.join("\n")
        }
        _ => String::new(),
    }
}

fn any_string(v: &Value, needle: &str) -> bool {
    match v {
        Value::String(s) => s.contains(needle),
        Value::Array(items) => items.iter().any(|i| any_string(i, needle)),
        Value::Object(map) => map.values().any(|i| any_string(i, needle)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn req(path: &str, body: Value) -> RecordedRequest {
        RecordedRequest {
            path: path.into(),
            headers: vec![("x-api-key".into(), "k".into())],
            body,
            received_at: Instant::now(),
        }
    }

    #[test]
    fn reads_anthropic_requests() {
        let r = req(
            "/v1/messages",
            json!({
                "model": "m1",
                "system": [{"type": "text", "text": "be brief"}],
                "messages": [
                    {"role": "user", "content": "hello"},
                    {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "boom", "is_error": true}]}
                ],
                "tools": [{"name": "Read", "input_schema": {}}]
            }),
        );
        assert!(!r.is_openai());
        assert_eq!(r.header("X-API-KEY"), Some("k"));
        assert_eq!(r.model(), "m1");
        assert_eq!(r.system_text(), "be brief");
        assert_eq!(r.last_user_text().as_deref(), Some("hello"));
        assert_eq!(
            r.tool_results(),
            vec![SeenToolResult {
                tool_use_id: "t1".into(),
                content: "boom".into(),
                is_error: true
            }]
        );
        assert_eq!(r.tool_names(), vec!["Read".to_string()]);
        assert!(r.contains_text("brief"));
        assert!(r.contains_text("boom"));
        assert!(!r.contains_text("absent"));
    }

    #[test]
    fn reads_responses_requests() {
        let r = req(
            "/v1/responses",
            json!({
                "model": "gpt-5-codex",
                "instructions": "be exact",
                "input": [
                    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "find it"}]},
                    {"type": "reasoning", "summary": [], "encrypted_content": "e"},
                    {"type": "function_call", "call_id": "c1", "name": "Grep", "arguments": "{}"},
                    {"type": "function_call_output", "call_id": "c1", "output": "3 matches"}
                ],
                "tools": [{"type": "function", "name": "Grep"}]
            }),
        );
        assert!(r.is_responses() && !r.is_openai());
        assert_eq!(r.system_text(), "be exact");
        assert_eq!(r.messages().len(), 4);
        assert_eq!(r.last_user_text().as_deref(), Some("find it"));
        assert_eq!(
            r.tool_result("c1").map(|t| t.content),
            Some("3 matches".to_string())
        );
        assert_eq!(r.tool_names(), vec!["Grep".to_string()]);
        assert!(r.contains_text("exact") && r.contains_text("matches"));
    }

    #[test]
    fn reads_openai_requests() {
        let r = req(
            "/v1/chat/completions",
            json!({
                "model": "gpt",
                "messages": [
                    {"role": "system", "content": "sys"},
                    {"role": "user", "content": [{"type": "text", "text": "q"}]},
                    {"role": "tool", "tool_call_id": "c1", "content": "42"}
                ],
                "tools": [{"type": "function", "function": {"name": "Grep"}}]
            }),
        );
        assert!(r.is_openai());
        assert_eq!(r.system_text(), "sys");
        assert_eq!(r.last_user_text().as_deref(), Some("q"));
        assert_eq!(r.tool_results()[0].tool_use_id, "c1");
        assert_eq!(r.tool_results()[0].content, "42");
        assert_eq!(r.tool_names(), vec!["Grep".to_string()]);
    }
}
