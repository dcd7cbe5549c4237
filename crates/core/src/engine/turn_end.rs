//! Should this turn really end? The one place the main conversation
//! decides, when its model answers without calling a tool, whether the
//! input is done or the model is sent back with a reminder — the
//! **continuation loop** (docs/ARCHITECTURE.md, "Turn ends").
//!
//! Participants are [`TurnEndCheck`]s, offered by engine extensions
//! ([`super::EngineExtension::turn_end_checks`]): the goal loop (a plan's
//! goal, a `/goal` judged by the small model) is one; a completion gate
//! that asks once for a checklist before an unattended run ends is
//! another. Each says, for the turn that is ending, `Met`, `NotMet` (with
//! what is missing and the reminder that continues the turn) or
//! `NotApplicable`. The loop owns what they share:
//!
//! - **counting**: every continuation of one input is numbered from 1;
//!   at most `goalMaxContinuations` ([`Limits::max_continuations`],
//!   default 8) per input, and the session's `--max-budget-usd` is
//!   checked before each request as always;
//! - **no progress**: a continuation after which no call changed anything
//!   (files, the shell) and no check's state moved made no progress; two
//!   in a row and the loop gives up instead of spending more;
//! - **reports**: each check a participant wants reported becomes an
//!   [`EngineEvent::GoalCheck`] (`goal_check` over stream-json); when the
//!   loop ends (met, or given up) participants may add a report of their
//!   own ([`TurnEndCheck::finished`]) and the input's outcome carries how
//!   it ended ([`GoalEnd`]).
//!
//! An interrupt stops the loop like any turn (the next request is never
//! made). Sub-agents have no continuation loop.
//!
//! [`Limits::max_continuations`]: super::Limits

use std::sync::Arc;

use async_trait::async_trait;
use catui_protocol::Message;
use catui_providers::ModelClient;
use tokio_util::sync::CancellationToken;

use crate::tools::ToolContext;

/// Continuations per input when `goalMaxContinuations` is not set.
pub const DEFAULT_MAX_CONTINUATIONS: u32 = 8;

/// Continuations in a row that changed nothing, after which the loop
/// gives up.
pub const NO_PROGRESS_LIMIT: u32 = 2;

/// What a check sees of the turn that is ending.
pub struct TurnEndView<'a> {
    /// The model's final answer (its text).
    pub answer: &'a str,
    /// The conversation so far, the final answer included.
    pub messages: &'a [Message],
    /// Continuations already made for this input (0: the model ended its
    /// first turn).
    pub continuation: u32,
    /// A call that may have changed something (a write, a shell command
    /// that is not read-only, a writing agent) ran since the input
    /// started or since the model was last sent back.
    pub changed: bool,
    /// Files written by this input's calls (Write, Edit, NotebookEdit),
    /// relative to the project when inside it.
    pub written: &'a [String],
    /// The session's model client and the small model (for judges).
    pub client: &'a Arc<dyn ModelClient>,
    pub small_model: &'a str,
    /// The main conversation's tool context: commands a check runs (a
    /// plan's verification) run under the session's sandbox and mode.
    pub ctx: &'a ToolContext,
    /// Cancelled when the user interrupts.
    pub cancel: &'a CancellationToken,
}

/// What the calls of the input being handled changed, as the tool runner
/// sees them succeed.
#[derive(Debug, Default)]
pub(crate) struct WorkSeen {
    /// A call that may change something ran since the last check.
    pub(crate) changed: bool,
    /// Files written this input.
    pub(crate) written: Vec<String>,
}

impl WorkSeen {
    /// A call with `access` (read-only or not) succeeded.
    pub(crate) fn saw(
        &mut self,
        access: &crate::permissions::Access,
        read_only: bool,
        project: &std::path::Path,
    ) {
        use crate::permissions::Access;
        match access {
            Access::Write { path } => {
                self.changed = true;
                let shown = path
                    .strip_prefix(project)
                    .map(|p| p.to_string_lossy().into_owned())
                    .unwrap_or_else(|_| path.to_string_lossy().into_owned());
                if !self.written.contains(&shown) {
                    self.written.push(shown);
                }
            }
            Access::Read { .. } | Access::Session | Access::Interaction => {}
            // A shell command, an agent, an outside tool: by its own word.
            _ => self.changed |= !read_only,
        }
    }
}

/// What a check says about the turn that is ending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckVerdict {
    /// It has nothing to say now (no goal of its kind is set).
    NotApplicable,
    /// Its condition holds: as far as it is concerned the turn may end.
    Met,
    /// Its condition does not hold: the turn goes on with `reminder`
    /// (what the model reads); `missing` says what is missing in a line.
    NotMet { missing: String, reminder: String },
}

/// One check's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckResult {
    pub verdict: CheckVerdict,
    /// Report the check as a [`super::EngineEvent::GoalCheck`].
    pub reported: bool,
    /// The check's measurable state (steps done, what verification
    /// said): when neither this nor the project changed during a
    /// continuation, it made no progress.
    pub state: Option<String>,
}

impl CheckResult {
    pub fn not_applicable() -> Self {
        CheckResult {
            verdict: CheckVerdict::NotApplicable,
            reported: false,
            state: None,
        }
    }
}

/// Why the continuation loop of an input ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoopEndReason {
    /// Every check that had something to say was met.
    Met,
    /// `goalMaxContinuations` continuations were made.
    MaxContinuations(u32),
    /// Two continuations in a row changed nothing.
    NoProgress,
    /// The session's spending limit was reached.
    Budget,
    /// The user interrupted, or the run ended another way (an error).
    Stopped,
}

impl LoopEndReason {
    /// In words, for the user and the result line.
    pub fn describe(&self) -> String {
        match self {
            LoopEndReason::Met => "the goal is met".into(),
            LoopEndReason::MaxContinuations(n) => format!(
                "given up after {n} continuation(s) (goalMaxContinuations): the goal is not met"
            ),
            LoopEndReason::NoProgress => {
                "given up: two continuations in a row changed nothing, the goal is not met".into()
            }
            LoopEndReason::Budget => {
                "stopped by the session's budget (--max-budget-usd): the goal is not met".into()
            }
            LoopEndReason::Stopped => "stopped before the goal was met".into(),
        }
    }
}

/// How an input's continuation loop ended, as its outcome carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoalEnd {
    pub met: bool,
    pub reason: LoopEndReason,
    /// Continuations made for this input.
    pub continuations: u32,
    /// What was still missing when the loop gave up.
    pub missing: Option<String>,
}

/// A participant in "should this turn really end".
#[async_trait]
pub trait TurnEndCheck: Send + Sync {
    /// A short name for events and reports (`goal`, `plan-goal`,
    /// `completion-gate`).
    fn name(&self) -> &'static str;

    /// The main conversation's model is ending its turn (after the Stop
    /// hooks and the extensions' [`super::EngineExtension::turn_ending`]
    /// let it). May take time (a judge's request, a plan's verification
    /// commands); `view.cancel` says when to stop.
    async fn check(&self, view: &TurnEndView<'_>) -> CheckResult;

    /// The loop of an input in which this check took part (said something
    /// other than `NotApplicable`) ended: a report for the user, carried
    /// by the input's outcome (the plan's end report).
    fn finished(&self, _end: &GoalEnd) -> Option<catui_protocol::contract::PlanReport> {
        None
    }
}

/// What the loop decided for one ending turn.
pub(super) enum Decision {
    /// The turn goes on with this text for the model.
    Continue(String),
    /// The turn ends (`end` set when a check took part).
    End,
}

/// One input's continuation loop.
#[derive(Default)]
pub(super) struct ContinuationLoop {
    /// Continuations made so far.
    pub(super) used: u32,
    /// Continuations in a row that changed nothing.
    no_progress: u32,
    /// Each check's state at the last check.
    states: Vec<Option<String>>,
    /// Checks that took part, by index.
    took_part: Vec<bool>,
    /// What was missing at the last check.
    missing: Option<String>,
    /// How the loop ended, once it did.
    pub(super) end: Option<GoalEnd>,
}

impl ContinuationLoop {
    /// Asks every check about the turn that is ending and decides.
    /// `max` is the session's `goalMaxContinuations`; `emit` reports a
    /// check (`met`, `missing`, the continuation it led to or 0).
    pub(super) async fn decide(
        &mut self,
        checks: &[Arc<dyn TurnEndCheck>],
        view: &TurnEndView<'_>,
        max: u32,
        mut emit: impl FnMut(&str, bool, Option<&str>, u32),
    ) -> Decision {
        if checks.is_empty() {
            return Decision::End;
        }
        self.states.resize(checks.len(), None);
        self.took_part.resize(checks.len(), false);
        let mut reminders = Vec::new();
        let mut missing = Vec::new();
        let mut reported = Vec::new();
        let mut moved = false;
        for (i, check) in checks.iter().enumerate() {
            let result = check.check(view).await;
            if result.state != self.states[i] {
                moved = true;
                self.states[i] = result.state.clone();
            }
            match result.verdict {
                CheckVerdict::NotApplicable => {}
                CheckVerdict::Met => {
                    self.took_part[i] = true;
                    if result.reported {
                        reported.push((check.name(), true, None));
                    }
                }
                CheckVerdict::NotMet {
                    missing: what,
                    reminder,
                } => {
                    self.took_part[i] = true;
                    if result.reported {
                        reported.push((check.name(), false, Some(what.clone())));
                    }
                    missing.push(what);
                    reminders.push(reminder);
                }
            }
        }
        if view.cancel.is_cancelled() {
            self.end = self.took_part().then(|| self.ended(LoopEndReason::Stopped));
            return Decision::End;
        }
        // A continuation that changed nothing: the project's files and
        // the checks' states are as they were before it.
        if self.used > 0 {
            if view.changed || moved {
                self.no_progress = 0;
            } else {
                self.no_progress += 1;
            }
        }
        if reminders.is_empty() {
            for (name, met, what) in &reported {
                emit(name, *met, what.as_deref(), 0);
            }
            self.missing = None;
            self.end = self.took_part().then(|| self.ended(LoopEndReason::Met));
            return Decision::End;
        }
        self.missing = Some(missing.join("; "));
        let give_up = if self.no_progress >= NO_PROGRESS_LIMIT {
            Some(LoopEndReason::NoProgress)
        } else if self.used >= max {
            Some(LoopEndReason::MaxContinuations(self.used))
        } else {
            None
        };
        if let Some(reason) = give_up {
            for (name, met, what) in &reported {
                emit(name, *met, what.as_deref(), 0);
            }
            self.end = Some(self.ended(reason));
            return Decision::End;
        }
        self.used += 1;
        for (name, met, what) in &reported {
            emit(name, *met, what.as_deref(), self.used);
        }
        Decision::Continue(reminders.join("\n\n"))
    }

    /// Whether any check took part in this input's loop.
    pub(super) fn took_part(&self) -> bool {
        self.took_part.iter().any(|t| *t)
    }

    /// The loop ends for `reason` (also when the run stops another way).
    pub(super) fn ended(&self, reason: LoopEndReason) -> GoalEnd {
        GoalEnd {
            met: reason == LoopEndReason::Met,
            reason,
            continuations: self.used,
            missing: self.missing.clone(),
        }
    }

    /// The reports of the checks that took part, once the loop ended.
    pub(super) fn reports(
        &self,
        checks: &[Arc<dyn TurnEndCheck>],
        end: &GoalEnd,
    ) -> Option<catui_protocol::contract::PlanReport> {
        checks
            .iter()
            .zip(self.took_part.iter())
            .filter(|(_, took)| **took)
            .find_map(|(c, _)| c.finished(end))
    }
}

/// What the engine does with a turn that is ending.
pub(super) enum Ending {
    /// The model was sent back: the next request follows.
    Continue,
    /// The input ends with the model's answer.
    End,
    /// The input ends this way instead (an extension's).
    EndWith(super::RunEnd),
}

impl super::Engine {
    /// Should this turn really end? In order: each extension's one note
    /// before the end (plan compliance), the Stop hooks, the extensions'
    /// quick verdicts ([`super::EngineExtension::turn_ending`]), then the
    /// continuation loop's checks. The first that sends the model back
    /// wins; the loop's checks run only once nothing else has.
    pub(super) async fn turn_ending(
        &mut self,
        looping: &mut ContinuationLoop,
        answer: &Message,
        stop_blocks: &mut u32,
        cancel: &CancellationToken,
    ) -> Ending {
        if let Some(note) = self.note_before_turn_end() {
            // Said once, then the model carries on.
            let note = Message::user_text(super::attachments::wrap(&note));
            self.shared.recorder.record(super::Record::User {
                message: note.clone(),
                is_meta: true,
            });
            self.messages.push(note);
            return Ending::Continue;
        }
        if let Some(reason) = super::hook_points::stop(self, *stop_blocks).await {
            // A Stop hook sends the model back to work.
            *stop_blocks += 1;
            self.send_back(format!("Stop hook feedback: {reason}"));
            return Ending::Continue;
        }
        if self.config.agent_id.is_some() {
            return Ending::End;
        }
        match self.turn_end_verdict() {
            super::TurnEnd::Accept => {}
            super::TurnEnd::End(end) => return Ending::EndWith(end),
            super::TurnEnd::Continue(text) => {
                self.send_back(text);
                return Ending::Continue;
            }
        }
        if self.turn_end_checks.is_empty() {
            return Ending::End;
        }
        let (changed, written) = {
            let work = crate::sync::lock(&self.shared.work);
            (work.changed, work.written.clone())
        };
        let mut ctx = self.tool_ctx.clone();
        ctx.cancel = cancel.clone();
        let text = answer.text();
        let checks = self.turn_end_checks.clone();
        let shared = self.shared.clone();
        let decision = {
            let view = TurnEndView {
                answer: &text,
                messages: &self.messages,
                continuation: looping.used,
                changed,
                written: &written,
                client: &self.client,
                small_model: &self.config.small_model,
                ctx: &ctx,
                cancel,
            };
            looping
                .decide(
                    &checks,
                    &view,
                    self.config.max_continuations,
                    |goal, met, missing, continuation| {
                        shared.emit(super::EngineEvent::GoalCheck(
                            catui_protocol::contract::GoalCheck {
                                goal: goal.to_string(),
                                met,
                                missing: missing.map(str::to_string),
                                continuation,
                            },
                        ));
                    },
                )
                .await
        };
        match decision {
            Decision::End => Ending::End,
            Decision::Continue(reminder) => {
                crate::sync::lock(&self.shared.work).changed = false;
                self.send_back(super::attachments::wrap(&reminder));
                Ending::Continue
            }
        }
    }

    /// What the extensions want the model to read before the main
    /// conversation's turn ends (sub-agents: nothing).
    fn note_before_turn_end(&self) -> Option<String> {
        if self.config.agent_id.is_some() {
            return None;
        }
        let notes: Vec<String> = self
            .shared
            .extensions
            .iter()
            .filter_map(|e| e.before_turn_end())
            .collect();
        (!notes.is_empty()).then(|| notes.join("\n\n"))
    }

    /// An input starts: nothing changed yet.
    pub(super) fn start_work(&self) {
        *crate::sync::lock(&self.shared.work) = WorkSeen::default();
    }

    /// The input ended with `outcome`: when checks took part in its loop,
    /// the outcome says how the loop ended, and the checks' report (the
    /// plan's) is reported before the result.
    pub(super) fn finish_loop(
        &mut self,
        looping: &mut ContinuationLoop,
        mut outcome: super::TurnOutcome,
    ) -> super::TurnOutcome {
        if !looping.took_part() {
            return outcome;
        }
        let end = looping.end.take().unwrap_or_else(|| {
            looping.ended(match outcome.subtype {
                catui_protocol::stream_json::ResultSubtype::ErrorMaxBudgetUsd => {
                    LoopEndReason::Budget
                }
                _ => LoopEndReason::Stopped,
            })
        });
        if let Some(report) = looping.reports(&self.turn_end_checks, &end) {
            self.shared
                .emit(super::EngineEvent::PlanReport(report.clone()));
            outcome.plan_report = Some(Box::new(report));
        }
        outcome.goal = Some(end);
        outcome
    }

    /// Reports the step of the work when it changed since last said.
    pub(super) fn report_step(&mut self) {
        if self.config.agent_id.is_some() {
            return;
        }
        let step = self.shared.extensions.iter().find_map(|e| e.current_step());
        if step != self.step_shown {
            self.step_shown = step.clone();
            self.shared.emit(super::EngineEvent::WorkStep(step));
        }
    }
}

#[cfg(test)]
#[path = "turn_end_tests.rs"]
mod tests;
