//! Compaction (`/compact` and automatic compaction): older turns
//! are replaced by a model-written summary, the last turns are kept word
//! for word, and the plan is attached again so it survives.
//!
//! The summary request is one model call with no tools: the older part of
//! the conversation is rendered as plain text inside one user message (tool
//! calls and results abbreviated), which is valid for every provider
//! whatever tool calls it contains. The kept part always starts at a
//! message that is not a tool result, so a tool_use is never separated
//! from its tool_result.
//!
//! Compaction only rewrites the message list; it never touches the
//! permission mode or the plan file.
//!
//! What is recorded (the `entries` of [`Compacted`], appended by the
//! caller after the existing transcript): a `summary` entry, a
//! `plan_file_reference` attachment when there is a plan, then the kept
//! messages again. [`super::rebuild_messages`] starts over at a summary, so
//! a resumed session sees exactly the compacted list.

use catui_protocol::{Attachment, ContentBlock, Message, ModelRequest, Role, ToolChoice, Usage};
use catui_providers::{ModelClient, ProviderError};
use tokio_util::sync::CancellationToken;

use super::entry::EntryBody;
use super::rebuild::{plan_reference_text, summary_message_text};
use crate::engine::{Compaction, Compactor, KeptDocument};
use crate::plan::engine_hooks::attachments::is_human_turn;

/// Human turns kept verbatim after the summary.
pub const KEEP_RECENT_TURNS: usize = 2;
/// With too few turns, at most this many trailing messages are kept.
const FALLBACK_KEEP_MESSAGES: usize = 4;
/// The longest summary asked for.
const SUMMARY_MAX_TOKENS: u32 = 8_192;
/// Tool inputs and results are cut to this many characters in the text
/// given to the summariser: their gist matters, not their bulk.
const TOOL_INPUT_CHARS: usize = 1_000;
const TOOL_RESULT_CHARS: usize = 2_000;

pub use crate::engine::context_window::{
    DEFAULT_AUTO_COMPACT_THRESHOLD, DEFAULT_CONTEXT_WINDOW, auto_compact_threshold, context_window,
    prompt_tokens, should_auto_compact,
};

const SUMMARY_SYSTEM_PROMPT: &str = "You condense coding-agent conversations. \
You are given the earlier part of a conversation between a user and an AI coding assistant \
that works in a software project with tools. Write a summary that lets the assistant carry on \
the work without the original messages. Answer with the summary only, no preamble.";

const SUMMARY_REQUEST: &str = "Summarise the conversation above for the assistant who will continue it. Cover, in this order:
1. What the user asked for, in their own terms, including every explicit requirement, preference and correction.
2. Decisions taken and why, and approaches that were tried and rejected.
3. Files and code involved: paths, the functions or types that matter, and what was changed in each.
4. Commands run and what they showed (test results, errors and how they were fixed).
5. The state of the work: what is done, what is in progress, and the next steps still open.
Quote exact names, paths, error messages and user wording where they matter. Do not invent anything that is not in the conversation.";

/// Why compaction did not happen.
#[derive(Debug, thiserror::Error)]
pub enum CompactError {
    #[error(
        "nothing to compact yet: the conversation is only {messages} message(s), all of which are kept"
    )]
    NothingToCompact { messages: usize },
    #[error("the summary request failed: {0}")]
    Model(#[from] ProviderError),
    #[error("the model returned an empty summary; the conversation was left as it was")]
    EmptySummary,
}

/// A compacted conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Compacted {
    /// The new conversation: the summary message (with the plan reference
    /// when there is a plan), then the kept messages.
    pub messages: Vec<Message>,
    /// The summary as the model wrote it.
    pub summary: String,
    /// What to append to the transcript, in order.
    pub entries: Vec<EntryBody>,
    /// How many messages the summary replaced.
    pub summarized: usize,
    /// How many trailing messages were kept verbatim.
    pub kept: usize,
    /// Tokens spent on the summary request.
    pub usage: Usage,
}

/// Summarises all but the last turns of `messages` with one request to
/// `model`. `instructions` (the text after `/compact`) steer the summary;
/// `plan` is attached again after it.
pub async fn compact(
    client: &dyn ModelClient,
    model: &str,
    messages: &[Message],
    instructions: Option<&str>,
    plan: Option<&KeptDocument>,
    cancel: &CancellationToken,
) -> Result<Compacted, CompactError> {
    let split = split_point(messages).ok_or(CompactError::NothingToCompact {
        messages: messages.len(),
    })?;
    let (older, kept) = messages.split_at(split);

    let mut request_text = format!(
        "<conversation>\n{}</conversation>\n\n{SUMMARY_REQUEST}",
        render_for_summary(older)
    );
    if let Some(extra) = instructions.map(str::trim).filter(|i| !i.is_empty()) {
        request_text.push_str("\n\nThe user gave these instructions for the summary:\n");
        request_text.push_str(extra);
    }
    let request = ModelRequest {
        model: model.to_string(),
        system: SUMMARY_SYSTEM_PROMPT.to_string(),
        messages: vec![Message::user_text(request_text)],
        tools: Vec::new(),
        tool_choice: ToolChoice::Auto,
        max_tokens: SUMMARY_MAX_TOKENS,
        temperature: None,
        reasoning: Default::default(),
    };
    let response = client.stream(&request, &|_| {}, cancel).await?;
    let summary = response.message.text().trim().to_string();
    if summary.is_empty() {
        return Err(CompactError::EmptySummary);
    }

    let mut first = Message::user_text(summary_message_text(&summary));
    let mut entries = vec![EntryBody::Summary {
        summary: summary.clone(),
    }];
    if let Some(plan) = plan {
        let attachment = Attachment::PlanFileReference {
            plan_file_path: plan.path.to_string_lossy().into_owned(),
            plan_content: plan.content.clone(),
            approved: plan.approved,
            file_changed: plan.file_changed,
        };
        first
            .content
            .push(ContentBlock::text(plan_reference_text(&attachment)));
        entries.push(EntryBody::Attachment { attachment });
    }
    let mut new_messages = Vec::with_capacity(kept.len() + 1);
    new_messages.push(first);
    new_messages.extend_from_slice(kept);
    entries.extend(kept.iter().map(|m| match m.role {
        Role::User => EntryBody::user(m.clone()),
        Role::Assistant => EntryBody::Assistant {
            message: m.clone(),
            usage: None,
            model: None,
        },
    }));
    Ok(Compacted {
        messages: new_messages,
        summary,
        entries,
        summarized: older.len(),
        kept: kept.len(),
        usage: response.usage,
    })
}

/// Where the kept part starts: the start of the `KEEP_RECENT_TURNS`-th
/// last human turn, else a few messages from the end moved back so that it
/// does not start with tool results. `None` when nothing would be left to
/// summarise.
pub fn split_point(messages: &[Message]) -> Option<usize> {
    let turn_starts: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| is_human_turn(m, false))
        .map(|(i, _)| i)
        .collect();
    if turn_starts.len() > KEEP_RECENT_TURNS {
        let start = turn_starts[turn_starts.len() - KEEP_RECENT_TURNS];
        if start > 0 {
            return Some(start);
        }
    }
    let mut start = messages.len().saturating_sub(FALLBACK_KEEP_MESSAGES);
    while start > 0 && messages[start].is_tool_results_only() {
        start -= 1;
    }
    (start > 0).then_some(start)
}

/// The conversation as plain text for the summariser.
fn render_for_summary(messages: &[Message]) -> String {
    let mut out = String::new();
    for message in messages {
        out.push_str(match message.role {
            Role::User => "[user]\n",
            Role::Assistant => "[assistant]\n",
        });
        for block in &message.content {
            match block {
                ContentBlock::Text { text } => out.push_str(text.trim()),
                ContentBlock::ToolUse { name, input, .. } => {
                    out.push_str(&format!(
                        "(called {name} with {})",
                        cut(&input.to_string(), TOOL_INPUT_CHARS)
                    ));
                }
                ContentBlock::ToolResult {
                    content, is_error, ..
                } => {
                    let label = if *is_error {
                        "tool error"
                    } else {
                        "tool result"
                    };
                    out.push_str(&format!(
                        "({label}: {})",
                        cut(&content.as_text(), TOOL_RESULT_CHARS)
                    ));
                }
                ContentBlock::Image { .. } => out.push_str("(an image)"),
                ContentBlock::Document { .. } => out.push_str("(a document)"),
                ContentBlock::Thinking { .. }
                | ContentBlock::RedactedThinking { .. }
                | ContentBlock::Reasoning { .. } => continue,
            }
            out.push('\n');
        }
        out.push('\n');
    }
    out
}

fn cut(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((byte, _)) => format!("{}… [cut]", &text[..byte]),
        None => text.to_string(),
    }
}

/// The session's [`Compactor`]: [`compact`] as the engine calls it.
pub struct SummaryCompactor;

#[async_trait::async_trait]
impl Compactor for SummaryCompactor {
    async fn compact(
        &self,
        client: &dyn ModelClient,
        model: &str,
        messages: &[Message],
        instructions: Option<&str>,
        kept_document: Option<&KeptDocument>,
        cancel: &CancellationToken,
    ) -> Result<Compaction, crate::engine::extension::CompactError> {
        use crate::engine::extension::CompactError as Engine;
        let done = compact(client, model, messages, instructions, kept_document, cancel)
            .await
            .map_err(|e| match e {
                CompactError::NothingToCompact { messages } => {
                    Engine::NothingToCompact { messages }
                }
                other => Engine::Failed(other.to_string()),
            })?;
        Ok(Compaction {
            messages: done.messages,
            entries: done.entries,
            summarized: done.summarized,
            kept: done.kept,
            usage: done.usage,
        })
    }
}

#[cfg(test)]
#[path = "compact_tests.rs"]
mod tests;
