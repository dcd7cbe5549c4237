//! What the engine asks of a model and what a provider streams back,
//! independent of any wire format.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::message::Message;

/// A tool as offered to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON Schema of the input object (strict: `additionalProperties: false`).
    pub input_schema: Value,
}

/// Whether and which tool the model must call.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolChoice {
    #[default]
    Auto,
    /// Some tool must be called.
    Any,
    /// This tool must be called.
    Tool { name: String },
}

/// One request to a model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRequest {
    pub model: String,
    pub system: String,
    pub messages: Vec<Message>,
    #[serde(default)]
    pub tools: Vec<ToolSpec>,
    #[serde(default)]
    pub tool_choice: ToolChoice,
    pub max_tokens: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
}

/// Token counts of one or more requests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default)]
    pub cache_read_input_tokens: u64,
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
}

impl Usage {
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_input_tokens += other.cache_read_input_tokens;
        self.cache_creation_input_tokens += other.cache_creation_input_tokens;
    }

    pub fn total(&self) -> u64 {
        self.input_tokens
            + self.output_tokens
            + self.cache_read_input_tokens
            + self.cache_creation_input_tokens
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    EndTurn,
    ToolUse,
    MaxTokens,
    StopSequence,
    Refusal,
    #[serde(untagged)]
    Other(String),
}

impl StopReason {
    /// Maps a wire value (Anthropic `stop_reason` or OpenAI `finish_reason`).
    pub fn from_wire(s: &str) -> StopReason {
        match s {
            "end_turn" | "stop" => StopReason::EndTurn,
            "tool_use" | "tool_calls" | "function_call" => StopReason::ToolUse,
            "max_tokens" | "length" => StopReason::MaxTokens,
            "stop_sequence" => StopReason::StopSequence,
            "refusal" | "content_filter" => StopReason::Refusal,
            other => StopReason::Other(other.to_string()),
        }
    }
}

/// An incremental event while a response streams. Front ends show these;
/// only the final [`ModelResponse`] is committed to the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ModelEvent {
    TextDelta {
        text: String,
    },
    ThinkingDelta {
        thinking: String,
    },
    ToolUseStart {
        id: String,
        name: String,
    },
    ToolInputDelta {
        id: String,
        partial_json: String,
    },
    /// The attempt failed and will be retried: front ends discard what this
    /// attempt streamed so far.
    Retrying {
        attempt: u32,
        delay_ms: u64,
        reason: String,
    },
}

/// A complete model answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelResponse {
    /// The assistant message (role = assistant), blocks in stream order.
    pub message: Message,
    pub stop_reason: StopReason,
    pub usage: Usage,
    /// The model name the server reported, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_reasons_map_from_both_wire_formats() {
        assert_eq!(StopReason::from_wire("stop"), StopReason::EndTurn);
        assert_eq!(StopReason::from_wire("tool_calls"), StopReason::ToolUse);
        assert_eq!(StopReason::from_wire("length"), StopReason::MaxTokens);
        assert_eq!(
            StopReason::from_wire("pause_turn"),
            StopReason::Other("pause_turn".into())
        );
    }

    #[test]
    fn usage_adds() {
        let mut u = Usage {
            input_tokens: 1,
            output_tokens: 2,
            ..Default::default()
        };
        u.add(&Usage {
            input_tokens: 3,
            cache_read_input_tokens: 4,
            ..Default::default()
        });
        assert_eq!(u.total(), 10);
    }
}
