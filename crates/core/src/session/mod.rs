//! Sessions: transcripts on disk and what resume needs from them.
//!
//! - [`paths`] — where a project's transcripts and sidechains live.
//! - [`entry`] — the JSONL entry format ([`TranscriptEntry`], [`EntryBody`]).
//! - [`transcript`] — [`TranscriptWriter`] (append-only, chained, fsynced,
//!   secrets redacted) and [`load`] (torn lines skipped with warnings).
//! - [`recorder`] — [`TranscriptRecorder`], the engine's recorder on disk
//!   (unsaved entries kept and retried, failures announced).
//! - [`lock`] — [`SessionLock`]: one process writes a session at a time.
//! - [`index`] / [`list`] — a project's sessions, newest first, through
//!   the `sessions-index.json` cache.
//! - [`rebuild`] — the model conversation rebuilt from entries.
//! - [`resume`] — `--resume` / `--continue`; [`plan_recovery`] — the plan
//!   file on resume; [`fork`] — `--fork-session`.
//! - [`plan_review`] — plans an ended session left awaiting approval, and
//!   the decisions recorded for them.
//! - [`snapshot`] — plan snapshots in the transcript.
//! - [`compact`] — `/compact` and automatic compaction.
//! - [`redact`] — API keys kept out of transcripts.
//! - [`git_branch`] — the branch a session ran on.

pub mod compact;
/// The transcript line format (shared with other readers of transcripts).
pub use catui_protocol::transcript as entry;
pub mod fork;
pub mod git_branch;
pub mod index;
pub mod list;
pub mod lock;
pub mod paths;
pub mod plan_history;
pub mod plan_library;
pub mod plan_recovery;
pub mod plan_review;
pub mod rebuild;
pub mod recorder;
pub mod redact;
pub mod resume;
pub mod snapshot;
pub mod transcript;

pub use compact::{
    CompactError, Compacted, DEFAULT_AUTO_COMPACT_THRESHOLD, SummaryCompactor,
    auto_compact_threshold, compact, context_window, prompt_tokens, should_auto_compact,
};
pub use entry::{EntryBody, TranscriptEntry};
pub use fork::{ForkError, ForkedSession, fork_session};
pub use list::{SessionSummary, latest_session, list_sessions};
pub use lock::{SessionLock, SessionLockError};
pub use paths::{
    project_dir, project_dir_in_config_dir, projects_dir, sanitize_cwd, session_path,
    session_path_in_config_dir, sidechain_path,
};
pub use plan_recovery::{
    PlanRestore, PlanRestoreError, PlanSource, copy_plan_for_resume, recover_plan_content,
};
pub use rebuild::rebuild_messages;
pub use recorder::{Notifier, TranscriptRecorder};
pub use redact::Redactor;
pub use resume::{ResumeError, ResumedSession, load_session, resume_session};
pub use snapshot::{PlanSnapshotRecorder, record_plan_snapshot, snapshot_plans_enabled};
pub use transcript::{Loaded, TranscriptWriter, load};
