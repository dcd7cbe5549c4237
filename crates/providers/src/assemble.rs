//! Builds the final assistant message from streamed pieces, the same way
//! for every wire format: blocks in stream order, tool input JSON parsed
//! once the block is complete (kept as a JSON string when it is not a
//! valid JSON object, so the engine can tell the model what was wrong).

use catui_protocol::{ContentBlock, Message, ModelEvent, Role};
use serde_json::Value;

use crate::EventSink;

/// A block still being streamed.
#[derive(Debug)]
pub(crate) enum Partial {
    Text(String),
    Thinking {
        thinking: String,
        signature: String,
    },
    RedactedThinking(String),
    /// An OpenAI Responses reasoning item.
    Reasoning {
        id: String,
        summary: String,
        encrypted_content: Option<String>,
    },
    ToolUse {
        id: String,
        name: String,
        json: String,
        /// Input given whole in the block start (used when no deltas come).
        initial: Value,
    },
}

/// The blocks of one answer, with the sink that sees every delta.
pub(crate) struct Assembler<'a> {
    parts: Vec<Partial>,
    sink: EventSink<'a>,
}

impl<'a> Assembler<'a> {
    pub fn new(sink: EventSink<'a>) -> Assembler<'a> {
        Assembler {
            parts: Vec::new(),
            sink,
        }
    }

    /// Starts a block and returns its position.
    pub fn start(&mut self, part: Partial) -> usize {
        match &part {
            Partial::ToolUse { id, name, .. } => (self.sink)(ModelEvent::ToolUseStart {
                id: id.clone(),
                name: name.clone(),
            }),
            Partial::Text(t) if !t.is_empty() => {
                (self.sink)(ModelEvent::TextDelta { text: t.clone() })
            }
            Partial::Thinking { thinking, .. } if !thinking.is_empty() => {
                (self.sink)(ModelEvent::ThinkingDelta {
                    thinking: thinking.clone(),
                })
            }
            _ => {}
        }
        self.parts.push(part);
        self.parts.len() - 1
    }

    /// Appends text to the block at `pos` (ignored if it is not text).
    pub fn text(&mut self, pos: usize, delta: &str) {
        if let Some(Partial::Text(t)) = self.parts.get_mut(pos) {
            t.push_str(delta);
            (self.sink)(ModelEvent::TextDelta {
                text: delta.to_string(),
            });
        }
    }

    pub fn thinking(&mut self, pos: usize, delta: &str) {
        if let Some(Partial::Thinking { thinking, .. }) = self.parts.get_mut(pos) {
            thinking.push_str(delta);
            (self.sink)(ModelEvent::ThinkingDelta {
                thinking: delta.to_string(),
            });
        }
    }

    /// Appends reasoning summary text (shown as thinking while it streams).
    pub fn reasoning(&mut self, pos: usize, delta: &str) {
        if let Some(Partial::Reasoning { summary, .. }) = self.parts.get_mut(pos) {
            summary.push_str(delta);
            (self.sink)(ModelEvent::ThinkingDelta {
                thinking: delta.to_string(),
            });
        }
    }

    /// Completes a reasoning item from its final form: its id, its
    /// encrypted content, and its summary when none was streamed.
    pub fn reasoning_done(
        &mut self,
        pos: usize,
        final_id: &str,
        final_summary: &str,
        final_encrypted: Option<&str>,
    ) {
        if let Some(Partial::Reasoning {
            id,
            summary,
            encrypted_content,
        }) = self.parts.get_mut(pos)
        {
            if !final_id.is_empty() {
                *id = final_id.to_string();
            }
            if summary.is_empty() && !final_summary.is_empty() {
                summary.push_str(final_summary);
                (self.sink)(ModelEvent::ThinkingDelta {
                    thinking: final_summary.to_string(),
                });
            }
            if let Some(e) = final_encrypted {
                *encrypted_content = Some(e.to_string());
            }
        }
    }

    /// The text streamed so far into the block at `pos` (text, thinking,
    /// reasoning summary or tool input).
    pub fn streamed(&self, pos: usize) -> &str {
        match self.parts.get(pos) {
            Some(Partial::Text(t)) => t,
            Some(Partial::Thinking { thinking, .. }) => thinking,
            Some(Partial::Reasoning { summary, .. }) => summary,
            Some(Partial::ToolUse { json, .. }) => json,
            Some(Partial::RedactedThinking(_)) | None => "",
        }
    }

    pub fn signature(&mut self, pos: usize, delta: &str) {
        if let Some(Partial::Thinking { signature, .. }) = self.parts.get_mut(pos) {
            signature.push_str(delta);
        }
    }

    pub fn tool_input(&mut self, pos: usize, delta: &str) {
        if let Some(Partial::ToolUse { id, json, .. }) = self.parts.get_mut(pos) {
            json.push_str(delta);
            (self.sink)(ModelEvent::ToolInputDelta {
                id: id.clone(),
                partial_json: delta.to_string(),
            });
        }
    }

    /// Position of the last block when it is text, else a new text block.
    pub fn current_text(&mut self) -> usize {
        match self.parts.last() {
            Some(Partial::Text(_)) => self.parts.len() - 1,
            _ => self.start(Partial::Text(String::new())),
        }
    }

    /// Position of the last block when it is thinking, else a new one.
    pub fn current_thinking(&mut self) -> usize {
        match self.parts.last() {
            Some(Partial::Thinking { .. }) => self.parts.len() - 1,
            _ => self.start(Partial::Thinking {
                thinking: String::new(),
                signature: String::new(),
            }),
        }
    }

    pub fn has_tool_use(&self) -> bool {
        self.parts
            .iter()
            .any(|p| matches!(p, Partial::ToolUse { .. }))
    }

    /// The assistant message. Empty text blocks are left out.
    pub fn into_message(self) -> Message {
        let content = self
            .parts
            .into_iter()
            .filter_map(|part| match part {
                Partial::Text(text) if text.is_empty() => None,
                Partial::Text(text) => Some(ContentBlock::Text { text }),
                Partial::Thinking {
                    thinking,
                    signature,
                } => Some(ContentBlock::Thinking {
                    thinking,
                    signature,
                }),
                Partial::RedactedThinking(data) => Some(ContentBlock::RedactedThinking { data }),
                Partial::Reasoning {
                    id,
                    summary,
                    encrypted_content,
                } => Some(ContentBlock::Reasoning {
                    id,
                    summary,
                    encrypted_content,
                }),
                Partial::ToolUse {
                    id,
                    name,
                    json,
                    initial,
                } => Some(ContentBlock::ToolUse {
                    id,
                    name,
                    input: tool_input(&json, initial),
                }),
            })
            .collect();
        Message {
            role: Role::Assistant,
            content,
        }
    }
}

/// The parsed input of a finished tool call. No text at all means the
/// block start carried the input (or there is none: `{}`); text that is
/// not a JSON object is kept verbatim as `Value::String`.
pub(crate) fn tool_input(json: &str, initial: Value) -> Value {
    if json.trim().is_empty() {
        return match initial {
            Value::Object(_) => initial,
            _ => Value::Object(Default::default()),
        };
    }
    match serde_json::from_str::<Value>(json) {
        Ok(v @ Value::Object(_)) => v,
        _ => Value::String(json.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Mutex;

    #[test]
    fn tool_input_parses_objects_and_keeps_bad_text() {
        assert_eq!(tool_input(r#"{"a": 1}"#, json!({})), json!({"a": 1}));
        assert_eq!(tool_input("", json!({"b": 2})), json!({"b": 2}));
        assert_eq!(tool_input("  ", Value::Null), json!({}));
        assert_eq!(
            tool_input(r#"{"a": 1"#, json!({})),
            Value::String(r#"{"a": 1"#.into())
        );
        assert_eq!(tool_input("[1]", json!({})), Value::String("[1]".into()));
    }

    #[test]
    fn deltas_reach_the_sink_and_the_message_keeps_order() {
        let seen = Mutex::new(Vec::new());
        let sink = |e: ModelEvent| seen.lock().unwrap().push(e);
        let mut a = Assembler::new(&sink);
        let t = a.current_text();
        a.text(t, "Hel");
        let again = a.current_text();
        assert_eq!(again, t);
        a.text(again, "lo");
        let tool = a.start(Partial::ToolUse {
            id: "t1".into(),
            name: "Read".into(),
            json: String::new(),
            initial: json!({}),
        });
        a.tool_input(tool, r#"{"p":"#);
        a.tool_input(tool, "1}");
        assert!(a.has_tool_use());
        let m = a.into_message();
        assert_eq!(m.text(), "Hello");
        assert_eq!(m.tool_uses().next().unwrap().2, &json!({"p": 1}));
        assert_eq!(seen.lock().unwrap().len(), 5);
    }
}
