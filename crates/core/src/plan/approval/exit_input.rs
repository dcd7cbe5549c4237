//! The input of `ExitPlanMode`, the exchange between the tool and the
//! user's answer: the model sends `{}`, the presentation fills in what the
//! user is shown, and the answer what the user decided. It lives with the
//! approval (which reads the decision from it) rather than with the tool, so
//! the tool depends on the approval and not both ways.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// The model sends `{}`; the plan comes from the plan file. The other fields
/// are filled in by the presentation (what the user is shown) and by the
/// user's answer (see [`ApprovalDecision`](super::decision::ApprovalDecision)); none is offered to the model, and
/// a model that sends one is refused.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExitPlanModeInput {
    #[serde(default)]
    #[schemars(skip)]
    pub plan: Option<String>,
    #[serde(default, rename = "planFilePath")]
    #[schemars(skip)]
    pub plan_file_path: Option<String>,
    #[serde(default, rename = "planDiff")]
    #[schemars(skip)]
    pub plan_diff: Option<Value>,
    /// Approve and start clean: implementation continues in a fresh
    /// conversation holding only the approved plan.
    #[serde(default, rename = "clearContext")]
    #[schemars(skip)]
    pub clear_context: Option<bool>,
    /// Approve and hand the plan to a background agent: `"worktree"`.
    #[serde(default)]
    #[schemars(skip)]
    pub dispatch: Option<String>,
    /// The SHA-256 of the revision shown for approval (what is approved).
    #[serde(default, rename = "planHash")]
    #[schemars(skip)]
    pub plan_hash: Option<String>,
    /// Set on a re-presentation: the plan changed while the user was
    /// reviewing the previous text (`planDiff` shows how).
    #[serde(default, rename = "planChanged")]
    #[schemars(skip)]
    pub plan_changed: Option<bool>,
    /// Set on a presentation that repeats the revision shown before it.
    #[serde(default, rename = "planUnchanged")]
    #[schemars(skip)]
    pub plan_unchanged: Option<bool>,
    /// `acceptEdits`, `default`, ... or null for "restore the mode from
    /// before plan mode".
    #[serde(default)]
    #[schemars(skip)]
    pub mode: Option<Value>,
    /// Shown: the model that will implement; answered: the one the user
    /// picked.
    #[serde(default)]
    #[schemars(skip)]
    pub model: Option<String>,
    /// 1-based numbers of the plan's numbered steps the user leaves out.
    #[serde(default, rename = "skip_steps", alias = "skipSteps")]
    #[schemars(skip)]
    pub skip_steps: Option<Vec<usize>>,
    /// The user parked the plan ("not now"): nothing is approved.
    #[serde(default)]
    #[schemars(skip)]
    pub park: Option<bool>,
    /// The user's note with a parked plan.
    #[serde(default)]
    #[schemars(skip)]
    pub note: Option<String>,
    /// Shown: the exact commands of the plan's verification section,
    /// which approving lets catui run once the work is done.
    #[serde(default)]
    #[schemars(skip)]
    pub verification: Option<Value>,
    /// Shown: the dry runs of the planning session (commands and how they
    /// ended), the evidence the plan was checked with.
    #[serde(default, rename = "dryRuns")]
    #[schemars(skip)]
    pub dry_runs: Option<Value>,
}
