//! Teams: a lead session and its teammates — long-lived agents,
//! each with its own conversation, model and permission mode — talking
//! through file mailboxes. A `planModeRequired` teammate starts in plan
//! mode and may only leave it when the lead approves its plan.
//!
//! - [`mailbox`]: the inbox files and their locking; [`backend`]: the
//!   interface every mailbox store meets (files, or a broker's stream).
//! - [`remote`]: teammates hosted by workers on other machines.
//! - [`manager`]: the lead's view: teams, members, status, the lead's
//!   inbox watcher, shutdown.
//! - `command`: the `/team` command.
//! - [`teammate`]: one teammate's engine and its inbox loop.
//! - `forward`: what the lead's front end sees of a teammate (its
//!   messages, notices and current activity).
//! - [`tools`]: `TeamCreate`, `SendMessage`, `TeamStop`.
//! - [`plan_approval`]: the teammate branch of ExitPlanMode.
//! - [`plan_conflicts`]: files named by two teammates' live plans.
//! - [`user_review`]: `teammatePlanApprover: "user"` through the front
//!   end's permission prompt.

pub mod backend;
pub mod error;
mod forward;
pub mod mailbox;
pub mod manager;
pub mod plan_approval;
pub mod plan_conflicts;
pub mod plan_review;
pub mod remote;
mod slash_command;
pub mod teammate;
pub mod tools;
pub mod user_review;

use serde::{Deserialize, Serialize};

pub use backend::MailboxBackend;
pub use error::TeamError;
pub use mailbox::{MailMessage, MailboxError, Mailboxes};
pub use manager::{
    LeadInput, PlanDecision, PlanReviewer, TeamBackend, TeamHandle, TeamManager, TeamSetup,
};
pub use remote::{RemoteStatus, TeammateHosts};
pub use slash_command::{TeamCommand, team_command};
pub use teammate::{TeammateSpec, TeammateState, TeammateStatus};
pub use tools::{SendMessageTool, TeamCreateTool, TeamStopTool};

/// The lead's member name in every team.
pub const TEAM_LEAD: &str = "team-lead";

/// Protocol messages carried as JSON in a [`MailMessage`]'s `text`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum TeamProtocol {
    /// A plan-required teammate asks the lead to approve its plan.
    PlanApprovalRequest {
        from: String,
        timestamp: String,
        plan_file_path: String,
        plan_content: String,
        request_id: String,
        /// Files this plan names that other teammates' pending or approved
        /// plans name too.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        conflicts: Vec<plan_conflicts::PlanConflict>,
    },
    /// The answer, sent from the lead's inbox name.
    PlanApprovalResponse {
        request_id: String,
        approved: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        feedback: Option<String>,
        /// Who decided: the lead model, or the user (`teammatePlanApprover:
        /// "user"`). Mailbox files written before it was kept read as the lead.
        #[serde(default)]
        decided_by: PlanDecider,
    },
}

/// Who answered a teammate's plan approval request (`decidedBy`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanDecider {
    #[default]
    Lead,
    User,
}

impl PlanDecider {
    /// Who decided, as the teammate is told.
    pub fn who(self) -> &'static str {
        match self {
            PlanDecider::Lead => "The team lead",
            PlanDecider::User => "The user",
        }
    }

    /// Whose feedback or notes the teammate reads.
    pub fn whose(self) -> &'static str {
        match self {
            PlanDecider::Lead => "The lead's",
            PlanDecider::User => "The user's",
        }
    }
}

impl TeamProtocol {
    /// The protocol message in `text`, when it is one.
    pub fn parse(text: &str) -> Option<TeamProtocol> {
        serde_json::from_str(text).ok()
    }

    pub fn to_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// `name@team`, how a teammate is named across teams (and its agent id).
pub fn format_agent_id(name: &str, team: &str) -> String {
    format!("{name}@{team}")
}

/// A plan approval request id built from the agent and team names, unique
/// per submission.
pub fn plan_approval_request_id(name: &str, team: &str) -> String {
    let stamp = chrono::Utc::now().timestamp_millis();
    let nonce = &uuid::Uuid::new_v4().simple().to_string()[..6];
    format!(
        "plan_approval-{stamp}-{nonce}-{}",
        format_agent_id(name, team)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocol_messages_use_the_wire_names() {
        let req = TeamProtocol::PlanApprovalRequest {
            from: "amy".into(),
            timestamp: "t".into(),
            plan_file_path: "/p.md".into(),
            plan_content: "# P".into(),
            request_id: "r1".into(),
            conflicts: vec![plan_conflicts::PlanConflict {
                file: "src/a.rs".into(),
                plan: "bob-plan".into(),
                teammate: "bob".into(),
            }],
        };
        let v: serde_json::Value = serde_json::from_str(&req.to_text()).unwrap();
        assert_eq!(v["type"], "plan_approval_request");
        assert_eq!(v["planFilePath"], "/p.md");
        assert_eq!(v["planContent"], "# P");
        assert_eq!(v["requestId"], "r1");
        assert_eq!(
            v["conflicts"],
            serde_json::json!([{"file": "src/a.rs", "plan": "bob-plan", "teammate": "bob"}])
        );
        assert_eq!(TeamProtocol::parse(&req.to_text()), Some(req));

        // Written before `decidedBy` existed: read as the lead's answer.
        let resp = TeamProtocol::parse(
            r#"{"type":"plan_approval_response","requestId":"r1","approved":false,"feedback":"add tests"}"#,
        )
        .unwrap();
        assert_eq!(
            resp,
            TeamProtocol::PlanApprovalResponse {
                request_id: "r1".into(),
                approved: false,
                feedback: Some("add tests".into()),
                decided_by: PlanDecider::Lead,
            }
        );
        let v: serde_json::Value = serde_json::from_str(&resp.to_text()).unwrap();
        assert_eq!(v["decidedBy"], "lead");
        let by_user = TeamProtocol::PlanApprovalResponse {
            request_id: "r2".into(),
            approved: true,
            feedback: None,
            decided_by: PlanDecider::User,
        };
        let v: serde_json::Value = serde_json::from_str(&by_user.to_text()).unwrap();
        assert_eq!(v["decidedBy"], "user");
        assert_eq!(v["approved"], true);
        assert!(v.get("feedback").is_none(), "{v}");
        assert_eq!(TeamProtocol::parse(&by_user.to_text()), Some(by_user));
        let explicit = TeamProtocol::parse(
            r#"{"type":"plan_approval_response","requestId":"r3","approved":false,"decidedBy":"user"}"#,
        );
        assert!(
            matches!(
                explicit,
                Some(TeamProtocol::PlanApprovalResponse {
                    decided_by: PlanDecider::User,
                    ..
                })
            ),
            "{explicit:?}"
        );
        assert_eq!(TeamProtocol::parse("just words"), None);
    }

    #[test]
    fn request_ids_name_agent_and_team_and_differ() {
        let a = plan_approval_request_id("amy", "core");
        let b = plan_approval_request_id("amy", "core");
        assert!(
            a.starts_with("plan_approval-") && a.ends_with("amy@core"),
            "{a}"
        );
        assert_ne!(a, b);
    }
}
