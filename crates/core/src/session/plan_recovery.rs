//! The plan file on resume: re-adopt the slug the session
//! recorded and, when the plan file has gone missing, rebuild it from the
//! transcript. Unlike the reference, recovery runs in every session, not
//! only remote ones.
//!
//! Sources, most trusted first (the last occurrence of each counts):
//! 1. a `file_snapshot` entry with key `plan` (written when snapshots are
//!    on, see [`super::snapshot`]);
//! 2. the last `ExitPlanMode` call: the plan the user approved after
//!    editing it (`## Approved Plan (edited by user):` in its result), else
//!    the call's `plan` input, else the plan under `## Approved Plan:` in
//!    its result;
//! 3. a user entry's `planContent`;
//! 4. a `plan_file_reference` attachment's `planContent`;
//! 5. the plan file's own history: its last successful Write, with the
//!    successful Edits after it replayed. This one wins over 2–4 when it is
//!    more recent than the last ExitPlanMode call (a plan written but never
//!    presented, or revised after it was).

use catui_protocol::tool_names;
use std::path::{Path, PathBuf};

use catui_protocol::{Attachment, ContentBlock};

use super::entry::{EntryBody, TranscriptEntry};
use super::resume::ResumedSession;
use crate::plan::PlanFiles;
use crate::plan::contract::{APPROVED_PLAN_EDITED_HEADING, APPROVED_PLAN_HEADING};
use crate::plan::files::slug::InvalidSlug;

pub use crate::plan::contract::{PLAN_REVISION_KEY, PLAN_SNAPSHOT_KEY};

use catui_protocol::tool_names::EXIT_PLAN_MODE;

/// Where a recovered plan came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanSource {
    FileSnapshot,
    /// The plan the user edited in the approval dialog.
    EditedApprovedPlan,
    ExitPlanModeInput,
    ApprovedPlanResult,
    UserPlanContent,
    PlanFileReference,
    /// Replayed from the Write/Edit calls on the plan file.
    PlanFileWrites,
}

/// What [`copy_plan_for_resume`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanRestore {
    /// The session never had a plan slug.
    NoPlan,
    /// The slug was adopted and its plan file is still there.
    Present { path: PathBuf },
    /// The file was missing and was rewritten from the transcript.
    Recovered { path: PathBuf, source: PlanSource },
    /// The slug was adopted but the file is gone and the transcript holds
    /// no copy of the plan (it had not been written yet, probably).
    Missing { path: PathBuf },
    /// The slug was adopted; the session never planned (never in plan
    /// mode, the plan file never named), so no file is expected.
    NeverPlanned { path: PathBuf },
}

/// Why the plan could not be restored.
#[derive(Debug, thiserror::Error)]
pub enum PlanRestoreError {
    #[error(
        "the transcript records the plan slug {0}, which is not valid; the plan file cannot be located (a new one will be used)"
    )]
    InvalidSlug(String),
    #[error("could not write the recovered plan to {}: {source}; check the plans directory's permissions", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl From<InvalidSlug> for PlanRestoreError {
    fn from(e: InvalidSlug) -> Self {
        PlanRestoreError::InvalidSlug(e.0)
    }
}

/// Points `plan_files` at the resumed session (its id and recorded slug)
/// and makes sure the plan file exists when the transcript holds a copy.
pub fn copy_plan_for_resume(
    resumed: &ResumedSession,
    plan_files: &PlanFiles,
) -> Result<PlanRestore, PlanRestoreError> {
    plan_files.set_session_id(resumed.session_id.clone());
    let Some(slug) = resumed.slug.as_deref() else {
        return Ok(PlanRestore::NoPlan);
    };
    plan_files.adopt_slug(slug)?;
    let path = plan_files.path(None);
    if path.is_file() {
        return Ok(PlanRestore::Present { path });
    }
    let Some((content, source)) = recover_plan_for_path(&resumed.entries, &path) else {
        if !ever_planned(resumed, &path) {
            return Ok(PlanRestore::NeverPlanned { path });
        }
        return Ok(PlanRestore::Missing { path });
    };
    write_plan(&path, &content)?;
    Ok(PlanRestore::Recovered { path, source })
}

/// Whether the resumed session ever planned: it was in plan mode (or
/// came back from it), or some entry names its plan file.
fn ever_planned(resumed: &ResumedSession, path: &Path) -> bool {
    if resumed.permission_mode == Some(catui_protocol::PermissionMode::Plan)
        || resumed.pre_plan_mode.is_some()
    {
        return true;
    }
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return true;
    };
    resumed
        .entries
        .iter()
        .any(|e| serde_json::to_string(&e.body).is_ok_and(|text| text.contains(name)))
}

/// Writes a plan file, creating its folder.
pub(crate) fn write_plan(path: &Path, content: &str) -> Result<(), PlanRestoreError> {
    let write = || -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, content)
    };
    write().map_err(|source| PlanRestoreError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// [`recover_plan_content`] plus source 5, the Write/Edit calls on the
/// plan file at `path`.
pub fn recover_plan_for_path(
    entries: &[TranscriptEntry],
    path: &Path,
) -> Option<(String, PlanSource)> {
    let snapshot = recover_plan_content(entries).filter(|(_, s)| *s == PlanSource::FileSnapshot);
    if snapshot.is_some() {
        return snapshot;
    }
    let written = replay_plan_writes(entries, path);
    let last_exit = entries.iter().rposition(|e| match &e.body {
        EntryBody::Assistant { message, .. } => message
            .tool_uses()
            .any(|(_, name, _)| name == EXIT_PLAN_MODE),
        _ => false,
    });
    match (written, last_exit) {
        (Some((plan, at)), exit) if exit.is_none_or(|e| at > e) => {
            Some((plan, PlanSource::PlanFileWrites))
        }
        (written, _) => recover_plan_content(entries)
            .or_else(|| written.map(|(plan, _)| (plan, PlanSource::PlanFileWrites))),
    }
}

/// The plan file's text rebuilt from its last successful Write and the
/// successful Edits after it, with the index of the entry of the last
/// change. `None` when no Write of it succeeded or an Edit cannot be
/// replayed (the text would be wrong).
fn replay_plan_writes(entries: &[TranscriptEntry], path: &Path) -> Option<(String, usize)> {
    let target = path.to_string_lossy();
    let succeeded = |id: &str| {
        entries.iter().any(|e| match &e.body {
            EntryBody::User { message, .. } => message.content.iter().any(|b| {
                matches!(b, ContentBlock::ToolResult { tool_use_id, is_error, .. }
                    if tool_use_id == id && !is_error)
            }),
            _ => false,
        })
    };
    let mut calls = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        if let EntryBody::Assistant { message, .. } = &e.body {
            for (id, name, input) in message.tool_uses() {
                let on_plan = input.get("file_path").and_then(|p| p.as_str()) == Some(&*target);
                if on_plan && matches!(name, tool_names::WRITE | tool_names::EDIT) && succeeded(id)
                {
                    calls.push((i, name.to_string(), input.clone()));
                }
            }
        }
    }
    let start = calls
        .iter()
        .rposition(|(_, name, _)| name == tool_names::WRITE)?;
    let str_of =
        |v: &serde_json::Value, k: &str| v.get(k).and_then(|s| s.as_str()).map(str::to_string);
    let mut text = str_of(&calls[start].2, "content")?;
    let mut at = calls[start].0;
    for (i, _, input) in &calls[start + 1..] {
        let old = str_of(input, "old_string")?;
        let new = str_of(input, "new_string")?;
        if old.is_empty() || !text.contains(&old) {
            return None;
        }
        text = if input.get("replace_all").and_then(|b| b.as_bool()) == Some(true) {
            text.replace(&old, &new)
        } else {
            text.replacen(&old, &new, 1)
        };
        at = *i;
    }
    (!text.trim().is_empty()).then_some((text, at))
}

/// The most trusted copy of the plan found in `entries` (see the module
/// docs for the order). Empty texts do not count.
pub fn recover_plan_content(entries: &[TranscriptEntry]) -> Option<(String, PlanSource)> {
    let non_empty = |s: &str| (!s.trim().is_empty()).then(|| s.to_string());
    let snapshot = entries.iter().rev().find_map(|e| match &e.body {
        EntryBody::FileSnapshot { key, content, .. } if key == PLAN_SNAPSHOT_KEY => {
            non_empty(content)
        }
        _ => None,
    });
    if let Some(plan) = snapshot {
        return Some((plan, PlanSource::FileSnapshot));
    }
    if let Some(found) = from_exit_plan_mode(entries) {
        return Some(found);
    }
    let user = entries.iter().rev().find_map(|e| match &e.body {
        EntryBody::User {
            plan_content: Some(plan),
            ..
        } => non_empty(plan),
        _ => None,
    });
    if let Some(plan) = user {
        return Some((plan, PlanSource::UserPlanContent));
    }
    entries
        .iter()
        .rev()
        .find_map(|e| match &e.body {
            EntryBody::Attachment {
                attachment: Attachment::PlanFileReference { plan_content, .. },
            } => non_empty(plan_content),
            _ => None,
        })
        .map(|plan| (plan, PlanSource::PlanFileReference))
}

/// Source 2: the last ExitPlanMode call and its result.
fn from_exit_plan_mode(entries: &[TranscriptEntry]) -> Option<(String, PlanSource)> {
    let (id, input_plan) = entries.iter().rev().find_map(|e| match &e.body {
        EntryBody::Assistant { message, .. } => message
            .tool_uses()
            .filter(|(_, name, _)| *name == EXIT_PLAN_MODE)
            .last()
            .map(|(id, _, input)| {
                let plan = input
                    .get("plan")
                    .and_then(|p| p.as_str())
                    .filter(|p| !p.trim().is_empty())
                    .map(str::to_string);
                (id.to_string(), plan)
            }),
        _ => None,
    })?;
    let result = entries.iter().find_map(|e| match &e.body {
        EntryBody::User { message, .. } => message.content.iter().find_map(|b| match b {
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                ..
            } if *tool_use_id == id => Some(content.as_text()),
            _ => None,
        }),
        _ => None,
    });
    if let Some(edited) = result
        .as_deref()
        .and_then(|r| text_after(r, APPROVED_PLAN_EDITED_HEADING))
    {
        return Some((edited, PlanSource::EditedApprovedPlan));
    }
    let presented = || {
        entries.iter().rev().find_map(|e| match &e.body {
            EntryBody::FileSnapshot { key, content, .. } if key == PLAN_REVISION_KEY => {
                (!content.trim().is_empty()).then(|| content.clone())
            }
            _ => None,
        })
    };
    if let Some(plan) = input_plan.or_else(presented) {
        return Some((plan, PlanSource::ExitPlanModeInput));
    }
    result
        .as_deref()
        .and_then(|r| text_after(r, APPROVED_PLAN_HEADING))
        .map(|plan| (plan, PlanSource::ApprovedPlanResult))
}

/// The text after the line holding `heading`, if not empty.
fn text_after(text: &str, heading: &str) -> Option<String> {
    let start = text.find(heading)? + heading.len();
    let rest = text[start..].strip_prefix('\n').unwrap_or(&text[start..]);
    (!rest.trim().is_empty()).then(|| rest.to_string())
}

#[cfg(test)]
#[path = "plan_recovery_tests.rs"]
mod tests;
