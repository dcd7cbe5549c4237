//! One ACP session: a catui session built by core's `SessionBuilder` with
//! the ACP approver as its front end, the task that streams its events, and
//! the turn that is running.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    AvailableCommandsUpdate, PromptResponse, SessionId, SessionUpdate, StopReason,
};
use agent_client_protocol::{Client, Error, ErrorCode};
use catui_core::builder::{FrontEnd, Resume, SessionBuilder, SessionConfig};
use catui_core::engine::{Engine, EngineControl};
use catui_core::teams::TeamManager;
use catui_protocol::ContentBlock;
use catui_protocol::stream_json::ResultSubtype;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio::sync::{Mutex, OnceCell};

use super::approver::{AcpApprover, Wiring};
use super::mapping;
use super::updates::{Notifier, Updates};

/// A running session.
pub struct AcpSession {
    pub id: String,
    engine: Mutex<Engine>,
    control: EngineControl,
    updates: Updates,
    pub notifier: Notifier,
    /// Set by `session/cancel` while a turn runs.
    cancelled: AtomicBool,
    pub auto_enabled: bool,
    team: Option<Arc<TeamManager>>,
    /// The editor's and the project's MCP servers.
    mcp: catui_core::mcp::McpManager,
    /// What of the project's own configuration was held back (the project
    /// is not trusted), said once when the session is announced.
    pub trust_notice: Option<String>,
    /// The custom commands, `(name, description)`, announced with the
    /// built-in ones as the session's available commands.
    pub commands: Vec<(String, String)>,
    /// OpenTelemetry export, finished when the session closes.
    telemetry: Mutex<Option<crate::telemetry::Telemetry>>,
    /// Keeps the teammates' way to the lead open (the team holds a weak end).
    _lead_tx: UnboundedSender<Vec<ContentBlock>>,
}

/// Which session to start.
pub enum Start {
    New,
    /// Resume this catui session (its transcript) under the same id.
    Load(String),
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::INVALID_PARAMS, message)
}

impl AcpSession {
    /// Builds the session in `cwd` through core's one session builder.
    pub fn open(
        cx: ConnectionTo<Client>,
        template: &SessionConfig,
        cwd: PathBuf,
        start: Start,
        mcp_servers: Vec<catui_core::mcp::config::ServerSpec>,
        fs: super::files::FsCapabilities,
    ) -> Result<Arc<AcpSession>, Error> {
        if !cwd.is_absolute() {
            return Err(invalid(format!(
                "cwd {} is not an absolute path",
                cwd.display()
            )));
        }
        let cwd = std::fs::canonicalize(&cwd)
            .map_err(|e| invalid(format!("cwd {}: {e}", cwd.display())))?;
        let mut config = template.clone();
        config.cwd = cwd.clone();
        config.mcp_servers.extend(mcp_servers);
        let id = match start {
            Start::New => {
                let id = uuid::Uuid::new_v4().to_string();
                config.session_id = Some(id.clone());
                config.resume = Resume::default();
                id
            }
            Start::Load(id) => {
                config.session_id = None;
                config.resume = Resume {
                    resume: Some(id.clone()),
                    ..Resume::default()
                };
                id
            }
        };
        let session_id = SessionId::new(id);
        let wiring = Arc::new(OnceCell::new());
        let approver = AcpApprover {
            cx: cx.clone(),
            session_id: session_id.clone(),
            wiring: wiring.clone(),
        };
        let mut front_end = FrontEnd::interactive(Arc::new(approver))
            .with_warnings(crate::session_config::stderr_warnings());
        if fs.terminal {
            // Commands the user allowed run in the editor's terminal.
            front_end = front_end.with_editor_terminal(Arc::new(super::files::AcpTerminal {
                cx: cx.clone(),
                session_id: session_id.clone(),
            }));
        }
        if fs.any() {
            // Reads see the editor's unsaved buffers; writes go through it.
            front_end = front_end.with_editor_files(Arc::new(super::files::AcpFiles {
                cx: cx.clone(),
                session_id: session_id.clone(),
                can: fs,
            }));
        }
        let session = SessionBuilder::new(config)
            .front_end(front_end)
            .build()
            .map_err(|e| invalid(e.to_string()))?;
        let notifier = Notifier {
            cx,
            session_id,
            cwd,
            shown: Default::default(),
        };
        let (events, telemetry) =
            crate::telemetry::attach_session(&session.engine, &session.info, false, session.events);
        let updates = Updates::start(notifier.clone(), events);
        let _ = wiring.set(Wiring {
            notifier: notifier.clone(),
            updates: updates.clone(),
        });
        // Teammates' messages reach the lead model as turns of their own;
        // their updates stream like a prompt's.
        let (lead_tx, mut lead_rx) = unbounded_channel::<Vec<ContentBlock>>();
        if let Some(team) = &session.team {
            team.set_lead_input(lead_tx.downgrade());
        }
        let acp_session = Arc::new(AcpSession {
            id: session.info.session_id,
            control: session.engine.control(),
            engine: Mutex::new(session.engine),
            updates,
            notifier,
            cancelled: AtomicBool::new(false),
            auto_enabled: session.info.auto_mode_enabled,
            team: session.team,
            mcp: session.mcp,
            trust_notice: session.info.trust_notice,
            commands: session.info.commands,
            telemetry: Mutex::new(telemetry),
            _lead_tx: lead_tx,
        });
        // No SDK application here: in-process SDK servers cannot start.
        acp_session.mcp.set_sdk_channel(None);
        let weak = Arc::downgrade(&acp_session);
        tokio::spawn(async move {
            while let Some(input) = lead_rx.recv().await {
                let Some(session) = weak.upgrade() else { break };
                session.prompt(input).await;
            }
        });
        Ok(acp_session)
    }

    /// `_meta` of the `session/new` and `session/load` answers: what of the
    /// project's configuration waits for trust, when anything does.
    pub fn meta(&self) -> Option<serde_json::Map<String, serde_json::Value>> {
        let notice = self.trust_notice.as_ref()?;
        let mut meta = serde_json::Map::new();
        meta.insert(
            "catui".into(),
            serde_json::json!({ "projectTrust": { "heldBack": true, "notice": notice } }),
        );
        Some(meta)
    }

    /// Says [`AcpSession::trust_notice`] to the user (after the session
    /// was announced, so the client knows the session).
    pub fn announce(&self) {
        if let Some(notice) = &self.trust_notice {
            self.notifier.notice(notice);
        }
        self.notifier.send(SessionUpdate::AvailableCommandsUpdate(
            AvailableCommandsUpdate::new(mapping::available_commands(&self.commands)),
        ));
    }

    pub fn modes(&self) -> agent_client_protocol::v1::schema::SessionModeState {
        mapping::modes(self.control.permission_mode(), self.auto_enabled)
    }

    /// Sends the conversation so far (a loaded session).
    pub async fn replay(&self) {
        let engine = self.engine.lock().await;
        self.notifier.replay(engine.messages());
    }

    /// Runs one prompt to its end; updates stream while it runs and all
    /// of them precede the response.
    pub async fn prompt(&self, input: Vec<ContentBlock>) -> PromptResponse {
        let mut engine = self.engine.lock().await;
        self.cancelled.store(false, Ordering::SeqCst);
        let outcome = engine.handle_input(input).await;
        drop(engine);
        self.updates.flush().await;
        let stop = if self.cancelled.swap(false, Ordering::SeqCst) {
            StopReason::Cancelled
        } else {
            match outcome.subtype {
                ResultSubtype::ErrorMaxTurns => StopReason::MaxTurnRequests,
                _ => StopReason::EndTurn,
            }
        };
        PromptResponse::new(stop)
    }

    /// `session/cancel`: interrupts the running turn as Esc does.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        self.control.interrupt();
    }

    /// `session/set_mode`, through the engine's one transition function.
    pub fn set_mode(&self, mode: &str) -> Result<(), Error> {
        let mode = mode
            .parse::<catui_protocol::PermissionMode>()
            .map_err(|e| invalid(e.to_string()))?;
        if mode == catui_protocol::PermissionMode::Auto && !self.auto_enabled {
            return Err(invalid(
                "auto mode is not enabled (settings autoMode.enabled)",
            ));
        }
        self.control
            .set_permission_mode(mode)
            .map_err(|e| invalid(e.to_string()))
    }

    /// Stops the session's teammates.
    pub async fn close(&self) {
        self.control.interrupt();
        if let Some(team) = &self.team {
            team.shutdown().await;
        }
        self.mcp.shutdown().await;
        let telemetry = self.telemetry.lock().await.take();
        if let Some(telemetry) = telemetry {
            telemetry.finish().await;
        }
    }
}
