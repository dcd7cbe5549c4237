//! The process groups Bash commands run in, tracked for the whole process
//! so that none outlives the session.
//!
//! Every command starts a new session and process group (its shell is the
//! leader). The group is killed at once when the command is interrupted or
//! times out. When the command finishes normally, processes it left running
//! in the background (`server &`) stay in its group and keep running while
//! the session lives; [`kill_all`] ends them when catui exits — normally or
//! on SIGTERM, SIGINT or SIGHUP. Ending a command ends every process of its
//! session, not only of its group: a process that moved to a group of its
//! own (`setpgid`, `timeout`, job control) is still in the session, and a
//! confined command cannot leave it (its seccomp filter refuses `setsid`;
//! under bubblewrap its pid namespace ends with it). Only an unconfined
//! command's `setsid` daemon is detached and not tracked. The stdio MCP
//! servers catui starts are tracked the same way (each leads its own
//! group), so none outlives catui either. The output files of background
//! commands and the private temp dirs of confined commands are removed
//! then too.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

/// Groups that may still have members.
static GROUPS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

/// Files and directories removed when the session ends (background
/// commands' output, private temp dirs).
static FILES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Removes `path` (a file, or a directory with everything in it) when the
/// session ends ([`kill_all`]).
pub(crate) fn remove_at_end(path: PathBuf) {
    let mut files = crate::sync::lock(&FILES);
    if !files.contains(&path) {
        files.push(path);
    }
}

fn groups() -> MutexGuard<'static, BTreeSet<i32>> {
    crate::sync::lock(&GROUPS)
}

/// Starts tracking group `pgid`, forgetting groups that have no member
/// left (so the set stays small over a long session).
pub(crate) fn track(pgid: i32) {
    let mut set = groups();
    let gone: Vec<i32> = set.iter().copied().filter(|&g| !group_exists(g)).collect();
    if !gone.is_empty() {
        // A group may be empty while its session still has members.
        let live = sessions_with_members();
        set.retain(|g| !gone.contains(g) || live.contains(g));
    }
    set.insert(pgid);
}

/// The sessions that have a process now.
fn sessions_with_members() -> BTreeSet<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return BTreeSet::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<i32>().ok()))
        .filter_map(session_of)
        .collect()
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
    // The group's leader started a session of its own (see `start`):
    // whatever moved to another group inside it goes too.
    kill_session(pgid);
}

/// Kills every process of session `sid` (SIGKILL), looked up in `/proc`.
/// A session id is a pid that cannot be handed out again while the
/// session has a member, so nothing else is hit.
fn kill_session(sid: i32) {
    // SAFETY: getsid(0) reads the calling process's session id.
    #[allow(unsafe_code)]
    let own = unsafe { libc::getsid(0) };
    if sid <= 1 || sid == own {
        return;
    }
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if session_of(pid) == Some(sid) {
            // SAFETY: kill has no memory-safety preconditions; `pid` is a
            // member of a session a Bash call started.
            #[allow(unsafe_code)]
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
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
        // Links inside a directory are removed, never followed.
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => {
                let _ = std::fs::remove_dir_all(&path);
            }
            Ok(_) => {
                let _ = std::fs::remove_file(&path);
            }
            Err(_) => {}
        }
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
