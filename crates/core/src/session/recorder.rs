//! The engine's [`Recorder`] backed by a transcript file: each
//! [`Record`] becomes one [`EntryBody`] appended through a
//! [`TranscriptWriter`]. Recording never fails the conversation: the first
//! IO error is logged with `tracing::warn!`, later ones only at debug level
//! (a full disk would otherwise flood the log).

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

use crate::engine::{Record, Recorder};

use super::entry::{EntryBody, TranscriptEntry};
use super::transcript::TranscriptWriter;

/// Records a conversation into a transcript file.
#[derive(Debug)]
pub struct TranscriptRecorder {
    writer: Mutex<TranscriptWriter>,
    path: PathBuf,
    warned: AtomicBool,
}

impl TranscriptRecorder {
    pub fn new(writer: TranscriptWriter) -> Self {
        let path = writer.path().to_path_buf();
        Self {
            writer: Mutex::new(writer),
            path,
            warned: AtomicBool::new(false),
        }
    }

    /// The transcript file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Sets the plan slug written in entries from now on.
    pub fn set_slug(&self, slug: Option<String>) {
        self.writer().set_slug(slug);
    }

    /// Appends an entry the engine's [`Record`] has no variant for
    /// (system notices, file snapshots, summaries, todos). Errors are
    /// returned, not just logged, for callers that care.
    pub fn append(&self, body: EntryBody) -> io::Result<TranscriptEntry> {
        let result = self.writer().append(body);
        if let Err(err) = &result {
            self.report(err);
        }
        result
    }

    /// The uuid of the last entry written.
    pub fn last_uuid(&self) -> Option<String> {
        self.writer().last_uuid().map(str::to_string)
    }

    fn writer(&self) -> MutexGuard<'_, TranscriptWriter> {
        // A panic while holding the lock cannot leave the writer half
        // updated in a way that matters: at worst one chain link is lost.
        match self.writer.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    fn report(&self, err: &io::Error) {
        if self.warned.swap(true, Ordering::Relaxed) {
            tracing::debug!("transcript {}: write failed: {err}", self.path.display());
        } else {
            tracing::warn!(
                "could not write the transcript {}: {err}; the conversation continues but \
                 may not be resumable (check free space and permissions)",
                self.path.display()
            );
        }
    }
}

impl Recorder for TranscriptRecorder {
    fn record(&self, record: Record) {
        let _ = self.append(body_of(record));
    }
}

/// The transcript body for an engine record.
pub fn body_of(record: Record) -> EntryBody {
    match record {
        Record::User { message, is_meta } => EntryBody::User {
            message,
            is_meta,
            plan_content: None,
        },
        Record::Assistant {
            message,
            usage,
            model,
        } => EntryBody::Assistant {
            message,
            usage: Some(usage),
            model,
        },
        Record::Attachment { attachment } => EntryBody::Attachment { attachment },
        Record::PermissionMode {
            mode,
            pre_plan_mode,
        } => EntryBody::PermissionMode {
            mode,
            pre_plan_mode,
        },
        Record::FileSnapshot { key, path, content } => {
            EntryBody::FileSnapshot { key, path, content }
        }
        Record::Entry(body) => body,
        Record::System { subtype, text } => EntryBody::System { subtype, text },
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use catui_protocol::{Attachment, Message, PermissionMode, Usage};

    use super::*;
    use crate::session::redact::Redactor;
    use crate::session::transcript::load;

    #[test]
    fn system_records_become_system_entries() {
        let body = body_of(Record::System {
            subtype: "auto_mode_decision".into(),
            text: "auto mode denied Bash: no".into(),
        });
        assert_eq!(
            body,
            EntryBody::System {
                subtype: "auto_mode_decision".into(),
                text: "auto mode denied Bash: no".into(),
            }
        );
        assert_eq!(body.kind(), "system");
    }

    #[test]
    fn records_become_chained_entries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let writer = TranscriptWriter::open(&path)
            .unwrap()
            .with_redactor(Redactor::default());
        let recorder: Arc<dyn Recorder> = Arc::new(TranscriptRecorder::new(writer));
        recorder.record(Record::User {
            message: Message::user_text("plan it"),
            is_meta: false,
        });
        recorder.record(Record::PermissionMode {
            mode: PermissionMode::Plan,
            pre_plan_mode: Some(PermissionMode::Default),
        });
        recorder.record(Record::Attachment {
            attachment: Attachment::AutoModeExit,
        });
        recorder.record(Record::Assistant {
            message: Message::assistant_text("ok"),
            usage: Usage {
                output_tokens: 2,
                ..Usage::default()
            },
            model: Some("m1".into()),
        });

        let loaded = load(&path).unwrap();
        assert!(loaded.warnings.is_empty());
        let kinds: Vec<&str> = loaded.entries.iter().map(|e| e.body.kind()).collect();
        assert_eq!(
            kinds,
            ["user", "permission_mode", "attachment", "assistant"]
        );
        for pair in loaded.entries.windows(2) {
            assert_eq!(pair[1].parent_uuid.as_deref(), Some(pair[0].uuid.as_str()));
        }
        assert_eq!(
            loaded.entries[3].body,
            EntryBody::Assistant {
                message: Message::assistant_text("ok"),
                usage: Some(Usage {
                    output_tokens: 2,
                    ..Usage::default()
                }),
                model: Some("m1".into()),
            }
        );
    }

    #[test]
    fn slug_and_extra_entries_go_through_the_same_chain() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let recorder = TranscriptRecorder::new(
            TranscriptWriter::open(&path)
                .unwrap()
                .with_redactor(Redactor::default()),
        );
        recorder.record(Record::User {
            message: Message::user_text("a"),
            is_meta: true,
        });
        recorder.set_slug(Some("bright-tall-tree".into()));
        let snap = recorder
            .append(EntryBody::FileSnapshot {
                key: "plan".into(),
                path: "/p.md".into(),
                content: "# Plan".into(),
            })
            .unwrap();
        assert_eq!(recorder.last_uuid(), Some(snap.uuid.clone()));
        let loaded = load(recorder.path()).unwrap();
        assert_eq!(loaded.entries.len(), 2);
        assert_eq!(loaded.entries[0].slug, None);
        assert_eq!(loaded.entries[1].slug.as_deref(), Some("bright-tall-tree"));
        assert_eq!(
            loaded.entries[1].parent_uuid.as_deref(),
            Some(loaded.entries[0].uuid.as_str())
        );
    }

    #[test]
    fn write_errors_do_not_panic() {
        let dir = tempfile::tempdir().unwrap();
        let recorder = TranscriptRecorder::new(
            TranscriptWriter::open(dir.path().join("s.jsonl"))
                .unwrap()
                .with_redactor(Redactor::default()),
        );
        // Unknown bodies are refused by the writer: an error path that needs
        // no broken disk. Recording must carry on after it.
        assert!(recorder.append(EntryBody::Unknown).is_err());
        assert!(recorder.append(EntryBody::Unknown).is_err());
        recorder.record(Record::User {
            message: Message::user_text("still recording"),
            is_meta: false,
        });
        assert_eq!(load(recorder.path()).unwrap().entries.len(), 1);
    }

    #[test]
    fn a_full_disk_is_survived() {
        // /dev/full accepts opens and fails every write with ENOSPC.
        let full = Path::new("/dev/full");
        if !full.exists() {
            return;
        }
        let recorder = TranscriptRecorder::new(
            TranscriptWriter::open(full)
                .unwrap()
                .with_redactor(Redactor::default()),
        );
        for _ in 0..3 {
            recorder.record(Record::User {
                message: Message::user_text("lost"),
                is_meta: false,
            });
        }
        let err = recorder
            .append(EntryBody::user(Message::user_text("x")))
            .unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::ENOSPC));
    }
}
