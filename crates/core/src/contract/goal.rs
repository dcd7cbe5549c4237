//! A free-text goal for the session (`/goal TEXT`, `--goal TEXT`): a
//! completion condition the small model judges after each turn that ends
//! ([`super::judge`]); not met, the continuation loop sends the model back
//! with what is missing. Kept in the transcript, so it survives
//! compaction, `--resume` and fork. `/goal` shows the goals, `/goal clear`
//! drops the free-text one.

use std::sync::Arc;

use async_trait::async_trait;
use catui_protocol::transcript::{EntryBody, TranscriptEntry};

use super::Contract;
use crate::engine::slash_commands::CommandOutput;
use crate::engine::{CheckResult, CheckVerdict, TurnEndCheck, TurnEndView};

/// The name of this check in `goal_check` lines.
pub const GOAL_CHECK: &str = "goal";

/// The goal a transcript leaves set (its last `goal` entry).
pub fn restored(entries: &[TranscriptEntry]) -> Option<String> {
    entries
        .iter()
        .rev()
        .find_map(|e| match &e.body {
            EntryBody::Goal { text } => Some(text.clone()),
            _ => None,
        })
        .flatten()
}

/// The free-text goal as a participant of the continuation loop.
pub struct FreeTextGoal(pub Arc<Contract>);

#[async_trait]
impl TurnEndCheck for FreeTextGoal {
    fn name(&self) -> &'static str {
        GOAL_CHECK
    }

    async fn check(&self, view: &TurnEndView<'_>) -> CheckResult {
        let Some(goal) = self.0.goal() else {
            return CheckResult::not_applicable();
        };
        let turn = super::judge::last_turn(view.messages);
        let verdict = super::judge::judge(
            view.client.as_ref(),
            view.small_model,
            &goal,
            &turn,
            view.written,
            view.cancel,
        )
        .await;
        let verdict = match verdict {
            Ok(v) => v,
            Err(why) => {
                // No judgement, no loop: the turn ends, and the user hears
                // why the goal was not checked.
                self.0.emit(crate::engine::EngineEvent::Notification {
                    key: "goal".into(),
                    text: format!("The goal could not be checked: {why}"),
                });
                return CheckResult::not_applicable();
            }
        };
        CheckResult {
            verdict: if verdict.met {
                CheckVerdict::Met
            } else {
                CheckVerdict::NotMet {
                    reminder: format!(
                        "The goal set for this session is not met yet.\nGoal: {goal}\nStill missing: {}\nKeep working until the goal is met; catui checks it again when you end your turn. If it cannot be met, say plainly why.",
                        verdict.missing
                    ),
                    missing: verdict.missing,
                }
            },
            reported: true,
            // Only the work counts as progress (a judge may word the same
            // gap differently each time).
            state: None,
        }
    }
}

/// `/goal`, `/goal clear`, `/goal TEXT`.
pub fn goal_command(contract: &Contract, args: &str, max: Option<u32>) -> CommandOutput {
    let args = args.trim();
    let local = |text: String| CommandOutput::Local {
        text,
        is_error: false,
    };
    match args {
        "" => local(describe(contract)),
        "clear" => {
            let had = contract.goal().is_some();
            contract.set_goal(None);
            local(if had {
                "Goal cleared.".to_string()
            } else {
                "No goal was set.".to_string()
            })
        }
        text => {
            contract.set_goal(Some(text.to_string()));
            let max = max.unwrap_or(crate::engine::turn_end::DEFAULT_MAX_CONTINUATIONS);
            local(format!(
                "Goal set: {text}\nAfter each turn the small model checks it; while it is not met catui keeps working by itself (at most {max} continuations per message, stopping when nothing changes). /goal clear drops it."
            ))
        }
    }
}

/// What `/goal` shows: the free-text goal and the approved plan's.
fn describe(contract: &Contract) -> String {
    let mut lines = Vec::new();
    match contract.goal() {
        Some(goal) => lines.push(format!(
            "Goal: {goal} (judged by the small model after each turn; /goal clear drops it)"
        )),
        None => lines.push("No goal is set (/goal TEXT sets one).".to_string()),
    }
    if contract.carrying_out() {
        let slug = contract.plan.files.slug();
        let (steps, done) = contract.plan.steps.steps().unwrap_or_default();
        let done = done.iter().filter(|d| **d).count();
        let verification = match contract.last_verification() {
            Some(v) if v.passed => "verification passed".to_string(),
            Some(_) => "verification failed".to_string(),
            None => "verification not run yet".to_string(),
        };
        let state = if !contract.plan_goal {
            " (planGoal is off: not pursued by itself)"
        } else if contract.plan_goal_active() {
            ""
        } else {
            " (met)"
        };
        lines.push(format!(
            "Plan goal ({slug}): {done}/{} steps done, {verification}{state}",
            steps.len()
        ));
    }
    lines.join("\n")
}
