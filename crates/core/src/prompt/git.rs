//! The git snapshot a session starts with: the working tree's changes and
//! the last commit subjects, collected by `git` in the background so that
//! start-up never waits on work that grows with the repository.
//!
//! [`GitSnapshot::start`] spawns `git status` and `git log` on a thread and
//! returns at once; start-up never waits. The model receives the snapshot
//! as a `<system-reminder>` ([`GitStatusAttachments`]) in the first request
//! of a conversation and in no other: that request waits for git (at most
//! [`GIT_TIMEOUT`]), which in an interactive session has long finished
//! while the user typed, and a one-shot `-p` run pays only git's own time
//! on a small repository. A snapshot that arrived later, after tool
//! results, would read as the state of the tree now; one that is not ready
//! in time is left out.
//! Because the snapshot rides in the conversation, not the system prompt,
//! the system prompt stays byte-identical across sessions on the same
//! branch (good for prompt caching) and the snapshot, once sent, is part of
//! the cached prefix like any other message.
//!
//! Caps: each git command may run for [`GIT_TIMEOUT`] (then it is killed and
//! the snapshot is left out); at most [`MAX_STATUS_LINES`] changed paths
//! (each cut to [`MAX_LINE_CHARS`]) are kept, the rest only counted, so a
//! repository with a million untracked files costs no more memory than one
//! with twenty. The git processes are killed when the snapshot is dropped
//! (e.g. when a `-p` run ends first).

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use catui_protocol::Attachment;

use crate::engine::{AttachmentContext, AttachmentFactory, AttachmentProvider};
use crate::session::git_branch::{self, Head};
use crate::sync::lock;

/// How long each git command may take.
pub const GIT_TIMEOUT: Duration = Duration::from_secs(2);

/// How many changed files the summary lists.
pub const MAX_STATUS_LINES: usize = 20;

/// How many recent commit subjects the summary lists.
pub const MAX_RECENT_COMMITS: usize = 5;

/// Longest status line or commit subject kept, in characters.
pub const MAX_LINE_CHARS: usize = 300;

/// The scheduling priority of the git processes (the lowest).
const BACKGROUND_NICENESS: i32 = 19;

/// The first line of the rendered snapshot, used to recognise it.
pub const GIT_STATUS_HEADER: &str = "# Git status";

/// The state of the repository when the session started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitSummary {
    /// The branch name, or `HEAD (detached at …)`.
    pub branch: String,
    /// Up to [`MAX_STATUS_LINES`] lines of `git status --short`.
    pub changes: Vec<String>,
    /// How many changed files were left out of `changes`.
    pub more_changes: usize,
    /// Subjects of the last commits, newest first.
    pub recent_commits: Vec<String>,
}

/// How HEAD is described to the model: the branch name, or the detached
/// commit.
pub fn describe_head(head: &Head) -> String {
    match head {
        Head::Branch(name) => name.clone(),
        Head::Detached(id) => {
            let short: String = id.chars().take(12).collect();
            format!("HEAD (detached at {short})")
        }
    }
}

/// A git snapshot being collected in the background.
pub struct GitSnapshot {
    shared: Arc<Shared>,
}

struct Shared {
    /// Where to collect, until collection starts (a deferred snapshot).
    pending: Mutex<Option<(std::path::PathBuf, Head)>>,
    state: Mutex<State>,
    done: Condvar,
    /// The running git processes, so that dropping the snapshot can kill
    /// them. `None` once stopped: nothing may be spawned after that.
    children: Mutex<Option<Vec<Child>>>,
}

enum State {
    Collecting,
    Done(Option<GitSummary>),
}

impl GitSnapshot {
    /// Starts collecting the snapshot of the repository containing `cwd`.
    /// `None` at once (no process started) when `cwd` is not inside a git
    /// work tree.
    pub fn start(cwd: &Path) -> Option<GitSnapshot> {
        let snapshot = Self::deferred(cwd)?;
        snapshot.ensure_started();
        Some(snapshot)
    }

    /// Like [`Self::start`], but git starts only when the snapshot is first
    /// asked for ([`Self::try_get`], [`Self::wait`]): a one-shot run starts
    /// it with its first model request, so its start-up does not share the
    /// machine with git, and a run that needs one request never runs git.
    pub fn deferred(cwd: &Path) -> Option<GitSnapshot> {
        let head = git_branch::head(cwd)?;
        Some(GitSnapshot {
            shared: Arc::new(Shared {
                pending: Mutex::new(Some((cwd.to_path_buf(), head))),
                state: Mutex::new(State::Collecting),
                done: Condvar::new(),
                children: Mutex::new(Some(Vec::new())),
            }),
        })
    }

    /// Starts collecting unless that has happened already.
    fn ensure_started(&self) {
        let Some((cwd, head)) = lock(&self.shared.pending).take() else {
            return;
        };
        let shared = &self.shared;
        let thread_shared = shared.clone();
        let spawned = std::thread::Builder::new()
            .name("catui-git-snapshot".into())
            .spawn(move || {
                let summary = collect(&thread_shared, &cwd, &head);
                *lock(&thread_shared.state) = State::Done(summary);
                thread_shared.done.notify_all();
            });
        if spawned.is_err() {
            *lock(&shared.state) = State::Done(None);
        }
    }

    /// The snapshot if collection has finished (`Some(None)`: it failed or
    /// timed out); `None` while git is still running. Never blocks.
    pub fn try_get(&self) -> Option<Option<GitSummary>> {
        self.ensure_started();
        match &*lock(&self.shared.state) {
            State::Collecting => None,
            State::Done(summary) => Some(summary.clone()),
        }
    }

    /// Waits (at most `timeout`) for the collection to finish; the summary,
    /// or `None` when it failed or is not done in time.
    pub fn wait(&self, timeout: Duration) -> Option<GitSummary> {
        self.ensure_started();
        let deadline = Instant::now() + timeout;
        let mut state = lock(&self.shared.state);
        loop {
            if let State::Done(summary) = &*state {
                return summary.clone();
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            state = crate::sync::wait_timeout(&self.shared.done, state, left).0;
        }
    }
}

impl Drop for GitSnapshot {
    fn drop(&mut self) {
        if let Some(mut children) = lock(&self.shared.children).take() {
            for child in &mut children {
                let _ = child.kill();
            }
            // Reaping waits for each killed git to tear down; a session
            // that ends (a `-p` run exiting) must not wait for that.
            let _ = std::thread::Builder::new()
                .name("catui-git-reap".into())
                .spawn(move || {
                    for mut child in children {
                        let _ = child.wait();
                    }
                });
        }
    }
}

/// A summary of the git repository containing `cwd`, waiting for git (at
/// most [`GIT_TIMEOUT`]); `None` when `cwd` is not in a work tree, git is
/// not installed, or git did not answer in time.
pub fn git_summary(cwd: &Path) -> Option<GitSummary> {
    GitSnapshot::start(cwd)?.wait(GIT_TIMEOUT + Duration::from_millis(500))
}

/// Runs both commands and builds the summary (on the snapshot's thread).
fn collect(shared: &Shared, cwd: &Path, head: &Head) -> Option<GitSummary> {
    let (tx, rx) = mpsc::channel::<(Which, CappedLines)>();
    // No `--branch`: the branch comes from HEAD directly, and comparing it
    // with its upstream can walk a lot of history.
    let status = spawn(
        shared,
        cwd,
        &["status", "--porcelain=v1", "--untracked-files=normal"],
        Which::Status,
        MAX_STATUS_LINES,
        &tx,
    );
    let limit = MAX_RECENT_COMMITS.to_string();
    let log = spawn(
        shared,
        cwd,
        &["log", "-n", &limit, "--format=%s"],
        Which::Log,
        MAX_RECENT_COMMITS,
        &tx,
    );
    drop(tx);
    let expected = usize::from(status.is_some()) + usize::from(log.is_some());
    let deadline = Instant::now() + GIT_TIMEOUT;
    let mut status_out = None;
    let mut log_out = None;
    for _ in 0..expected {
        let Some(left) = deadline.checked_duration_since(Instant::now()) else {
            break;
        };
        match rx.recv_timeout(left) {
            Ok((Which::Status, lines)) => status_out = Some(lines),
            Ok((Which::Log, lines)) => log_out = Some(lines),
            Err(_) => break,
        }
    }
    // Both outputs are complete (or the deadline passed): reap both, giving
    // a process that closed its output a moment to exit, and kill whatever
    // is still running at the deadline.
    let status_ok = status.is_some_and(|i| reap(shared, i, deadline));
    let log_ok = log.is_some_and(|i| reap(shared, i, deadline));
    let status_out = status_out.filter(|_| status_ok)?;
    // A repository without commits has no log: that is not a failure.
    let log_out = log_out.filter(|_| log_ok).unwrap_or_default();
    Some(GitSummary {
        branch: describe_head(head),
        changes: status_out.kept,
        more_changes: status_out.more,
        recent_commits: log_out.kept,
    })
}

/// Waits for child `index` until `deadline` (then kills it); whether it
/// exited successfully. The lock is only held to look, so a drop of the
/// snapshot is never kept waiting.
fn reap(shared: &Shared, index: usize, deadline: Instant) -> bool {
    let mut pause = Duration::from_micros(200);
    loop {
        {
            let mut guard = lock(&shared.children);
            let Some(child) = guard.as_mut().and_then(|c| c.get_mut(index)) else {
                return false;
            };
            match child.try_wait() {
                Ok(Some(exit)) => return exit.success(),
                Ok(None) if Instant::now() < deadline => {}
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return false;
                }
            }
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(10));
    }
}

#[derive(Clone, Copy)]
enum Which {
    Status,
    Log,
}

/// The first lines of an output, each cut to [`MAX_LINE_CHARS`], and how
/// many more non-empty lines there were.
#[derive(Debug, Default)]
struct CappedLines {
    kept: Vec<String>,
    more: usize,
}

fn read_capped(out: impl Read, keep: usize) -> CappedLines {
    let mut reader = BufReader::new(out);
    let mut lines = CappedLines::default();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let line = String::from_utf8_lossy(&buf);
        let line = line.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() {
            continue;
        }
        if lines.kept.len() < keep {
            lines.kept.push(cut_line(line));
        } else {
            lines.more += 1;
        }
    }
    lines
}

fn cut_line(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_string(),
    }
}

/// Starts one git command whose output a thread reads (capped) and sends
/// on `tx`; the child goes into `shared.children`. Returns its index there.
fn spawn(
    shared: &Shared,
    cwd: &Path,
    args: &[&str],
    which: Which,
    keep: usize,
    tx: &mpsc::Sender<(Which, CappedLines)>,
) -> Option<usize> {
    // Spawning under the lock means a concurrent drop either sees this
    // child (and kills it) or has already stopped everything.
    let mut guard = lock(&shared.children);
    let children = guard.as_mut()?;
    let mut cmd = Command::new("git");
    // As confined commands run git: the allow-list's environment, no
    // program the repository's configuration names (fsmonitor, drivers,
    // hooks) runs unconfined at start-up, and discovery stops at bare
    // repositories.
    cmd.env_clear().envs(
        catui_sandbox::child_env::EnvPolicy::default()
            .build(catui_sandbox::child_env::Tier::Confined),
    );
    for (name, value) in catui_sandbox::env::confined(cwd, true) {
        match value {
            Some(v) => cmd.env(name, v),
            None => cmd.env_remove(name),
        };
    }
    let mut child = cmd
        .arg("-C")
        .arg(cwd)
        // A repository's own `core.fsmonitor` would run its command on
        // `git status` just because the folder was opened.
        .args(["-c", "core.quotepath=off", "-c", "core.fsmonitor=false"])
        .arg("--no-optional-locks")
        .args(args)
        // Never prompt, never page, never pick up a repository from the
        // parent process's environment.
        .env("GIT_TERMINAL_PROMPT", "0")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    // The snapshot is a background nicety: on a loaded machine git must not
    // slow down the session it serves (a failure here changes nothing).
    let _ = rustix::process::setpriority_process(
        Some(rustix::process::Pid::from_child(&child)),
        BACKGROUND_NICENESS,
    );
    let stdout = child.stdout.take();
    children.push(child);
    let index = children.len() - 1;
    let tx = tx.clone();
    let reader = std::thread::Builder::new()
        .name("catui-git-read".into())
        .spawn(move || {
            let lines = stdout.map(|s| read_capped(s, keep)).unwrap_or_default();
            let _ = tx.send((which, lines));
        });
    reader.ok().map(|_| index)
}

/// The snapshot as the model reads it.
pub fn render_git(git: &GitSummary) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{GIT_STATUS_HEADER}\nA snapshot taken when the session started; it does not update as you work."
    );
    let _ = writeln!(out, "Current branch: {}", git.branch);
    if git.changes.is_empty() {
        let _ = writeln!(out, "Working tree: clean");
    } else {
        let _ = writeln!(out, "Working tree (git status --short):");
        for line in &git.changes {
            let _ = writeln!(out, "{line}");
        }
        if git.more_changes > 0 {
            let _ = writeln!(out, "... and {} more changed paths", git.more_changes);
        }
    }
    if git.recent_commits.is_empty() {
        let _ = writeln!(out, "Recent commits: none yet");
    } else {
        let _ = writeln!(out, "Recent commits:");
        for subject in &git.recent_commits {
            let _ = writeln!(out, "- {subject}");
        }
    }
    out.truncate(out.trim_end().len());
    out
}

/// Hands the snapshot to one conversation (the lead's, or a teammate's),
/// in its first request only, waiting for git if it is still running.
/// Sub-agents get none: their prompt names the branch only.
pub struct GitStatusAttachments {
    snapshot: Arc<GitSnapshot>,
    sent: AtomicBool,
}

impl GitStatusAttachments {
    pub fn new(snapshot: Arc<GitSnapshot>) -> Self {
        Self {
            snapshot,
            sent: AtomicBool::new(false),
        }
    }

    /// A maker of one provider per conversation (each teammate gets the
    /// snapshot once).
    pub fn factory(snapshot: Arc<GitSnapshot>) -> AttachmentFactory {
        Arc::new(move || Arc::new(GitStatusAttachments::new(snapshot.clone())))
    }

    /// The snapshot being delivered (e.g. to wait for it in tests).
    pub fn snapshot(&self) -> &GitSnapshot {
        &self.snapshot
    }
}

impl AttachmentProvider for GitStatusAttachments {
    fn attachments(&self, _ctx: &AttachmentContext<'_>) -> Vec<Attachment> {
        if self.sent.swap(true, Ordering::Relaxed) {
            return Vec::new();
        }
        // The git processes are killed at GIT_TIMEOUT; the margin covers
        // reaping them.
        let summary = crate::sync::blocking_io(|| {
            self.snapshot.wait(GIT_TIMEOUT + Duration::from_millis(500))
        });
        summary
            .map(|s| Attachment::Reminder {
                text: render_git(&s),
            })
            .into_iter()
            .collect()
    }
}

#[cfg(test)]
#[path = "git_tests.rs"]
mod tests;
