//! The session's dry runs: the scratch area a planning session's commands
//! write into instead of the project (crate `catui-sandbox`, module
//! `overlay`, mounts it), the commands that ran there and how they ended
//! (the evidence shown with the plan), and the text that tells the model
//! what a dry run changed.
//!
//! One scratch area per session, created by the first dry run and kept
//! while plan mode lasts, so that a build and then the tests see each
//! other's output; it is removed when plan mode ends (approved, parked,
//! left), when the session ends, and — for a catui that was killed — by
//! the next catui to start ([`sweep`]). Its directory is named by the pid
//! of the catui that made it, which is how a dead one's is told apart.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use catui_sandbox::overlay::{Changes, Snapshot};

use crate::sync::lock;

/// The largest scratch area by default, in MiB (`dryRun.maxScratchMiB`).
pub const DEFAULT_MAX_SCRATCH_MIB: u64 = 2048;

/// The most processes (threads included) a dry run may have at once, by
/// default (`dryRun.maxProcesses`): room for a parallel build, not for a
/// fork bomb.
pub const DEFAULT_MAX_PROCESSES: u64 = 1024;

/// How many changed paths a result names.
const NAMED: usize = 20;

/// The line a dry run's result starts with.
pub const DRY_RUN_HEADER: &str = "Dry run: this command ran in a throwaway copy of the project \
    (no network, secrets hidden); the project itself is unchanged, and nothing from the copy \
    survives the end of planning.";

/// The line the result of a one-off dry run (chosen at a prompt outside
/// plan mode) starts with.
pub const ONE_OFF_HEADER: &str = "Dry run (the user chose it at the permission prompt): this \
    command ran in a throwaway copy of the project (no network, secrets hidden); the project \
    itself is unchanged and the copy is already gone — nothing the command did took effect.";

/// One command that ran dry, and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DryRunRecord {
    pub command: String,
    /// `None` when it was stopped (time limit, scratch limit, interrupt).
    pub exit_code: Option<i32>,
    /// A few words on the outcome ("2 failures"), when the output said.
    pub note: Option<String>,
}

/// The session's scratch area and what ran in it.
#[derive(Debug)]
pub struct DryRunArea {
    /// Where every catui of this user keeps its scratch areas.
    root: PathBuf,
    /// Name of this session's area beneath `root`.
    name: String,
    state: Mutex<State>,
    /// `dryRun.maxScratchMiB`, in bytes.
    max_bytes: Mutex<u64>,
    /// `dryRun.maxProcesses`.
    max_processes: Mutex<u64>,
}

#[derive(Debug, Default)]
struct State {
    /// Whether the area exists (a dry run made it).
    made: bool,
    records: Vec<DryRunRecord>,
    /// Every path the copy differs in from the project, as of the last
    /// command that ran in it (for [`DryRunArea::note_for`]).
    changed: BTreeSet<PathBuf>,
}

/// Where the scratch areas of this user live: beside the temp dirs, never
/// inside a project or home (overlayfs refuses layers inside one another).
pub fn default_root() -> PathBuf {
    // SAFETY: geteuid has no preconditions.
    #[allow(unsafe_code)]
    let uid = unsafe { libc::geteuid() };
    std::env::temp_dir().join(format!("catui-dryrun-{uid}"))
}

impl DryRunArea {
    /// The area of session `session_id` beneath `root` (not created yet).
    pub fn new(root: PathBuf, session_id: &str) -> Self {
        let id: String = session_id
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
            .take(40)
            .collect();
        DryRunArea {
            root,
            name: format!("{}-{id}", std::process::id()),
            state: Mutex::default(),
            max_bytes: Mutex::new(DEFAULT_MAX_SCRATCH_MIB * 1024 * 1024),
            max_processes: Mutex::new(DEFAULT_MAX_PROCESSES),
        }
    }

    /// The scratch directory (whether or not it exists yet).
    pub fn scratch(&self) -> PathBuf {
        self.root.join(&self.name)
    }

    /// The scratch directory of a one-off dry run — the user answered a
    /// prompt with "run as a dry run" outside plan mode — for tool call
    /// `call_id`: fresh, nothing of the planning area in it, removed when
    /// the command ends ([`catui_sandbox::overlay::remove`]); named after
    /// this catui's pid like the session's area, so [`sweep`] removes it
    /// after a killed catui.
    pub fn one_off(&self, call_id: &str) -> PathBuf {
        let id: String = call_id
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
            .take(60)
            .collect();
        self.root.join(format!("{}-once-{id}", self.name))
    }

    /// Notes that a dry run is about to use the area (it is created by the
    /// sandbox, private).
    pub fn open(&self) -> PathBuf {
        lock(&self.state).made = true;
        self.scratch()
    }

    /// Whether a dry run has made the area (then every command of the
    /// planning session sees the project through it).
    pub fn exists(&self) -> bool {
        lock(&self.state).made
    }

    /// The size limit of the area, in bytes.
    pub fn max_bytes(&self) -> u64 {
        *lock(&self.max_bytes)
    }

    /// Sets the size limit (`dryRun.maxScratchMiB`).
    pub fn set_max_mib(&self, mib: u64) {
        *lock(&self.max_bytes) = mib.saturating_mul(1024 * 1024);
    }

    /// The most processes a dry run may have at once.
    pub fn max_processes(&self) -> u64 {
        *lock(&self.max_processes)
    }

    /// Sets the process limit (`dryRun.maxProcesses`).
    pub fn set_max_processes(&self, n: u64) {
        *lock(&self.max_processes) = n;
    }

    /// Remembers how a dry run ended.
    pub fn record(&self, record: DryRunRecord) {
        lock(&self.state).records.push(record);
    }

    /// The dry runs since the area was last discarded, in order.
    pub fn records(&self) -> Vec<DryRunRecord> {
        lock(&self.state).records.clone()
    }

    /// Remembers what the copy holds after a command ran in it: `after`
    /// is its upper layers then.
    pub fn note_copy(&self, after: &Snapshot) {
        lock(&self.state).changed = after.paths().map(Path::to_path_buf).collect();
    }

    /// What Read, Grep and Glob add when asked about `path` (a file, or a
    /// directory searched) that a dry run changed in the copy: they show
    /// the real project, which the model might otherwise take for the
    /// copy's output. `None` when the copy leaves `path` as it is.
    pub fn note_for(&self, path: &Path) -> Option<String> {
        let state = lock(&self.state);
        if !state.made || state.changed.is_empty() {
            return None;
        }
        let path = real_path(path);
        // Changed at or beneath the path, or the path lies inside
        // something the copy replaced or deleted.
        let touched: Vec<&PathBuf> = state
            .changed
            .iter()
            .filter(|c| c.starts_with(&path) || path.starts_with(c))
            .collect();
        let first = touched.first()?;
        let what = if touched.len() == 1 && (*first == &path || path.starts_with(first)) {
            "this path".to_string()
        } else {
            match touched.len() {
                1 => "1 path beneath this one".to_string(),
                n => format!("{n} paths beneath this one"),
            }
        };
        Some(format!(
            "Note: a dry run changed {what} in its throwaway copy (first: {}); what is shown \
             here is the real project, which dry runs never change. A Bash command sees the \
             copy while planning goes on.",
            first.display()
        ))
    }

    /// Removes the area and forgets its runs (plan mode ended).
    pub fn discard(&self) {
        let mut state = lock(&self.state);
        state.made = false;
        state.records.clear();
        state.changed.clear();
        drop(state);
        if let Err(e) = catui_sandbox::overlay::remove(&self.scratch()) {
            tracing::warn!("could not remove the dry run's scratch area: {e}");
        }
    }
}

impl Drop for DryRunArea {
    fn drop(&mut self) {
        let _ = catui_sandbox::overlay::remove(&self.scratch());
    }
}

/// `path` as the copy's layers name it: canonical, or — for a path the
/// real project lacks (the copy added it) — its nearest existing ancestor
/// made canonical, the rest appended.
fn real_path(path: &Path) -> PathBuf {
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    let mut at = path;
    while let Some(parent) = at.parent() {
        if let Some(name) = at.file_name() {
            rest.push(name);
        }
        if let Ok(mut p) = parent.canonicalize() {
            for name in rest.iter().rev() {
                p.push(name);
            }
            return p;
        }
        at = parent;
    }
    path.to_path_buf()
}

/// Removes the scratch areas beneath `root` whose catui is gone (killed
/// before it could remove its own). Areas are named `PID-…`.
pub fn sweep(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.split('-').next())
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        if pid > 0 && !alive(pid) {
            let _ = catui_sandbox::overlay::remove(&entry.path());
        }
    }
}

/// Whether process `pid` exists.
fn alive(pid: i32) -> bool {
    // SAFETY: kill with signal 0 only checks that the process exists.
    #[allow(unsafe_code)]
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// The text a dry run's result ends with: what the command changed in
/// the copy, counted, the first few named (relative to `root` when
/// inside it).
pub fn describe_changes(changes: &Changes, root: &Path) -> String {
    if changes.is_empty() {
        return "Changes in the copy: none.".to_string();
    }
    let show = |p: &Path| match p.strip_prefix(root) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => p.display().to_string(),
    };
    let mut named: Vec<String> = Vec::new();
    for (sign, paths) in [
        ("+", &changes.added),
        ("~", &changes.modified),
        ("-", &changes.deleted),
    ] {
        for p in paths {
            if named.len() < NAMED {
                named.push(format!("{sign} {}", show(p)));
            }
        }
    }
    let more = changes.len().saturating_sub(named.len());
    let mut text = format!(
        "Changes in the copy: {} added, {} modified, {} deleted:\n{}",
        changes.added.len(),
        changes.modified.len(),
        changes.deleted.len(),
        named.join("\n")
    );
    if more > 0 {
        text.push_str(&format!("\n… and {more} more"));
    }
    text
}

#[cfg(test)]
#[path = "dry_run_tests.rs"]
mod tests;
