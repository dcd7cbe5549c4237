//! The mock model of a small team (issue 51 item 5), shared by the
//! front ends' tests of `teammatePlanApprover: "user"`: the lead starts the
//! plan-required teammate amy; amy writes a plan and presents it, revises
//! it when rejected, and writes feature.txt once approved; the lead notes
//! each outcome it is told.

use catui_testkit::{RecordedRequest, Script, Turn};
use serde_json::json;

use super::{is_teammate, last_user, writes_teammate_plan};

pub const PLAN: &str = "# Plan\n\n1. Write feature.txt\n";
pub const REVISED: &str = "# Plan\n\n1. Write feature.txt\n2. Write the changelog entry\n";
pub const FEEDBACK: &str = "Also write the changelog entry.";

pub fn lead_told(r: &RecordedRequest) -> bool {
    !is_teammate(r, "amy") && last_user(r).contains("the user reviewed it")
}

pub fn approved(r: &RecordedRequest) -> bool {
    last_user(r).contains("approved your plan")
}

pub fn rejected(r: &RecordedRequest) -> bool {
    last_user(r).contains("rejected your plan")
}

/// The lead starts amy (plan mode required) and notes each outcome it is
/// told; amy plans, waits, and revises when rejected, and writes
/// `feature` once approved.
pub fn team_script(plans_dir: &str, feature: &str) -> Script {
    let feature = feature.to_string();
    Script::new()
        .turn(
            super::team_create("tc", json!([{"name": "amy", "prompt": "Please add feature.txt", "mode": "acceptEdits", "planModeRequired": true}]))
            .when(|r| !is_teammate(r, "amy") && last_user(r).contains("start a team")),
        )
        .turn(
            Turn::text("Team started.")
                .when(|r| !is_teammate(r, "amy") && r.has_tool_result("tc") && !lead_told(r)),
        )
        .turn(Turn::text("Noted: first outcome.").when(lead_told))
        .turn(Turn::text("Noted: second outcome.").when(lead_told))
        .turn(
            super::teammate_writes_plan("amy", "w1", plans_dir, PLAN),
        )
        .turn(
            super::teammate_presents("amy", "w1", "x1"),
        )
        .turn(Turn::text("Waiting for approval.").when(|r| {
            is_teammate(r, "amy") && r.has_tool_result("x1") && !approved(r) && !rejected(r)
        }))
        // Rejected: the revised plan, presented again.
        .turn(
            writes_teammate_plan("w2", plans_dir, REVISED)
                .when(|r| is_teammate(r, "amy") && rejected(r) && !r.has_tool_result("w2")),
        )
        .turn(
            super::teammate_presents("amy", "w2", "x2"),
        )
        .turn(
            Turn::text("Waiting again.")
                .when(|r| is_teammate(r, "amy") && r.has_tool_result("x2") && !approved(r)),
        )
        // Approved: the work.
        .turn(
            super::write("f", &feature, "feature\n")
                .when(|r| is_teammate(r, "amy") && approved(r) && !r.has_tool_result("f")),
        )
        .turn(Turn::text("Implemented.").when(|r| is_teammate(r, "amy") && r.has_tool_result("f")))
}

/// Amy's planning, added to `script`: she writes `first` (w1) and presents
/// it (x1), then waits for the lead; rejected, she writes `revised` (w2),
/// presents it (x2) and waits again.
pub fn amy_plans_then_revises(
    script: Script,
    plans_dir: &str,
    first: &'static str,
    revised: &'static str,
) -> Script {
    script
        .turn(super::teammate_writes_plan("amy", "w1", plans_dir, first))
        .turn(super::teammate_presents("amy", "w1", "x1"))
        .turn(Turn::text("Waiting for the lead.").when(|r| {
            is_teammate(r, "amy") && r.has_tool_result("x1") && !rejected(r) && !approved(r)
        }))
        .turn(
            writes_teammate_plan("w2", plans_dir, revised)
                .when(|r| is_teammate(r, "amy") && rejected(r) && !r.has_tool_result("w2")),
        )
        .turn(super::teammate_presents("amy", "w2", "x2"))
        .turn(
            Turn::text("Waiting again.")
                .when(|r| is_teammate(r, "amy") && r.has_tool_result("x2") && !approved(r)),
        )
}

/// Amy's work, added to `script`: once approved she writes "feature\n" to
/// `feature` (call f), then says "Implemented.".
pub fn amy_implements(script: Script, feature: &str) -> Script {
    script
        .turn(
            super::write("f", feature, "feature\n")
                .when(|r| is_teammate(r, "amy") && approved(r) && !r.has_tool_result("f")),
        )
        .turn(Turn::text("Implemented.").when(|r| is_teammate(r, "amy") && r.has_tool_result("f")))
}
