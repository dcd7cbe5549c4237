//! Headless mode (`-p`): text, json and stream-json output, and with
//! `--input-format stream-json` a long-lived session driven by JSON lines
//! on stdin. Stdout carries only the selected output; anything
//! else goes to stderr.

use catui_core::sync::lock;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use catui_core::engine::{
    Approver, Engine, EngineControl, EngineEvent, PermissionAnswer, PermissionRequest, TurnOutcome,
};
use catui_core::teams::manager::PlanReviewRequest;
use catui_core::teams::{PlanDecision, PlanReviewer};
use catui_protocol::stream_json::{
    ControlRequest, ControlResponse, InputMessage, OutputEvent, PermissionResponse, ResultEvent,
    ResultSubtype, SystemEvent,
};
use catui_protocol::{ContentBlock, ModelEvent, PermissionMode};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::sync::oneshot;

use crate::args::OutputFormat;

pub use catui_core::builder::SessionInfo;

type Waiters = HashMap<String, oneshot::Sender<ControlResponse>>;

/// Control requests sent to the client and still waiting for their
/// `control_response` line (permission questions, plan approvals).
#[derive(Default)]
pub struct Pending {
    next: AtomicU64,
    waiting: Mutex<Waiters>,
}

impl Pending {
    fn lock(&self) -> std::sync::MutexGuard<'_, Waiters> {
        lock(&self.waiting)
    }

    /// Registers a waiter under a fresh id `<prefix>-<n>`. The receiver
    /// gets the client's raw response; it errors when the client closes its
    /// input first (callers must then fail closed).
    pub fn register(&self, prefix: &str) -> (String, oneshot::Receiver<ControlResponse>) {
        let n = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let request_id = format!("{prefix}-{n}");
        let (tx, rx) = oneshot::channel();
        self.lock().insert(request_id.clone(), tx);
        (request_id, rx)
    }

    /// Forgets a waiter whose request could not be sent.
    fn forget(&self, request_id: &str) {
        self.lock().remove(request_id);
    }

    /// Answers a request; false when nothing waits for it.
    fn answer(&self, response: ControlResponse) -> bool {
        match self.lock().remove(response.request_id()) {
            Some(tx) => tx.send(response).is_ok(),
            None => false,
        }
    }

    /// Drops every waiter (stdin closed): their receivers error, and the
    /// askers fail closed.
    fn drop_all(&self) {
        self.lock().clear();
    }
}

/// Reads a `can_use_tool` answer; anything unreadable denies.
fn permission_answer(response: ControlResponse) -> PermissionAnswer {
    match response {
        ControlResponse::Success {
            response: Some(body),
            ..
        } => match serde_json::from_value::<PermissionResponse>(body) {
            Ok(PermissionResponse::Allow {
                updated_input,
                updated_permissions,
            }) => PermissionAnswer::Allow {
                updated_input,
                updated_permissions,
            },
            Ok(PermissionResponse::Deny { message }) => PermissionAnswer::Deny { message },
            Err(e) => PermissionAnswer::Deny {
                message: format!("unreadable permission answer: {e}"),
            },
        },
        ControlResponse::Success { response: None, .. } => PermissionAnswer::Deny {
            message: "the permission answer had no decision".into(),
        },
        ControlResponse::Error { error, .. } => PermissionAnswer::Deny { message: error },
    }
}

/// Asks over stdout with `can_use_tool` control requests.
pub struct StdioApprover {
    pub out: UnboundedSender<OutputEvent>,
    pub pending: Arc<Pending>,
}

#[async_trait]
impl Approver for StdioApprover {
    async fn ask(&self, request: PermissionRequest) -> PermissionAnswer {
        let (request_id, rx) = self.pending.register("perm");
        let sent = self.out.send(OutputEvent::ControlRequest {
            request_id: request_id.clone(),
            request: ControlRequest::CanUseTool {
                tool_name: request.tool_name.clone(),
                input: request.input.clone(),
                tool_use_id: request.tool_use_id.clone(),
                agent_id: request.agent_id.clone(),
            },
        });
        if sent.is_err() {
            self.pending.forget(&request_id);
            return PermissionAnswer::Deny {
                message: "no client is connected to answer".into(),
            };
        }
        match rx.await {
            Ok(response) => permission_answer(response),
            Err(_) => PermissionAnswer::Deny {
                message: "the client closed its input before answering".into(),
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

/// Translates engine events and control lines to the output format.
/// `first` (the init event) is printed before anything else, also before
/// notifications the session queued while it was being built.
pub async fn print_events(
    format: OutputFormat,
    verbose: bool,
    session_id: String,
    mut events: UnboundedReceiver<EngineEvent>,
    mut controls: UnboundedReceiver<OutputEvent>,
    first: Option<OutputEvent>,
) {
    let mut stdout = tokio::io::stdout();
    if let Some(line) = first.and_then(|event| serde_json::to_string(&event).ok()) {
        if stdout
            .write_all(format!("{line}\n").as_bytes())
            .await
            .is_err()
        {
            return;
        }
        let _ = stdout.flush().await;
    }
    let mut events_open = true;
    let mut controls_open = true;
    while events_open || controls_open {
        // Biased: an engine event emitted before a control request (the
        // assistant message before its permission prompt) is printed first.
        let line = tokio::select! {
            biased;
            e = events.recv(), if events_open => match e {
                Some(e) => render_event(format, verbose, &session_id, e),
                None => { events_open = false; None }
            },
            c = controls.recv(), if controls_open => match c {
                Some(c) if format == OutputFormat::StreamJson => serde_json::to_string(&c).ok(),
                Some(_) => None,
                None => { controls_open = false; None }
            },
        };
        if let Some(mut line) = line {
            line.push('\n');
            if stdout.write_all(line.as_bytes()).await.is_err() {
                return; // stdout closed: nothing more to say
            }
            let _ = stdout.flush().await;
        }
    }
}

fn render_event(
    format: OutputFormat,
    verbose: bool,
    session_id: &str,
    event: EngineEvent,
) -> Option<String> {
    match format {
        OutputFormat::StreamJson => {
            let out = stream_json_event(session_id, event)?;
            serde_json::to_string(&out).ok()
        }
        OutputFormat::Json => match event {
            EngineEvent::Result(outcome) => {
                serde_json::to_string(&OutputEvent::Result(result_event(session_id, outcome))).ok()
            }
            other => {
                verbose_line(verbose, &other);
                None
            }
        },
        OutputFormat::Text => match event {
            EngineEvent::Result(outcome) if outcome.is_error => {
                eprintln!("catui: {}", outcome.result);
                None
            }
            EngineEvent::Result(outcome) if outcome.subtype == ResultSubtype::PlanReady => {
                let path = outcome.plan_file.unwrap_or_default();
                Some(format!(
                    "{}\n\nPlan saved to {path}",
                    outcome.result.trim_end()
                ))
            }
            EngineEvent::Result(outcome) => Some(outcome.result),
            EngineEvent::Delta {
                event:
                    ModelEvent::Retrying {
                        attempt,
                        delay_ms,
                        reason,
                    },
                ..
            } if !verbose => {
                // Always say why nothing happens for a while.
                eprintln!(
                    "catui: {reason}; retrying in {:.1} s (attempt {attempt})",
                    delay_ms as f64 / 1000.0
                );
                None
            }
            EngineEvent::Advice { text, .. } => {
                eprintln!("{text}");
                None
            }
            other => {
                verbose_line(verbose, &other);
                None
            }
        },
    }
}

fn verbose_line(verbose: bool, event: &EngineEvent) {
    if !verbose {
        return;
    }
    match event {
        EngineEvent::ToolStart { summary, .. } => eprintln!("● {summary}"),
        EngineEvent::ToolEnd {
            is_error: true,
            display,
            ..
        } => eprintln!("  ✗ {}", first_line(display)),
        EngineEvent::PermissionMode { mode, .. } => eprintln!("[mode: {mode}]"),
        EngineEvent::Notification { text, .. } => eprintln!("[{text}]"),
        EngineEvent::TeammateMessage { from, text } => eprintln!("[{from}: {text}]"),
        EngineEvent::Delta {
            event:
                ModelEvent::Retrying {
                    attempt,
                    delay_ms,
                    reason,
                },
            ..
        } => {
            eprintln!("[retrying (attempt {attempt}) in {delay_ms} ms: {reason}]")
        }
        _ => {}
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

fn stream_json_event(session_id: &str, event: EngineEvent) -> Option<OutputEvent> {
    Some(match event {
        EngineEvent::Assistant {
            message,
            parent_tool_use_id,
        } => OutputEvent::Assistant {
            message,
            session_id: session_id.to_string(),
            parent_tool_use_id,
        },
        EngineEvent::User {
            message,
            parent_tool_use_id,
        } => OutputEvent::User {
            message,
            session_id: session_id.to_string(),
            parent_tool_use_id,
        },
        EngineEvent::PermissionMode {
            mode,
            pre_plan_mode,
        } => OutputEvent::System(SystemEvent::PermissionMode {
            mode,
            pre_plan_mode,
        }),
        EngineEvent::Attachment(attachment) => {
            OutputEvent::System(SystemEvent::Attachment { attachment })
        }
        EngineEvent::Notification { key, text } | EngineEvent::Advice { key, text } => {
            OutputEvent::System(SystemEvent::Notification { key, text })
        }
        EngineEvent::TeammateMessage { from, text } => {
            OutputEvent::System(SystemEvent::Notification {
                key: "teammate-message".into(),
                text: format!("{from}: {text}"),
            })
        }
        EngineEvent::Teammate { agent_id, message } => {
            OutputEvent::System(SystemEvent::TeammateMessage {
                session_id: session_id.to_string(),
                agent_id,
                message,
            })
        }
        EngineEvent::Delta {
            event:
                ModelEvent::Retrying {
                    attempt,
                    delay_ms,
                    reason,
                },
            ..
        } => OutputEvent::System(SystemEvent::Notification {
            key: "retrying".into(),
            text: format!("attempt {attempt} failed ({reason}); retrying in {delay_ms} ms"),
        }),
        EngineEvent::Result(outcome) => OutputEvent::Result(result_event(session_id, outcome)),
        EngineEvent::Delta { .. } | EngineEvent::ToolStart { .. } | EngineEvent::ToolEnd { .. } => {
            return None;
        }
    })
}

pub fn result_event(session_id: &str, o: TurnOutcome) -> ResultEvent {
    ResultEvent {
        subtype: o.subtype,
        is_error: o.is_error,
        result: o.result,
        session_id: session_id.to_string(),
        num_turns: o.num_turns,
        duration_ms: o.duration_ms,
        duration_api_ms: o.cost.api_duration_ms,
        usage: o.usage,
        total_cost_usd: o.cost.total_cost_usd,
        model_usage: o.cost.model_usage,
        permission_mode: o.permission_mode,
        plan_file: o.plan_file,
    }
}

pub fn init_event(
    info: &SessionInfo,
    mode: PermissionMode,
    plan_file: Option<String>,
) -> OutputEvent {
    OutputEvent::System(SystemEvent::Init {
        session_id: info.session_id.clone(),
        cwd: info.cwd.clone(),
        model: info.model.clone(),
        permission_mode: mode,
        tools: info.tools.clone(),
        plan_file,
        sandbox: info.sandbox.clone(),
        settings_warnings: info.settings_warnings.clone(),
    })
}

/// Reads stream-json lines from stdin: user turns go to `users`, controls
/// are handled at once (also while a turn runs).
pub async fn read_stdin(
    users: UnboundedSender<Vec<ContentBlock>>,
    control: EngineControl,
    pending: Arc<Pending>,
    out: UnboundedSender<OutputEvent>,
) {
    let mut input = BufReader::new(tokio::io::stdin());
    let mut bytes = Vec::new();
    let mut number = 0u64;
    loop {
        bytes.clear();
        match input.read_until(b'\n', &mut bytes).await {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                notify(&out, "invalid_input", format!("could not read stdin: {e}"));
                break;
            }
        }
        number += 1;
        // Bytes that are not UTF-8 spoil their line only, not the session.
        let line = match std::str::from_utf8(&bytes) {
            Ok(line) => line,
            Err(e) => {
                notify(
                    &out,
                    "invalid_input",
                    format!(
                        "ignored input line {number}: it is not valid UTF-8 (byte {})",
                        e.valid_up_to() + 1
                    ),
                );
                continue;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let message: InputMessage = match serde_json::from_str(line) {
            Ok(m) => m,
            Err(e) => {
                notify(
                    &out,
                    "invalid_input",
                    format!("ignored an input line that is not a valid stream-json message: {e}"),
                );
                continue;
            }
        };
        match message {
            InputMessage::User { message } => {
                if users.send(message.content).is_err() {
                    break;
                }
            }
            InputMessage::ControlRequest {
                request_id,
                request,
            } => {
                let response = handle_control(&control, &request_id, request);
                let _ = out.send(OutputEvent::ControlResponse { response });
            }
            InputMessage::ControlResponse { response } => {
                let request_id = response.request_id().to_string();
                if !pending.answer(response) {
                    notify(
                        &out,
                        "invalid_input",
                        format!("no control request is waiting for id {request_id}"),
                    );
                }
            }
        }
    }
    // End of input: nobody will answer what is still asked (fail closed).
    pending.drop_all();
}

fn handle_control(
    control: &EngineControl,
    request_id: &str,
    request: ControlRequest,
) -> ControlResponse {
    let error = |error: String| ControlResponse::Error {
        request_id: request_id.to_string(),
        error,
    };
    let ok = || ControlResponse::Success {
        request_id: request_id.to_string(),
        response: None,
    };
    match request {
        ControlRequest::Interrupt => {
            control.interrupt();
            ok()
        }
        ControlRequest::SetPermissionMode { mode } => match mode.parse::<PermissionMode>() {
            Ok(mode) => match control.set_permission_mode(mode) {
                Ok(()) => ok(),
                Err(e) => error(e.to_string()),
            },
            Err(e) => error(e.to_string()),
        },
        ControlRequest::CanUseTool { .. } => {
            error("can_use_tool is sent by catui, not to it".into())
        }
        ControlRequest::PlanApproval { .. } => {
            error("plan_approval is sent by catui, not to it".into())
        }
    }
}

fn notify(out: &UnboundedSender<OutputEvent>, key: &str, text: String) {
    eprintln!("catui: {text}");
    let _ = out.send(OutputEvent::System(SystemEvent::Notification {
        key: key.to_string(),
        text,
    }));
}

/// How long a turn may take to end after a stop signal interrupted it.
const STOP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// How a headless session ended.
pub enum Ended {
    /// The input ran out; the last turn's outcome, if there was one.
    Finished(Option<TurnOutcome>),
    /// A stop signal ended it; whether the turn it interrupted answered
    /// with its own result.
    Stopped { turn_answered: bool },
}

/// Runs a headless session to the end. `stop` (a signal) ends it early:
/// the running turn is interrupted and given a moment to finish with its
/// own result; no further input is taken.
pub async fn run(
    mut engine: Engine,
    first_input: Option<Vec<ContentBlock>>,
    mut users: Option<UnboundedReceiver<Vec<ContentBlock>>>,
    stop: &tokio_util::sync::CancellationToken,
) -> Ended {
    let mut last: Option<TurnOutcome> = None;
    let mut inputs = first_input;
    loop {
        let input = match inputs.take() {
            Some(input) => Some(input),
            None if stop.is_cancelled() => None,
            None => match users.as_mut() {
                Some(rx) => tokio::select! {
                    input = rx.recv() => input,
                    _ = stop.cancelled() => None,
                },
                None => None,
            },
        };
        let Some(input) = input else { break };
        match run_turn(&mut engine, input, stop).await {
            // The turn the stop interrupted ended with its own result.
            Some(_) if stop.is_cancelled() => {
                return Ended::Stopped {
                    turn_answered: true,
                };
            }
            Some(outcome) => last = Some(outcome),
            None => {
                return Ended::Stopped {
                    turn_answered: false,
                };
            }
        }
    }
    if stop.is_cancelled() {
        return Ended::Stopped {
            turn_answered: false,
        };
    }
    Ended::Finished(last)
}

/// One input; `None` when a stop came and the turn did not end in time.
async fn run_turn(
    engine: &mut Engine,
    input: Vec<ContentBlock>,
    stop: &tokio_util::sync::CancellationToken,
) -> Option<TurnOutcome> {
    let control = engine.control();
    if stop.is_cancelled() {
        control.interrupt();
    }
    let turn = engine.handle_input(input);
    tokio::pin!(turn);
    tokio::select! {
        outcome = &mut turn => return Some(outcome),
        _ = stop.cancelled() => control.interrupt(),
    }
    tokio::time::timeout(STOP_TIMEOUT, turn).await.ok()
}

/// The `result` that ends a session stopped by `signal` when no turn
/// answered for it.
pub fn stopped_result(
    session_id: &str,
    signal: &str,
    permission_mode: PermissionMode,
) -> ResultEvent {
    ResultEvent {
        subtype: ResultSubtype::ErrorDuringExecution,
        is_error: true,
        result: format!("catui was stopped by {signal}; the session ended."),
        session_id: session_id.to_string(),
        num_turns: 0,
        duration_ms: 0,
        duration_api_ms: 0,
        usage: Default::default(),
        total_cost_usd: 0.0,
        model_usage: Default::default(),
        permission_mode,
        plan_file: None,
    }
}

/// A channel pair for control lines.
pub fn control_channel() -> (UnboundedSender<OutputEvent>, UnboundedReceiver<OutputEvent>) {
    unbounded_channel()
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

    #[tokio::test]
    async fn an_unanswered_plan_is_rejected_when_input_closes() {
        let (out, mut rx) = control_channel();
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
}
