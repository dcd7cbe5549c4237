//! A binary built without the `broker` feature: asking for a broker is a
//! clear error, and nothing else changes. The functions keep the async
//! signatures of the real module so callers need no cfg of their own.
#![allow(clippy::unused_async)]

use std::sync::Arc;

use crate::args::{Args, Command};

const NO_BROKER: &str = "this catui was built without broker support (the `broker` feature); rebuild with the default features to use --broker, catui agents, catui approvals or catui worker";

/// Never built: there is no broker.
pub struct SessionBroker;

impl SessionBroker {
    pub fn approver(&self) -> Option<Arc<dyn catui_core::engine::Approver>> {
        None
    }

    pub fn attach(
        self: &Arc<Self>,
        _info: &catui_core::builder::SessionInfo,
        _plan_file: Option<std::path::PathBuf>,
        events: tokio::sync::mpsc::UnboundedReceiver<catui_core::engine::EngineEvent>,
        _headless_text: bool,
    ) -> tokio::sync::mpsc::UnboundedReceiver<catui_core::engine::EngineEvent> {
        events
    }

    pub async fn finish(&self, _code: u8) {}

    pub fn tui_commands(&self) -> Option<catui_tui::BrokerLink> {
        None
    }

    pub fn team_backend(&self) -> catui_core::teams::TeamBackend {
        catui_core::teams::TeamBackend::default()
    }
}

pub async fn for_session(
    args: &Args,
    _config: &catui_core::builder::SessionConfig,
    _kind: &'static str,
) -> Result<Option<Arc<SessionBroker>>, String> {
    if args.broker.broker.is_some() || args.broker.approvals.as_deref() == Some("broker") {
        return Err(NO_BROKER.into());
    }
    Ok(None)
}

pub async fn run_command(command: &Command) -> Option<u8> {
    match command {
        Command::Agents { .. } | Command::Approvals { .. } | Command::Worker { .. } => {
            eprintln!("catui: {NO_BROKER}");
            Some(2)
        }
        _ => None,
    }
}
