//! The per-project session index, `<project dir>/sessions-index.json`.
//!
//! Listing sessions by parsing every transcript costs time proportional to
//! everything ever said in the project; the index keeps one summary per
//! transcript together with the file's size and modification time, so a
//! listing only has to `stat` the files and re-read the ones that changed.
//! The index is a cache: it is never the source of truth, a missing,
//! corrupt or outdated index is rebuilt from the `.jsonl` files, and
//! failing to write it only costs speed next time.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use catui_protocol::PermissionMode;
use serde::{Deserialize, Serialize};

/// The index file's name inside a project's transcript folder.
pub const INDEX_FILE_NAME: &str = "sessions-index.json";

/// Bumped when the summary format changes; an index of another version is
/// rebuilt.
const INDEX_VERSION: u32 = 2;

/// What the index remembers about one transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexedSession {
    pub session_id: String,
    /// The first thing the user typed (cut to 200 characters).
    #[serde(default)]
    pub first_prompt: Option<String>,
    /// Timestamp (RFC 3339) of the last entry.
    #[serde(default)]
    pub last_activity: Option<String>,
    /// User and assistant messages.
    #[serde(default)]
    pub message_count: usize,
    /// The mode of the last `permission_mode` entry.
    #[serde(default)]
    pub permission_mode: Option<PermissionMode>,
    /// The plan slug most recently recorded.
    #[serde(default)]
    pub plan_slug: Option<String>,
    /// Whether the session ever planned (see [`super::list::SessionSummary::planned`]).
    #[serde(default)]
    pub planned: bool,
    #[serde(default)]
    pub git_branch: Option<String>,
    /// The transcript's size and modification time when summarised: the
    /// summary is stale as soon as either differs.
    pub file_size: u64,
    pub file_mtime_ns: u64,
}

#[derive(Debug, Serialize, Deserialize)]
struct IndexFile {
    version: u32,
    sessions: Vec<IndexedSession>,
}

/// The size and modification time of a transcript, as the index stores them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    pub size: u64,
    pub mtime_ns: u64,
}

impl FileStamp {
    pub fn of(meta: &std::fs::Metadata) -> FileStamp {
        FileStamp {
            size: meta.len(),
            mtime_ns: meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
                .unwrap_or(0),
        }
    }

    pub fn modified(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_nanos(self.mtime_ns)
    }
}

impl IndexedSession {
    /// Whether this summary still describes a file with `stamp`.
    pub fn is_fresh(&self, stamp: FileStamp) -> bool {
        self.file_size == stamp.size && self.file_mtime_ns == stamp.mtime_ns
    }
}

/// The index file of a project folder.
pub fn index_path(project_dir: &Path) -> PathBuf {
    project_dir.join(INDEX_FILE_NAME)
}

/// The summaries stored in the index, by session id. A missing, unreadable
/// or outdated index is an empty map (everything gets re-summarised).
pub fn read_index(project_dir: &Path) -> HashMap<String, IndexedSession> {
    let path = index_path(project_dir);
    let Ok(bytes) = std::fs::read(&path) else {
        return HashMap::new();
    };
    match serde_json::from_slice::<IndexFile>(&bytes) {
        Ok(file) if file.version == INDEX_VERSION => file
            .sessions
            .into_iter()
            .map(|s| (s.session_id.clone(), s))
            .collect(),
        Ok(_) => HashMap::new(),
        Err(err) => {
            tracing::debug!("ignoring the session index {}: {err}", path.display());
            HashMap::new()
        }
    }
}

/// Replaces the index with `sessions`. Written to a temporary file and
/// renamed, so a reader never sees half an index; two processes racing
/// both write complete indexes and the last rename wins.
pub fn write_index(project_dir: &Path, sessions: &[IndexedSession]) -> std::io::Result<()> {
    let file = IndexFile {
        version: INDEX_VERSION,
        sessions: sessions.to_vec(),
    };
    let bytes = serde_json::to_vec(&file).map_err(std::io::Error::other)?;
    let tmp = project_dir.join(format!(
        ".{INDEX_FILE_NAME}.{}.{}.tmp",
        std::process::id(),
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, index_path(project_dir)).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}
