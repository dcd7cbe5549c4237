//! The TUI's approver (what `approver.rs` is in the other front ends, for
//! core's `catui_core::engine::Approver`): the bridges between the core's
//! prompts and the UI loop: [`TuiApprover`]
//! forwards each permission request, [`TuiPlanReviewer`] each teammate's
//! plan, over a channel with a oneshot for the answer. Anything that goes
//! wrong on the way (the UI is gone, the dialog was dropped) counts as a
//! denial: the bridges fail closed.

use async_trait::async_trait;
use catui_core::engine::{Approver, PermissionAnswer, PermissionRequest};
use catui_core::teams::manager::PlanReviewRequest;
use catui_core::teams::{PlanDecision, PlanReviewer};
use tokio::sync::{mpsc, oneshot};

/// A request waiting for the user, with the way to answer it.
#[derive(Debug)]
pub struct PendingApproval {
    pub request: PermissionRequest,
    pub reply: oneshot::Sender<PermissionAnswer>,
}

/// The UI side of the bridge; pass it to [`crate::run`].
#[derive(Debug)]
pub struct ApprovalReceiver {
    pub(crate) rx: mpsc::UnboundedReceiver<PendingApproval>,
}

impl ApprovalReceiver {
    /// The next request, or `None` when every approver is gone.
    pub async fn recv(&mut self) -> Option<PendingApproval> {
        self.rx.recv().await
    }
}

/// The engine side of the bridge: an [`Approver`] that asks the TUI.
#[derive(Debug, Clone)]
pub struct TuiApprover {
    tx: mpsc::UnboundedSender<PendingApproval>,
}

/// Creates a connected approver and receiver.
pub fn approver() -> (TuiApprover, ApprovalReceiver) {
    let (tx, rx) = mpsc::unbounded_channel();
    (TuiApprover { tx }, ApprovalReceiver { rx })
}

#[async_trait]
impl Approver for TuiApprover {
    async fn ask(&self, request: PermissionRequest) -> PermissionAnswer {
        let tool = request.tool_name.clone();
        let (reply, answer) = oneshot::channel();
        if self.tx.send(PendingApproval { request, reply }).is_err() {
            return PermissionAnswer::Unanswered {
                reason: format!(
                    "the terminal interface that asks for permission to run {tool} has closed"
                ),
            };
        }
        answer
            .await
            .unwrap_or_else(|_| PermissionAnswer::Unanswered {
                reason: format!("the prompt for {tool} closed without an answer"),
            })
    }
}

/// A teammate's plan waiting for the user. Answering `None` hands the
/// plan to the lead model instead.
#[derive(Debug)]
pub struct PendingReview {
    pub request: PlanReviewRequest,
    pub reply: oneshot::Sender<Option<PlanDecision>>,
}

/// The UI side of [`plan_reviewer`].
#[derive(Debug)]
pub struct ReviewReceiver {
    rx: mpsc::UnboundedReceiver<PendingReview>,
}

impl ReviewReceiver {
    pub async fn recv(&mut self) -> Option<PendingReview> {
        self.rx.recv().await
    }
}

/// The team side: a [`PlanReviewer`] that opens the plan dialog.
#[derive(Debug, Clone)]
pub struct TuiPlanReviewer {
    tx: mpsc::UnboundedSender<PendingReview>,
}

/// Creates a connected plan reviewer and receiver.
pub fn plan_reviewer() -> (TuiPlanReviewer, ReviewReceiver) {
    let (tx, rx) = mpsc::unbounded_channel();
    (TuiPlanReviewer { tx }, ReviewReceiver { rx })
}

/// What a plan review comes to when nobody answered it.
fn rejected_unanswered() -> Option<PlanDecision> {
    Some(PlanDecision {
        approved: false,
        feedback: Some("The plan was not reviewed: the lead's terminal closed the approval prompt. Stay in plan mode.".into()),
    })
}

#[async_trait]
impl PlanReviewer for TuiPlanReviewer {
    async fn review(&self, request: PlanReviewRequest) -> Option<PlanDecision> {
        let (reply, answer) = oneshot::channel();
        if self.tx.send(PendingReview { request, reply }).is_err() {
            // No terminal to ask: let the lead model decide.
            return None;
        }
        answer.await.unwrap_or_else(|_| rejected_unanswered())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request() -> PermissionRequest {
        PermissionRequest {
            tool_use_id: "t1".into(),
            tool_name: "Bash".into(),
            input: json!({"command": "rm -rf build"}),
            reason: "not read-only".into(),
            agent_id: None,
            suggestion: None,
            dry_run: false,
        }
    }

    #[tokio::test]
    async fn forwards_requests_and_returns_the_answer() {
        let (approver, mut rx) = approver();
        let ui = tokio::spawn(async move {
            let pending = rx.recv().await;
            if let Some(p) = pending {
                assert_eq!(p.request.tool_name, "Bash");
                let _ = p.reply.send(PermissionAnswer::Allow {
                    updated_input: None,
                    updated_permissions: None,
                });
            }
        });
        let answer = approver.ask(request()).await;
        assert!(matches!(answer, PermissionAnswer::Allow { .. }));
        ui.await.unwrap();
    }

    #[tokio::test]
    async fn a_dropped_dialog_or_closed_ui_denies() {
        let (approver, mut rx) = approver();
        let ui = tokio::spawn(async move {
            // Receive and drop the reply without answering.
            drop(rx.recv().await);
            rx
        });
        let answer = approver.ask(request()).await;
        assert!(
            matches!(answer, PermissionAnswer::Unanswered { ref reason } if reason.contains("without an answer"))
        );
        drop(ui.await.unwrap());
        let answer = approver.ask(request()).await;
        assert!(
            matches!(answer, PermissionAnswer::Unanswered { ref reason } if reason.contains("has closed"))
        );
    }

    fn review_request() -> PlanReviewRequest {
        PlanReviewRequest {
            team: "core".into(),
            from: "amy".into(),
            request_id: "plan_approval-1-amy@core".into(),
            plan_file_path: "/plans/p.md".into(),
            plan: "# Plan".into(),
            conflicts: Vec::new(),
        }
    }

    #[tokio::test]
    async fn plan_reviews_reach_the_ui_and_fail_closed() {
        let (reviewer, mut rx) = plan_reviewer();
        let ui = tokio::spawn(async move {
            let first = rx.recv().await.unwrap();
            assert_eq!(first.request.from, "amy");
            let _ = first.reply.send(Some(PlanDecision {
                approved: true,
                feedback: None,
            }));
            // The second prompt is dropped without an answer.
            drop(rx.recv().await);
            rx
        });
        let approved = reviewer.review(review_request()).await.unwrap();
        assert!(approved.approved);
        let dropped = reviewer.review(review_request()).await.unwrap();
        assert!(!dropped.approved, "an unanswered review must reject");
        drop(ui.await.unwrap());
        // With the UI gone the lead model is asked instead.
        assert_eq!(reviewer.review(review_request()).await, None);
    }
}
