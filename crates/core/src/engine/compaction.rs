//! Keeping the conversation inside the model's context window:
//! `/compact`, automatic compaction before a request that would come near
//! the window, and recovery when the provider refuses a request as too
//! long ("prompt is too long"): the largest tool results are cut (see
//! [`super::fit`]) and, when that is not enough, the conversation is
//! compacted; then the request is sent again. Each step is told to the user
//! as a notification.

use catui_protocol::ModelResponse;
use catui_providers::ProviderError;
use tokio_util::sync::CancellationToken;

use super::extension::CompactError;
use super::{Engine, EngineEvent, Record, context_window, fit};
use crate::sync::lock;

/// How many times a refused request is shrunk and sent again.
const MAX_FIT_ATTEMPTS: u32 = 4;
/// Bytes of new messages counted as one token when estimating the next
/// prompt (about what prose and code take).
const ESTIMATE_CHARS_PER_TOKEN: usize = 4;

impl Engine {
    /// The context window of the conversation's model, from the session's
    /// model catalog (settings included).
    pub(super) fn window(&self) -> u64 {
        self.client
            .model_info(&self.request_model())
            .context_window
            .unwrap_or(context_window::DEFAULT_CONTEXT_WINDOW)
    }

    /// The next prompt's size in tokens: the last request's, plus an
    /// estimate for the messages added since.
    fn prompt_estimate(&self) -> u64 {
        let new = self
            .messages
            .get(self.messages_at_last_prompt..)
            .unwrap_or_default();
        self.last_prompt_tokens + (fit::size(new) / ESTIMATE_CHARS_PER_TOKEN) as u64
    }

    /// Forgets the last prompt's size: the messages changed under it.
    fn forget_prompt_size(&mut self) {
        self.last_prompt_tokens = 0;
        self.messages_at_last_prompt = 0;
    }

    /// Remembers the size of the prompt that was just answered.
    pub(super) fn note_prompt_size(&mut self, tokens: u64) {
        self.last_prompt_tokens = tokens;
        self.messages_at_last_prompt = self.messages.len();
    }

    /// Replaces older turns with a summary written by the model, re-attaching
    /// the extensions' kept document (the plan) (`/compact`, and
    /// automatically near the context limit). Tool results too large for
    /// half the context window are cut first, so `/compact` also frees
    /// context when a few huge tool results are the bulk and there is no
    /// older turn to summarise. The permission mode is untouched.
    pub async fn compact(&mut self, instructions: Option<&str>) -> Result<String, CompactError> {
        self.compact_as("manual", instructions).await
    }

    /// [`Engine::compact`], after the `PreCompact` hooks (`trigger`:
    /// `manual` or `auto`).
    pub(super) async fn compact_as(
        &mut self,
        trigger: &str,
        instructions: Option<&str>,
    ) -> Result<String, CompactError> {
        super::hook_points::pre_compact(self, trigger, instructions).await;
        let cancel = lock(&self.shared.cancel).clone();
        let mut messages = self.messages.clone();
        let cut = fit::cut_largest_tool_results(&mut messages, fit::budget(self.window(), 2));
        let summarised = match self.compactor.clone() {
            None => Err(CompactError::Unavailable),
            Some(compactor) => {
                let agent = self.config.agent_id.as_deref();
                let kept = self
                    .shared
                    .extensions
                    .iter()
                    .find_map(|e| e.kept_document(agent));
                compactor
                    .compact(
                        self.client.as_ref(),
                        &self.request_model(),
                        &messages,
                        instructions,
                        kept.as_ref(),
                        &cancel,
                    )
                    .await
            }
        };
        let text = match summarised {
            Ok(compacted) => {
                self.total_usage.add(&compacted.usage);
                self.messages = compacted.messages;
                for entry in compacted.entries {
                    // What the new conversation carries (the plan file
                    // reference) is told to the front end like any
                    // attachment.
                    if let catui_protocol::transcript::EntryBody::Attachment { attachment } = &entry
                    {
                        self.shared
                            .emit(EngineEvent::Attachment(attachment.clone()));
                    }
                    self.shared.recorder.record(Record::Entry(entry));
                }
                let mut text = format!(
                    "Compacted the conversation: {} earlier messages became a summary, the last {} were kept.",
                    compacted.summarized, compacted.kept
                );
                if cut.results > 0 {
                    text.push_str(&format!(" Also {}.", fit::describe(cut)));
                }
                text
            }
            Err(e) if cut.results == 0 => return Err(e),
            Err(e) => {
                self.messages = messages;
                let why = match e {
                    CompactError::NothingToCompact { .. } | CompactError::Unavailable => {
                        String::new()
                    }
                    other => format!(" ({other})"),
                };
                format!("Freed context: {}{why}.", fit::describe(cut))
            }
        };
        self.forget_prompt_size();
        Ok(text)
    }

    /// Compacts before a request that would fill the configured share of
    /// the model's context window (the last prompt's size plus what was
    /// added since).
    pub(super) async fn compact_if_needed(&mut self) {
        let window = self.window();
        let threshold = self.config.auto_compact_threshold;
        if !context_window::should_auto_compact(self.prompt_estimate(), window, threshold) {
            return;
        }
        self.forget_prompt_size();
        let text = match self.compact_as("auto", None).await {
            Ok(text) => text,
            // Nothing to say when nothing could be done at all.
            Err(CompactError::Unavailable | CompactError::NothingToCompact { .. }) => return,
            Err(e) => e.to_string(),
        };
        self.shared.emit(EngineEvent::Notification {
            key: "auto-compact".into(),
            text,
        });
    }

    /// Sends the conversation to the model; when the provider refuses it as
    /// too long, shrinks it (cuts tool results, then compacts) and sends it
    /// again, up to [`MAX_FIT_ATTEMPTS`] times.
    pub(super) async fn request_fitting(
        &mut self,
        cancel: &CancellationToken,
    ) -> Result<ModelResponse, ProviderError> {
        let mut compacted = false;
        let mut attempt = 1;
        loop {
            let error = match self.request(cancel).await {
                Err(e) if e.is_context_overflow() => e,
                other => return other,
            };
            if attempt > MAX_FIT_ATTEMPTS || cancel.is_cancelled() {
                return Err(error);
            }
            if !self.shrink(&error, attempt, &mut compacted).await {
                return Err(error);
            }
            if cancel.is_cancelled() {
                return Err(ProviderError::Cancelled);
            }
            attempt += 1;
        }
    }

    /// One step of fitting a refused conversation: cut the largest tool
    /// results to a budget that halves with each `attempt`; when there is
    /// nothing left to cut, compact once. Whether anything changed.
    async fn shrink(&mut self, error: &ProviderError, attempt: u32, compacted: &mut bool) -> bool {
        let budget = fit::overflow_budget(
            &error.to_string(),
            fit::size(&self.messages),
            self.window(),
            attempt,
        );
        let cut = fit::cut_largest_tool_results(&mut self.messages, budget);
        let done = if cut.results > 0 {
            Some(format!("{}.", capitalised(&fit::describe(cut))))
        } else if !*compacted {
            *compacted = true;
            match self.compact_as("auto", None).await {
                Ok(text) => Some(text),
                Err(e) => {
                    self.notify_overflow(format!("{e}"));
                    None
                }
            }
        } else {
            None
        };
        let Some(done) = done else {
            return false;
        };
        self.forget_prompt_size();
        self.notify_overflow(format!(
            "The conversation no longer fit the model's context window ({error}). {done} Sending it again."
        ));
        true
    }

    fn notify_overflow(&self, text: String) {
        self.shared.emit(EngineEvent::Notification {
            key: "context-overflow".into(),
            text,
        });
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
