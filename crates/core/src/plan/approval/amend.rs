//! Amendments to the plan being carried out: an approved `AmendPlan`
//! appends its change under `## Amendments` in the plan file, as a new
//! approved revision (kept in the transcript, with its hash, for `catui
//! plans show` and recovery), and the steps it adds join the work.

use std::sync::Arc;

use crate::plan::contract::{
    AMENDMENTS_HEADING, PLAN_AMENDED_KEY, PLAN_APPROVED_KEY, PLAN_REVISION_KEY, amendment_approved,
};
use crate::plan::state::plan_session::{PlanSession, plan_hash, progress_time};
use crate::tools::{ToolContext, ToolError, ToolOutput};

/// `plan` with amendment `n` (its reason and change) appended under the
/// amendments heading (made when the plan has none), before catui's
/// progress section.
pub fn with_amendment(plan: &str, n: usize, reason: &str, change: &str, at: &str) -> String {
    let base = super::progress::without_progress(plan);
    let mut out = base.trim_end().to_string();
    if !out.lines().any(|l| l.trim_end() == AMENDMENTS_HEADING) {
        out.push_str(&format!("\n\n{AMENDMENTS_HEADING}\n"));
    }
    out.push_str(&format!(
        "\n### Amendment {n} ({at})\nReason: {}\n\n{}\n",
        reason.trim(),
        change.trim()
    ));
    out
}

/// Carries out an approved amendment for the main conversation of `ctx`.
pub fn approve(
    plan: &Arc<PlanSession>,
    reason: &str,
    change: &str,
    ctx: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let Some(approved) = plan.approved_text() else {
        return Err(ToolError::failed(
            "No approved plan is being carried out, so there is nothing to amend.",
        ));
    };
    let n = plan.amendments() + 1;
    let amended = with_amendment(&approved, n, reason, change, &progress_time());
    let path = plan.files.path(None);
    let shown = path.display().to_string();
    crate::tools::fs_atomic::write_atomic(&path, amended.as_bytes()).map_err(|e| {
        ToolError::failed(format!("could not write the amended plan to {shown}: {e}"))
    })?;
    if let Some(session) = &ctx.session {
        // A new revision of the plan, and the one now approved.
        for key in [PLAN_REVISION_KEY, PLAN_AMENDED_KEY, PLAN_APPROVED_KEY] {
            session.0.snapshot_file(key, &shown, &amended);
        }
    }
    plan.amended(amended.clone());
    // Steps the amendment adds join the work; the progress section comes
    // back with them.
    let steps = super::progress::active_steps(&amended);
    if let Some(section) = plan.steps.add_steps(&steps) {
        plan.write_progress(&section, ctx.session.as_ref().map(|s| s.0.as_ref()));
    }
    let hash = plan_hash(&amended);
    Ok(
        ToolOutput::text(amendment_approved(&shown, n)).with_display(format!(
            "Plan amended ({n}): {shown} (sha256 {})",
            hash.get(..12).unwrap_or_default()
        )),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amendments_are_appended_under_one_heading_before_the_progress() {
        let plan = "# P\n1. a\n\n## Progress\n\n0/1 steps done.\n\n- [ ] 1. a\n";
        let once = with_amendment(plan, 1, "needed", "- Also change `setup.cfg`", "t1");
        assert!(once.contains("## Amendments\n\n### Amendment 1 (t1)\nReason: needed\n\n- Also change `setup.cfg`\n"), "{once}");
        assert!(!once.contains("## Progress"));
        let twice = with_amendment(&once, 2, "more", "2. Add docs/x.md", "t2");
        assert_eq!(twice.matches(AMENDMENTS_HEADING).count(), 1);
        assert!(twice.ends_with("### Amendment 2 (t2)\nReason: more\n\n2. Add docs/x.md\n"));
    }
}
