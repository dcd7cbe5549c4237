//! The approved plan's goal, deterministic: every non-skipped step marked
//! done **and** the plan's verification passed. A participant of the
//! continuation loop (`engine::turn_end`) while an approved plan is being
//! carried out and `planGoal` is on.
//!
//! When the model ends a turn: steps not done → it is sent back to them;
//! all done (or, in a plan without numbered steps, once there is work) →
//! catui runs the verification commands the user approved with the plan
//! (again only when something changed since the last run), reports the run
//! (`plan_verification`, the transcript, the plan file's progress
//! section), and a failure goes back to the model with the commands'
//! output. Met, or given up, it writes the end report.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use async_trait::async_trait;
use catui_protocol::contract::PlanVerification;
use catui_protocol::transcript::EntryBody;

use super::Contract;
use crate::engine::{CheckResult, CheckVerdict, EngineEvent, GoalEnd, TurnEndCheck, TurnEndView};
use crate::plan::approval::progress::NoteKind;
use crate::plan::state::plan_session::progress_time;
use crate::plan::verification::{progress_lines, run_verification, verification_commands};

/// The name of this check in `goal_check` lines.
pub const PLAN_CHECK: &str = "plan";

/// The approved plan's goal as a participant of the continuation loop.
pub struct PlanGoal(pub Arc<Contract>);

#[async_trait]
impl TurnEndCheck for PlanGoal {
    fn name(&self) -> &'static str {
        PLAN_CHECK
    }

    async fn check(&self, view: &TurnEndView<'_>) -> CheckResult {
        let c = &self.0;
        if !c.plan_goal_active()
            || view.ctx.permission_mode() == catui_protocol::PermissionMode::Plan
        {
            return CheckResult::not_applicable();
        }
        if view.changed {
            c.worked.store(true, Ordering::SeqCst);
        }
        let (steps, done) = c.plan.steps.steps().unwrap_or_default();
        let done_count = done.iter().filter(|d| **d).count();
        let undone: Vec<String> = steps
            .iter()
            .zip(&done)
            .enumerate()
            .filter(|(_, (_, d))| !**d)
            .map(|(i, (s, _))| format!("{}. {s}", i + 1))
            .collect();
        if !undone.is_empty() {
            return CheckResult {
                verdict: CheckVerdict::NotMet {
                    missing: format!(
                        "{} of {} steps not marked done: {}",
                        undone.len(),
                        steps.len(),
                        undone.join("; ")
                    ),
                    reminder: format!(
                        "The approved plan's goal is not met yet: these steps are not marked done:\n{}\nCarry them out and mark each completed in your todo list (TodoWrite, same text as the step) as you finish it; catui then runs the plan's verification. If a step cannot be done, say plainly why.",
                        undone
                            .iter()
                            .map(|s| format!("- {s}"))
                            .collect::<Vec<_>>()
                            .join("\n")
                    ),
                },
                reported: true,
                state: Some(format!("steps {done_count}")),
            };
        }
        if steps.is_empty() && !c.worked.load(Ordering::SeqCst) {
            // A plan without steps: nothing to verify before there is work.
            return CheckResult::not_applicable();
        }
        let last = c.last_verification();
        let run = match last {
            Some(run) if !view.changed => run,
            _ => c.verify(view).await,
        };
        let state = Some(format!("steps {done_count}; {}", fingerprint(&run)));
        if run.passed {
            return CheckResult {
                verdict: CheckVerdict::Met,
                reported: true,
                state,
            };
        }
        CheckResult {
            verdict: CheckVerdict::NotMet {
                missing: failed_summary(&run),
                reminder: failure_reminder(&run),
            },
            reported: true,
            state,
        }
    }

    fn finished(&self, end: &GoalEnd) -> Option<catui_protocol::contract::PlanReport> {
        Some(self.0.finish_plan(end))
    }
}

impl Contract {
    /// Runs the approved plan's verification commands now and reports the
    /// run everywhere it is kept.
    async fn verify(&self, view: &TurnEndView<'_>) -> PlanVerification {
        let slug = self.plan.files.slug();
        let commands = self
            .plan
            .approved_text()
            .map(|t| verification_commands(&t))
            .unwrap_or_default();
        let run = if commands.is_empty() {
            // Nothing to run: the steps alone decide.
            PlanVerification {
                slug,
                passed: true,
                commands: Vec::new(),
            }
        } else {
            run_verification(&slug, &commands, view.ctx).await
        };
        *crate::sync::lock(&self.verification) = Some(run.clone());
        if !run.commands.is_empty() {
            self.record(EntryBody::PlanVerification { run: run.clone() });
            self.emit(EngineEvent::PlanVerification(run.clone()));
            self.plan.note_progress(
                NoteKind::Verification,
                progress_lines(&run, &progress_time()),
                view.ctx.session.as_ref().map(|s| s.0.as_ref()),
            );
        }
        run
    }

    /// The plan's goal loop ended for an input: its report, kept and
    /// written into the plan file; met, the goal is done.
    fn finish_plan(&self, end: &GoalEnd) -> catui_protocol::contract::PlanReport {
        let total = self
            .continuations
            .fetch_add(end.continuations, Ordering::SeqCst)
            + end.continuations;
        let met = end.met && self.last_verification().is_some_and(|v| v.passed);
        let report = super::report::build(self, met, &end.reason.describe(), total);
        if met {
            self.plan_done.store(true, Ordering::SeqCst);
        }
        self.record(EntryBody::PlanReport {
            report: report.clone(),
        });
        self.plan.note_progress(
            NoteKind::Report,
            format!("Report ({}): {}", progress_time(), report.summary()),
            None,
        );
        report
    }
}

/// What the run says, for telling progress from none.
fn fingerprint(run: &PlanVerification) -> String {
    run.commands
        .iter()
        .map(|c| format!("{}={}:{}", c.command, c.exit_code, c.output_tail.len()))
        .collect::<Vec<_>>()
        .join(",")
}

fn failed_summary(run: &PlanVerification) -> String {
    let failed: Vec<String> = run
        .commands
        .iter()
        .filter(|c| c.exit_code != 0)
        .map(|c| format!("`{}` exited {}", c.command, c.exit_code))
        .collect();
    format!("verification failed: {}", failed.join("; "))
}

fn failure_reminder(run: &PlanVerification) -> String {
    let mut out = String::from(
        "catui ran the approved plan's verification and it failed, so the plan's goal is not met:\n",
    );
    for c in run.commands.iter().filter(|c| c.exit_code != 0) {
        out.push_str(&format!(
            "\n$ {}\n(exit {})\n{}\n",
            c.command,
            c.exit_code,
            c.output_tail.trim_end()
        ));
    }
    out.push_str(
        "\nFind and fix the cause within the plan, then end your turn: catui runs the verification again. Do not change the verification commands.",
    );
    out
}
