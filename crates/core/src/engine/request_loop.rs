//! The model requests of one user input, as named steps: get ready for a
//! request (tools arriving, a switched model, compaction, attachments),
//! check the budget, ask the model, record its answer, then either end
//! the input with the answer or run its tool calls and go round again.

use std::time::Instant;

use catui_protocol::stream_json::ResultSubtype;
use catui_protocol::{ContentBlock, Message, ModelResponse, Role, StopReason, Usage};
use catui_providers::ProviderError;
use tokio_util::sync::CancellationToken;

use super::events::{EngineEvent, ResponseInfo, TurnOutcome};
use super::extension::RunEnd;
use super::record::Record;
use super::request::new_message_uuid;
use super::{Engine, attachments, context_window, tool_runner, turn_end};
use crate::sync::lock;

/// Why the request loop stops.
enum Stop {
    /// With a result of this kind and text.
    Outcome(ResultSubtype, String),
    /// The way an extension ends it.
    Ended(RunEnd),
    /// The user interrupted.
    Interrupted,
}

impl Engine {
    /// The model requests of one input, until it ends (see
    /// [`Self::run_turn`]).
    pub(super) async fn run_requests(
        &mut self,
        looping: &mut turn_end::ContinuationLoop,
        cancel: &CancellationToken,
        started: Instant,
    ) -> TurnOutcome {
        let mut usage = Usage::default();
        let mut num_turns = 0u32;
        let mut is_human_turn = true;
        let mut stop_blocks = 0u32;
        let stop = loop {
            self.before_request(is_human_turn, cancel).await;
            is_human_turn = false;
            if cancel.is_cancelled() {
                break Stop::Interrupted;
            }
            if let Some(stop) = self.over_budget() {
                break stop;
            }
            num_turns += 1;
            let response = match self.request_fitting(cancel).await {
                Ok(r) => r,
                Err(e) => break request_failed(e),
            };
            usage.add(&response.usage);
            let assistant = self.take_answer(&response);
            if assistant.tool_uses().next().is_none() {
                match self
                    .final_answer(
                        looping,
                        &assistant,
                        &response.stop_reason,
                        &mut stop_blocks,
                        cancel,
                    )
                    .await
                {
                    Some(stop) => break stop,
                    None => continue,
                }
            }
            self.answer_tool_calls(&assistant, cancel).await;
            if let Some(end) = self.shared.take_run_end() {
                break Stop::Ended(end);
            }
            if self.start_fresh_if_asked() {
                is_human_turn = true;
                continue;
            }
            if cancel.is_cancelled() {
                break Stop::Interrupted;
            }
            if let Some(max) = self.config.max_turns
                && num_turns >= max
            {
                break Stop::Outcome(
                    ResultSubtype::ErrorMaxTurns,
                    format!(
                        "Reached the maximum number of turns ({max}) before the task was finished."
                    ),
                );
            }
        };
        match stop {
            Stop::Outcome(subtype, text) => self.outcome(subtype, text, num_turns, usage, started),
            Stop::Ended(end) => self.ended(end, num_turns, usage, started),
            Stop::Interrupted => self.interrupted(num_turns, usage, started),
        }
    }

    /// Before each request: tools still arriving, a model or system
    /// prompt switched meanwhile, a refresh, compaction when the context
    /// is full, and the attachments due.
    async fn before_request(&mut self, is_human_turn: bool, cancel: &CancellationToken) {
        // Tools still on their way (MCP servers starting) reach the
        // first request of an input, within their startup timeouts.
        if is_human_turn && self.config.agent_id.is_none() {
            self.await_arriving_tools(cancel).await;
        }
        if let Some(model) = self.shared.take_requested_model() {
            *lock(&self.shared.model) = model.clone();
            self.config.model = model;
        }
        if let Some(prompt) = self.shared.take_requested_system_prompt() {
            self.config.system_prompt = prompt;
        }
        self.refresh();
        self.compact_if_needed().await;
        self.inject_attachments(is_human_turn);
    }

    /// The spending limit is shared by everything the session runs;
    /// checked before each request, so a tool loop stops whole.
    fn over_budget(&self) -> Option<Stop> {
        let over = self.client.ledger().and_then(|l| l.budget_exceeded())?;
        Some(Stop::Outcome(
            ResultSubtype::ErrorMaxBudgetUsd,
            format!(
                "Stopped: the session has spent ${:.4} of its ${:.4} budget (--max-budget-usd).",
                over.spent_usd, over.limit_usd
            ),
        ))
    }

    /// Counts, records and shows the model's answer, and adds it to the
    /// conversation.
    fn take_answer(&mut self, response: &ModelResponse) -> Message {
        self.total_usage.add(&response.usage);
        self.note_prompt_size(context_window::prompt_tokens(&response.usage));
        self.shared
            .report_usage(&self.request_model(), self.last_prompt_tokens);
        let assistant = response.message.clone();
        let uuid = self.shared.recorder.record(Record::Assistant {
            message: assistant.clone(),
            usage: response.usage,
            model: response.model.clone(),
        });
        // The step its tool calls belong to, when it changed.
        self.report_step();
        self.shared.emit(EngineEvent::Assistant {
            message: assistant.clone(),
            uuid: uuid.unwrap_or_else(new_message_uuid),
            parent_tool_use_id: self.config.parent_tool_use_id.clone(),
            response: ResponseInfo {
                model: response
                    .model
                    .clone()
                    .unwrap_or_else(|| self.request_model()),
                stop_reason: Some(response.stop_reason.clone()),
                usage: response.usage,
            },
        });
        self.messages.push(assistant.clone());
        assistant
    }

    /// An answer without tool calls: whether the turn really ends
    /// (turn_end.rs; `None` sends the model back), and how.
    async fn final_answer(
        &mut self,
        looping: &mut turn_end::ContinuationLoop,
        assistant: &Message,
        stop_reason: &StopReason,
        stop_blocks: &mut u32,
        cancel: &CancellationToken,
    ) -> Option<Stop> {
        match self
            .turn_ending(looping, assistant, stop_blocks, cancel)
            .await
        {
            turn_end::Ending::Continue => return None,
            turn_end::Ending::EndWith(end) => return Some(Stop::Ended(end)),
            turn_end::Ending::End => {}
        }
        let text = assistant.text();
        if *stop_reason == StopReason::MaxTokens && text.trim().is_empty() {
            return Some(Stop::Outcome(
                ResultSubtype::ErrorDuringExecution,
                format!(
                    "The model reached its output limit ({} tokens) before writing any \
                     answer (its output went to thinking, or the limit is too low). Ask \
                     again, for less at once, or raise the limit.",
                    self.config.max_tokens
                ),
            ));
        }
        let ended =
            self.shared.extensions.iter().find_map(|e| {
                e.final_answer(self.config.agent_id.as_deref(), self.shared.as_ref())
            });
        Some(match ended {
            Some(end) => Stop::Ended(end),
            None => Stop::Outcome(ResultSubtype::Success, text),
        })
    }

    /// Runs the answer's tool calls and adds their results (with the loop
    /// guard's note, if any) to the conversation as the next user message.
    async fn answer_tool_calls(&mut self, assistant: &Message, cancel: &CancellationToken) {
        let mut results = tool_runner::run_tool_calls(self, assistant, cancel).await;
        if let Some(note) = self.loop_guard.observe(assistant, &results) {
            // Read with the results, before the model decides again.
            results.push(ContentBlock::text(attachments::wrap(&note)));
        }
        let tool_message = Message {
            role: Role::User,
            content: results,
        };
        let uuid = self.shared.recorder.record(Record::User {
            message: tool_message.clone(),
            is_meta: false,
        });
        self.shared.emit(EngineEvent::User {
            message: tool_message.clone(),
            uuid: uuid.unwrap_or_else(new_message_uuid),
            parent_tool_use_id: self.config.parent_tool_use_id.clone(),
        });
        self.messages.push(tool_message);
    }
}

/// A model request that failed: interrupted, or an error with what to do
/// when the conversation no longer fits.
fn request_failed(e: ProviderError) -> Stop {
    if matches!(e, ProviderError::Cancelled) {
        return Stop::Interrupted;
    }
    let hint = if e.is_context_overflow() {
        " The conversation does not fit the model's context window even after \
         cutting tool results and compacting; start a new session, or ask for \
         less at once."
    } else {
        ""
    };
    Stop::Outcome(
        ResultSubtype::ErrorDuringExecution,
        format!("Model request failed: {e}.{hint}"),
    )
}
