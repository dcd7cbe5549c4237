//! A session's link to the broker: connected before the session is built
//! (an unreachable broker is an error at start when the run needs it for
//! approvals or mailboxes, a warning when it only publishes its state), its
//! presence in the registry once it has an id, its state followed from its
//! events (`working` / `idle`; the approver sets `waiting_for_you`), what the
//! user is told when the broker goes away and comes back, and its last
//! state when it ends.

use std::sync::Arc;

use catui_broker::approver::Asker;
use catui_broker::{
    AgentState, Approvals, Broker, BrokerApprover, Link, Presence, Registry, SessionEntry,
};
use catui_core::builder::SessionInfo;
use catui_core::engine::{Approver, EngineEvent};
use catui_core::session::redact::Redactor;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use super::Choice;

/// What one session has of the broker.
pub struct SessionBroker {
    broker: Broker,
    registry: Registry,
    asker: Arc<Asker>,
    approver: Option<Arc<BrokerApprover>>,
    /// Mailboxes and workers with `teams.backend: "broker"`.
    teams: catui_core::teams::TeamBackend,
    kind: &'static str,
}

impl SessionBroker {
    /// Connects for a session of `kind` (`tui`, `headless`, `sdk`) in
    /// `project`. `Ok(None)`: no broker is configured, or it is unreachable
    /// and the run needs it only to be listed (said on stderr).
    pub async fn prepare(
        choice: Option<Choice>,
        project: &str,
        kind: &'static str,
    ) -> Result<Option<Arc<SessionBroker>>, String> {
        let Some(choice) = choice else {
            return Ok(None);
        };
        let needed = choice.approvals || choice.teams;
        let connected = async {
            let broker = Broker::connect(&choice.config).await?;
            let registry = Registry::open(&broker).await?;
            let approvals = if choice.approvals {
                Some(Approvals::open(&broker).await?)
            } else {
                None
            };
            let mut teams = catui_core::teams::TeamBackend::default();
            if choice.teams {
                let mailboxes: Arc<dyn catui_core::teams::MailboxBackend> =
                    catui_broker::BrokerMailboxes::open(&broker).await?;
                let hosts: Arc<dyn catui_core::teams::TeammateHosts> =
                    catui_broker::BrokerHosts::open(&broker).await?;
                teams = catui_core::teams::TeamBackend {
                    mailboxes: Some(mailboxes),
                    hosts: Some(hosts),
                    remote_lead: false,
                };
            }
            Ok::<_, catui_broker::BrokerError>((broker, registry, approvals, teams))
        }
        .await;
        let (broker, registry, approvals, teams) = match connected {
            Ok(c) => c,
            Err(e) if needed => return Err(e.to_string()),
            Err(e) => {
                eprintln!("catui: {e}; this session is not listed on the broker");
                return Ok(None);
            }
        };
        let asker = Asker::new(project);
        let approver = approvals.map(|approvals| {
            Arc::new(BrokerApprover::new(
                approvals,
                asker.clone(),
                choice.approval_timeout,
                Redactor::from_env(),
            ))
        });
        Ok(Some(Arc::new(SessionBroker {
            broker,
            registry,
            asker,
            approver,
            teams,
            kind,
        })))
    }

    /// Where the session's teams keep their mailboxes and find workers.
    pub fn team_backend(&self) -> catui_core::teams::TeamBackend {
        self.teams.clone()
    }

    /// The terminal UI's `/agents` and `/approvals`.
    pub fn tui_commands(&self) -> Option<catui_tui::BrokerLink> {
        Some(catui_tui::BrokerLink(Arc::new(super::tui::TuiBroker::new(
            self.broker.clone(),
        ))))
    }

    /// The approver of a run with `--approvals broker`.
    pub fn approver(&self) -> Option<Arc<dyn Approver>> {
        self.approver.clone().map(|a| a as Arc<dyn Approver>)
    }

    /// The session is built: publishes its presence and follows its events
    /// (returned, unchanged, for the front end). `headless_text`: broker
    /// notices are also printed on stderr.
    pub fn attach(
        self: &Arc<Self>,
        info: &SessionInfo,
        plan_file: Option<std::path::PathBuf>,
        events: UnboundedReceiver<EngineEvent>,
        headless_text: bool,
    ) -> UnboundedReceiver<EngineEvent> {
        let heartbeat = catui_broker::registry::heartbeat();
        let mut entry = SessionEntry::new(&info.session_id, self.kind, &info.cwd, heartbeat);
        entry.state = AgentState::Idle;
        entry.plan = plan_file
            .as_deref()
            .and_then(|p| p.file_stem())
            .map(|slug| catui_broker::registry::PlanProgress {
                slug: slug.to_string_lossy().into_owned(),
                done: 0,
                total: 0,
            });
        let presence = Presence::start(self.registry.clone(), entry, heartbeat);
        let _ = self.asker.session_id.set(info.session_id.clone());
        let _ = self.asker.presence.set(presence.clone());
        follow(self.broker.clone(), presence, events, headless_text)
    }

    /// The session ended with exit `code`: its last state.
    pub async fn finish(&self, code: u8) {
        if let Some(presence) = self.asker.presence.get() {
            let (state, detail) = if code == 0 {
                (AgentState::Done, None)
            } else {
                (
                    AgentState::Failed,
                    Some(format!("exited with status {code}")),
                )
            };
            presence.finish(state, detail).await;
        }
        self.broker.flush().await;
    }
}

/// Forwards `events` while keeping the presence's state in step, and adds
/// a notice when the broker is lost or back.
fn follow(
    broker: Broker,
    presence: Arc<Presence>,
    mut events: UnboundedReceiver<EngineEvent>,
    headless_text: bool,
) -> UnboundedReceiver<EngineEvent> {
    let (tx, rx) = unbounded_channel();
    tokio::spawn(async move {
        let mut link = broker.link();
        let mut link_open = true;
        // Only a change is news: the client may repeat the state it
        // started in (its first `connected` event).
        let mut last = *link.borrow_and_update();
        loop {
            tokio::select! {
                event = events.recv() => {
                    let Some(event) = event else { break };
                    observe(&presence, &event);
                    if tx.send(event).is_err() {
                        break;
                    }
                }
                changed = link.changed(), if link_open => {
                    if changed.is_err() {
                        link_open = false;
                        continue;
                    }
                    let now = *link.borrow_and_update();
                    if now == last {
                        continue;
                    }
                    last = now;
                    let up = now == Link::Up;
                    let text = link_notice(broker.shown_url(), up);
                    if headless_text {
                        eprintln!("catui: {text}");
                    }
                    let _ = tx.send(EngineEvent::Notification { key: "broker".into(), text });
                }
            }
        }
    });
    rx
}

/// What the user is told when the broker goes or comes back.
fn link_notice(url: &str, up: bool) -> String {
    if up {
        format!("reconnected to the broker at {url}")
    } else {
        format!(
            "the broker at {url} is unreachable: the session goes on locally (approvals and teammates' messages wait for it) and reconnects in the background"
        )
    }
}

/// A session working or idle, by its events: a turn's end makes it idle,
/// anything else a running turn reports makes it work.
fn observe(presence: &Presence, event: &EngineEvent) {
    let current = presence.entry().state;
    match event {
        EngineEvent::Result(_) if current == AgentState::Working => {
            presence.set_state(AgentState::Idle, None)
        }
        EngineEvent::Result(_) | EngineEvent::Notification { .. } => {}
        _ if current == AgentState::Idle => presence.set_state(AgentState::Working, None),
        _ => {}
    }
}
