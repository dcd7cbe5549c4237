//! `teammatePlanApprover: "user"`: a teammate's plan goes to the person,
//! not the lead model. Front ends without a plan dialog of their own (a
//! stream-json client, whose SDK calls `can_use_tool`; ACP, whose editor
//! shows a permission request) are asked through their [`Approver`], as an
//! `ExitPlanMode` call marked with the teammate's `name@team`. Whatever the
//! person decides, the lead model is told the outcome.

use std::sync::Arc;

use async_trait::async_trait;
use catui_protocol::tool_names;
use serde_json::{Value, json};

use super::format_agent_id;
use super::plan_review::{PlanDecision, PlanReviewRequest, PlanReviewer};
use crate::engine::{Approver, PermissionAnswer, PermissionRequest};

/// Puts a teammate's plan to the person through the front end's
/// permission prompt.
pub struct ApproverPlanReviewer {
    pub approver: Arc<dyn Approver>,
}

#[async_trait]
impl PlanReviewer for ApproverPlanReviewer {
    async fn review(&self, request: PlanReviewRequest) -> Option<PlanDecision> {
        let who = format_agent_id(&request.from, &request.team);
        let answer = self
            .approver
            .ask(PermissionRequest {
                tool_use_id: request.request_id.clone(),
                tool_name: tool_names::EXIT_PLAN_MODE.to_string(),
                input: json!({
                    "plan": request.plan,
                    "planFilePath": request.plan_file_path,
                    "teammate": request.from,
                    "team": request.team,
                    "requestId": request.request_id,
                    "conflicts": request.conflicts,
                }),
                reason: format!("teammate {who} asks you to approve its plan"),
                agent_id: Some(who),
                suggestion: None,
                // A plan to approve, not a command: nothing to run dry.
                dry_run: false,
            })
            .await;
        Some(match answer {
            PermissionAnswer::Allow { updated_input, .. } => allowed(updated_input.as_ref()),
            PermissionAnswer::Deny { message } => PlanDecision {
                approved: false,
                feedback: Some(message).filter(|m| !m.trim().is_empty()),
            },
            // Never offered for a plan (dry_run: false); fails closed.
            PermissionAnswer::DryRun { .. } => PlanDecision {
                approved: false,
                feedback: Some("A plan cannot be run as a dry run.".into()),
            },
            // Fails closed: the teammate stays in plan mode and may submit
            // again.
            PermissionAnswer::Unanswered { reason } => PlanDecision {
                approved: false,
                feedback: Some(format!("Nobody decided on the plan: {reason}")),
            },
        })
    }
}

/// An allow of the ExitPlanMode prompt. A park ("Not now", the SDKs'
/// `updatedInput.park`) allows the prompt but approves nothing: for a
/// teammate it is a rejection, its note the feedback.
fn allowed(input: Option<&Value>) -> PlanDecision {
    let field = |key: &str| input.and_then(|i| i.get(key));
    if field("park").and_then(Value::as_bool) == Some(true) {
        let note = field("note")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|n| !n.is_empty());
        return PlanDecision {
            approved: false,
            feedback: Some(match note {
                Some(n) => format!("The user set the plan aside for now (parked): {n}"),
                None => "The user set the plan aside for now (parked).".into(),
            }),
        };
    }
    PlanDecision {
        approved: true,
        feedback: None,
    }
}

/// What the lead model is told after the person decided on a teammate's
/// plan, so that it knows whether the teammate is now implementing.
pub fn outcome_for_lead(request: &PlanReviewRequest, decision: &PlanDecision) -> String {
    let who = format_agent_id(&request.from, &request.team);
    let verdict = if decision.approved {
        format!("approved it: {} is now carrying it out", request.from)
    } else {
        format!(
            "rejected it: {} stays in plan mode and revises it",
            request.from
        )
    };
    let notes = decision
        .feedback
        .as_deref()
        .map(|f| format!("\nTheir feedback: {f}"))
        .unwrap_or_default();
    format!(
        "Teammate {who} submitted a plan ({path}, request {id}); the user reviewed it and {verdict}. No answer from you is needed.{notes}",
        path = request.plan_file_path,
        id = request.request_id,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    struct Recorder {
        seen: Mutex<Vec<PermissionRequest>>,
        answer: PermissionAnswer,
    }

    #[async_trait]
    impl Approver for Recorder {
        async fn ask(&self, request: PermissionRequest) -> PermissionAnswer {
            self.seen.lock().unwrap().push(request);
            self.answer.clone()
        }
    }

    fn request() -> PlanReviewRequest {
        PlanReviewRequest {
            team: "core".into(),
            from: "amy".into(),
            request_id: "r1".into(),
            plan_file_path: "/p/amy.md".into(),
            plan: "# Plan".into(),
            conflicts: Vec::new(),
        }
    }

    #[tokio::test]
    async fn the_person_is_asked_with_the_teammates_name_and_decides() {
        let approver = Arc::new(Recorder {
            seen: Mutex::default(),
            answer: PermissionAnswer::Deny {
                message: "add tests".into(),
            },
        });
        let reviewer = ApproverPlanReviewer {
            approver: approver.clone(),
        };
        let decision = reviewer.review(request()).await.unwrap();
        assert_eq!(
            decision,
            PlanDecision {
                approved: false,
                feedback: Some("add tests".into())
            }
        );
        let seen = approver.seen.lock().unwrap();
        assert_eq!(seen[0].tool_name, "ExitPlanMode");
        assert_eq!(seen[0].agent_id.as_deref(), Some("amy@core"));
        assert_eq!(seen[0].input["plan"], "# Plan");
        assert_eq!(seen[0].input["teammate"], "amy");
        let told = outcome_for_lead(&request(), &decision);
        assert!(
            told.contains("amy@core") && told.contains("rejected it"),
            "{told}"
        );
        assert!(told.contains("add tests"), "{told}");
    }

    #[tokio::test]
    async fn a_park_approves_nothing() {
        let reviewer = ApproverPlanReviewer {
            approver: Arc::new(Recorder {
                seen: Mutex::default(),
                answer: PermissionAnswer::Allow {
                    updated_input: Some(
                        json!({"plan": "# Plan", "park": true, "note": "after the release"}),
                    ),
                    updated_permissions: None,
                },
            }),
        };
        let decision = reviewer.review(request()).await.unwrap();
        assert!(!decision.approved);
        assert!(
            decision
                .feedback
                .as_deref()
                .is_some_and(|f| f.contains("parked") && f.contains("after the release")),
            "{decision:?}"
        );
    }

    #[tokio::test]
    async fn no_answer_rejects() {
        let reviewer = ApproverPlanReviewer {
            approver: Arc::new(Recorder {
                seen: Mutex::default(),
                answer: PermissionAnswer::Unanswered {
                    reason: "input closed".into(),
                },
            }),
        };
        let decision = reviewer.review(request()).await.unwrap();
        assert!(!decision.approved);
    }
}
