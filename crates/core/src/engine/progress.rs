//! Progress of long-running tool calls: while a call runs, the engine
//! looks at its live output ([`LiveOutput`]) every [`TICK`] and emits
//! [`EngineEvent::ToolProgress`] once the call has run for a second: then
//! whenever there is something new, and at least once a second as a
//! heartbeat — never more than four times a second, and nothing at all
//! for calls that end within a second.

use std::future::Future;
use std::time::{Duration, Instant};

use super::{EngineEvent, shared::Shared};
use crate::tools::live::LiveOutput;

/// How often a running call is looked at: at most four events a second.
pub const TICK: Duration = Duration::from_millis(250);
/// Calls are reported once they have run this long, and quiet ones get a
/// heartbeat this often.
const HEARTBEAT: Duration = Duration::from_secs(1);

/// Which call the events are about.
pub(super) struct Watched<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub parent_tool_use_id: Option<&'a str>,
    pub live: LiveOutput,
}

/// Runs `call` to its end, emitting progress events about it meanwhile.
pub(super) async fn watch<T>(
    shared: &Shared,
    watched: Watched<'_>,
    call: impl Future<Output = T>,
) -> T {
    tokio::pin!(call);
    let start = Instant::now();
    let mut last_emit: Option<Instant> = None;
    let mut seen_version = 0;
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + TICK, TICK);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            result = &mut call => return result,
            _ = ticks.tick() => {}
        }
        if start.elapsed() < HEARTBEAT {
            continue;
        }
        let snapshot = watched.live.snapshot();
        let changed = snapshot.version != seen_version;
        let quiet_for = last_emit.map_or(start.elapsed(), |t| t.elapsed());
        if !changed && quiet_for < HEARTBEAT {
            continue;
        }
        seen_version = snapshot.version;
        last_emit = Some(Instant::now());
        shared.emit(EngineEvent::ToolProgress {
            id: watched.id.to_string(),
            name: watched.name.to_string(),
            parent_tool_use_id: watched.parent_tool_use_id.map(str::to_string),
            elapsed: start.elapsed(),
            lines: snapshot.lines,
            total_lines: snapshot.total_lines,
        });
    }
}
