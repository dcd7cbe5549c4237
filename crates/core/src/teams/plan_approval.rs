//! The teammate branch of ExitPlanMode: a
//! teammate never gets a local approval prompt. A plan-required teammate's
//! plan goes to the lead's mailbox as a `plan_approval_request` and the
//! teammate waits in plan mode; a voluntary plan-mode teammate just exits.
//! The request lists the files the plan shares with the other teammates'
//! pending or approved plans.

use std::path::Path;
use std::sync::Arc;

use super::mailbox::now_timestamp;
use super::plan_conflicts::{PlanClaim, conflicts_with, files_named, slug_of};
use super::teammate::{TeammateState, TeammateStatus};
use super::{TEAM_LEAD, TeamHandle, TeamProtocol, plan_approval_request_id};
use crate::plan::PlanApprovalRoute;
use crate::plan::contract::no_plan_file_found;
use crate::plan::tools::exit_rules::awaiting_leader_approval_result;
use crate::sync::lock;
use crate::tools::ToolError;

/// Whether the caller is a teammate (no local user to ask).
pub fn is_teammate(team: Option<&TeamHandle>) -> bool {
    team.is_some_and(|t| t.member.is_some())
}

/// Whether the caller is a teammate whose plan needs the lead's approval.
pub fn is_plan_mode_required(team: Option<&TeamHandle>) -> bool {
    team.and_then(|t| t.member.as_ref())
        .is_some_and(|m| m.spec.plan_mode_required)
}

/// Submits the plan to the lead and returns the tool result text
/// telling the teammate to wait. Without a plan: the error that tells the
/// teammate to write one first.
pub fn submit_plan_to_lead(
    team: &TeamHandle,
    plan_file: &Path,
    plan: Option<&str>,
) -> Result<String, ToolError> {
    let Some(member) = &team.member else {
        return Err(ToolError::failed("only teammates submit plans to the lead"));
    };
    let path = plan_file.display().to_string();
    let Some(plan) = plan.filter(|p| !p.trim().is_empty()) else {
        return Err(ToolError::failed(no_plan_file_found(&path)));
    };
    let request_id = plan_approval_request_id(member.name(), member.team());
    // Compared with the other teammates' live plans before anything is
    // written; this plan counts for theirs from now on.
    let files = files_named(plan);
    let claims = others_claims(member, &team.manager.members());
    let conflicts = conflicts_with(&files, &claims);
    *lock(&member.plan_claim) = Some(PlanClaim {
        slug: slug_of(plan_file),
        files,
        approved: false,
    });
    let request = TeamProtocol::PlanApprovalRequest {
        from: member.name().to_string(),
        timestamp: now_timestamp(),
        plan_file_path: path.clone(),
        plan_content: plan.to_string(),
        request_id: request_id.clone(),
        conflicts,
    };
    team.manager
        .send(member.team(), member.name(), TEAM_LEAD, &request.to_text())
        .map_err(|e| ToolError::failed(format!("could not send the plan to the team lead: {e}")))?;
    member.await_approval(&request_id, &path);
    Ok(awaiting_leader_approval_result(plan_file, &request_id))
}

/// The live plans of `me`'s teammates, each with its teammate's name: the
/// same team's other members, stopped ones left out.
fn others_claims(me: &TeammateState, members: &[Arc<TeammateState>]) -> Vec<(String, PlanClaim)> {
    members
        .iter()
        .filter(|other| {
            !(std::ptr::eq(other.as_ref(), me)
                || other.team() != me.team()
                || other.name() == me.name()
                || other.status() == TeammateStatus::Stopped)
        })
        .filter_map(|other| {
            let claim = lock(&other.plan_claim).clone()?;
            Some((other.name().to_string(), claim))
        })
        .collect()
}

/// A teammate's plans go to its lead; a plan-mode teammate that does not
/// need approval leaves plan mode on its own.
impl PlanApprovalRoute for TeamHandle {
    fn is_teammate(&self) -> bool {
        is_teammate(Some(self))
    }

    fn submit(&self, plan_file: &Path, plan: Option<&str>) -> Option<Result<String, ToolError>> {
        is_plan_mode_required(Some(self)).then(|| submit_plan_to_lead(self, plan_file, plan))
    }
}
