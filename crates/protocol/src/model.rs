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
    /// Reasoning options (effort, extended thinking); providers send what
    /// their API understands and leave the rest out.
    #[serde(default, skip_serializing_if = "Reasoning::is_default")]
    pub reasoning: Reasoning,
}

/// How hard a reasoning model should think. The names are the union of
/// what the APIs accept; each provider maps them onto its own scale (see
/// `docs/PROVIDERS.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Effort {
    None,
    Minimal,
    Low,
    Medium,
    High,
    #[serde(rename = "xhigh")]
    XHigh,
    Max,
}

impl Effort {
    pub const ALL: [Effort; 7] = [
        Effort::None,
        Effort::Minimal,
        Effort::Low,
        Effort::Medium,
        Effort::High,
        Effort::XHigh,
        Effort::Max,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Effort::None => "none",
            Effort::Minimal => "minimal",
            Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High => "high",
            Effort::XHigh => "xhigh",
            Effort::Max => "max",
        }
    }
}

impl std::fmt::Display for Effort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Effort {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim().to_ascii_lowercase();
        Effort::ALL
            .into_iter()
            .find(|e| e.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown effort '{s}': expected one of none, minimal, low, medium, high, xhigh, max"
                )
            })
    }
}

/// Extended thinking (Anthropic `thinking`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Thinking {
    /// No thinking.
    Disabled,
    /// The model decides when and how much to think.
    Adaptive,
    /// Thinking with at most `budget_tokens` tokens.
    Enabled { budget_tokens: u32 },
}

/// How thinking text comes back: summarized, or omitted (only the
/// signature the API needs to continue the conversation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThinkingDisplay {
    Summarized,
    Omitted,
}

/// The reasoning options of one request. The default asks for nothing,
/// leaving each model at its own default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reasoning {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<Effort>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<Thinking>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<ThinkingDisplay>,
    /// Ask a reasoning model for summaries of its reasoning (OpenAI
    /// Responses `reasoning.summary`), so there is something to show.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub summaries: bool,
}

impl Reasoning {
    pub fn is_default(&self) -> bool {
        *self == Reasoning::default()
    }

    /// Whether extended thinking is switched on.
    pub fn thinking_enabled(&self) -> bool {
        matches!(
            self.thinking,
            Some(Thinking::Adaptive | Thinking::Enabled { .. })
        )
    }

    /// `self`, with anything it leaves unset taken from `defaults`.
    pub fn or(self, defaults: Reasoning) -> Reasoning {
        Reasoning {
            effort: self.effort.or(defaults.effort),
            thinking: self.thinking.or(defaults.thinking),
            display: self.display.or(defaults.display),
            summaries: self.summaries || defaults.summaries,
        }
    }
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

    /// Every input token of the prompt: fresh, read from the cache and
    /// written to it.
    pub fn prompt_tokens(&self) -> u64 {
        self.input_tokens + self.cache_read_input_tokens + self.cache_creation_input_tokens
    }
}

/// Usage and cost of one model over a session, as the Agent SDKs read it in
/// a result's `modelUsage` (hence the camelCase names).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelUsage {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default)]
    pub cache_read_input_tokens: u64,
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
    #[serde(default)]
    pub web_search_requests: u64,
    #[serde(default, rename = "costUSD")]
    pub cost_usd: f64,
    /// The model's context window in tokens (0 when unknown).
    #[serde(default)]
    pub context_window: u64,
    /// Model requests made.
    #[serde(default)]
    pub requests: u64,
}

impl ModelUsage {
    /// The token counts as a [`Usage`].
    pub fn usage(&self) -> Usage {
        Usage {
            input_tokens: self.input_tokens,
            output_tokens: self.output_tokens,
            cache_read_input_tokens: self.cache_read_input_tokens,
            cache_creation_input_tokens: self.cache_creation_input_tokens,
        }
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
    /// `model` stayed overloaded or unavailable after its retries; the
    /// request goes to `fallback` instead, and so do later ones for
    /// `model` (front ends discard what was streamed so far).
    FellBack {
        model: String,
        fallback: String,
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
