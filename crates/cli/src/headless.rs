//! Headless mode (`-p`): text, json and stream-json output, and with
//! `--input-format stream-json` a long-lived session driven by JSON lines
//! on stdin (SPEC §2.1). Stdout carries only the selected output; anything
//! else goes to stderr.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use catui_core::engine::{
    Approver, Engine, EngineControl, EngineEvent, PermissionAnswer, PermissionRequest, TurnOutcome,
};
use catui_protocol::stream_json::{
    ControlRequest, ControlResponse, InputMessage, OutputEvent, PermissionResponse, ResultEvent,
    ResultSubtype, SystemEvent,
};
use catui_protocol::{ContentBlock, ModelEvent, PermissionMode};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::sync::oneshot;

use crate::args::OutputFormat;

/// What the init event reports.
pub struct SessionInfo {
    pub session_id: String,
    pub cwd: String,
    pub model: String,
    pub tools: Vec<String>,
    pub sandbox: String,
    /// Whether `auto` is offered (setting `autoMode.enabled`).
    pub auto_mode_enabled: bool,
}

/// Pending permission questions, answered by `control_response` lines.
#[derive(Default)]
pub struct Pending {
    next: AtomicU64,
    waiting: Mutex<HashMap<String, oneshot::Sender<PermissionAnswer>>>,
}

impl Pending {
    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Sender<PermissionAnswer>>> {
        match self.waiting.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Answers a request; false when nothing waits for it.
    fn answer(&self, request_id: &str, answer: PermissionAnswer) -> bool {
        match self.lock().remove(request_id) {
            Some(tx) => tx.send(answer).is_ok(),
            None => false,
        }
    }

    /// Denies everything still waiting (stdin closed): fail closed.
    fn deny_all(&self, message: &str) {
        for (_, tx) in self.lock().drain() {
            let _ = tx.send(PermissionAnswer::Deny {
                message: message.to_string(),
            });
        }
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
        let n = self.pending.next.fetch_add(1, Ordering::Relaxed) + 1;
        let request_id = format!("perm-{n}");
        let (tx, rx) = oneshot::channel();
        self.pending.lock().insert(request_id.clone(), tx);
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
            self.pending.lock().remove(&request_id);
            return PermissionAnswer::Deny {
                message: "no client is connected to answer".into(),
            };
        }
        rx.await.unwrap_or(PermissionAnswer::Deny {
            message: "the client did not answer the permission request".into(),
        })
    }
}

/// Translates engine events and control lines to the output format.
pub async fn print_events(
    format: OutputFormat,
    verbose: bool,
    session_id: String,
    mut events: UnboundedReceiver<EngineEvent>,
    mut controls: UnboundedReceiver<OutputEvent>,
) {
    let mut stdout = tokio::io::stdout();
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
            EngineEvent::Notification { key, text } if key == "plan-verification" => {
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
        EngineEvent::Notification { key, text } => {
            OutputEvent::System(SystemEvent::Notification { key, text })
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
        usage: o.usage,
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
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                notify(&out, "invalid_input", format!("could not read stdin: {e}"));
                break;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let message: InputMessage = match serde_json::from_str(&line) {
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
                let answer = match response {
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
                        Ok(PermissionResponse::Deny { message }) => {
                            PermissionAnswer::Deny { message }
                        }
                        Err(e) => PermissionAnswer::Deny {
                            message: format!("unreadable permission answer: {e}"),
                        },
                    },
                    ControlResponse::Success { response: None, .. } => PermissionAnswer::Deny {
                        message: "the permission answer had no decision".into(),
                    },
                    ControlResponse::Error { error, .. } => {
                        PermissionAnswer::Deny { message: error }
                    }
                };
                if !pending.answer(&request_id, answer) {
                    notify(
                        &out,
                        "invalid_input",
                        format!("no permission request is waiting for id {request_id}"),
                    );
                }
            }
        }
    }
    // End of input: nobody will answer what is still asked.
    pending.deny_all("the client closed its input before answering");
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
                Err(e) => error(e),
            },
            Err(e) => error(e.to_string()),
        },
        ControlRequest::CanUseTool { .. } => {
            error("can_use_tool is sent by catui, not to it".into())
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

/// Runs a headless session to the end; returns the process exit code.
pub async fn run(
    mut engine: Engine,
    first_input: Option<Vec<ContentBlock>>,
    mut users: Option<UnboundedReceiver<Vec<ContentBlock>>>,
) -> i32 {
    let mut last: Option<TurnOutcome> = None;
    if let Some(input) = first_input {
        last = Some(engine.handle_input(input).await);
    }
    if let Some(rx) = users.as_mut() {
        while let Some(input) = rx.recv().await {
            last = Some(engine.handle_input(input).await);
        }
    }
    match last {
        Some(o) if o.is_error => 1,
        _ => 0,
    }
}

/// A channel pair for control lines.
pub fn control_channel() -> (UnboundedSender<OutputEvent>, UnboundedReceiver<OutputEvent>) {
    unbounded_channel()
}
