//! Conversation messages and content blocks, in the shape of the Anthropic
//! Messages API (which is also the shape of catui's transcripts and of the
//! stream-json protocol). Providers convert to other wire formats.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    /// Accepts either a plain string or a list of blocks on input; always
    /// serialised as a list.
    #[serde(deserialize_with = "string_or_blocks")]
    pub content: Vec<ContentBlock>,
}

impl Message {
    pub fn user_text(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: vec![ContentBlock::text(text)],
        }
    }

    pub fn assistant_text(text: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: vec![ContentBlock::text(text)],
        }
    }

    /// The concatenated text blocks of this message.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for block in &self.content {
            if let ContentBlock::Text { text } = block {
                out.push_str(text);
            }
        }
        out
    }

    /// The tool calls of an assistant message, in order.
    pub fn tool_uses(&self) -> impl Iterator<Item = (&str, &str, &Value)> {
        self.content.iter().filter_map(|b| match b {
            ContentBlock::ToolUse { id, name, input } => Some((id.as_str(), name.as_str(), input)),
            _ => None,
        })
    }

    /// True when every block is a tool result (a tool-loop message, not a
    /// human turn).
    pub fn is_tool_results_only(&self) -> bool {
        !self.content.is_empty()
            && self
                .content
                .iter()
                .all(|b| matches!(b, ContentBlock::ToolResult { .. }))
    }
}

/// A piece of message content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    Text {
        text: String,
    },
    /// Extended thinking; `signature` must be sent back unchanged.
    Thinking {
        thinking: String,
        #[serde(default)]
        signature: String,
    },
    RedactedThinking {
        data: String,
    },
    /// A reasoning item of the OpenAI Responses API: the summary to show,
    /// and the encrypted reasoning the API needs back on later requests
    /// (catui does not let the server store conversations). Other
    /// providers leave it out of their requests.
    Reasoning {
        id: String,
        #[serde(default)]
        summary: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        encrypted_content: Option<String>,
    },
    /// A tool call. `input` is the parsed JSON object; when the model sent
    /// text that is not valid JSON, the provider stores it as a JSON string
    /// so the engine can answer with a precise error.
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    ToolResult {
        tool_use_id: String,
        content: ToolResultContent,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
    Image {
        source: Value,
    },
    /// A document (a PDF) in the Anthropic shape: `source` is
    /// `{"type":"base64","media_type":"application/pdf","data":…}`.
    /// Providers without documents leave it out with a note.
    Document {
        source: Value,
    },
}

impl ContentBlock {
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text { text: text.into() }
    }

    pub fn tool_result(
        tool_use_id: impl Into<String>,
        text: impl Into<String>,
        is_error: bool,
    ) -> Self {
        ContentBlock::ToolResult {
            tool_use_id: tool_use_id.into(),
            content: ToolResultContent::Text(text.into()),
            is_error,
        }
    }
}

/// The content of a tool result: plain text or a list of blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ToolResultContent {
    Text(String),
    Blocks(Vec<ContentBlock>),
}

impl ToolResultContent {
    /// The text of the result, blocks concatenated.
    pub fn as_text(&self) -> String {
        match self {
            ToolResultContent::Text(t) => t.clone(),
            ToolResultContent::Blocks(blocks) => {
                let mut out = String::new();
                for b in blocks {
                    if let ContentBlock::Text { text } = b {
                        if !out.is_empty() {
                            out.push('\n');
                        }
                        out.push_str(text);
                    }
                }
                out
            }
        }
    }
}

fn string_or_blocks<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<ContentBlock>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Text(String),
        Blocks(Vec<ContentBlock>),
    }
    Ok(match Either::deserialize(d)? {
        Either::Text(t) => vec![ContentBlock::Text { text: t }],
        Either::Blocks(b) => b,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_accepts_string_or_blocks() {
        let m: Message = serde_json::from_str(r#"{"role":"user","content":"hi"}"#).unwrap();
        assert_eq!(m.text(), "hi");
        let m: Message = serde_json::from_str(
            r#"{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}"#,
        )
        .unwrap();
        assert_eq!(m.text(), "ab");
        assert_eq!(
            serde_json::to_value(&m).unwrap()["content"][1],
            serde_json::json!({"type":"text","text":"b"})
        );
    }

    #[test]
    fn tool_result_round_trips_and_hides_false_is_error() {
        let b = ContentBlock::tool_result("t1", "ok", false);
        let v = serde_json::to_value(&b).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"type":"tool_result","tool_use_id":"t1","content":"ok"})
        );
        let back: ContentBlock = serde_json::from_value(v).unwrap();
        assert_eq!(back, b);
    }
}
