//! The team tools: `TeamCreate` (the lead starts teammates), `SendMessage`
//! (any member writes to another's inbox; the lead also answers plan
//! approval requests with it) and `TeamStop` (the lead stops a teammate).

use async_trait::async_trait;
use catui_protocol::PermissionMode;
use catui_protocol::tool_names;
use schemars::JsonSchema;
use serde::Deserialize;

use super::TEAM_LEAD;
use super::manager::{PlanDecision, TeamHandle};
use super::teammate::TeammateSpec;
use crate::permissions::Access;
use crate::tools::{ToolContext, ToolError, ToolOutput, TypedTool};

fn team_of(ctx: &ToolContext) -> Result<&TeamHandle, ToolError> {
    TeamHandle::of(ctx).ok_or_else(|| ToolError::failed("teams are not available in this session"))
}

/// Which team a lead's call means: the one named, else the only one.
fn lead_team(handle: &TeamHandle, named: Option<&str>) -> Result<String, ToolError> {
    if let Some(member) = &handle.member {
        return Ok(member.team().to_string());
    }
    if let Some(t) = named {
        return Ok(t.to_string());
    }
    let teams = handle.manager.teams();
    match teams.as_slice() {
        [only] => Ok(only.clone()),
        [] => Err(ToolError::invalid(
            "there is no team yet: create one with TeamCreate",
        )),
        _ => Err(ToolError::invalid(format!(
            "several teams exist ({}); say which one in `team`",
            teams.join(", ")
        ))),
    }
}

pub struct TeamCreateTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TeamCreateInput {
    /// The team's name (letters, digits, '-' and '_'); reused if it exists.
    pub team_name: String,
    /// The teammates to start.
    pub members: Vec<TeamMemberInput>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TeamMemberInput {
    /// The teammate's name, unique in the team.
    pub name: String,
    /// The teammate's task: its first instruction.
    pub prompt: String,
    /// A model for this teammate (default: the lead's).
    #[serde(default)]
    pub model: Option<String>,
    /// Its permission mode: default, acceptEdits, plan, bypassPermissions,
    /// or auto (when auto mode is enabled).
    #[serde(default)]
    pub mode: Option<String>,
    /// Start in plan mode and have the plan approved by the lead before
    /// making changes.
    #[serde(default, rename = "planModeRequired")]
    pub plan_mode_required: bool,
    /// Run it on another machine: the name of a `catui worker` connected
    /// to the same broker (default: here).
    #[serde(default)]
    pub host: Option<String>,
}

#[async_trait]
impl TypedTool for TeamCreateTool {
    type Input = TeamCreateInput;

    fn name(&self) -> &'static str {
        tool_names::TEAM_CREATE
    }

    fn description(&self) -> String {
        "Create a team and start teammates: long-lived agents that work in parallel with you, each with its own conversation, model and permission mode. Give each a name and a self-contained task. A teammate with planModeRequired starts in plan mode and sends you its plan for approval before changing anything. Talk to teammates with SendMessage; their messages to you arrive as user turns.".into()
    }

    fn is_read_only(&self, _: &TeamCreateInput) -> bool {
        false
    }

    fn is_concurrency_safe(&self, _: &TeamCreateInput) -> bool {
        false
    }

    fn access(&self, input: &TeamCreateInput, _: &ToolContext) -> Access {
        // Like starting a non-read-only agent: refused in plan mode. The
        // widest mode asked for any member decides whether the user must
        // agree (a mode that does not parse counts as the widest).
        let mode = input
            .members
            .iter()
            .map(|m| match &m.mode {
                Some(s) => s
                    .parse::<PermissionMode>()
                    .unwrap_or(PermissionMode::BypassPermissions),
                None => PermissionMode::Default,
            })
            .reduce(|a, b| {
                if crate::permissions::is_wider(b, a) {
                    b
                } else {
                    a
                }
            });
        Access::Agent {
            subagent_type: "teammate".into(),
            read_only: false,
            mode,
            read_only_types: Vec::new(),
        }
    }

    fn summary(&self, input: &TeamCreateInput) -> String {
        format!(
            "TeamCreate({}, {} members)",
            input.team_name,
            input.members.len()
        )
    }

    async fn validate_input(
        &self,
        input: &TeamCreateInput,
        ctx: &ToolContext,
    ) -> Result<(), ToolError> {
        let handle = team_of(ctx)?;
        if handle.member.is_some() {
            return Err(ToolError::invalid("only the team lead can create teams"));
        }
        if input.members.is_empty() {
            return Err(ToolError::invalid(
                "members must name at least one teammate",
            ));
        }
        for m in &input.members {
            if let Some(mode) = &m.mode {
                mode.parse::<PermissionMode>()
                    .map_err(|e| ToolError::invalid(format!("member {}: {e}", m.name)))?;
            }
        }
        Ok(())
    }

    async fn call(
        &self,
        input: TeamCreateInput,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let handle = team_of(ctx)?;
        let manager = &handle.manager;
        manager
            .create_team(&input.team_name)
            .map_err(|e| ToolError::failed(e.to_string()))?;
        let mut lines = Vec::new();
        for m in input.members {
            let mode = match &m.mode {
                Some(s) => s.parse().map_err(|e| ToolError::invalid(format!("{e}")))?,
                None => PermissionMode::Default,
            };
            let spec = TeammateSpec {
                name: m.name.clone(),
                team: input.team_name.clone(),
                prompt: m.prompt,
                model: m.model,
                permission_mode: mode,
                plan_mode_required: m.plan_mode_required,
                host: m.host.clone(),
            };
            let started = match &spec.host {
                Some(_) => manager.spawn_remote(spec).await,
                None => manager.spawn(spec, ctx),
            };
            match started {
                Ok(state) => lines.push(format!(
                    "- {} started ({}{})",
                    state.name(),
                    state.model,
                    if m.plan_mode_required {
                        ", in plan mode until you approve its plan"
                    } else {
                        ""
                    }
                )),
                Err(e) => lines.push(format!("- {} not started: {e}", m.name)),
            }
        }
        let dir = manager.mailbox_location(&input.team_name);
        Ok(ToolOutput::text(format!(
            "Team {} ({}):\n{}\n\nTeammates work in the background. Their messages and plan approval requests reach you as user turns; reply with SendMessage.",
            input.team_name,
            dir,
            lines.join("\n")
        )))
    }
}

pub struct SendMessageTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendMessageInput {
    /// The recipient's name (the lead is "team-lead").
    pub to: String,
    /// The message text (for a plan approval response: the feedback).
    pub message: String,
    /// The team, when the lead has several.
    #[serde(default)]
    pub team: Option<String>,
    /// Lead only: answers a teammate's plan approval request.
    #[serde(default)]
    pub plan_approval_response: Option<PlanApprovalAnswer>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanApprovalAnswer {
    /// The request id from the plan approval request.
    pub request_id: String,
    /// True to let the teammate leave plan mode and implement.
    pub approved: bool,
}

#[async_trait]
impl TypedTool for SendMessageTool {
    type Input = SendMessageInput;

    fn name(&self) -> &'static str {
        tool_names::SEND_MESSAGE
    }

    fn description(&self) -> String {
        format!(
            "Send a message to a member of your team by name (the lead is \"{TEAM_LEAD}\"). It is written to their inbox and they see it at their next turn. The lead answers a teammate's plan approval request by setting plan_approval_response (approved true or false) with the feedback as the message."
        )
    }

    fn is_read_only(&self, _: &SendMessageInput) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _: &SendMessageInput) -> bool {
        true
    }

    fn access(&self, _: &SendMessageInput, _: &ToolContext) -> Access {
        Access::Session
    }

    fn summary(&self, input: &SendMessageInput) -> String {
        format!("SendMessage(to {})", input.to)
    }

    async fn validate_input(
        &self,
        input: &SendMessageInput,
        ctx: &ToolContext,
    ) -> Result<(), ToolError> {
        // A conversation in plan mode may not change files, and must not
        // have a teammate change them for it: while planning it reaches
        // only the lead and teammates held in plan mode (planModeRequired:
        // they cannot leave it without an approval), and it cannot approve
        // a teammate's plan. A teammate in plan mode by choice could leave
        // it on its own and act on the message.
        if ctx.permission_mode() != PermissionMode::Plan || input.to == TEAM_LEAD {
            return Ok(());
        }
        let Ok(handle) = team_of(ctx) else {
            return Ok(());
        };
        if input
            .plan_approval_response
            .as_ref()
            .is_some_and(|a| a.approved)
        {
            return Err(ToolError::invalid(format!(
                "You are in plan mode, so you cannot approve {}'s plan: it would start changing files while you are still planning. Reject it with your feedback, or answer once your own plan is approved.",
                input.to
            )));
        }
        let team = lead_team(handle, input.team.as_deref())?;
        let Some(member) = handle.manager.member(&team, &input.to) else {
            return Ok(());
        };
        let held = member.spec.plan_mode_required
            && member.permission_mode() == Some(PermissionMode::Plan);
        if held {
            return Ok(());
        }
        let mode = member
            .permission_mode()
            .map_or_else(|| "unknown".to_string(), |m| m.to_string());
        Err(ToolError::invalid(format!(
            "You are in plan mode, and {to} could act on a message (its mode is {mode}{by_choice}), so it was not sent: nothing may change while you are planning. While planning you can message the lead and teammates held in plan mode until their plan is approved (planModeRequired); message {to} once your plan is approved.",
            to = input.to,
            by_choice = if member.permission_mode() == Some(PermissionMode::Plan) {
                ", by its own choice, which it may leave at any time"
            } else {
                ""
            },
        )))
    }

    async fn call(
        &self,
        input: SendMessageInput,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let handle = team_of(ctx)?;
        let team = lead_team(handle, input.team.as_deref())?;
        let from = handle
            .member
            .as_ref()
            .map(|m| m.name().to_string())
            .unwrap_or_else(|| TEAM_LEAD.to_string());
        if input.to == from {
            return Err(ToolError::invalid("you cannot send a message to yourself"));
        }
        if let Some(answer) = input.plan_approval_response {
            if handle.member.is_some() {
                return Err(ToolError::invalid(
                    "only the team lead can answer plan approval requests",
                ));
            }
            let feedback = Some(input.message.clone()).filter(|m| !m.trim().is_empty());
            handle
                .manager
                .respond_to_plan(
                    &team,
                    &input.to,
                    &answer.request_id,
                    &PlanDecision {
                        approved: answer.approved,
                        feedback,
                    },
                    super::PlanDecider::Lead,
                )
                .map_err(|e| ToolError::failed(e.to_string()))?;
            let verdict = if answer.approved {
                "approved"
            } else {
                "rejected"
            };
            return Ok(ToolOutput::text(format!(
                "Plan {verdict}; {} was told (request {}).",
                input.to, answer.request_id
            )));
        }
        handle
            .manager
            .send(&team, &from, &input.to, &input.message)
            .map_err(|e| ToolError::failed(e.to_string()))?;
        Ok(ToolOutput::text(format!(
            "Message sent to {} (team {team}).",
            input.to
        )))
    }
}

pub struct TeamStopTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TeamStopInput {
    /// The teammate to stop.
    pub name: String,
    #[serde(default)]
    pub team: Option<String>,
}

#[async_trait]
impl TypedTool for TeamStopTool {
    type Input = TeamStopInput;

    fn name(&self) -> &'static str {
        tool_names::TEAM_STOP
    }

    fn description(&self) -> String {
        "Stop a teammate (lead only). Its current turn is interrupted; its inbox stays on disk."
            .into()
    }

    fn is_read_only(&self, _: &TeamStopInput) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _: &TeamStopInput) -> bool {
        true
    }

    fn access(&self, _: &TeamStopInput, _: &ToolContext) -> Access {
        Access::Session
    }

    async fn call(&self, input: TeamStopInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let handle = team_of(ctx)?;
        if handle.member.is_some() {
            return Err(ToolError::invalid("only the team lead can stop teammates"));
        }
        let team = lead_team(handle, input.team.as_deref())?;
        handle
            .manager
            .stop(&team, &input.name)
            .map_err(|e| ToolError::failed(e.to_string()))?;
        Ok(ToolOutput::text(format!(
            "Stopped teammate {}.",
            input.name
        )))
    }
}
