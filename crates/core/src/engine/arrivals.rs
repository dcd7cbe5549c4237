//! Waiting for tools that are on their way before a conversation's first
//! request of an input: MCP servers still starting when the user (or a
//! one-shot run, or an SDK application) sends a prompt. Without this a
//! one-shot run would be over before a server's tools could ever be
//! offered.
//!
//! The wait is bounded by each arrival's own deadline (a server's startup
//! timeout), reported to the front end as
//! [`EngineEvent::AwaitingTools`] (the terminal UI shows which servers it
//! waits for), and ends early when the turn is interrupted or the user
//! chooses to go on without them ([`super::EngineControl::stop_waiting_for_tools`]).
//! Nothing is waited for when nothing is starting, so a session without
//! MCP servers pays nothing.

use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::{Engine, EngineEvent};

/// How long past an arrival's deadline the wait lasts at most: the source
/// reports its own timeout (a failure notice) within this.
const GRACE: Duration = Duration::from_millis(250);

impl Engine {
    /// Waits until nothing the tool sources are starting is left, each at
    /// most until its deadline; returns early on `cancel` or when asked to
    /// stop waiting.
    pub(super) async fn await_arriving_tools(&self, cancel: &CancellationToken) {
        let mut shown: Vec<String> = Vec::new();
        loop {
            // Subscribed before looking, so no change is missed in between.
            let changed = self.tools.changed();
            let skip = self.shared.skip_wait.notified();
            let now = Instant::now();
            let arriving: Vec<_> = self
                .tools
                .arriving()
                .into_iter()
                .filter(|a| a.until + GRACE > now)
                .collect();
            let Some(until) = arriving.iter().map(|a| a.until + GRACE).max() else {
                break;
            };
            let names: Vec<String> = arriving.into_iter().map(|a| a.what).collect();
            if names != shown {
                self.shared.emit(EngineEvent::AwaitingTools {
                    pending: names.clone(),
                });
                shown = names;
            }
            tokio::select! {
                _ = changed => {}
                _ = tokio::time::sleep_until(until.into()) => {}
                _ = cancel.cancelled() => break,
                _ = skip => break,
            }
        }
        if !shown.is_empty() {
            self.shared.emit(EngineEvent::AwaitingTools {
                pending: Vec::new(),
            });
        }
    }
}
