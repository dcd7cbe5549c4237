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
//! group), so none outlives catui either. The output files of background
//! commands are removed then too.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

/// Groups that may still have members.
static GROUPS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

/// Files removed when the session ends (background commands' output).
static FILES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Removes `path` when the session ends ([`kill_all`]).
pub(crate) fn remove_at_end(path: PathBuf) {
    crate::sync::lock(&FILES).push(path);
}

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

/// Stops tracking group `pgid` without ending it: a command the model
/// asked to keep running after the session (`keep_running`).
pub(super) fn forget(pgid: i32) {
    groups().remove(&pgid);
}

/// Kills group `pgid` (SIGKILL) and stops tracking it.
pub(super) fn kill(pgid: i32) {
    groups().remove(&pgid);
    kill_group(pgid);
}

/// Kills group `pgid` with the sandbox's inner session, when its leader is
/// bubblewrap: bubblewrap's child starts a session of its own
/// (`--new-session`) and is otherwise ended by `--die-with-parent`, which
/// it sets up only after it started — a kill right after the start would
/// miss it.
fn kill_group(pgid: i32) {
    let inner = sandbox_sessions(pgid);
    signal_group(pgid, libc::SIGKILL);
    for session in inner {
        signal_group(session, libc::SIGKILL);
    }
}

/// The children of leader `pgid` that lead a session of their own, when
/// the leader is bubblewrap (which forks itself, so the child is one too).
fn sandbox_sessions(pgid: i32) -> Vec<i32> {
    let is_bwrap = |pid: i32| {
        std::fs::read_link(format!("/proc/{pid}/exe"))
            .is_ok_and(|exe| exe.file_name().is_some_and(|n| n == "bwrap"))
    };
    if !is_bwrap(pgid) {
        return Vec::new();
    }
    let children =
        std::fs::read_to_string(format!("/proc/{pgid}/task/{pgid}/children")).unwrap_or_default();
    children
        .split_whitespace()
        .filter_map(|c| c.parse::<i32>().ok())
        .filter(|&c| c != pgid && is_bwrap(c) && session_of(c) == Some(c))
        .collect()
}

/// The session `pid` belongs to (field 6 of `/proc/PID/stat`).
fn session_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may contain spaces and parentheses: fields start
    // after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(3)?.parse().ok()
}

/// Kills every tracked group: what Bash commands still have running,
/// background jobs and background commands included, and removes the
/// output files of background commands. Called when the session ends.
pub fn kill_all() {
    let all = std::mem::take(&mut *groups());
    for pgid in all {
        kill_group(pgid);
    }
    let files = std::mem::take(&mut *crate::sync::lock(&FILES));
    for path in files {
        let _ = std::fs::remove_file(path);
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
