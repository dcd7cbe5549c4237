//! A teammate's plan put to the editor's user (`teammatePlanApprover:
//! "user"`, docs/TEAMS.md): the ExitPlanMode prompt core's team sends with
//! the teammate's `name@team`. It is not the session's own plan, so it has
//! its own title (naming the teammate), its own two choices (approve, or
//! reject with feedback: the modes, the background hand-off and parking of
//! the session's own plan do not apply to a teammate) and lists the files
//! other teammates' plans name too.

use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, RequestPermissionOutcome, ToolCallContent,
};
use catui_core::engine::{PermissionAnswer, PermissionRequest};
use serde_json::Value;

use super::mapping::{PLAN_KEEP_PLANNING, plan_request_content, text_content};

/// Option id: the teammate leaves plan mode and carries its plan out.
pub const TEAMMATE_APPROVE: &str = "teammate_approve";

/// The teammate's `name@team` when `request` is a teammate's plan.
pub fn teammate_of(request: &PermissionRequest) -> Option<String> {
    request.input.get("teammate").and_then(Value::as_str)?;
    request.agent_id.clone()
}

/// The prompt's title: whose plan it is.
pub fn title(agent: &str) -> String {
    format!("Plan approval · {agent}")
}

/// The teammate's name without its team.
fn name(agent: &str) -> &str {
    agent.split_once('@').map_or(agent, |(name, _)| name)
}

pub fn options(agent: &str) -> Vec<PermissionOption> {
    let name = name(agent);
    vec![
        PermissionOption::new(
            TEAMMATE_APPROVE,
            format!("Approve: {name} leaves plan mode and carries it out"),
            PermissionOptionKind::AllowOnce,
        ),
        PermissionOption::new(
            PLAN_KEEP_PLANNING,
            format!("Reject, and tell {name} what to change"),
            PermissionOptionKind::RejectOnce,
        ),
    ]
}

/// The plan, then the files other teammates' plans name too (when any).
pub fn content(input: &Value) -> Vec<ToolCallContent> {
    let mut content = plan_request_content(input);
    let conflicts: Vec<String> = input
        .get("conflicts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| {
            let field = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or_default();
            format!(
                "- {} · {}'s plan {}",
                field("file"),
                field("teammate"),
                field("plan")
            )
        })
        .collect();
    if !conflicts.is_empty() {
        content.push(text_content(format!(
            "Conflicts: files other teammates' plans also change\n{}",
            conflicts.join("\n")
        )));
    }
    content
}

/// The answer: approve, or reject with the feedback the editor sent (a
/// cancelled or failed request rejects; an unknown option is unanswered).
pub fn answer(
    outcome: Result<RequestPermissionOutcome, String>,
    input: &Value,
    feedback: Option<String>,
) -> PermissionAnswer {
    match outcome {
        Ok(RequestPermissionOutcome::Selected(selected)) => match selected.option_id.0.as_ref() {
            TEAMMATE_APPROVE => PermissionAnswer::Allow {
                updated_input: Some(input.clone()),
                updated_permissions: None,
            },
            PLAN_KEEP_PLANNING => PermissionAnswer::Deny {
                message: feedback.unwrap_or_default(),
            },
            other => PermissionAnswer::Unanswered {
                reason: format!(
                    "the client chose '{other}', which is no option of a teammate's plan approval"
                ),
            },
        },
        Ok(_) => PermissionAnswer::Deny {
            message: String::new(),
        },
        Err(e) => PermissionAnswer::Unanswered {
            reason: format!("the plan approval request failed: {e}"),
        },
    }
}
