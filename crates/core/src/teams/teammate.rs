//! One teammate: an [`Engine`] with its own conversation, run in a tokio
//! task that feeds it the messages of its inbox as user turns — right
//! after each turn and, when idle, as soon as something arrives — until
//! the lead stops it or the lead session ends.

use crate::sync::lock;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use catui_protocol::PermissionMode;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::{MailMessage, MailboxBackend, TEAM_LEAD, TeamProtocol};
use crate::engine::{Engine, TurnOutcome};
use crate::plan::{PlanSession, restore_mode};

/// How often an idle teammate looks at its inbox for messages written by
/// other processes (in-process senders wake it at once).
pub const INBOX_POLL: Duration = Duration::from_millis(250);

/// How many lines of a teammate's history `/team show` keeps.
pub const RECENT_LINES: usize = 30;

/// What the lead asks for when starting a teammate.
#[derive(Debug, Clone, PartialEq)]
pub struct TeammateSpec {
    pub name: String,
    pub team: String,
    /// The first instruction.
    pub prompt: String,
    /// `None` = the lead's model.
    pub model: Option<String>,
    /// The mode to work in (restored after an approved plan).
    pub permission_mode: PermissionMode,
    /// Starts in plan mode; leaving it needs the lead's approval.
    pub plan_mode_required: bool,
    /// The worker that runs it (`catui worker --name HOST`); `None`: this
    /// process.
    pub host: Option<String>,
}

/// What the teammate is doing, for `/team`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TeammateStatus {
    Working,
    Idle,
    AwaitingApproval,
    Stopped,
    /// It ended without being stopped: its worker died or lost the broker.
    Failed,
}

impl std::fmt::Display for TeammateStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TeammateStatus::Working => "working",
            TeammateStatus::Idle => "idle",
            TeammateStatus::AwaitingApproval => "awaiting approval",
            TeammateStatus::Stopped => "stopped",
            TeammateStatus::Failed => "failed",
        })
    }
}

/// A teammate's identity and live state, shared by its loop, its tools
/// (ExitPlanMode, SendMessage) and the lead's manager.
#[derive(Debug)]
pub struct TeammateState {
    pub spec: TeammateSpec,
    /// The model it runs on.
    pub model: String,
    status: Mutex<TeammateStatus>,
    /// The plan approval request it waits for.
    pending_request: Mutex<Option<String>>,
    /// The plan file path of that request.
    pending_plan: Mutex<Option<String>>,
    /// Its latest plan while pending or approved (the files it names), for
    /// cross-plan conflicts; cleared when the plan is rejected.
    pub(super) plan_claim: Mutex<Option<super::plan_conflicts::PlanClaim>>,
    /// Its tool calls now running (id, summary), oldest first. A list, not
    /// one slot: safe calls run side by side, and the end of one must not
    /// hide the others.
    running: Mutex<Vec<(String, String)>>,
    /// Tool calls started since it was spawned.
    tool_uses: AtomicU32,
    /// Its latest answers and tool calls, oldest first, for `/team show`.
    recent: Mutex<VecDeque<String>>,
    /// Its conversation's controls, once it is built (its mode). Weak: the
    /// state outlives the conversation, which must end with its task.
    control: std::sync::OnceLock<crate::engine::WeakEngineControl>,
    /// Poked when a message is written to its inbox in this process.
    pub wake: Notify,
    /// Cancelled to stop it.
    pub cancel: CancellationToken,
}

impl TeammateState {
    pub fn new(spec: TeammateSpec, model: String, cancel: CancellationToken) -> Self {
        Self {
            spec,
            model,
            status: Mutex::new(TeammateStatus::Idle),
            pending_request: Mutex::new(None),
            pending_plan: Mutex::new(None),
            plan_claim: Mutex::new(None),
            running: Mutex::new(Vec::new()),
            tool_uses: AtomicU32::new(0),
            recent: Mutex::new(VecDeque::new()),
            control: std::sync::OnceLock::new(),
            wake: Notify::new(),
            cancel,
        }
    }

    pub fn name(&self) -> &str {
        &self.spec.name
    }

    pub fn team(&self) -> &str {
        &self.spec.team
    }

    /// `name@team`.
    pub fn agent_id(&self) -> String {
        super::format_agent_id(&self.spec.name, &self.spec.team)
    }

    /// Connects the state to its conversation (once, when it is built).
    pub fn set_control(&self, control: &crate::engine::EngineControl) {
        let _ = self.control.set(control.downgrade());
    }

    /// Its permission mode now (`None` before its conversation exists or
    /// after it ended).
    pub fn permission_mode(&self) -> Option<PermissionMode> {
        self.control.get().and_then(|c| c.permission_mode())
    }

    pub fn status(&self) -> TeammateStatus {
        *lock(&self.status)
    }

    pub fn set_status(&self, status: TeammateStatus) {
        *lock(&self.status) = status;
    }

    /// Marks it as waiting for the lead's answer to `request_id`.
    pub fn await_approval(&self, request_id: &str, plan_file: &str) {
        *lock(&self.pending_request) = Some(request_id.to_string());
        *lock(&self.pending_plan) = Some(plan_file.to_string());
        self.set_status(TeammateStatus::AwaitingApproval);
    }

    /// What it is doing right now: the summary of its latest tool call
    /// still running (`Edit(src/lib.rs)`), if any.
    pub fn activity(&self) -> Option<String> {
        lock(&self.running)
            .last()
            .map(|(_, summary)| summary.clone())
    }

    /// How many tool calls it has started (its sub-agents' not counted).
    pub fn tool_uses(&self) -> u32 {
        self.tool_uses.load(Ordering::Relaxed)
    }

    /// One of its own tool calls started.
    pub(super) fn tool_started(&self, id: String, summary: String) {
        self.tool_uses.fetch_add(1, Ordering::Relaxed);
        self.remember(format!("⏺ {summary}"));
        lock(&self.running).push((id, summary));
    }

    /// Keeps `line` among its recent history, dropping the oldest beyond
    /// [`RECENT_LINES`].
    pub(super) fn remember(&self, line: String) {
        let mut recent = lock(&self.recent);
        if recent.len() == RECENT_LINES {
            recent.pop_front();
        }
        recent.push_back(line);
    }

    /// Its latest answers and tool calls, oldest first.
    pub fn recent(&self) -> Vec<String> {
        lock(&self.recent).iter().cloned().collect()
    }

    /// One of its own tool calls ended.
    pub(super) fn tool_ended(&self, id: &str) {
        lock(&self.running).retain(|(running, _)| running != id);
    }

    /// Its turn is over: nothing of it can still be running.
    pub(super) fn turn_ended(&self) {
        lock(&self.running).clear();
    }

    /// The request it is waiting for.
    pub fn pending_request(&self) -> Option<String> {
        lock(&self.pending_request).clone()
    }

    fn take_pending(&self, request_id: &str) -> bool {
        let mut pending = lock(&self.pending_request);
        if pending.as_deref() == Some(request_id) {
            *pending = None;
            true
        } else {
            false
        }
    }
}

/// Runs a teammate until it is stopped: the first prompt, then whatever
/// arrives in its inbox. `turn_ended` gets each turn's outcome (the engine
/// reports none for prompts it is handed directly).
pub async fn run_teammate(
    mut engine: Engine,
    plan: Arc<PlanSession>,
    state: Arc<TeammateState>,
    mailboxes: Arc<dyn MailboxBackend>,
    on_error: impl Fn(String) + Send + Sync,
    turn_ended: impl Fn(TurnOutcome) + Send + Sync,
) {
    let mut next = Some(state.spec.prompt.clone());
    let arrivals = mailboxes.arrivals(state.team(), state.name());
    loop {
        if state.cancel.is_cancelled() {
            break;
        }
        if let Some(input) = next.take() {
            if state.status() != TeammateStatus::AwaitingApproval {
                state.set_status(TeammateStatus::Working);
            }
            let outcome = engine.run_prompt(input, state.cancel.child_token()).await;
            if outcome.is_error && !state.cancel.is_cancelled() {
                on_error(format!(
                    "teammate {} stopped its turn: {}",
                    state.agent_id(),
                    outcome.result
                ));
            }
            turn_ended(outcome);
            if state.status() == TeammateStatus::Working {
                state.set_status(TeammateStatus::Idle);
            }
            continue;
        }
        match mailboxes.take_unread(state.team(), state.name()) {
            Ok(messages) if !messages.is_empty() => {
                next = Some(deliver(&engine, &plan, &state, &messages));
                continue;
            }
            Ok(_) => {}
            Err(e) => {
                on_error(format!(
                    "teammate {} cannot read its inbox: {e}",
                    state.agent_id()
                ));
                // Do not spin on a broken inbox; the user may repair it.
                tokio::select! {
                    _ = tokio::time::sleep(INBOX_POLL * 20) => {}
                    _ = state.cancel.cancelled() => break,
                }
                continue;
            }
        }
        let arrived = async {
            match &arrivals {
                Some(n) => n.notified().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = state.wake.notified() => {}
            _ = arrived => {}
            _ = tokio::time::sleep(INBOX_POLL) => {}
            _ = state.cancel.cancelled() => break,
        }
    }
    engine.control().interrupt();
    state.set_status(TeammateStatus::Stopped);
}

/// Turns inbox messages into the next user turn, acting on protocol
/// messages on the way (an approved plan leaves plan mode here).
fn deliver(
    engine: &Engine,
    plan: &PlanSession,
    state: &TeammateState,
    messages: &[MailMessage],
) -> String {
    let mut parts = Vec::new();
    for m in messages {
        match TeamProtocol::parse(&m.text) {
            Some(TeamProtocol::PlanApprovalResponse {
                request_id,
                approved,
                feedback,
                decided_by,
            }) if m.from == TEAM_LEAD => {
                parts.push(approval_turn(
                    engine,
                    plan,
                    state,
                    &request_id,
                    approved,
                    feedback,
                    decided_by,
                ));
            }
            _ => parts.push(format!(
                "<teammate-message from=\"{}\" timestamp=\"{}\">\n{}\n</teammate-message>",
                m.from, m.timestamp, m.text
            )),
        }
    }
    parts.join("\n\n")
}

fn approval_turn(
    engine: &Engine,
    plan: &PlanSession,
    state: &TeammateState,
    request_id: &str,
    approved: bool,
    feedback: Option<String>,
    decided_by: super::PlanDecider,
) -> String {
    let (who, whose) = (decided_by.who(), decided_by.whose());
    if !state.take_pending(request_id) {
        return format!(
            "{who} answered plan approval request {request_id}, which is not the one you are waiting for; it is ignored."
        );
    }
    let plan_file = lock(&state.pending_plan).take().unwrap_or_default();
    let feedback = feedback.filter(|f| !f.trim().is_empty());
    state.set_status(TeammateStatus::Working);
    {
        // A rejected plan no longer counts for conflicts; an approved one
        // does until the teammate stops.
        let mut claim = lock(&state.plan_claim);
        match claim.as_mut() {
            Some(c) if approved => c.approved = true,
            _ => *claim = None,
        }
    }
    if !approved {
        let feedback = feedback.unwrap_or_else(|| "(no feedback given)".into());
        return format!(
            "{who} rejected your plan (request {request_id}). You are still in plan mode: nothing may be changed yet.\n\n{whose} feedback:\n{feedback}\n\nRevise your plan file ({plan_file}) accordingly, then call ExitPlanMode again."
        );
    }
    let hooks = engine.session_hooks();
    let (mode, _) = restore_mode(
        hooks.pre_plan_mode(),
        None,
        crate::permissions::auto_mode_gate_enabled(&hooks.permission_context()),
    );
    if hooks.permission_mode() == PermissionMode::Plan {
        plan.state.record_plan_approved_exit();
        // The one transition function; it cannot fail for a non-plan mode.
        let _ = engine.set_permission_mode(mode);
    }
    let note = feedback
        .map(|f| format!("\n\n{whose} notes:\n{f}"))
        .unwrap_or_default();
    format!(
        "{who} approved your plan (request {request_id}). You have left plan mode (permission mode: {mode}); carry out the plan in {plan_file} now.{note}"
    )
}
