//! Sessions (SPEC §10): transcripts on disk and what resume needs from them.
//!
//! - [`paths`] — where a project's transcripts and sidechains live.
//! - [`entry`] — the JSONL entry format ([`TranscriptEntry`], [`EntryBody`]).
//! - [`transcript`] — [`TranscriptWriter`] (append-only, chained, fsynced,
//!   secrets redacted) and [`load`] (torn lines skipped with warnings).
//! - [`recorder`] — [`TranscriptRecorder`], the engine's recorder on disk.
//! - [`list`] — a project's sessions, newest first.
//! - [`rebuild`] — the model conversation rebuilt from entries.
//! - [`redact`] — API keys kept out of transcripts.

pub mod entry;
pub mod list;
pub mod paths;
pub mod rebuild;
pub mod recorder;
pub mod redact;
pub mod transcript;

pub use entry::{EntryBody, TranscriptEntry};
pub use list::{SessionSummary, latest_session, list_sessions};
pub use paths::{
    project_dir, project_dir_in_config_dir, projects_dir, sanitize_cwd, session_path,
    session_path_in_config_dir, sidechain_path,
};
pub use rebuild::rebuild_messages;
pub use recorder::TranscriptRecorder;
pub use redact::Redactor;
pub use transcript::{Loaded, TranscriptWriter, load};
