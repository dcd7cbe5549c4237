//! Background work in a headless session: `stop_task` (a background agent
//! or a background command, by id), and what the session loop does about
//! background agents between inputs. When one ends while no input is being
//! handled, the session starts a turn of its own whose input is the
//! agent's reminder (the model need not poll and the client gets the
//! answer); when the input has ended (end of stdin, or a one-shot `-p`
//! run), the session waits for the agents still running before it ends,
//! at most `CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS` (the variable the Agent
//! SDKs bound their own wait by; default 10 minutes, `0` no limit), then
//! stops them.

use std::sync::Arc;
use std::time::Duration;

use catui_core::agents::{BackgroundAgents, StopError};
use catui_core::engine::UserInput;
use catui_core::tools::bash::BackgroundShells;
use catui_protocol::ContentBlock;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio_util::sync::CancellationToken;

/// The variable that bounds the wait for background agents at the end.
pub const WAIT_CEILING_VAR: &str = "CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS";
const DEFAULT_WAIT_CEILING: Duration = Duration::from_secs(600);

/// The session's background commands and agents.
#[derive(Clone)]
pub struct Background {
    pub shells: Arc<BackgroundShells>,
    pub agents: Arc<BackgroundAgents>,
}

impl Background {
    /// Stops the background agent or command `id` (`stop_task`); the error
    /// says why not (unknown id, already ended).
    pub fn stop(&self, id: &str) -> Result<(), String> {
        match self.agents.stop(id) {
            Ok(()) => return Ok(()),
            Err(e @ StopError::Ended { .. }) => return Err(e.to_string()),
            Err(StopError::Unknown { .. }) => {}
        }
        let id = id.trim();
        if let Some(shell) = self.shells.get(id) {
            if shell.kill() {
                return Ok(());
            }
            return Err(format!(
                "background task {id} is not running: it already ended ({})",
                shell.status().describe()
            ));
        }
        let known: Vec<String> = self
            .agents
            .list()
            .iter()
            .map(|t| t.id.clone())
            .chain(self.shells.list().iter().map(|s| s.id.clone()))
            .collect();
        Err(StopError::Unknown {
            id: id.to_string(),
            known,
        }
        .to_string())
    }
}

/// How long the end of the input waits for background agents (`None`: no
/// limit).
pub fn wait_ceiling() -> Option<Duration> {
    match std::env::var(WAIT_CEILING_VAR)
        .ok()
        .map(|v| v.trim().parse::<u64>())
    {
        Some(Ok(0)) => None,
        Some(Ok(ms)) => Some(Duration::from_millis(ms)),
        _ => Some(DEFAULT_WAIT_CEILING),
    }
}

/// What the session does next when no input is being handled: the
/// client's next input, or a turn of its own for a background agent that
/// ended. `None`: nothing more comes (the input ended and no agent runs,
/// the wait reached `ceiling`, or `stop`).
pub async fn next_input(
    users: &mut Option<UnboundedReceiver<UserInput>>,
    agents: &BackgroundAgents,
    stop: &CancellationToken,
    ceiling: Option<Duration>,
) -> Option<UserInput> {
    let mut ends = agents.watch_ends();
    let mut deadline: Option<tokio::time::Instant> = None;
    loop {
        if let Some(text) = agents.take_wake_up() {
            return Some(UserInput {
                content: vec![ContentBlock::text(
                    catui_protocol::attachment::wrap_system_reminder(&text),
                )],
                uuid: None,
            });
        }
        if users.is_none() {
            if agents.running() == 0 {
                return None;
            }
            if deadline.is_none()
                && let Some(ceiling) = ceiling
            {
                deadline = Some(tokio::time::Instant::now() + ceiling);
            }
        }
        let open = users.is_some();
        let mut closed = false;
        tokio::select! {
            input = async {
                match users.as_mut() {
                    Some(rx) => rx.recv().await,
                    None => std::future::pending().await,
                }
            }, if open => match input {
                Some(input) => return Some(input),
                None => closed = true,
            },
            changed = ends.changed() => {
                if changed.is_err() {
                    return None;
                }
            }
            _ = async {
                match deadline {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            } => return None,
            _ = stop.cancelled() => return None,
        }
        if closed {
            *users = None;
        }
    }
}
