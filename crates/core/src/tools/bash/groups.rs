//! The process groups Bash commands run in, tracked for the whole process
//! so that none outlives the session.
//!
//! Every command starts a new session and process group (its shell is the
//! leader). The group is killed at once when the command is interrupted or
//! times out. When the command finishes normally, processes it left running
//! in the background (`server &`) stay in its group and keep running while
//! the session lives; [`kill_all`] ends them when catui exits — normally or
//! on SIGTERM, SIGINT or SIGHUP. A process that moves itself to a group of
//! its own (`setsid`, daemons) is detached and not tracked. The stdio MCP
//! servers catui starts are tracked the same way (each leads its own
//! group), so none outlives catui either.

use std::collections::BTreeSet;
use std::sync::{Mutex, MutexGuard};

/// Groups that may still have members.
static GROUPS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

fn groups() -> MutexGuard<'static, BTreeSet<i32>> {
    crate::sync::lock(&GROUPS)
}

/// Starts tracking group `pgid`, forgetting groups that have no member
/// left (so the set stays small over a long session).
pub(crate) fn track(pgid: i32) {
    let mut set = groups();
    set.retain(|&g| group_exists(g));
    set.insert(pgid);
}

/// Kills group `pgid` (SIGKILL) and stops tracking it.
pub(super) fn kill(pgid: i32) {
    groups().remove(&pgid);
    signal_group(pgid, libc::SIGKILL);
}

/// Kills every tracked group: what Bash commands still have running,
/// background jobs included. Called when the session ends.
pub fn kill_all() {
    let all = std::mem::take(&mut *groups());
    for pgid in all {
        signal_group(pgid, libc::SIGKILL);
    }
}

fn group_exists(pgid: i32) -> bool {
    signal_group(pgid, 0)
}

/// Sends `sig` to group `pgid`; whether it reached a process.
#[allow(unsafe_code)]
fn signal_group(pgid: i32, sig: i32) -> bool {
    if pgid <= 1 {
        return false;
    }
    // SAFETY: killpg has no memory-safety preconditions; `pgid` is the
    // group of a child a Bash call started (it leads its own session),
    // checked above not to be 0 or 1, which would target our own group or
    // init.
    let rc = unsafe { libc::killpg(pgid, sig) };
    if rc != 0 && sig != 0 {
        tracing::debug!(pgid, error = %std::io::Error::last_os_error(), "killpg failed");
    }
    rc == 0
}
