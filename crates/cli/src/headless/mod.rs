//! Headless mode (`-p`): text, json and stream-json output, and with
//! `--input-format stream-json` a long-lived session driven by JSON lines
//! on stdin (docs/SDK.md). Stdout carries only the selected
//! output; anything else goes to stderr.

mod background;
mod control;
mod pending;
pub mod sdk_hooks;
mod sdk_mcp_channel;
mod stdio_approver;
mod stream;
mod tasks;

use std::sync::Arc;

use catui_core::engine::{Engine, EngineEvent, TurnOutcome, UserInput};
use catui_protocol::stream_json::{
    InitEvent, InputMessage, OutputEvent, ResultEvent, ResultSubtype, SystemEvent,
};
use catui_protocol::{ContentBlock, ModelEvent, PermissionMode};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use crate::args::OutputFormat;

pub use background::Background;
pub use catui_core::builder::SessionInfo;
pub use control::Controls;
pub use pending::Pending;
pub use sdk_mcp_channel::SdkMcpChannel;
pub use stdio_approver::{StdioApprover, StdioPlanReviewer};
use stream::{StreamJson, new_uuid, result_event};

/// How the printer renders a session.
pub struct PrintOptions {
    pub format: OutputFormat,
    pub verbose: bool,
    pub session_id: String,
    pub model: String,
    /// `--include-partial-messages`.
    pub partial_messages: bool,
    /// `--replay-user-messages`.
    pub replay_user_messages: bool,
}

/// Translates engine events and control lines to the output format.
/// `first` (the init event) is printed before anything else, also before
/// notifications the session queued while it was being built.
pub async fn print_events(
    options: PrintOptions,
    mut events: UnboundedReceiver<EngineEvent>,
    mut controls: UnboundedReceiver<OutputEvent>,
    first: Option<OutputEvent>,
) {
    let PrintOptions {
        format,
        verbose,
        session_id,
        model,
        partial_messages,
        replay_user_messages,
    } = options;
    let mut stream_json = StreamJson::new(session_id.clone(), model, partial_messages)
        .replaying_user_messages(replay_user_messages);
    let mut stdout = tokio::io::stdout();
    if let Some(line) = first.and_then(|event| serde_json::to_string(&event).ok()) {
        if stdout
            .write_all(format!("{}\n", crate::output::json_line(&line)).as_bytes())
            .await
            .is_err()
        {
            return;
        }
        let _ = stdout.flush().await;
    }
    let mut events_open = true;
    let mut controls_open = true;
    // json prints one object: the result of the last turn (a background
    // agent's end may add turns after the first result).
    let mut held_result: Option<String> = None;
    while events_open || controls_open {
        // Biased: an engine event emitted before a control request (the
        // assistant message before its permission prompt) is printed first.
        let lines: Vec<String> = tokio::select! {
            biased;
            e = events.recv(), if events_open => match e {
                Some(e) if format == OutputFormat::StreamJson => stream_json
                    .lines(e)
                    .iter()
                    .filter_map(|l| serde_json::to_string(l).ok())
                    .collect(),
                Some(e @ EngineEvent::Result(_)) if format == OutputFormat::Json => {
                    held_result = render_event(format, verbose, &session_id, e);
                    Vec::new()
                }
                Some(e) => render_event(format, verbose, &session_id, e).into_iter().collect(),
                None => { events_open = false; Vec::new() }
            },
            c = controls.recv(), if controls_open => match c {
                Some(c) if format == OutputFormat::StreamJson => {
                    serde_json::to_string(&c).ok().into_iter().collect()
                }
                Some(_) => Vec::new(),
                None => { controls_open = false; Vec::new() }
            },
        };
        for line in lines {
            let line = format!("{}\n", printable(format, &line));
            if stdout.write_all(line.as_bytes()).await.is_err() {
                return; // stdout closed: nothing more to say
            }
        }
        let _ = stdout.flush().await;
    }
    if let Some(line) = held_result {
        let line = format!("{}\n", printable(format, &line));
        let _ = stdout.write_all(line.as_bytes()).await;
        let _ = stdout.flush().await;
    }
}

/// A line of output as it may reach a terminal: JSON with its value
/// kept, text with every escape sequence and control character removed
/// (the model's answer and the plan are text from outside).
fn printable(format: OutputFormat, line: &str) -> std::borrow::Cow<'_, str> {
    match format {
        OutputFormat::Json | OutputFormat::StreamJson => crate::output::json_line(line),
        OutputFormat::Text => crate::output::text(line),
    }
}

fn render_event(
    format: OutputFormat,
    verbose: bool,
    session_id: &str,
    event: EngineEvent,
) -> Option<String> {
    match format {
        // Rendered by `StreamJson`.
        OutputFormat::StreamJson => None,
        OutputFormat::Json => match event {
            EngineEvent::Result(outcome) => {
                let result = result_event(session_id, outcome, None);
                serde_json::to_string(&OutputEvent::Result(result)).ok()
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
            EngineEvent::Result(outcome) => {
                Some(match stream::left_running_text(&outcome.left_running) {
                    Some(left) => format!("{}\n\n{left}", outcome.result.trim_end()),
                    None => outcome.result,
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
            EngineEvent::Delta {
                event:
                    ModelEvent::FellBack {
                        model,
                        fallback,
                        reason,
                    },
                ..
            } => {
                eprintln!(
                    "catui: {}",
                    stream::fallback_text(&model, &fallback, &reason)
                );
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
        EngineEvent::AwaitingTools { pending } if !pending.is_empty() => {
            eprintln!("[waiting for {} to start]", pending.join(", "))
        }
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

/// The `init` line: the session as it starts.
pub fn init_event(
    info: &SessionInfo,
    mode: PermissionMode,
    plan_file: Option<String>,
    mcp: &catui_core::mcp::McpManager,
    agents: Vec<String>,
) -> OutputEvent {
    let servers = mcp.status();
    // The connected servers' tools too: what the first request offers.
    let mut tools = info.tools.clone();
    for server in &servers {
        for (tool, ..) in &server.tool_list {
            let name = catui_protocol::mcp_name::tool_name(&server.name, tool);
            if !tools.contains(&name) {
                tools.push(name);
            }
        }
    }
    OutputEvent::System(SystemEvent::Init(Box::new(InitEvent {
        session_id: info.session_id.clone(),
        cwd: info.cwd.clone(),
        model: info.model.clone(),
        permission_mode: mode,
        permission_mode_sdk: mode,
        tools,
        plan_file,
        sandbox: info.sandbox.clone(),
        settings_warnings: info.settings_warnings.clone(),
        claude_code_version: env!("CARGO_PKG_VERSION").to_string(),
        api_key_source: api_key_source().to_string(),
        mcp_servers: servers.iter().map(|s| s.to_json()).collect(),
        slash_commands: catui_core::engine::slash_commands::COMMANDS
            .iter()
            .map(|(name, _)| name.to_string())
            .chain(info.commands.iter().map(|(name, _)| name.clone()))
            .collect(),
        output_style: "default".into(),
        agents,
        skills: info.skills.clone(),
        plugins: Vec::new(),
        uuid: new_uuid(),
    })))
}

/// The variable the API key comes from (its name only, never the key).
fn api_key_source() -> &'static str {
    let set = |name: &str| std::env::var(name).is_ok_and(|v| !v.is_empty());
    if set("ANTHROPIC_API_KEY") {
        "ANTHROPIC_API_KEY"
    } else if set("OPENAI_API_KEY") {
        "OPENAI_API_KEY"
    } else {
        "none"
    }
}

/// Reads stream-json lines from stdin: user turns go to `users` (with the
/// client's `uuid`, if it gave one), controls are handled at once (also
/// while a turn runs).
pub async fn read_stdin(users: UnboundedSender<UserInput>, controls: Controls) {
    let out = controls.out.clone();
    let pending: Arc<Pending> = controls.pending.clone();
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
            InputMessage::User { message, uuid } => {
                let input = UserInput {
                    content: message.content,
                    uuid,
                };
                if users.send(input).is_err() {
                    break;
                }
            }
            InputMessage::ControlRequest {
                request_id,
                request,
            } => {
                let response = controls.answer(&request_id, &request);
                let _ = out.send(OutputEvent::ControlResponse { response });
            }
            // catui answers every request at once; nothing to cancel.
            InputMessage::ControlCancelRequest { .. } | InputMessage::Other => {}
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
    Finished(Option<Box<TurnOutcome>>),
    /// A stop signal ended it; whether the turn it interrupted answered
    /// with its own result.
    Stopped { turn_answered: bool },
}

/// Runs a headless session to the end. `stop` (a signal) ends it early:
/// the running turn is interrupted and given a moment to finish with its
/// own result; no further input is taken. Background agents the session
/// started take turns of their own when they end between inputs, keep the
/// session open after the input ended (see [`background`]), and are
/// stopped when it ends.
pub async fn run(
    engine: Engine,
    first_input: Option<Vec<ContentBlock>>,
    users: Option<UnboundedReceiver<UserInput>>,
    agents: &catui_core::agents::BackgroundAgents,
    stop: &tokio_util::sync::CancellationToken,
) -> Ended {
    let ended = run_inputs(engine, first_input, users, agents, stop).await;
    agents.stop_all(STOP_TIMEOUT).await;
    ended
}

async fn run_inputs(
    mut engine: Engine,
    first_input: Option<Vec<ContentBlock>>,
    mut users: Option<UnboundedReceiver<UserInput>>,
    agents: &catui_core::agents::BackgroundAgents,
    stop: &tokio_util::sync::CancellationToken,
) -> Ended {
    let ceiling = background::wait_ceiling();
    let mut last: Option<TurnOutcome> = None;
    let mut inputs = first_input.map(|content| UserInput {
        content,
        uuid: None,
    });
    loop {
        let input = match inputs.take() {
            Some(input) => Some(input),
            None if stop.is_cancelled() => None,
            None => background::next_input(&mut users, agents, stop, ceiling).await,
        };
        let Some(input) = input else { break };
        match run_turn(&mut engine, input, stop).await {
            // The turn the stop interrupted ended with its own (error)
            // result, which says the session was stopped.
            Turn::Interrupted(outcome) if outcome.is_error => {
                return Ended::Stopped {
                    turn_answered: true,
                };
            }
            // It finished on its own (the stop came as it ended): the stop
            // still gets its result line, below.
            Turn::Interrupted(outcome) | Turn::Done(outcome) => last = Some(outcome),
            Turn::Stuck => {
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
    // The input ran out: SessionEnd hooks, bounded so that a client that
    // left without answering cannot keep the process alive.
    let end = engine.end_session("other");
    tokio::select! {
        _ = tokio::time::timeout(SESSION_END_TIMEOUT, end) => {}
        _ = stop.cancelled() => {}
    }
    Ended::Finished(last.map(Box::new))
}

/// How long `SessionEnd` hooks may take when the input has run out.
const SESSION_END_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// How one input ended.
enum Turn {
    /// It ran to its end with no stop.
    Done(TurnOutcome),
    /// A stop came while it ran; it was interrupted and ended in time.
    Interrupted(TurnOutcome),
    /// A stop came and it did not end in time.
    Stuck,
}

async fn run_turn(
    engine: &mut Engine,
    input: UserInput,
    stop: &tokio_util::sync::CancellationToken,
) -> Turn {
    let control = engine.control();
    if stop.is_cancelled() {
        control.interrupt();
    }
    let turn = engine.handle_user_input(input);
    tokio::pin!(turn);
    tokio::select! {
        // A turn that has ended wins over a stop that came at the same time.
        biased;
        outcome = &mut turn => return Turn::Done(outcome),
        _ = stop.cancelled() => control.interrupt(),
    }
    match tokio::time::timeout(STOP_TIMEOUT, turn).await {
        Ok(outcome) => Turn::Interrupted(outcome),
        Err(_) => Turn::Stuck,
    }
}

/// The `result` that ends a session stopped by `signal` when no turn
/// answered for it.
pub fn stopped_result(
    session_id: &str,
    signal: &str,
    permission_mode: PermissionMode,
) -> ResultEvent {
    let result = format!("catui was stopped by {signal}; the session ended.");
    ResultEvent {
        errors: vec![result.clone()],
        subtype: ResultSubtype::ErrorDuringExecution,
        is_error: true,
        result,
        session_id: session_id.to_string(),
        num_turns: 0,
        duration_ms: 0,
        duration_api_ms: 0,
        stop_reason: None,
        usage: Default::default(),
        total_cost_usd: 0.0,
        model_usage: Default::default(),
        permission_mode,
        plan_file: None,
        uuid: new_uuid(),
        structured_output: None,
        left_running: Vec::new(),
        goal: None,
        plan_report: None,
    }
}

/// A channel pair for control lines.
pub fn control_channel() -> (UnboundedSender<OutputEvent>, UnboundedReceiver<OutputEvent>) {
    unbounded_channel()
}
