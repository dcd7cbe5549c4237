//! The binary's side of the broker (crate catui-broker, docs/SCALE.md):
//! which broker a run uses (`--broker`, `CATUI_BROKER`, the `broker`
//! setting), what of a session goes there (its presence, its approvals with
//! `--approvals broker`, its team mailboxes with `teams.backend: "broker"`),
//! and the subcommands that only talk to it: `catui agents`, `catui
//! approvals` and `catui worker`. Without a broker none of this connects or
//! allocates anything.

mod agents;
mod approvals;
mod session;
mod tui;
mod worker;

use std::path::Path;
use std::time::Duration;

use catui_broker::{Broker, BrokerConfig};
use catui_core::settings::BrokerSettings;

use crate::args::{BrokerArgs, Command};

pub use session::SessionBroker;

/// What a run asks of the broker.
#[derive(Debug, Clone)]
pub struct Choice {
    pub config: BrokerConfig,
    /// `--approvals broker`: prompts go to the broker.
    pub approvals: bool,
    /// `teams.backend: "broker"`: mailboxes are on the broker.
    pub teams: bool,
    pub approval_timeout: Duration,
}

/// The broker this run uses, if any: the flag (or `CATUI_BROKER`), else
/// the settings (a project's own only once trusted). Asking for broker
/// approvals or mailboxes without a broker is an error.
pub fn choose(args: &BrokerArgs, settings: &BrokerSettings) -> Result<Option<Choice>, String> {
    let approvals = args
        .approvals
        .as_deref()
        .or(settings.approvals.as_deref())
        .is_some_and(|a| a == "broker");
    let teams = settings.teams_backend.as_deref() == Some("broker");
    let url = args
        .broker
        .clone()
        .filter(|u| !u.trim().is_empty())
        .or_else(|| settings.url.clone());
    let Some(url) = url else {
        if approvals || teams {
            return Err(format!(
                "{} needs a broker: pass --broker nats://host:port, set CATUI_BROKER, or set \"broker\" in settings",
                if approvals {
                    "--approvals broker"
                } else {
                    "teams.backend \"broker\""
                }
            ));
        }
        return Ok(None);
    };
    let mut config = BrokerConfig::new(url);
    config.credentials = args
        .broker_credentials
        .clone()
        .or_else(|| settings.credentials.clone());
    Ok(Some(Choice {
        config,
        approvals,
        teams,
        approval_timeout: args
            .approval_timeout
            .unwrap_or(catui_broker::APPROVAL_TIMEOUT),
    }))
}

/// The session's link to the broker, when one is configured (`kind`:
/// `tui`, `headless`, `sdk`). An error: the run needs the broker and it
/// cannot be had.
pub async fn for_session(
    args: &crate::args::Args,
    config: &catui_core::builder::SessionConfig,
    kind: &'static str,
) -> Result<Option<std::sync::Arc<SessionBroker>>, String> {
    let configured = args.broker.broker.is_some() || args.broker.approvals.is_some();
    // The settings are read again only when they could name a broker: a
    // run without one pays one settings read (docs/BENCHMARKS.md).
    let (settings, _) = catui_core::builder::settings_of(config);
    if !configured && settings.broker == BrokerSettings::default() {
        return Ok(None);
    }
    let choice = choose(&args.broker, &settings.broker)?;
    SessionBroker::prepare(choice, &config.cwd.display().to_string(), kind).await
}

/// Connects for a subcommand: a broker is required.
async fn connect_for_command(args: &BrokerArgs, cwd: &Path) -> Result<Broker, String> {
    let (settings, _) = catui_core::settings::Settings::load(cwd, None);
    let choice = choose(args, &settings.broker)?.ok_or_else(|| {
        "no broker: pass --broker nats://host:port, set CATUI_BROKER, or set \"broker\" in settings".to_string()
    })?;
    Broker::connect(&choice.config)
        .await
        .map_err(|e| e.to_string())
}

/// Runs `catui agents`, `catui approvals` or `catui worker`; `None` for
/// any other subcommand.
pub async fn run_command(command: &Command) -> Option<u8> {
    let cwd = match std::env::current_dir() {
        Ok(d) => std::fs::canonicalize(&d).unwrap_or(d),
        Err(e) => {
            eprintln!("catui: cannot read the working directory: {e}");
            return Some(2);
        }
    };
    let (Command::Agents {
        broker: broker_args,
        ..
    }
    | Command::Approvals {
        broker: broker_args,
        ..
    }
    | Command::Worker {
        broker: broker_args,
        ..
    }) = command
    else {
        return None;
    };
    let broker = match connect_for_command(broker_args, &cwd).await {
        Ok(b) => b,
        Err(e) => {
            eprintln!("catui: {e}");
            return Some(2);
        }
    };
    let code = match command {
        Command::Agents { json, watch, .. } => agents::run(&broker, *json, *watch).await,
        Command::Approvals {
            json, all, action, ..
        } => approvals::run(&broker, *json, *all, action.as_ref()).await,
        Command::Worker { name, project, .. } => {
            worker::run(&broker, name, project.as_deref().unwrap_or(&cwd)).await
        }
        _ => 2,
    };
    broker.flush().await;
    Some(code)
}
