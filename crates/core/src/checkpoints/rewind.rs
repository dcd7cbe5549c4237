//! Going back: the points a session can return to ([`Checkpoints::points`])
//! and the rewind itself ([`Checkpoints::rewind`]) — the project's files,
//! the conversation, or both, to the moment before a user message; the
//! files to the moment a plan was approved, with plan mode again and the
//! approved plan in the plan file; or the files to just before an earlier
//! rewind (undo).
//!
//! The user's own work is never lost silently: files changed outside
//! catui since the point (between catui's turns, by an editor) are listed
//! and the rewind is refused unless forced, and every rewind is itself a
//! point to go back to (a checkpoint is taken before restoring).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::PathBuf;

use catui_protocol::checkpoint::CheckpointKind;
use catui_protocol::transcript::EntryBody;
use catui_protocol::{Attachment, PermissionMode};

use super::line::Record;
pub use super::report::RewindReport;
use super::report::{one_line, ordinal, rewind_words, target_words};
use super::shadow::Snapshot;
pub use super::target::RewindTarget;
use super::{CheckpointError, Checkpoints, State, blank, restore};
use crate::engine::Record as EngineRecord;

/// What to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewindRequest {
    pub target: RewindTarget,
    /// Restore the project's files.
    pub code: bool,
    /// Restore the conversation (message targets only).
    pub conversation: bool,
    /// Overwrite files changed outside catui since the point.
    pub force: bool,
    /// Only say what would happen.
    pub dry_run: bool,
}

/// What kind of point a [`RewindPoint`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointKind {
    Message,
    PlanApproval,
    BeforeRewind,
}

/// A point the session can go back to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewindPoint {
    pub target: RewindTarget,
    pub kind: PointKind,
    /// One line: the message's first line, or what the point is.
    pub label: String,
    pub timestamp: String,
    /// Files the message's turn changed.
    pub files: Vec<String>,
    /// The files can be restored (a checkpoint exists, or nothing changed
    /// since).
    pub code: bool,
    /// The conversation can be rewound to here.
    pub conversation: bool,
}

impl Checkpoints {
    /// The points this session can go back to, oldest first.
    pub fn points(&self) -> Vec<RewindPoint> {
        if !self.rewind_on {
            return Vec::new();
        }
        let state = self.state();
        let line = &state.line;
        let can_talk = self.transcript.is_some();
        // One pass over the checkpoints (a long session has thousands).
        let mut restorable: HashSet<&str> = line.pending.iter().map(String::as_str).collect();
        let mut files: HashMap<&str, Vec<String>> = HashMap::new();
        for r in &line.records {
            for m in &r.messages {
                match r.kind {
                    CheckpointKind::TurnStart => {
                        restorable.insert(m.as_str());
                    }
                    CheckpointKind::TurnEnd => {
                        let list = files.entry(m.as_str()).or_default();
                        for f in &r.changed {
                            if !list.contains(f) {
                                list.push(f.clone());
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        let mut points: Vec<RewindPoint> = line
            .prompts
            .iter()
            .filter(|p| !p.rewound)
            .map(|p| RewindPoint {
                target: RewindTarget::Message(p.uuid.clone()),
                kind: PointKind::Message,
                label: one_line(&p.text, 100),
                timestamp: p.timestamp.clone(),
                files: files.remove(p.uuid.as_str()).unwrap_or_default(),
                code: restorable.contains(p.uuid.as_str()),
                conversation: can_talk,
            })
            .collect();
        let mut approvals: HashMap<&str, usize> = HashMap::new();
        for (i, r) in line.records.iter().enumerate() {
            let mut files = Vec::new();
            let (kind, target, label) =
                match r.kind {
                    CheckpointKind::PlanApproved => {
                        let slug = r.plan_slug.clone().unwrap_or_default();
                        let n = approvals
                            .entry(r.plan_slug.as_deref().unwrap_or_default())
                            .or_default();
                        *n += 1;
                        let label = if *n == 1 {
                            format!("Back to plan {slug} (as approved)")
                        } else {
                            format!("Back to plan {slug} (as approved the {} time)", ordinal(*n))
                        };
                        (
                            PointKind::PlanApproval,
                            RewindTarget::Plan {
                                slug: Some(slug.clone()),
                                approval: Some(*n),
                            },
                            label,
                        )
                    }
                    CheckpointKind::BeforeRewind => {
                        // The rewind's own after-checkpoint follows it and
                        // names the files it changed (what the undo restores).
                        if let Some(after) = line.records.get(i + 1).filter(|a| {
                            a.kind == CheckpointKind::AfterRewind && a.target == r.target
                        }) {
                            files = after.changed.clone();
                        }
                        (
                            PointKind::BeforeRewind,
                            RewindTarget::BeforeRewind(r.entry.clone()),
                            format!("Undo {}", rewind_words(line, &r.entry)),
                        )
                    }
                    _ => continue,
                };
            points.push(RewindPoint {
                target,
                kind,
                label,
                timestamp: r.timestamp.clone(),
                files,
                code: true,
                conversation: false,
            });
        }
        points.sort_by(|a, b| a.timestamp.cmp(&b.timestamp));
        points
    }

    /// Rewinds (see the module documentation). Refused while a turn runs.
    pub fn rewind(&self, request: &RewindRequest) -> Result<RewindReport, CheckpointError> {
        if self.turn_running() {
            return Err(CheckpointError::TurnRunning);
        }
        self.rewind_now(request)
    }

    /// [`Self::rewind`] without the running-turn check (`/rewind`, which
    /// runs as an input of its own).
    pub(super) fn rewind_now(
        &self,
        request: &RewindRequest,
    ) -> Result<RewindReport, CheckpointError> {
        if !self.rewind_on {
            return Err(CheckpointError::NotEnabled);
        }
        let mut state = self.state();
        let target_id = request.target.id();
        let (index, prompt) = self.resolve(&state, &request.target, request.code)?;
        let mut report = RewindReport {
            target: target_words(&state.line, &request.target),
            undone: match &request.target {
                RewindTarget::BeforeRewind(entry) => Some(rewind_words(&state.line, entry)),
                _ => None,
            },
            dry_run: request.dry_run,
            ..RewindReport::default()
        };
        let conversation =
            request.conversation && matches!(request.target, RewindTarget::Message(_));
        let messages = if conversation {
            Some(self.conversation_before(&target_id)?)
        } else {
            None
        };
        let code = request.code || matches!(request.target, RewindTarget::Plan { .. });
        if code && let Some(index) = index {
            self.restore_files(&mut state, index, &target_id, request, &mut report)?;
        }
        if request.dry_run {
            report.conversation = conversation;
            report.prompt = prompt.filter(|_| conversation);
            return Ok(report);
        }
        if let Some(messages) = messages {
            if let Some(engine) = self.engine() {
                engine.replace_conversation(messages);
            }
            state.line.rewind_conversation(&target_id);
            report.conversation = true;
            report.prompt = prompt;
        }
        self.recorder.record(EngineRecord::Entry(EntryBody::Rewind {
            target: target_id.clone(),
            code,
            conversation,
        }));
        let plan_mode = matches!(request.target, RewindTarget::Plan { .. });
        if let RewindTarget::Plan { .. } = &request.target
            && let Some(index) = index
        {
            report.plan_file = Some(self.back_to_plan(&mut state, index)?);
        } else if code
            && !conversation
            && !(report.restored.is_empty() && report.deleted.is_empty())
        {
            state.notes.push(Attachment::Reminder {
                text: format!(
                    "The user rewound the project's files to their state at {} (outside this conversation). Restored: {}. Deleted: {}. Read files again before you change them.",
                    report.target,
                    list(&report.restored),
                    list(&report.deleted)
                ),
            });
        }
        drop(state);
        // The mode change tells the extensions (this service among them):
        // only once the state is released.
        if plan_mode
            && let Some(engine) = self.engine()
            && engine.permission_mode() != PermissionMode::Plan
            && let Err(e) = engine.set_permission_mode(PermissionMode::Plan)
        {
            self.notify(format!("Could not enter plan mode again: {e}"));
        }
        self.notify(report.summary());
        Ok(report)
    }

    /// The checkpoint to restore for `target` (`None`: nothing changed
    /// since it) and, for a message, its text.
    fn resolve(
        &self,
        state: &State,
        target: &RewindTarget,
        code: bool,
    ) -> Result<(Option<usize>, Option<String>), CheckpointError> {
        let line = &state.line;
        match target {
            RewindTarget::Message(uuid) => {
                let Some(prompt) = line.prompt(uuid) else {
                    return Err(CheckpointError::UnknownTarget(uuid.clone()));
                };
                let index = line.start_of(uuid);
                if code && index.is_none() && !line.pending.contains(uuid) {
                    return Err(CheckpointError::NoCheckpoint(format!(
                        "\"{}\"",
                        one_line(&prompt.text, 60)
                    )));
                }
                Ok((index, Some(prompt.text.clone())))
            }
            RewindTarget::Plan { slug, approval } => line
                .approval(slug.as_deref(), *approval)
                .map(|i| (Some(i), None))
                .ok_or_else(|| {
                    let which = match (slug, approval) {
                        (Some(s), Some(n)) => format!(" for plan {s} (approval {n})"),
                        (Some(s), None) => format!(" for plan {s}"),
                        (None, Some(n)) => format!(" (approval {n})"),
                        (None, None) => String::new(),
                    };
                    CheckpointError::NoApproval(which)
                }),
            RewindTarget::BeforeRewind(entry) => line
                .by_entry(entry)
                .filter(|i| line.records[*i].kind == CheckpointKind::BeforeRewind)
                .map(|i| (Some(i), None))
                .ok_or_else(|| CheckpointError::UnknownTarget(target.id())),
        }
    }

    /// Restores the files of checkpoint `index` (see the module
    /// documentation), filling `report`.
    fn restore_files(
        &self,
        state: &mut State,
        index: usize,
        target_id: &str,
        request: &RewindRequest,
        report: &mut RewindReport,
    ) -> Result<(), CheckpointError> {
        if let Some(why) = &state.off {
            return Err(CheckpointError::Off(format!(": {why}")));
        }
        let target = state.line.records[index].clone();
        let now = self
            .snapshot(state, true)
            .ok_or_else(|| CheckpointError::Off(String::new()))?;
        let changes = crate::sync::blocking_io(|| self.repo.changes(&target.commit, &now.commit))?;
        let keep: HashSet<String> = target
            .skipped
            .iter()
            .chain(now.skipped.iter())
            .cloned()
            .collect();
        let (write, delete) = restore::plan(&changes, &keep);
        let touched: HashSet<&String> = write.iter().chain(delete.iter()).collect();
        report.kept = changes
            .iter()
            .filter(|c| keep.contains(&c.path))
            .map(|c| c.path.clone())
            .collect();
        report.outside = self
            .outside_changes(state, index, &now)?
            .into_iter()
            .filter(|p| touched.contains(p))
            .collect();
        // Per file, from the files as they are now to the point: what the
        // restore adds and removes (files left as they are count nothing).
        report.files =
            crate::sync::blocking_io(|| self.repo.file_line_counts(&now.commit, &target.commit))?
                .into_iter()
                .filter(|f| touched.contains(&f.path))
                .collect();
        report.insertions = report.files.iter().map(|f| f.insertions).sum();
        report.deletions = report.files.iter().map(|f| f.deletions).sum();
        if request.dry_run {
            report.restored = write;
            report.deleted = delete;
            return Ok(());
        }
        if !report.outside.is_empty() && !request.force {
            return Err(CheckpointError::OutsideChanges(report.outside.clone()));
        }
        self.record(
            state,
            Record {
                kind: CheckpointKind::BeforeRewind,
                commit: now.commit,
                skipped: now.skipped,
                target: Some(target_id.to_string()),
                ..blank()
            },
        );
        let done = crate::sync::blocking_io(|| restore::restore(&self.repo, &changes, &keep))?;
        report.restored = done.written;
        report.deleted = done.deleted;
        report.refused = done.refused;
        if let Some(after) = self.snapshot(state, true) {
            // The files this rewind put back or deleted: what its undo
            // point lists in the picker.
            let mut changed: Vec<String> = report
                .restored
                .iter()
                .chain(&report.deleted)
                .cloned()
                .collect();
            changed.truncate(super::MAX_LISTED_FILES);
            self.record(
                state,
                Record {
                    kind: CheckpointKind::AfterRewind,
                    commit: after.commit,
                    skipped: after.skipped,
                    changed,
                    target: Some(target_id.to_string()),
                    ..blank()
                },
            );
        }
        Ok(())
    }

    /// Files changed since checkpoint `index` by someone other than catui:
    /// between catui's snapshots (what happened between a turn's end and
    /// the next turn's start), and since the last one (`now`).
    fn outside_changes(
        &self,
        state: &State,
        index: usize,
        now: &Snapshot,
    ) -> Result<BTreeSet<String>, CheckpointError> {
        let records = &state.line.records[index..];
        let mut out = BTreeSet::new();
        let mut pairs: Vec<(&str, &str)> = records
            .windows(2)
            .filter(|w| !w[1].kind.follows_catui_changes())
            .map(|w| (w[0].commit.as_str(), w[1].commit.as_str()))
            .collect();
        if let Some(last) = records.last() {
            pairs.push((last.commit.as_str(), now.commit.as_str()));
        }
        for (from, to) in pairs.into_iter().filter(|(a, b)| a != b) {
            for change in crate::sync::blocking_io(|| self.repo.changes(from, to))? {
                out.insert(change.path);
            }
        }
        Ok(out)
    }

    /// The conversation as it was just before message `uuid`, rebuilt from
    /// the transcript.
    fn conversation_before(
        &self,
        uuid: &str,
    ) -> Result<Vec<catui_protocol::Message>, CheckpointError> {
        let Some(path) = &self.transcript else {
            return Err(CheckpointError::Conversation(
                "this session keeps no transcript".into(),
            ));
        };
        let loaded = crate::session::load(path).map_err(|source| CheckpointError::Io {
            what: format!("read {}", path.display()),
            source,
        })?;
        let at = loaded
            .entries
            .iter()
            .position(|e| e.uuid == uuid)
            .ok_or_else(|| {
                CheckpointError::Conversation(format!(
                    "message {uuid} is not in the transcript {} (not saved yet?)",
                    path.display()
                ))
            })?;
        Ok(crate::session::rebuild_messages(&loaded.entries[..at]))
    }

    /// Plan mode again with the text approved at checkpoint `index` in the
    /// plan file; returns the plan file.
    fn back_to_plan(&self, state: &mut State, index: usize) -> Result<PathBuf, CheckpointError> {
        let text = state
            .line
            .approved_text_at(index)
            .unwrap_or_default()
            .to_string();
        let path = self.plan.files.path(None);
        crate::tools::fs_atomic::write_atomic(&path, text.as_bytes()).map_err(|source| {
            CheckpointError::Io {
                what: format!("write the approved plan to {}", path.display()),
                source,
            }
        })?;
        self.recorder.record(EngineRecord::FileSnapshot {
            key: crate::plan::contract::PLAN_SNAPSHOT_KEY.to_string(),
            path: path.display().to_string(),
            content: text,
        });
        state.line.baseline = None;
        state.notes.push(Attachment::Reminder {
            text: format!(
                "The user went back to the approved plan: the project's files are as they were when it was approved, and plan mode is on again. The plan file {} holds the approved plan; revise it with the user and call ExitPlanMode when it is ready.",
                path.display()
            ),
        });
        Ok(path)
    }
}

fn list(paths: &[String]) -> String {
    if paths.is_empty() {
        "none".to_string()
    } else {
        paths.join(", ")
    }
}
