//! Resuming a session (`--resume [ID]`, `--continue`): finding the
//! transcript, loading it, and recovering what the engine needs to carry on
//! where it stopped — the conversation, the permission mode, the plan slug,
//! the todo list and which files the model has read.
//!
//! The plan file itself is restored by [`super::plan_recovery`]; forking is
//! [`super::fork`]. Which transcript a new session continues, as the
//! command line asks, is decided in `crate::builder::resume`, which calls
//! this module.

use catui_protocol::tool_names;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use catui_protocol::{ContentBlock, Message, PermissionMode, Usage};

use super::entry::{EntryBody, TranscriptEntry};
use super::list::list_sessions;
use super::paths::{project_dir, session_path};
use super::rebuild::rebuild_messages;
use super::transcript::load;

/// How many recent session ids an "unknown session" error lists.
const RECENT_IDS_IN_ERRORS: usize = 5;

/// Why a session could not be resumed.
#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    #[error(
        "no sessions to resume in this project (transcripts are kept in {}); start one with `catui` first",
        project_dir.display()
    )]
    NoSessions { project_dir: PathBuf },
    #[error(
        "no session '{id}' in this project; recent sessions: {}. Run `catui sessions` to see them all",
        if recent.is_empty() { "none".to_string() } else { recent.join(", ") }
    )]
    UnknownSession { id: String, recent: Vec<String> },
    #[error(
        "the session id '{id}' is ambiguous: it starts {}; give more characters",
        matches.join(", ")
    )]
    AmbiguousSession { id: String, matches: Vec<String> },
    #[error("could not read the transcript {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// A session loaded from its transcript, ready to be handed to the engine.
#[derive(Debug, Clone, PartialEq)]
pub struct ResumedSession {
    pub session_id: String,
    /// The transcript file (new entries are appended to it).
    pub path: PathBuf,
    /// Every entry, for plan recovery and forking.
    pub entries: Vec<TranscriptEntry>,
    /// The conversation to give the engine ([`rebuild_messages`]).
    pub messages: Vec<Message>,
    /// The mode of the last `permission_mode` entry; `None` when the
    /// session never recorded one (the caller's default applies).
    pub permission_mode: Option<PermissionMode>,
    /// `prePlanMode` of that entry.
    pub pre_plan_mode: Option<PermissionMode>,
    /// The plan slug most recently recorded.
    pub slug: Option<String>,
    /// The todo list of the last `todos` entry.
    pub todos: Option<serde_json::Value>,
    /// Files the model read successfully (Read calls whose result was not
    /// an error), in first-read order, for the stale-write guard.
    pub read_files: Vec<PathBuf>,
    /// Problems met while loading (skipped lines), one sentence each.
    pub warnings: Vec<String>,
    /// The tokens the session's model requests used so far (every
    /// assistant entry's usage added up), so a resumed session counts on
    /// from where it stopped.
    pub usage: Usage,
}

/// Loads session `id` of the project in `cwd` (a full id, or an
/// unambiguous prefix of one), or the most recent session when `id` is
/// `None` or empty (`--continue`, `--resume` without an id).
pub fn resume_session(
    config_dir: &Path,
    cwd: &Path,
    id: Option<&str>,
) -> Result<ResumedSession, ResumeError> {
    let dir = project_dir(config_dir, cwd);
    let (session_id, path) =
        match id.map(str::trim).filter(|i| !i.is_empty()) {
            Some(id) => find_session(config_dir, cwd, &dir, id)?,
            None => {
                let latest = list_sessions(&dir).into_iter().next().ok_or_else(|| {
                    ResumeError::NoSessions {
                        project_dir: dir.clone(),
                    }
                })?;
                (latest.session_id, latest.path)
            }
        };
    load_session(&session_id, &path)
}

/// Loads the transcript at `path` as session `session_id`.
pub fn load_session(session_id: &str, path: &Path) -> Result<ResumedSession, ResumeError> {
    let loaded = load(path).map_err(|source| ResumeError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(from_entries(
        session_id,
        path,
        loaded.entries,
        loaded.warnings,
    ))
}

/// Builds a [`ResumedSession`] from entries already in memory.
pub(crate) fn from_entries(
    session_id: &str,
    path: &Path,
    entries: Vec<TranscriptEntry>,
    warnings: Vec<String>,
) -> ResumedSession {
    let messages = rebuild_messages(&entries);
    let slug = entries.iter().rev().find_map(|e| e.slug.clone());
    let mut permission_mode = None;
    let mut pre_plan_mode = None;
    let mut todos = None;
    let mut usage = Usage::default();
    for entry in &entries {
        match &entry.body {
            EntryBody::Assistant { usage: Some(u), .. } => usage.add(u),
            EntryBody::PermissionMode {
                mode,
                pre_plan_mode: pre,
            } => {
                permission_mode = Some(*mode);
                pre_plan_mode = *pre;
            }
            EntryBody::Todos { todos: t } => todos = Some(t.clone()),
            _ => {}
        }
    }
    let read_files = read_file_paths(&entries);
    ResumedSession {
        session_id: session_id.to_string(),
        path: path.to_path_buf(),
        entries,
        messages,
        permission_mode,
        pre_plan_mode,
        slug,
        todos,
        read_files,
        warnings,
        usage,
    }
}

fn find_session(
    config_dir: &Path,
    cwd: &Path,
    dir: &Path,
    id: &str,
) -> Result<(String, PathBuf), ResumeError> {
    let exact = session_path(config_dir, cwd, id);
    if exact.is_file() {
        return Ok((id.to_string(), exact));
    }
    let sessions = list_sessions(dir);
    if sessions.is_empty() {
        return Err(ResumeError::NoSessions {
            project_dir: dir.to_path_buf(),
        });
    }
    let matches: Vec<_> = sessions
        .iter()
        .filter(|s| s.session_id.starts_with(id))
        .collect();
    match matches.as_slice() {
        [one] => Ok((one.session_id.clone(), one.path.clone())),
        [] => Err(ResumeError::UnknownSession {
            id: id.to_string(),
            recent: sessions
                .iter()
                .take(RECENT_IDS_IN_ERRORS)
                .map(|s| s.session_id.clone())
                .collect(),
        }),
        many => Err(ResumeError::AmbiguousSession {
            id: id.to_string(),
            matches: many.iter().map(|s| s.session_id.clone()).collect(),
        }),
    }
}

/// The `file_path` of every Read call that got a non-error result.
fn read_file_paths(entries: &[TranscriptEntry]) -> Vec<PathBuf> {
    let mut reads: Vec<(String, PathBuf)> = Vec::new();
    let mut succeeded: HashSet<String> = HashSet::new();
    for entry in entries {
        match &entry.body {
            EntryBody::Assistant { message, .. } => {
                for (id, name, input) in message.tool_uses() {
                    if name == tool_names::READ
                        && let Some(path) = input.get("file_path").and_then(|p| p.as_str())
                    {
                        reads.push((id.to_string(), PathBuf::from(path)));
                    }
                }
            }
            EntryBody::User { message, .. } => {
                for block in &message.content {
                    if let ContentBlock::ToolResult {
                        tool_use_id,
                        is_error: false,
                        ..
                    } = block
                    {
                        succeeded.insert(tool_use_id.clone());
                    }
                }
            }
            _ => {}
        }
    }
    let mut seen = HashSet::new();
    reads
        .into_iter()
        .filter(|(id, _)| succeeded.contains(id))
        .filter_map(|(_, path)| seen.insert(path.clone()).then_some(path))
        .collect()
}

#[cfg(test)]
#[path = "resume_tests.rs"]
pub(crate) mod tests;
