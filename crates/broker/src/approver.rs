//! `--approvals broker`: an [`Approver`] that publishes each permission
//! request and plan approval to the broker and waits — at most the
//! approval timeout — for the one answer (`catui approvals approve|reject`
//! on any machine). On timeout the request is refused and the run goes on
//! as if denied; the refusal is itself recorded as the answer, so a late
//! `approve` is told the request was already answered. Texts published
//! (the tool input, the plan) pass the transcript's secret redaction.

use catui_protocol::tool_names;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use catui_core::engine::{Approver, PermissionAnswer, PermissionRequest};
use catui_core::plan::approval::decision::ApprovalDecision;
use catui_core::session::redact::Redactor;
use catui_protocol::PermissionMode;
use serde_json::Value;

use crate::approvals::{
    ApprovalAnswer, ApprovalRequest, Approvals, RequestKind, Verdict, answerer, expires_after,
    new_request_id, stamp,
};
use crate::error::BrokerError;
use crate::registry::{AgentState, Presence};

/// How long a request waits for its answer unless `--approval-timeout`
/// says otherwise.
pub const APPROVAL_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// How long a request may take to reach a broker that is down before the
/// run gives up on asking.
const PUBLISH_PATIENCE: Duration = Duration::from_secs(10);

/// Who asks, as requests name it: the session (its id and presence are
/// known once it is built, after its approver) and its project.
#[derive(Default)]
pub struct Asker {
    pub session_id: std::sync::OnceLock<String>,
    pub presence: std::sync::OnceLock<Arc<Presence>>,
    pub project: String,
    /// Requests now waiting (the session waits for you while any does).
    waiting: std::sync::atomic::AtomicUsize,
}

impl Asker {
    pub fn new(project: impl Into<String>) -> Arc<Asker> {
        Arc::new(Asker {
            project: project.into(),
            ..Asker::default()
        })
    }

    fn presence(&self) -> Option<&Arc<Presence>> {
        self.presence.get()
    }
}

/// Asks through the broker.
pub struct BrokerApprover {
    approvals: Approvals,
    asker: Arc<Asker>,
    timeout: Duration,
    redactor: Redactor,
}

impl BrokerApprover {
    pub fn new(
        approvals: Approvals,
        asker: Arc<Asker>,
        timeout: Duration,
        redactor: Redactor,
    ) -> Self {
        BrokerApprover {
            approvals,
            asker,
            timeout,
            redactor,
        }
    }

    /// The request as published.
    fn request(&self, request: &PermissionRequest) -> ApprovalRequest {
        let input = &request.input;
        let is_plan = request.tool_name == tool_names::EXIT_PLAN_MODE && request.agent_id.is_none();
        let text = |key: &str| input.get(key).and_then(Value::as_str).map(str::to_string);
        let redacted_input = serde_json::to_string(input)
            .ok()
            .map(|s| self.redactor.redact(&s))
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or(Value::Null);
        let host = crate::registry::host_name();
        ApprovalRequest {
            id: new_request_id(),
            kind: if is_plan {
                RequestKind::Plan
            } else {
                RequestKind::Permission
            },
            session_id: self.asker.session_id.get().cloned().unwrap_or_default(),
            host,
            user: std::env::var("USER").unwrap_or_default(),
            project: self.asker.project.clone(),
            tool: request.tool_name.clone(),
            summary: self.redactor.redact(&summary(request)),
            input: redacted_input,
            reason: self.redactor.redact(&request.reason),
            plan: is_plan
                .then(|| text("plan").map(|p| self.redactor.redact(&p)))
                .flatten(),
            plan_file: is_plan.then(|| text("planFilePath")).flatten(),
            plan_hash: is_plan.then(|| text("planHash")).flatten(),
            diff: edit_diff(request).map(|d| self.redactor.redact(&d)),
            agent: request.agent_id.clone(),
            created: stamp(),
            expires: expires_after(self.timeout),
        }
    }

    async fn publish(&self, published: &ApprovalRequest) -> Result<(), BrokerError> {
        let give_up = tokio::time::Instant::now() + PUBLISH_PATIENCE;
        loop {
            match self.approvals.publish(published).await {
                Ok(()) => return Ok(()),
                Err(e) if tokio::time::Instant::now() >= give_up => return Err(e),
                Err(_) => tokio::time::sleep(Duration::from_millis(500)).await,
            }
        }
    }

    /// The answer, or the refusal recorded when none came in time.
    async fn answer(
        &self,
        published: &ApprovalRequest,
        deadline: tokio::time::Instant,
    ) -> Option<ApprovalAnswer> {
        if let Some(answer) = self.approvals.wait_answer(&published.id, deadline).await {
            return Some(answer);
        }
        let refusal = ApprovalAnswer {
            request_id: published.id.clone(),
            plan_hash: published.plan_hash.clone(),
            verdict: Verdict::TimedOut,
            mode: None,
            skip_steps: Vec::new(),
            feedback: None,
            by: answerer(),
            at: stamp(),
        };
        match self.approvals.answer(&refusal).await {
            Ok(()) => Some(refusal),
            // Someone answered just before the deadline: theirs applies.
            Err(BrokerError::AlreadyAnswered { .. }) => {
                self.approvals.answer_of(&published.id).await.ok().flatten()
            }
            Err(_) => None,
        }
    }
}

#[async_trait]
impl Approver for BrokerApprover {
    async fn ask(&self, request: PermissionRequest) -> PermissionAnswer {
        let published = self.request(&request);
        if let Err(e) = self.publish(&published).await {
            return PermissionAnswer::Deny {
                message: format!(
                    "{} was not run: it needs approval and the broker could not be asked ({e}).",
                    request.tool_name
                ),
            };
        }
        self.asker
            .waiting
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if let Some(p) = self.asker.presence() {
            p.set_state(
                AgentState::WaitingForYou,
                Some(format!("{} (approval {})", published.summary, published.id)),
            );
        }
        let deadline = tokio::time::Instant::now() + self.timeout;
        let answer = self.answer(&published, deadline).await;
        let still_waiting = self
            .asker
            .waiting
            .fetch_sub(1, std::sync::atomic::Ordering::SeqCst)
            > 1;
        if let Some(p) = self.asker.presence()
            && !still_waiting
        {
            p.set_state(AgentState::Working, None);
        }
        match answer {
            Some(answer) => to_permission_answer(&published, &request, answer),
            None => PermissionAnswer::Deny {
                message: format!(
                    "{} was not run: no answer to approval request {} arrived before the approval timeout, and the broker could not record the refusal.",
                    request.tool_name, published.id
                ),
            },
        }
    }
}

/// The engine's answer for `answer`, checked against the request it must
/// be bound to.
fn to_permission_answer(
    published: &ApprovalRequest,
    request: &PermissionRequest,
    answer: ApprovalAnswer,
) -> PermissionAnswer {
    if answer.request_id != published.id || answer.plan_hash != published.plan_hash {
        return PermissionAnswer::Deny {
            message: format!(
                "The answer to approval request {} named another request or plan revision, so nothing was approved.",
                published.id
            ),
        };
    }
    let feedback = answer.feedback.clone().unwrap_or_default();
    match (published.kind, answer.verdict) {
        (RequestKind::Plan, Verdict::Approve) => {
            let mode = answer
                .mode
                .as_deref()
                .and_then(|m| m.parse::<PermissionMode>().ok());
            let decision = ApprovalDecision {
                skip_steps: answer.skip_steps,
                plan_hash: published.plan_hash.clone(),
                ..ApprovalDecision::approve(mode)
            };
            decision.into_answer(&request.input)
        }
        (RequestKind::Plan, Verdict::Reject) => {
            ApprovalDecision::keep_planning(feedback).into_answer(&request.input)
        }
        (RequestKind::Permission, Verdict::Approve) => PermissionAnswer::Allow {
            updated_input: None,
            updated_permissions: None,
        },
        (RequestKind::Permission, Verdict::Reject) => PermissionAnswer::Deny {
            message: if feedback.trim().is_empty() {
                format!(
                    "The user rejected {} (approval {}).",
                    request.tool_name, published.id
                )
            } else {
                format!(
                    "The user rejected {} (approval {}): {feedback}",
                    request.tool_name, published.id
                )
            },
        },
        (_, Verdict::TimedOut) => PermissionAnswer::Deny {
            message: format!(
                "{} was not run: nobody answered approval request {} before the approval timeout, so it was refused.",
                request.tool_name, published.id
            ),
        },
    }
}

/// `Bash(cargo test)`, `Edit(src/lib.rs)`, `approve plan PATH`.
fn summary(request: &PermissionRequest) -> String {
    let input = &request.input;
    let field = |k: &str| input.get(k).and_then(Value::as_str);
    if request.tool_name == tool_names::EXIT_PLAN_MODE {
        return format!(
            "approve plan {}",
            field("planFilePath").unwrap_or("(no file)")
        );
    }
    let arg = field("command")
        .or_else(|| field("file_path"))
        .or_else(|| field("notebook_path"))
        .or_else(|| field("url"))
        .or_else(|| field("pattern"));
    match arg {
        Some(arg) => {
            let arg: String = arg.chars().take(200).collect();
            format!("{}({arg})", request.tool_name)
        }
        None => request.tool_name.clone(),
    }
}

/// The change an Edit or Write would make, as removed and added lines.
fn edit_diff(request: &PermissionRequest) -> Option<String> {
    let input = &request.input;
    let field = |k: &str| input.get(k).and_then(Value::as_str);
    let path = field("file_path")?;
    let (old, new) = match request.tool_name.as_str() {
        tool_names::EDIT => (field("old_string")?, field("new_string")?),
        tool_names::WRITE => ("", field("content")?),
        _ => return None,
    };
    let mut out = format!("--- {path}\n+++ {path}\n");
    for line in old.lines() {
        out.push_str(&format!("-{line}\n"));
    }
    for line in new.lines() {
        out.push_str(&format!("+{line}\n"));
    }
    Some(out)
}
