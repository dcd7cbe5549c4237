//! Forking a session (`--fork-session` with `--resume`/`--continue`): the
//! conversation continues under a new session id, in a new
//! transcript, with its own plan file, and the parent is left untouched.
//!
//! The fork's transcript starts with a copy of the parent's entries
//! (same uuids, re-chained, stamped with the new session id and the new
//! slug; their checkpoints stay valid, and the fork's own go on from
//! them: a fork has its own line of checkpoints) followed
//! by a `system` entry of subtype `fork` naming the parent. Copying rather
//! than referencing keeps every transcript self-contained: the fork stays
//! resumable even if the parent's file is deleted, and readers never need
//! to follow links between files.

use std::path::{Path, PathBuf};

use super::entry::EntryBody;
use super::paths::session_path;
use super::plan_recovery::{PlanRestoreError, recover_plan_content, write_plan};
use super::resume::{ResumedSession, from_entries};
use super::transcript::TranscriptWriter;
use crate::plan::{PlanFiles, get_plan, plan_file_path};

/// The `subtype` of the system entry that marks where a fork begins.
pub const FORK_ENTRY_SUBTYPE: &str = "fork";

/// Why a fork failed.
#[derive(Debug, thiserror::Error)]
pub enum ForkError {
    #[error("cannot fork into session {id}: its transcript {} already exists; choose another --session-id", path.display())]
    SessionExists { id: String, path: PathBuf },
    #[error("could not write the forked transcript {}: {source}", path.display())]
    Transcript {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Plan(#[from] PlanRestoreError),
}

/// The result of [`fork_session`].
#[derive(Debug, Clone, PartialEq)]
pub struct ForkedSession {
    /// The new session, as if resumed from its new transcript.
    pub session: ResumedSession,
    pub parent_session_id: String,
    /// The fork's own copy of the parent's plan, when the parent had one.
    pub plan_path: Option<PathBuf>,
}

/// Forks `parent` into a new session (`new_session_id`, or a fresh UUID)
/// of the project in `cwd`. `plan_files` is switched to the new session;
/// when the parent has a plan (its file, or a copy recovered from its
/// transcript), it is copied to a new slug's file so the two sessions never
/// write the same plan.
pub fn fork_session(
    config_dir: &Path,
    cwd: &Path,
    parent: &ResumedSession,
    plan_files: &PlanFiles,
    new_session_id: Option<&str>,
) -> Result<ForkedSession, ForkError> {
    let new_id = new_session_id
        .map(str::to_string)
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let path = session_path(config_dir, cwd, &new_id);
    if path.exists() {
        return Err(ForkError::SessionExists { id: new_id, path });
    }

    plan_files.set_session_id(new_id.clone());
    let parent_plan_path = parent
        .slug
        .as_deref()
        .map(|slug| plan_file_path(plan_files.dir(), slug, None));
    let parent_plan = parent_plan_path
        .as_deref()
        .and_then(get_plan)
        .filter(|p| !p.trim().is_empty())
        .or_else(|| recover_plan_content(&parent.entries).map(|(plan, _)| plan));
    let mut plan_path = None;
    let mut new_slug = None;
    if let Some(content) = parent_plan {
        let mut target = plan_files.path(None);
        if Some(&target) == parent_plan_path.as_ref() {
            // Only possible when the parent's file is gone and the slug
            // generator picked the same words: never share a plan file.
            plan_files.slugs().clear(&new_id);
            target = plan_files.path(None);
        }
        write_plan(&target, &content)?;
        new_slug = Some(plan_files.slug());
        plan_path = Some(target);
    }

    let transcript_error = |source| ForkError::Transcript {
        path: path.clone(),
        source,
    };
    let mut writer =
        TranscriptWriter::for_session(config_dir, cwd, &new_id).map_err(transcript_error)?;
    writer.set_slug(new_slug);
    // The copies keep their uuids: a message the client knew by its id
    // (a rewind target) is the same message in the fork.
    let marker = EntryBody::System {
        subtype: FORK_ENTRY_SUBTYPE.to_string(),
        text: format!("Forked from session {}", parent.session_id),
    };
    let copied = parent
        .entries
        .iter()
        .filter(|e| !matches!(e.body, EntryBody::Unknown))
        .map(|e| (Some(e.uuid.as_str()), &e.body));
    let entries = writer
        .append_keyed(copied.chain(std::iter::once((None, &marker))))
        .map_err(transcript_error)?;
    Ok(ForkedSession {
        session: from_entries(&new_id, &path, entries, Vec::new()),
        parent_session_id: parent.session_id.clone(),
        plan_path,
    })
}
