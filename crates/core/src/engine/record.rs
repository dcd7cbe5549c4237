//! What the engine records about a conversation. The session module turns
//! records into transcript entries; tests can record into memory.

use crate::sync::lock;
use std::sync::Mutex;

use catui_protocol::{Attachment, Message, PermissionMode, Usage};

/// The `system` record subtype marking `/clear`: a resume rebuilds the
/// conversation from after the last one.
pub const CONVERSATION_CLEARED: &str = "conversation_cleared";

/// One thing worth keeping in the transcript.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    User {
        message: Message,
        is_meta: bool,
    },
    Assistant {
        message: Message,
        usage: Usage,
        model: Option<String>,
    },
    Attachment {
        attachment: Attachment,
    },
    PermissionMode {
        mode: PermissionMode,
        pre_plan_mode: Option<PermissionMode>,
    },
    /// A file's content at a moment worth keeping (plan revisions, plan
    /// snapshots).
    FileSnapshot {
        key: String,
        path: String,
        content: String,
    },
    /// A transcript entry built elsewhere (compaction's summary).
    Entry(catui_protocol::transcript::EntryBody),
    /// A note about the session (e.g. an auto-mode decision).
    System {
        subtype: String,
        text: String,
    },
}

/// Where records go. Implementations must not fail the conversation: they
/// report their own IO errors.
pub trait Recorder: Send + Sync {
    /// Keeps `record`; returns the uuid its transcript entry got, when it
    /// was written (front ends show messages under that uuid, so that a
    /// client can name one later, e.g. to resume up to it).
    fn record(&self, record: Record) -> Option<String>;
    /// Records a user's input under the id the front end gave it (the
    /// client's `uuid`, or one catui chose), so a rewind can name it.
    /// Recorders that keep no ids just record.
    fn record_with_uuid(&self, _uuid: &str, record: Record) {
        self.record(record);
    }
    /// What has been recorded but could not be saved yet, in one sentence
    /// for the user (`None`: everything is saved, or nothing is kept).
    fn unsaved(&self) -> Option<String> {
        None
    }
    /// The plan slug written with entries from now on (`/clear` starts a new
    /// one); recorders that keep no slug ignore it.
    fn set_slug(&self, _slug: Option<String>) {}
}

/// Keeps records in memory (tests, sub-agents without transcripts).
#[derive(Default)]
pub struct MemoryRecorder {
    records: Mutex<Vec<Record>>,
}

impl MemoryRecorder {
    pub fn records(&self) -> Vec<Record> {
        lock(&self.records).clone()
    }
}

impl Recorder for MemoryRecorder {
    fn record(&self, record: Record) -> Option<String> {
        lock(&self.records).push(record);
        None
    }
}
