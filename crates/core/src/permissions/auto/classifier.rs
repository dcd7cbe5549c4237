//! The auto-mode classifier: one forced `decide` tool call to the small
//! model per action that would otherwise ask, with a timeout, and the count
//! of consecutive denials after which the user is asked instead.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use catui_protocol::{ContentBlock, Message, ModelRequest, ToolChoice};
use catui_providers::{ModelClient, ProviderError};
use tokio_util::sync::CancellationToken;

use super::prompt::{self, DECIDE_TOOL, ProposedAction};

/// Default time the classifier may take before the user is asked instead.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(15);
/// Denials in a row after which the user is asked instead.
pub const DEFAULT_MAX_CONSECUTIVE_DENIALS: u32 = 3;

/// How the classifier runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassifierConfig {
    /// The model asked (settings `smallModel` / `--small-model`).
    pub model: String,
    /// After this long the request is abandoned and the user is asked.
    pub timeout: Duration,
    /// The n-th denial in a row goes to the user instead of the model.
    pub max_consecutive_denials: u32,
    pub max_tokens: u32,
}

impl ClassifierConfig {
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            timeout: DEFAULT_TIMEOUT,
            max_consecutive_denials: DEFAULT_MAX_CONSECUTIVE_DENIALS,
            max_tokens: 1024,
        }
    }
}

/// The outcome of a review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AutoReview {
    /// Run the call.
    Allow { reason: String },
    /// Do not run it; the reason reaches the model.
    Deny { reason: String },
    /// The classifier could not decide, or has denied too often in a row:
    /// ask the user as outside auto mode. `why` says which.
    AskUser { why: String },
    /// The turn was interrupted while the classifier ran.
    Interrupted,
}

/// Judges calls for auto mode. One per conversation (the lead, each
/// sub-agent, each teammate): the denial count is per classifier, and
/// [`AutoClassifier::for_another_agent`] makes the one for a new agent.
pub struct AutoClassifier {
    client: Arc<dyn ModelClient>,
    config: ClassifierConfig,
    consecutive_denials: AtomicU32,
}

impl std::fmt::Debug for AutoClassifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AutoClassifier")
            .field("config", &self.config)
            .field("consecutive_denials", &self.consecutive_denials)
            .finish()
    }
}

impl AutoClassifier {
    pub fn new(client: Arc<dyn ModelClient>, config: ClassifierConfig) -> Self {
        Self {
            client,
            config,
            consecutive_denials: AtomicU32::new(0),
        }
    }

    /// A classifier for another agent's conversation: same client and
    /// configuration, and a denial count of its own starting at zero.
    ///
    /// "Too many denials in a row, ask the user" is a signal that one
    /// agent keeps trying what its own task does not call for; sharing the
    /// count would let a sub-agent's denials hand the lead's next call to
    /// the user (or an allow in one agent hide another's run of denials).
    pub fn for_another_agent(&self) -> AutoClassifier {
        AutoClassifier::new(self.client.clone(), self.config.clone())
    }

    pub fn config(&self) -> &ClassifierConfig {
        &self.config
    }

    /// Denials since the last allow or hand-over to the user.
    pub fn consecutive_denials(&self) -> u32 {
        self.consecutive_denials.load(Ordering::SeqCst)
    }

    /// Asks the model about `action` given the conversation so far.
    pub async fn review(
        &self,
        conversation: &[Message],
        action: &ProposedAction<'_>,
        cancel: &CancellationToken,
    ) -> AutoReview {
        let request = ModelRequest {
            model: self.config.model.clone(),
            system: prompt::system_prompt(),
            messages: vec![Message::user_text(prompt::review_message(
                conversation,
                action,
            ))],
            tools: vec![prompt::decide_tool()],
            tool_choice: ToolChoice::Tool {
                name: DECIDE_TOOL.to_string(),
            },
            max_tokens: self.config.max_tokens,
            temperature: None,
            reasoning: Default::default(),
        };
        // A child token stops the HTTP request (and its retries) when the
        // timeout fires, without cancelling the turn.
        let request_cancel = cancel.child_token();
        let sink = |_| {};
        let answer = tokio::time::timeout(
            self.config.timeout,
            self.client.stream(&request, &sink, &request_cancel),
        )
        .await;
        request_cancel.cancel();
        let verdict = match answer {
            Err(_) => {
                return AutoReview::AskUser {
                    why: format!(
                        "the classifier did not answer within {} s",
                        self.config.timeout.as_secs_f32()
                    ),
                };
            }
            Ok(Err(ProviderError::Cancelled)) if cancel.is_cancelled() => {
                return AutoReview::Interrupted;
            }
            Ok(Err(e)) => {
                return AutoReview::AskUser {
                    why: format!("the classifier request failed: {e}"),
                };
            }
            Ok(Ok(response)) => parse_verdict(&response.message),
        };
        match verdict {
            Err(why) => AutoReview::AskUser { why },
            Ok((true, reason)) => {
                self.consecutive_denials.store(0, Ordering::SeqCst);
                AutoReview::Allow { reason }
            }
            Ok((false, reason)) => {
                let denials = self.consecutive_denials.fetch_add(1, Ordering::SeqCst) + 1;
                if denials >= self.config.max_consecutive_denials.max(1) {
                    self.consecutive_denials.store(0, Ordering::SeqCst);
                    AutoReview::AskUser {
                        why: format!(
                            "the classifier denied {denials} actions in a row (this one: {reason})"
                        ),
                    }
                } else {
                    AutoReview::Deny { reason }
                }
            }
        }
    }
}

/// Reads the `decide` call: `Ok((allowed, reason))`, or why the answer is
/// unusable.
fn parse_verdict(message: &Message) -> Result<(bool, String), String> {
    let input = message
        .content
        .iter()
        .find_map(|b| match b {
            ContentBlock::ToolUse { name, input, .. } if name == DECIDE_TOOL => Some(input),
            _ => None,
        })
        .ok_or_else(|| format!("the classifier did not call `{DECIDE_TOOL}`"))?;
    let reason = input
        .get("reason")
        .and_then(|r| r.as_str())
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .unwrap_or("no reason given")
        .to_string();
    match input.get("decision").and_then(|d| d.as_str()) {
        Some("allow") => Ok((true, reason)),
        Some("deny") => Ok((false, reason)),
        other => Err(format!(
            "the classifier answered with an invalid decision ({})",
            other.map_or_else(|| "none".to_string(), |d| format!("`{d}`"))
        )),
    }
}

#[cfg(test)]
mod tests {
    use catui_protocol::Role;
    use serde_json::json;

    use super::*;

    fn decide(input: serde_json::Value) -> Message {
        Message {
            role: Role::Assistant,
            content: vec![ContentBlock::ToolUse {
                id: "d".into(),
                name: DECIDE_TOOL.into(),
                input,
            }],
        }
    }

    #[test]
    fn verdicts_are_parsed_strictly() {
        assert_eq!(
            parse_verdict(&decide(json!({"decision": "allow", "reason": " fine "}))),
            Ok((true, "fine".into()))
        );
        assert_eq!(
            parse_verdict(&decide(json!({"decision": "deny"}))),
            Ok((false, "no reason given".into()))
        );
        assert!(
            parse_verdict(&decide(json!({"decision": "maybe", "reason": "x"})))
                .unwrap_err()
                .contains("`maybe`")
        );
        assert!(
            parse_verdict(&Message::assistant_text("allow"))
                .unwrap_err()
                .contains("did not call")
        );
    }
}
