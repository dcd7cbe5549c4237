//! The bridge between the engine's permission prompts and the UI loop:
//! [`TuiApprover`] forwards each request over a channel with a oneshot for
//! the answer. Anything that goes wrong on the way (the UI is gone, the
//! dialog was dropped) counts as a denial: the bridge fails closed.

use async_trait::async_trait;
use catui_core::engine::{Approver, PermissionAnswer, PermissionRequest};
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
            return PermissionAnswer::Deny {
                message: format!(
                    "{tool} was not run: the terminal interface that asks for permission has closed."
                ),
            };
        }
        answer.await.unwrap_or_else(|_| PermissionAnswer::Deny {
            message: format!("{tool} was not run: the permission prompt closed without an answer."),
        })
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
            matches!(answer, PermissionAnswer::Deny { ref message } if message.contains("without an answer"))
        );
        drop(ui.await.unwrap());
        let answer = approver.ask(request()).await;
        assert!(
            matches!(answer, PermissionAnswer::Deny { ref message } if message.contains("has closed"))
        );
    }
}
