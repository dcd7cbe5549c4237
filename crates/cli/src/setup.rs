//! The command line's side of a session: arguments become a
//! [`SessionConfig`], the chosen front end (terminal UI or headless)
//! supplies its [`FrontEnd`], and `catui_core::builder` does the rest.

use std::path::PathBuf;
use std::sync::Arc;

use catui_core::builder::{FrontEnd, SessionBuilder, SessionInfo};
use catui_core::checkpoints::Checkpoints;
use catui_core::engine::{Engine, EngineEvent, UserInput};
use catui_core::teams::TeamManager;
use catui_protocol::ContentBlock;
use catui_protocol::stream_json::OutputEvent;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio_util::sync::CancellationToken;

use crate::args::{Args, InputFormat};
use crate::headless::sdk_hooks::SdkHooks;
use crate::headless::{self, Controls, Pending, StdioApprover, StdioPlanReviewer};
use crate::sdk_flags;
use crate::session_config::{config_from_args, process_dirs, stderr_warnings};
use crate::signals;

/// A session ready to run, with what its front end needs.
pub struct Session {
    pub engine: Engine,
    pub events: UnboundedReceiver<EngineEvent>,
    pub info: SessionInfo,
    /// Set when a client on stdin answers permission prompts.
    pub pending: Option<Arc<Pending>>,
    pub controls_tx: UnboundedSender<OutputEvent>,
    pub controls_rx: UnboundedReceiver<OutputEvent>,
    /// Permission prompts for the terminal UI.
    pub approvals: Option<catui_tui::ApprovalReceiver>,
    /// The lead's teams (interactive sessions: the TUI and stream-json).
    pub team: Option<Arc<TeamManager>>,
    /// Hooks a stream-json client registers.
    pub hooks: Arc<SdkHooks>,
    /// The session's MCP servers.
    pub mcp: catui_core::mcp::McpManager,
    /// Inline `--settings` JSON, as the file the session reads: it must
    /// outlive the session, which reads it again when settings change.
    pub inline_settings: Option<tempfile::NamedTempFile>,
    /// Checkpoints and rewind, when on.
    pub checkpoints: Option<Arc<Checkpoints>>,
    /// The session's background commands (the TUI's Ctrl+B and `/bashes`).
    pub background: Arc<catui_core::tools::bash::BackgroundShells>,
    /// The sub-agents running in the background (`stop_task`, waiting
    /// for them before a headless run ends).
    pub background_agents: Arc<catui_core::agents::BackgroundAgents>,
    /// OpenTelemetry export (`CATUI_ENABLE_TELEMETRY=1`), finished when the
    /// session ends.
    pub telemetry: Option<crate::telemetry::Telemetry>,
    /// Options a stream-json client may still set (`initialize`).
    pub late: catui_core::builder::LateSetup,
    /// The session's link to the broker, when one is configured.
    pub broker: Option<Arc<crate::broker::SessionBroker>>,
}

/// Builds the session for the terminal UI (`tui`) or headless; the error
/// is one line for the user (exit 2).
pub async fn build(args: &Args, tui: bool) -> Result<Session, String> {
    let (cwd, config_dir) = process_dirs()?;
    let mut config = config_from_args(args, cwd, config_dir)?;
    let kind = match (tui, args.input_format) {
        (true, _) => "tui",
        (false, InputFormat::StreamJson) => "sdk",
        (false, InputFormat::Text) => "headless",
    };
    let broker = crate::broker::for_session(args, &config, kind).await?;
    // Someone at the keyboard gets checkpoints unless the settings say
    // no; headless runs only when asked (the SDKs' variable, the setting).
    config.checkpoints_default = tui;
    // Inline `--settings` JSON is read from a file, kept (and removed at
    // the end) with the session.
    let (settings_file, inline_settings) = sdk_flags::settings_file(args)?;
    config.settings_file = settings_file;
    let (controls_tx, controls_rx) = headless::control_channel();
    let hooks = Arc::new(SdkHooks::default());
    let mut pending = None;
    let mut approvals = None;
    let turn = Arc::new(std::sync::OnceLock::new());
    let front_end = if tui {
        let (approver, receiver) = catui_tui::approver();
        approvals = Some(receiver);
        FrontEnd::interactive(Arc::new(approver))
    } else if args.input_format == InputFormat::StreamJson {
        // A client on stdin answers permission prompts and reviews
        // teammates' plans.
        let p = Arc::new(Pending::default());
        pending = Some(p.clone());
        let approver = StdioApprover {
            out: controls_tx.clone(),
            pending: p.clone(),
            hooks: hooks.clone(),
            dont_ask: sdk_flags::is_dont_ask(args),
            turn: turn.clone(),
        };
        FrontEnd::interactive(Arc::new(approver)).with_plan_reviewer(Arc::new(StdioPlanReviewer {
            out: controls_tx.clone(),
            pending: p,
        }))
    } else if let Some(approver) = broker.as_ref().and_then(|b| b.approver()) {
        // `--approvals broker`: someone answers, from another machine.
        FrontEnd::interactive(approver)
    } else {
        FrontEnd::unattended()
    };
    let team_backend = broker
        .as_ref()
        .map(|b| b.team_backend())
        .unwrap_or_default();
    let session = SessionBuilder::new(config)
        .with_team_backend(team_backend)
        .front_end(
            front_end
                .with_unattended(args.unattended && !tui)
                .with_warnings(stderr_warnings()),
        )
        .build()
        .map_err(|e| e.to_string())?;
    let _ = turn.set(session.engine.control().downgrade());
    let events = match &broker {
        Some(b) => b.attach(
            &session.info,
            session.engine.plan_file().map(PathBuf::from),
            session.events,
            !tui && args.output_format == crate::args::OutputFormat::Text,
        ),
        None => session.events,
    };
    let (events, telemetry) =
        crate::telemetry::attach_session(&session.engine, &session.info, tui, events);
    Ok(Session {
        engine: session.engine,
        events,
        info: session.info,
        pending,
        controls_tx,
        controls_rx,
        approvals,
        team: session.team,
        hooks,
        mcp: session.mcp,
        inline_settings,
        checkpoints: session.checkpoints,
        background: session.background,
        background_agents: session.background_agents,
        late: session.late,
        broker,
        telemetry,
    })
}

/// Runs a headless session to its end and returns the exit code.
pub async fn run_headless(args: &Args, session: Session, first_input: Option<String>) -> u8 {
    let Session {
        engine,
        events,
        info,
        pending,
        controls_tx,
        controls_rx,
        team,
        hooks,
        mcp,
        // Read again on settings changes until the session ends.
        inline_settings: _inline_settings,
        checkpoints,
        background,
        background_agents,
        late,
        broker,
        telemetry,
        ..
    } = session;
    let background = headless::Background {
        shells: background,
        agents: background_agents,
    };
    let stream_json = args.output_format == crate::args::OutputFormat::StreamJson;
    if stream_json {
        // `init` reports the servers as the model will get them: connected
        // with their tools, or failed (bounded by their startup timeout).
        mcp.settled().await;
    }
    let init = stream_json.then(|| {
        headless::init_event(
            &info,
            engine.permission_mode(),
            engine.plan_file(),
            &mcp,
            late.agent_names(),
        )
    });
    // Flags catui accepts but cannot honour are said once, after `init`.
    for text in sdk_flags::unsupported(args) {
        eprintln!("catui: {text}");
        let _ = controls_tx.send(OutputEvent::System(
            catui_protocol::stream_json::SystemEvent::Notification {
                key: "unsupported_option".into(),
                text,
            },
        ));
    }
    let printer = tokio::spawn(headless::print_events(
        headless::PrintOptions {
            format: args.output_format,
            verbose: args.verbose,
            session_id: info.session_id.clone(),
            model: info.model.clone(),
            partial_messages: args.include_partial_messages,
            replay_user_messages: args.replay_user_messages,
        },
        events,
        controls_rx,
        init,
    ));
    let users = match pending {
        Some(pending) => {
            let (users_tx, users_rx) = unbounded_channel::<UserInput>();
            // Teammates' messages and plan requests reach the lead model
            // as user turns (with ids of their own); the stdin reader keeps
            // their channel open for as long as it keeps its own.
            let (team_tx, mut team_rx) = unbounded_channel::<Vec<ContentBlock>>();
            if let Some(team) = &team {
                team.set_lead_input(team_tx.downgrade());
            }
            let lead = users_tx.downgrade();
            tokio::spawn(async move {
                while let Some(content) = team_rx.recv().await {
                    let Some(users) = lead.upgrade() else { break };
                    let _ = users.send(UserInput {
                        content,
                        uuid: None,
                    });
                }
            });
            mcp.set_sdk_channel(Some(Arc::new(headless::SdkMcpChannel {
                out: controls_tx.downgrade(),
                pending: pending.clone(),
            })));
            let controls = Controls {
                control: engine.control(),
                pending,
                out: controls_tx.clone(),
                default_model: info.model.clone(),
                hooks,
                mcp: mcp.clone(),
                checkpoints,
                background: background.clone(),
                late: late.clone(),
            };
            tokio::spawn(async move {
                headless::read_stdin(users_tx, controls).await;
                drop(team_tx);
            });
            Some(users_rx)
        }
        None => {
            mcp.set_sdk_channel(None);
            // Nobody sends rewinds; it must not keep the event stream open.
            drop(checkpoints);
            None
        }
    };
    let first = first_input.map(|t| vec![ContentBlock::text(t)]);
    let mode = engine.permission_mode();
    // The session loop interrupts the running turn when a signal arrives.
    let stop = signals::watch(|_| {}, || {});
    let ended = headless::run(engine, first, users, &background.agents, stop.token()).await;
    let code = match ended {
        headless::Ended::Finished(Some(o)) if o.is_error => 1,
        headless::Ended::Finished(_) => 0,
        headless::Ended::Stopped { turn_answered } => {
            let signal = stop.name();
            if !turn_answered {
                // Nothing answered for the session's end: say it here.
                let result = headless::stopped_result(&info.session_id, signal, mode);
                if args.output_format == crate::args::OutputFormat::Text {
                    eprintln!("catui: {}", result.result);
                }
                let _ = controls_tx.send(OutputEvent::Result(result));
            } else {
                eprintln!("catui: stopped by {signal}");
            }
            stop.exit_code().unwrap_or(1)
        }
    };
    drop(controls_tx);
    if let Some(team) = team {
        team.shutdown().await;
    }
    if let Some(broker) = &broker {
        broker.finish(code).await;
    }
    mcp.shutdown().await;
    // Background jobs of Bash commands end with the session.
    catui_core::tools::bash::groups::kill_all();
    // The engine is gone, so the event channel closes and the printer drains.
    let _ = printer.await;
    if let Some(telemetry) = telemetry {
        telemetry.finish().await;
    }
    code
}

/// Runs the full-screen interface to its end and returns the exit code.
/// `/resume` ends the session and starts the chosen one in its place.
pub async fn run_tui(args: &mut Args, mut session: Session) -> u8 {
    loop {
        let Session {
            engine,
            events,
            info,
            approvals,
            team,
            mcp,
            inline_settings: _inline_settings,
            checkpoints,
            background,
            background_agents,
            broker,
            telemetry,
            ..
        } = session;
        let Some(approvals) = approvals else {
            say("catui: internal error: the session was not built for the terminal UI");
            return 1;
        };
        mcp.set_sdk_channel(None);
        let exit = tui_front_end(
            engine,
            events,
            &info,
            approvals,
            TuiParts {
                team,
                checkpoints,
                background: Some(background),
                broker: broker.as_ref().and_then(|b| b.tui_commands()),
            },
            args.prompt.clone(),
        )
        .await;
        mcp.shutdown().await;
        // The session's background agents end with it (also before
        // `/resume` starts another in this process).
        background_agents
            .stop_all(std::time::Duration::from_secs(5))
            .await;
        if let Some(telemetry) = telemetry {
            telemetry.finish().await;
        }
        if let Some(broker) = &broker {
            broker
                .finish(match exit {
                    TuiExit::Code(code) => code,
                    TuiExit::Resume(_) => 0,
                })
                .await;
        }
        let id = match exit {
            TuiExit::Code(code) => return code,
            TuiExit::Resume(id) => id,
        };
        // The session has ended (its lock is released); the chosen one
        // starts in the same terminal.
        args.resume = Some(id);
        args.continue_session = false;
        args.fork_session = false;
        args.session_id = None;
        args.prompt = None;
        session = match build(args, true).await {
            Ok(next) => next,
            Err(e) => {
                say(&format!("catui: {e}"));
                return 2;
            }
        };
    }
}

/// How the terminal UI ended for the binary.
pub enum TuiExit {
    /// Exit with this status.
    Code(u8),
    /// `/resume`: start this session next.
    Resume(String),
}

/// The parts of a session the terminal UI follows besides its engine.
pub struct TuiParts {
    pub team: Option<Arc<TeamManager>>,
    pub checkpoints: Option<Arc<Checkpoints>>,
    pub background: Option<Arc<catui_core::tools::bash::BackgroundShells>>,
    /// `/agents` and `/approvals`, with a broker.
    pub broker: Option<catui_tui::BrokerLink>,
}

/// The terminal UI over a built session (`catui` and the interactive
/// demo); `first_prompt` is sent as the first input.
pub async fn tui_front_end(
    engine: Engine,
    events: UnboundedReceiver<EngineEvent>,
    info: &SessionInfo,
    approvals: catui_tui::ApprovalReceiver,
    TuiParts {
        team,
        checkpoints,
        background,
        broker,
    }: TuiParts,
    first_prompt: Option<String>,
) -> TuiExit {
    let opts = catui_tui::TuiOptions {
        model: info.model.clone(),
        cwd: info.cwd.clone(),
        session_id: info.session_id.clone(),
        first_prompt,
        auto_mode_enabled: info.auto_mode_enabled,
        commands: info.commands.clone(),
        sessions_dir: Some(catui_core::session::project_dir_in_config_dir(
            std::path::Path::new(&info.cwd),
        )),
        stop: CancellationToken::new(),
        background,
        broker,
        status_line: info.status_line.clone(),
    };
    // SIGTERM/SIGHUP (or a SIGINT sent from elsewhere: in the UI Ctrl+C is
    // a key) end the interface as quitting does — the turn interrupted and
    // recorded, the terminal restored — within a deadline, since the
    // terminal may be gone. Nothing here may print with `eprintln!`: it
    // panics when the terminal has hung up.
    let ui_stop = opts.stop.clone();
    let stop = signals::watch(
        move |stop| {
            signals::exit_within(EXIT_GRACE, stop.exit_code().unwrap_or(1));
            ui_stop.cancel();
        },
        catui_tui::restore_terminal,
    );
    let code =
        match catui_tui::run(engine, events, approvals, opts, team.clone(), checkpoints).await {
            Ok(catui_tui::Ending::Quit) => 0,
            Ok(catui_tui::Ending::Resume(id)) => {
                if let Some(team) = team {
                    team.shutdown().await;
                }
                return TuiExit::Resume(id);
            }
            Ok(catui_tui::Ending::Stopped) => {
                say(&format!("catui: stopped by {}", stop.name()));
                stop.exit_code().unwrap_or(1)
            }
            Ok(catui_tui::Ending::HungUp) => {
                signals::exit_within(EXIT_GRACE, HANGUP_EXIT);
                HANGUP_EXIT
            }
            Err(e) => {
                // Most often the terminal itself failed: end promptly.
                signals::exit_within(EXIT_GRACE, 1);
                catui_tui::restore_terminal();
                say(&format!("catui: the terminal interface failed: {e}"));
                1
            }
        };
    // Leaving the lead session stops its teammates; their inboxes stay.
    if let Some(team) = team {
        team.shutdown().await;
    }
    TuiExit::Code(code)
}

/// How long a session stopped by a signal or a hang-up may take to end.
const EXIT_GRACE: std::time::Duration = std::time::Duration::from_millis(900);
/// The exit status after the terminal hung up (as for SIGHUP).
const HANGUP_EXIT: u8 = 129;

/// A line on stderr that is lost, not a panic, when the terminal is gone.
fn say(text: &str) {
    crate::output::err_line(text);
}
