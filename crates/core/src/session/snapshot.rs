//! Plan snapshots in the transcript: with `CATUI_REMOTE=1`
//! or the setting `snapshotPlans: true`, every plan write is followed by a
//! `file_snapshot` entry (key `plan`) holding the plan's full text, so the
//! plan survives the loss of the plans directory (see
//! [`super::plan_recovery`]).
//!
//! Plan writes are detected by [`PlanSnapshotRecorder`], a [`Recorder`]
//! wrapper: it remembers the Write/Edit calls (in recorded assistant
//! messages) whose `file_path` is the session's plan file, and after
//! recording a successful tool_result of one of them appends the snapshot.
//! Plan writes that do not go through a tool (the user's edited plan on
//! approval, `/plan open`) call [`record_plan_snapshot`] directly.

use crate::sync::lock;
use catui_protocol::tool_names;
use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use catui_protocol::ContentBlock;

use super::entry::{EntryBody, TranscriptEntry};
use super::plan_recovery::PLAN_SNAPSHOT_KEY;
use super::recorder::TranscriptRecorder;
use crate::engine::{Record, Recorder};
use crate::plan::prompts::parse_bool;
use crate::plan::{PlanFiles, get_plan, plan_file_path};

/// The environment variable that marks a remote session.
pub const ENV_REMOTE: &str = "CATUI_REMOTE";

/// Tools whose successful calls change the file named by `file_path`.
const FILE_WRITING_TOOLS: [&str; 2] = [tool_names::WRITE, tool_names::EDIT];

/// Whether plan writes are snapshotted: the `snapshotPlans` setting, or a
/// truthy `CATUI_REMOTE` in `env`.
pub fn snapshot_plans_enabled(settings_flag: bool, env: impl Fn(&str) -> Option<String>) -> bool {
    settings_flag
        || env(ENV_REMOTE)
            .and_then(|v| parse_bool(&v))
            .unwrap_or(false)
}

/// Appends a `file_snapshot` entry with the current content of the plan at
/// `plan_path`. Nothing is written (`Ok(None)`) when the file is missing.
pub fn record_plan_snapshot(
    recorder: &TranscriptRecorder,
    plan_path: &Path,
) -> io::Result<Option<TranscriptEntry>> {
    let Some(content) = get_plan(plan_path) else {
        return Ok(None);
    };
    recorder
        .append(EntryBody::FileSnapshot {
            key: PLAN_SNAPSHOT_KEY.to_string(),
            path: plan_path.to_string_lossy().into_owned(),
            content,
        })
        .map(Some)
}

/// Records into a [`TranscriptRecorder`] and snapshots the plan after each
/// successful Write/Edit of the session's plan file.
pub struct PlanSnapshotRecorder {
    inner: Arc<TranscriptRecorder>,
    plan_files: Arc<PlanFiles>,
    /// Ids of plan-writing tool calls still waiting for their result.
    pending: Mutex<HashSet<String>>,
}

impl PlanSnapshotRecorder {
    pub fn new(inner: Arc<TranscriptRecorder>, plan_files: Arc<PlanFiles>) -> Self {
        Self {
            inner,
            plan_files,
            pending: Mutex::new(HashSet::new()),
        }
    }

    /// The wrapped transcript recorder.
    pub fn inner(&self) -> &Arc<TranscriptRecorder> {
        &self.inner
    }

    /// The main plan file, if the session has a slug yet (never creates one).
    fn plan_path(&self) -> Option<PathBuf> {
        self.plan_files
            .existing_slug()
            .map(|slug| plan_file_path(self.plan_files.dir(), &slug, None))
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        lock(&self.pending)
    }
}

/// Same file, comparing canonical paths when both exist (symlinks, `..`).
fn same_file(a: &Path, b: &Path) -> bool {
    if a == b {
        return true;
    }
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

impl Recorder for PlanSnapshotRecorder {
    fn record_with_uuid(&self, uuid: &str, record: Record) {
        // A user's input carries no tool results: nothing to snapshot.
        self.inner.record_with_uuid(uuid, record);
    }

    fn record(&self, record: Record) -> Option<String> {
        let mut snapshot = false;
        match &record {
            Record::Assistant { message, .. } => {
                if let Some(plan) = self.plan_path() {
                    for (id, name, input) in message.tool_uses() {
                        let targets_plan = FILE_WRITING_TOOLS.contains(&name)
                            && input
                                .get("file_path")
                                .and_then(|p| p.as_str())
                                .is_some_and(|p| same_file(Path::new(p), &plan));
                        if targets_plan {
                            self.pending().insert(id.to_string());
                        }
                    }
                }
            }
            Record::User { message, .. } => {
                let mut pending = self.pending();
                for block in &message.content {
                    if let ContentBlock::ToolResult {
                        tool_use_id,
                        is_error,
                        ..
                    } = block
                        && pending.remove(tool_use_id)
                        && !is_error
                    {
                        snapshot = true;
                    }
                }
            }
            _ => {}
        }
        let uuid = self.inner.record(record);
        if snapshot && let Some(plan) = self.plan_path() {
            // Errors were already reported by the transcript recorder.
            let _ = record_plan_snapshot(&self.inner, &plan);
        }
        uuid
    }

    fn unsaved(&self) -> Option<String> {
        self.inner.unsaved()
    }

    fn set_slug(&self, slug: Option<String>) {
        self.inner.set_slug(slug);
    }
}
