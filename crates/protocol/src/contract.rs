//! The plan as a contract while it runs, as data: what catui's own run of
//! a plan's verification commands found ([`PlanVerification`]), one check
//! of a goal ([`GoalCheck`]), the step the work is on ([`WorkStep`]) and the
//! report that ends the work on an approved plan ([`PlanReport`]). The
//! stream-json lines `plan_verification`, `goal_check` and `plan_report`
//! and the transcript carry them; catui-core produces them (`goal`, `plan`).

use serde::{Deserialize, Serialize};

/// One verification command as catui ran it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerificationRun {
    /// The command exactly as the approved plan states it.
    pub command: String,
    /// Its exit code (`-1`: it did not run, or ended by a signal or a
    /// timeout; `output_tail` says why).
    pub exit_code: i32,
    /// The last lines of its output.
    pub output_tail: String,
}

/// A run of the approved plan's verification commands.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanVerification {
    /// The plan's slug.
    pub slug: String,
    /// Every command exited 0.
    pub passed: bool,
    pub commands: Vec<VerificationRun>,
}

/// One check of a goal as a turn ended: met, or what is missing and the
/// continuation it led to (0 when none: met, or given up).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoalCheck {
    /// Which goal: `plan` (the approved plan's) or `goal` (a free-text
    /// goal, `/goal`, `--goal`).
    pub goal: String,
    pub met: bool,
    pub missing: Option<String>,
    pub continuation: u32,
}

/// The step of the approved plan the work is on (1-based, of `total`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkStep {
    pub step: u32,
    pub total: u32,
    pub text: String,
}

/// The end report of the work on an approved plan: one when its goal is
/// met or given up.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanReport {
    pub slug: String,
    /// The goal (every step done, verification passed) is met.
    pub goal_met: bool,
    /// How the work ended, in words.
    pub reason: String,
    pub steps_total: usize,
    /// The steps marked done, in plan order.
    pub steps_done: Vec<String>,
    /// The steps not done.
    pub steps_undone: Vec<String>,
    /// The steps the user left out at approval.
    pub steps_skipped: Vec<String>,
    /// Amendments approved while the plan was carried out.
    pub amendments: usize,
    /// The last run of the verification commands (none: never run).
    pub verification: Option<PlanVerification>,
    /// Files changed since the approval that the plan never names.
    pub unplanned_files: Vec<String>,
    /// Continuations catui made by itself.
    pub continuations: u32,
}

impl PlanReport {
    /// The report in a few lines, for the terminal and `catui plans show`.
    pub fn summary(&self) -> String {
        let mut out = format!(
            "Plan {}: {} — {}/{} steps done",
            self.slug,
            if self.goal_met {
                "goal met"
            } else {
                "goal not met"
            },
            self.steps_done.len(),
            self.steps_total
        );
        if !self.steps_skipped.is_empty() {
            out.push_str(&format!(", {} skipped", self.steps_skipped.len()));
        }
        if self.amendments > 0 {
            out.push_str(&format!(", {} amendment(s)", self.amendments));
        }
        match &self.verification {
            Some(v) if v.passed => out.push_str(", verification passed"),
            Some(_) => out.push_str(", verification failed"),
            None => out.push_str(", verification not run"),
        }
        if !self.unplanned_files.is_empty() {
            out.push_str(&format!(", unplanned: {}", self.unplanned_files.join(", ")));
        }
        out.push_str(&format!(
            ", {} continuation(s). {}",
            self.continuations, self.reason
        ));
        out
    }
}
