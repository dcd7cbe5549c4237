//! Asking the stream-json client: permission prompts (`can_use_tool`,
//! [`StdioApprover`]) and teammates' plan approvals (`plan_approval`,
//! [`StdioPlanReviewer`]), sent as control requests whose answers
//! [`Pending`] waits for. Everything fails closed: no answer, an
//! error answer or an unreadable one runs nothing, and is reported as no
//! decision (`PermissionAnswer::Unanswered`), never as the user's.

use catui_protocol::tool_names;
use std::sync::Arc;

use async_trait::async_trait;
use catui_core::engine::{Approver, NobodyToAsk, PermissionAnswer, PermissionRequest};
use catui_core::hooks::HookCall;
use catui_core::plan::approval::decision::ApprovalDecision;
use catui_core::teams::manager::PlanReviewRequest;
use catui_core::teams::{PlanDecision, PlanReviewer};
use catui_protocol::stream_json::{
    ControlRequest, ControlResponse, OutputEvent, PermissionResponse,
};
use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedSender;

use super::pending::Pending;
use super::sdk_hooks::SdkHooks;

/// Whether a `can_use_tool` answer is a deny that also stops the turn.
fn wants_interrupt(response: &ControlResponse) -> bool {
    matches!(response, ControlResponse::Success { response: Some(body), .. }
        if body["behavior"] == "deny" && body["interrupt"] == true)
}

/// Reads a `can_use_tool` answer; anything unreadable denies. The answer
/// to a plan approval (ExitPlanMode) is read as the user's
/// [`ApprovalDecision`] (keep planning with review comments, approve with its
/// choices, or park) and carried to the engine as such.
fn permission_answer(response: ControlResponse, request: &PermissionRequest) -> PermissionAnswer {
    let input = &request.input;
    let body = match response {
        ControlResponse::Success {
            response: Some(body),
            ..
        } => body,
        ControlResponse::Success { response: None, .. } => {
            return PermissionAnswer::Unanswered {
                reason: "the permission answer had no decision".into(),
            };
        }
        ControlResponse::Error { error, .. } => {
            return PermissionAnswer::Unanswered {
                reason: format!("the client answered with an error: {error}"),
            };
        }
    };
    let response = match serde_json::from_value::<PermissionResponse>(body) {
        Ok(response) => response,
        Err(e) => {
            return PermissionAnswer::Unanswered {
                reason: format!("unreadable permission answer: {e}"),
            };
        }
    };
    if request.tool_name == tool_names::EXIT_PLAN_MODE && request.agent_id.is_none() {
        let updates = match &response {
            PermissionResponse::Allow {
                updated_permissions,
                ..
            } => updated_permissions.clone(),
            PermissionResponse::Deny { .. } => None,
        };
        return match ApprovalDecision::from_response(&response, input) {
            Ok(decision) => match decision.into_answer(input) {
                PermissionAnswer::Allow { updated_input, .. } => PermissionAnswer::Allow {
                    updated_input,
                    updated_permissions: updates,
                },
                deny => deny,
            },
            Err(e) => PermissionAnswer::Unanswered {
                reason: format!("the approval answer could not be read: {e}"),
            },
        };
    }
    match response {
        // "Run as a dry run": nothing is changed for the session, so any
        // `updatedPermissions` that came with it are not applied.
        PermissionResponse::Allow {
            updated_input,
            dry_run: true,
            ..
        } => PermissionAnswer::DryRun { updated_input },
        PermissionResponse::Allow {
            updated_input,
            updated_permissions,
            ..
        } => PermissionAnswer::Allow {
            updated_input,
            updated_permissions,
        },
        PermissionResponse::Deny { message, .. } => PermissionAnswer::Deny { message },
    }
}

/// The `updatedPermissions` entry that allows calls like this one for the
/// rest of the session, from a rule's text (`Bash(npm test:*)`, `Edit`).
pub fn rule_suggestion(rule: &str) -> Value {
    let (tool, content) = match rule.split_once('(') {
        Some((tool, rest)) => (tool, rest.strip_suffix(')')),
        None => (rule, None),
    };
    let mut wire_rule = json!({ "toolName": tool });
    if let Some(content) = content {
        wire_rule["ruleContent"] = json!(content);
    }
    json!({
        "type": "addRules",
        "rules": [wire_rule],
        "behavior": "allow",
        "destination": "session",
    })
}

/// Asks over stdout with `can_use_tool` control requests and runs the
/// client's hooks with `hook_callback` requests. With `dont_ask` every
/// prompt is denied without asking (`--permission-mode dontAsk`); hooks
/// still run.
pub struct StdioApprover {
    pub out: UnboundedSender<OutputEvent>,
    pub pending: Arc<Pending>,
    pub hooks: Arc<SdkHooks>,
    pub dont_ask: bool,
    /// The main conversation's control, once it is built (a deny with
    /// `interrupt: true` stops its turn).
    pub turn: Arc<std::sync::OnceLock<catui_core::engine::WeakEngineControl>>,
}

#[async_trait]
impl Approver for StdioApprover {
    async fn run_hooks(
        &self,
        call: HookCall,
    ) -> Result<Vec<Value>, catui_core::hooks::HookFailure> {
        self.hooks
            .run(call, &self.out, &self.pending)
            .await
            .map_err(catui_core::hooks::HookFailure)
    }

    async fn ask(&self, request: PermissionRequest) -> PermissionAnswer {
        if self.dont_ask {
            return NobodyToAsk.ask(request).await;
        }
        let (request_id, rx) = self.pending.register("perm");
        let sent = self.out.send(OutputEvent::ControlRequest {
            request_id: request_id.clone(),
            request: ControlRequest::CanUseTool {
                tool_name: request.tool_name.clone(),
                input: request.input.clone(),
                tool_use_id: request.tool_use_id.clone(),
                agent_id: request.agent_id.clone(),
                permission_suggestions: request
                    .suggestion
                    .as_deref()
                    .map(rule_suggestion)
                    .into_iter()
                    .collect(),
                decision_reason: Some(request.reason.clone()),
            },
        });
        if sent.is_err() {
            self.pending.forget(&request_id);
            return PermissionAnswer::Unanswered {
                reason: "no client is connected to answer".into(),
            };
        }
        match rx.await {
            Ok(response) => {
                if wants_interrupt(&response)
                    && let Some(control) = self.turn.get()
                {
                    // A deny with `interrupt: true` also stops the turn.
                    control.interrupt();
                }
                permission_answer(response, &request)
            }
            Err(_) => PermissionAnswer::Unanswered {
                reason: "the prompt was withdrawn before the client answered".into(),
            },
        }
    }
}

/// Puts teammates' plans to the client with `plan_approval` control
/// requests. Fails closed: no answer, an error answer or an unreadable one
/// rejects the plan (the teammate stays in plan mode and may resubmit).
pub struct StdioPlanReviewer {
    pub out: UnboundedSender<OutputEvent>,
    pub pending: Arc<Pending>,
}

#[async_trait]
impl PlanReviewer for StdioPlanReviewer {
    async fn review(&self, request: PlanReviewRequest) -> Option<PlanDecision> {
        let (request_id, rx) = self.pending.register("plan");
        let sent = self.out.send(OutputEvent::ControlRequest {
            request_id: request_id.clone(),
            request: ControlRequest::PlanApproval {
                from: request.from,
                team: request.team,
                plan_file_path: request.plan_file_path,
                plan: request.plan,
                plan_request_id: request.request_id,
                conflicts: request
                    .conflicts
                    .iter()
                    .filter_map(|c| serde_json::to_value(c).ok())
                    .collect(),
            },
        });
        if sent.is_err() {
            self.pending.forget(&request_id);
            return Some(reject("no client is connected to review the plan"));
        }
        Some(match rx.await {
            Ok(response) => plan_decision(response),
            Err(_) => reject("the client closed its input before reviewing the plan"),
        })
    }
}

fn reject(feedback: &str) -> PlanDecision {
    PlanDecision {
        approved: false,
        feedback: Some(feedback.to_string()),
    }
}

/// Reads a `plan_approval` answer: `{"behavior":"allow"}` approves,
/// `{"behavior":"deny","message":..}` rejects with that feedback.
fn plan_decision(response: ControlResponse) -> PlanDecision {
    let body = match response {
        ControlResponse::Success {
            response: Some(body),
            ..
        } => body,
        ControlResponse::Success { response: None, .. } => {
            return reject("the plan approval answer had no decision");
        }
        ControlResponse::Error { error, .. } => return reject(&error),
    };
    let message = body
        .get("message")
        .and_then(|m| m.as_str())
        .filter(|m| !m.trim().is_empty())
        .map(str::to_string);
    match body.get("behavior").and_then(|b| b.as_str()) {
        Some("allow") => PlanDecision {
            approved: true,
            feedback: message,
        },
        Some("deny") => PlanDecision {
            approved: false,
            feedback: Some(message.unwrap_or_else(|| "The lead rejected the plan.".into())),
        },
        _ => reject(&format!(
            "unreadable plan approval answer (expected behavior allow or deny): {body}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn success(body: serde_json::Value) -> ControlResponse {
        ControlResponse::Success {
            request_id: "plan-1".into(),
            response: Some(body),
        }
    }

    #[test]
    fn plan_answers_map_to_decisions() {
        let allow = plan_decision(success(json!({"behavior": "allow"})));
        assert_eq!(
            allow,
            PlanDecision {
                approved: true,
                feedback: None
            }
        );
        let deny = plan_decision(success(json!({"behavior": "deny", "message": "add tests"})));
        assert_eq!(
            deny,
            PlanDecision {
                approved: false,
                feedback: Some("add tests".into())
            }
        );
        // Anything else fails closed.
        assert!(!plan_decision(success(json!({"behavior": "maybe"}))).approved);
        assert!(
            !plan_decision(ControlResponse::Success {
                request_id: "plan-1".into(),
                response: None
            })
            .approved
        );
        assert!(
            !plan_decision(ControlResponse::Error {
                request_id: "plan-1".into(),
                error: "client failed".into()
            })
            .approved
        );
    }

    #[test]
    fn suggestions_are_add_rules_updates() {
        assert_eq!(
            rule_suggestion("Bash(npm test:*)"),
            json!({"type":"addRules","behavior":"allow","destination":"session",
                   "rules":[{"toolName":"Bash","ruleContent":"npm test:*"}]})
        );
        assert_eq!(
            rule_suggestion("Edit")["rules"][0],
            json!({"toolName":"Edit"})
        );
    }

    #[tokio::test]
    async fn an_unanswered_plan_is_rejected_when_input_closes() {
        let (out, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let pending = Arc::new(Pending::default());
        let reviewer = StdioPlanReviewer {
            out,
            pending: pending.clone(),
        };
        let task = tokio::spawn(async move {
            reviewer
                .review(PlanReviewRequest {
                    team: "core".into(),
                    from: "amy".into(),
                    request_id: "r1".into(),
                    plan_file_path: "/p/amy.md".into(),
                    plan: "# Plan".into(),
                    conflicts: Vec::new(),
                })
                .await
        });
        let sent = rx.recv().await.unwrap();
        assert!(matches!(
            sent,
            OutputEvent::ControlRequest {
                request: ControlRequest::PlanApproval { .. },
                ..
            }
        ));
        pending.drop_all();
        let decision = task.await.unwrap().unwrap();
        assert!(!decision.approved);
        assert!(decision.feedback.unwrap().contains("closed its input"));
    }

    #[tokio::test]
    async fn a_prompt_asked_after_the_input_closed_fails_closed_at_once() {
        let (out, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let pending = Arc::new(Pending::default());
        pending.drop_all();
        let approver = StdioApprover {
            out,
            pending: pending.clone(),
            hooks: Arc::new(SdkHooks::default()),
            dont_ask: false,
            turn: Arc::new(std::sync::OnceLock::new()),
        };
        let answer = approver
            .ask(PermissionRequest {
                tool_name: "Bash".into(),
                input: json!({"command": "touch x"}),
                tool_use_id: "t1".into(),
                agent_id: None,
                suggestion: None,
                dry_run: false,
                reason: "asks".into(),
            })
            .await;
        assert!(
            matches!(answer, PermissionAnswer::Unanswered { .. }),
            "{answer:?}"
        );
        assert!(rx.recv().await.is_some(), "the request was still announced");
    }
}
