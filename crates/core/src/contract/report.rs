//! The end report of the work on an approved plan (`plan_report`): steps
//! done, skipped and amended, the last verification, files changed that
//! the plan never names, and the continuations catui made by itself.

use catui_protocol::contract::PlanReport;

use super::Contract;
use crate::plan::approval::progress::{is_skipped, plan_steps};

/// The report as things stand.
pub fn build(contract: &Contract, goal_met: bool, reason: &str, continuations: u32) -> PlanReport {
    let plan = &contract.plan;
    let (steps, done) = plan.steps.steps().unwrap_or_default();
    let mut steps_done = Vec::new();
    let mut steps_undone = Vec::new();
    for (step, done) in steps.iter().zip(done) {
        if done {
            steps_done.push(step.clone());
        } else {
            steps_undone.push(step.clone());
        }
    }
    let steps_skipped: Vec<String> = plan
        .approved_text()
        .map(|t| plan_steps(&t))
        .unwrap_or_default()
        .into_iter()
        .filter(|s| is_skipped(s))
        .collect();
    let unplanned_files = contract
        .checkpoints
        .as_ref()
        .and_then(|c| c.compliance_now())
        .map(|c| c.unplanned_files)
        .unwrap_or_default();
    PlanReport {
        slug: plan.files.slug(),
        goal_met,
        reason: reason.to_string(),
        steps_total: steps.len(),
        steps_done,
        steps_undone,
        steps_skipped,
        amendments: plan.amendments(),
        verification: contract.last_verification(),
        unplanned_files,
        continuations,
    }
}
