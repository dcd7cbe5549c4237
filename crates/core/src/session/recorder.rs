//! The engine's [`Recorder`] backed by a transcript file: each
//! [`Record`] becomes one [`EntryBody`] appended through a
//! [`TranscriptWriter`].
//!
//! Recording never fails the conversation, and never loses an entry
//! silently. An entry that cannot be written (full disk, IO error) is kept
//! in memory and written, in order, before the next entry as soon as
//! writing works again. The user is told through the notifier when writing
//! starts failing (with what was not saved) and when it recovers; entries
//! still unsaved when the recorder is dropped are reported on stderr.

use crate::sync::lock;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::engine::{Record, Recorder};

use super::entry::{EntryBody, TranscriptEntry};
use super::lock::SessionLock;
use super::transcript::TranscriptWriter;

/// Shows the user a notice outside the conversation: `(key, text)`.
pub type Notifier = Arc<dyn Fn(&str, &str) + Send + Sync>;

/// Notification key: writing the transcript failed; what was not saved.
pub const NOTICE_WRITE_FAILED: &str = "transcript_write_failed";
/// Notification key: held entries were written after all.
pub const NOTICE_RECOVERED: &str = "transcript_recovered";

struct Inner {
    writer: TranscriptWriter,
    /// Entries not written yet, oldest first, with the uuid chosen for
    /// them (if any).
    unsaved: Vec<(Option<String>, EntryBody)>,
    /// Why the last write failed.
    last_error: Option<String>,
}

/// Records a conversation into a transcript file.
pub struct TranscriptRecorder {
    inner: Mutex<Inner>,
    path: PathBuf,
    notifier: Option<Notifier>,
    /// Held for as long as the session records (one writer per session).
    lock: Option<SessionLock>,
}

impl std::fmt::Debug for TranscriptRecorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TranscriptRecorder")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl TranscriptRecorder {
    pub fn new(writer: TranscriptWriter) -> Self {
        let path = writer.path().to_path_buf();
        Self {
            inner: Mutex::new(Inner {
                writer,
                unsaved: Vec::new(),
                last_error: None,
            }),
            path,
            notifier: None,
            lock: None,
        }
    }

    /// Where failures and recoveries are announced.
    pub fn with_notifier(mut self, notifier: Notifier) -> Self {
        self.notifier = Some(notifier);
        self
    }

    /// Keeps the session's lock for as long as this recorder lives.
    pub fn with_lock(mut self, lock: SessionLock) -> Self {
        self.lock = Some(lock);
        self
    }

    /// The session lock this recorder holds, if any.
    pub fn lock(&self) -> Option<&SessionLock> {
        self.lock.as_ref()
    }

    /// The transcript file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Sets the plan slug written in entries from now on.
    pub fn set_slug(&self, slug: Option<String>) {
        self.inner().writer.set_slug(slug);
    }

    /// Appends an entry the engine's [`Record`] has no variant for
    /// (system notices, file snapshots, summaries, todos). Errors are
    /// returned, not just reported, for callers that care; an entry that
    /// failed to be written is still kept and written later.
    pub fn append(&self, body: EntryBody) -> io::Result<TranscriptEntry> {
        self.append_keyed(None, body)
    }

    /// [`Self::append`] with the entry's uuid chosen by the caller.
    pub fn append_keyed(
        &self,
        uuid: Option<String>,
        body: EntryBody,
    ) -> io::Result<TranscriptEntry> {
        if matches!(body, EntryBody::Unknown) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "an entry of unknown kind cannot be written to a transcript",
            ));
        }
        let mut notice = None;
        // Every append is fsynced: many agents writing at once must not
        // stall the runtime's workers while the disk answers.
        let result = crate::sync::blocking_io(|| {
            let mut inner = self.inner();
            let held = inner.unsaved.len();
            inner.unsaved.push((uuid, body));
            let Inner {
                writer, unsaved, ..
            } = &mut *inner;
            match writer.append_keyed(unsaved.iter().map(|(u, b)| (u.as_deref(), b))) {
                Ok(mut entries) => {
                    inner.unsaved.clear();
                    inner.last_error = None;
                    if held > 0 {
                        notice = Some((
                            NOTICE_RECOVERED,
                            format!(
                                "The transcript {} can be written again: the {held} entr{} held \
                                 in memory {} now saved.",
                                self.path.display(),
                                if held == 1 { "y" } else { "ies" },
                                if held == 1 { "is" } else { "are" },
                            ),
                        ));
                    }
                    entries
                        .pop()
                        .ok_or_else(|| io::Error::other("a transcript append produced no entry"))
                }
                Err(err) => {
                    if held == 0 {
                        let what = inner
                            .unsaved
                            .last()
                            .map_or("an entry", |(_, b)| describe(b));
                        notice = Some((
                            NOTICE_WRITE_FAILED,
                            format!(
                                "Could not save to the transcript {}: {err}. Not saved: {what}. \
                                 catui keeps what it could not save and writes it as soon as \
                                 writing works again (check free space and permissions); if the \
                                 session ends first it is lost, and a resume stops before it.",
                                self.path.display()
                            ),
                        ));
                    }
                    tracing::debug!("transcript {}: write failed: {err}", self.path.display());
                    inner.last_error = Some(err.to_string());
                    Err(err)
                }
            }
        });
        if let (Some((key, text)), Some(notify)) = (notice, &self.notifier) {
            notify(key, &text);
        }
        result
    }

    /// How many entries are not written yet, and why (the last error).
    pub fn unsaved_entries(&self) -> Option<(usize, String)> {
        let inner = self.inner();
        (!inner.unsaved.is_empty()).then(|| {
            (
                inner.unsaved.len(),
                inner.last_error.clone().unwrap_or_default(),
            )
        })
    }

    /// The uuid of the last entry written.
    pub fn last_uuid(&self) -> Option<String> {
        self.inner().writer.last_uuid().map(str::to_string)
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave the writer half
        // updated in a way that matters: at worst one chain link is lost.
        lock(&self.inner)
    }

    /// The one-sentence account of what is still unsaved, if anything.
    fn unsaved_message(&self) -> Option<String> {
        let (count, error) = self.unsaved_entries()?;
        Some(format!(
            "{count} entr{} of this session {} not saved to the transcript {} ({error}); a resume \
             of this session stops before {}.",
            if count == 1 { "y" } else { "ies" },
            if count == 1 { "is" } else { "are" },
            self.path.display(),
            if count == 1 { "it" } else { "them" },
        ))
    }
}

impl Drop for TranscriptRecorder {
    fn drop(&mut self) {
        // One last try, then say plainly what is lost.
        let retry = {
            let inner = crate::sync::get_mut(&mut self.inner);
            if inner.unsaved.is_empty() {
                return;
            }
            let Inner {
                writer, unsaved, ..
            } = &mut *inner;
            match writer.append_keyed(unsaved.iter().map(|(u, b)| (u.as_deref(), b))) {
                Ok(_) => {
                    inner.unsaved.clear();
                    true
                }
                Err(e) => {
                    inner.last_error = Some(e.to_string());
                    false
                }
            }
        };
        if !retry && let Some(message) = self.unsaved_message() {
            eprintln!("catui: {}", catui_protocol::terminal::sanitize(&message));
        }
    }
}

/// What an unsaved entry was, in words for the user.
fn describe(body: &EntryBody) -> &'static str {
    match body {
        EntryBody::User { message, .. } if message.is_tool_results_only() => "tool results",
        EntryBody::User { is_meta: true, .. } => "a message catui added to the conversation",
        EntryBody::User { .. } => "your message",
        EntryBody::Assistant { .. } => "the model's answer",
        EntryBody::Attachment { .. } => "a context attachment",
        EntryBody::PermissionMode { .. } => "the permission mode",
        EntryBody::System { .. } => "a session notice",
        EntryBody::FileSnapshot { .. } => "a plan snapshot",
        EntryBody::Summary { .. } => "a compaction summary",
        EntryBody::Todos { .. } => "the todo list",
        EntryBody::PlanAnswer { .. } => "your answer to the plan",
        EntryBody::Checkpoint { .. } => "a checkpoint of the project's files",
        EntryBody::Rewind { .. } => "a rewind",
        EntryBody::PlanCompliance { .. } => "a plan compliance report",
        EntryBody::Goal { .. } => "the session's goal",
        EntryBody::PlanVerification { .. } => "the plan's verification",
        EntryBody::PlanReport { .. } => "the plan's end report",
        EntryBody::Unknown => "an entry",
    }
}

impl Recorder for TranscriptRecorder {
    fn record(&self, record: Record) -> Option<String> {
        self.append(body_of(record)).ok().map(|entry| entry.uuid)
    }

    fn record_with_uuid(&self, uuid: &str, record: Record) {
        let _ = self.append_keyed(Some(uuid.to_string()), body_of(record));
    }

    fn unsaved(&self) -> Option<String> {
        self.unsaved_message()
    }

    fn set_slug(&self, slug: Option<String>) {
        TranscriptRecorder::set_slug(self, slug);
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
        assert_eq!(recorder.last_uuid(), Some(snap.uuid));
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
        let notices = Arc::new(std::sync::Mutex::new(Vec::<(String, String)>::new()));
        let seen = notices.clone();
        let recorder = TranscriptRecorder::new(
            TranscriptWriter::open(full)
                .unwrap()
                .with_redactor(Redactor::default()),
        )
        .with_notifier(Arc::new(move |key: &str, text: &str| {
            seen.lock()
                .unwrap()
                .push((key.to_string(), text.to_string()));
        }));
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
        // Said once, when writing started to fail, with what was not saved;
        // everything is kept for a later write.
        let notices = notices.lock().unwrap().clone();
        assert_eq!(notices.len(), 1, "{notices:?}");
        assert_eq!(notices[0].0, NOTICE_WRITE_FAILED);
        assert!(
            notices[0].1.contains("Not saved: your message"),
            "{notices:?}"
        );
        assert_eq!(recorder.unsaved_entries().unwrap().0, 4);
        let unsaved = Recorder::unsaved(&recorder).unwrap();
        assert!(
            unsaved.starts_with("4 entries of this session are not saved"),
            "{unsaved}"
        );
    }
}
