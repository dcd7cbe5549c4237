//! Team mailboxes: one JSON file per member at
//! `$CATUI_CONFIG_DIR/teams/{team}/inboxes/{name}.json`, holding a JSON
//! array of `{from, text, timestamp, read}`.
//!
//! Every read-modify-write holds an exclusive lock on a sidecar
//! `{name}.json.lock` file (so writers in other threads and other processes
//! queue up) and replaces the inbox by an atomic rename, so a reader never
//! sees a half-written array and no message is lost when writers race.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// One message in an inbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MailMessage {
    pub from: String,
    /// Plain text, or a JSON document for protocol messages
    /// (`plan_approval_request`, `plan_approval_response`).
    pub text: String,
    /// RFC 3339, UTC.
    pub timestamp: String,
    #[serde(default)]
    pub read: bool,
}

impl MailMessage {
    /// A new unread message stamped now.
    pub fn new(from: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            from: from.into(),
            text: text.into(),
            timestamp: now_timestamp(),
            read: false,
        }
    }
}

/// The current time as the mailboxes write it.
pub fn now_timestamp() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[derive(Debug, thiserror::Error)]
pub enum MailboxError {
    #[error(
        "'{0}' is not a valid team or member name: use letters, digits, '-' and '_' (at most 64)"
    )]
    InvalidName(String),
    #[error("mailbox {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "mailbox {path} is not a valid JSON array of messages ({detail}); move the file aside or fix it, then try again"
    )]
    Malformed { path: PathBuf, detail: String },
}

/// Whether `name` may be used as a team or member name (and so as a path
/// component): no separators, no dots, nothing a path trick could use.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn check_name(name: &str) -> Result<(), MailboxError> {
    if is_valid_name(name) {
        Ok(())
    } else {
        Err(MailboxError::InvalidName(name.to_string()))
    }
}

/// The mailboxes under one config directory.
#[derive(Debug, Clone)]
pub struct Mailboxes {
    /// `$CATUI_CONFIG_DIR/teams`
    root: PathBuf,
}

impl Mailboxes {
    pub fn new(config_dir: &Path) -> Self {
        Self {
            root: config_dir.join("teams"),
        }
    }

    /// `$CATUI_CONFIG_DIR/teams/{team}`.
    pub fn team_dir(&self, team: &str) -> PathBuf {
        self.root.join(team)
    }

    /// The inbox file of `name` in `team`.
    pub fn inbox_path(&self, team: &str, name: &str) -> Result<PathBuf, MailboxError> {
        check_name(team)?;
        check_name(name)?;
        Ok(self
            .team_dir(team)
            .join("inboxes")
            .join(format!("{name}.json")))
    }

    /// Appends `message` to the inbox of `name` in `team`.
    pub fn append(&self, team: &str, name: &str, message: MailMessage) -> Result<(), MailboxError> {
        self.update(team, name, |messages| {
            messages.push(message);
            ((), true)
        })
    }

    /// The unread messages of `name`, marked read in the same locked step so
    /// that two readers never both get the same message.
    pub fn read_unread_and_mark(
        &self,
        team: &str,
        name: &str,
    ) -> Result<Vec<MailMessage>, MailboxError> {
        self.update(team, name, |messages| {
            let mut unread = Vec::new();
            for m in messages.iter_mut().filter(|m| !m.read) {
                m.read = true;
                unread.push(m.clone());
            }
            let changed = !unread.is_empty();
            (unread, changed)
        })
    }

    /// Every message of `name`, read or not (for inspection).
    pub fn read_all(&self, team: &str, name: &str) -> Result<Vec<MailMessage>, MailboxError> {
        let path = self.inbox_path(team, name)?;
        let _lock = lock_sidecar(&path)?;
        load(&path)
    }

    /// Runs `f` on the inbox under the lock; writes the result back when
    /// `f` says it changed something.
    fn update<T>(
        &self,
        team: &str,
        name: &str,
        f: impl FnOnce(&mut Vec<MailMessage>) -> (T, bool),
    ) -> Result<T, MailboxError> {
        let path = self.inbox_path(team, name)?;
        let _lock = lock_sidecar(&path)?;
        let mut messages = load(&path)?;
        let (out, changed) = f(&mut messages);
        if changed {
            store(&path, &messages)?;
        }
        Ok(out)
    }
}

/// Holds the exclusive lock of `path`'s sidecar until dropped (closing the
/// file releases the lock).
struct SidecarLock(#[allow(dead_code)] File);

#[allow(clippy::incompatible_msrv)] // File::lock: stable since 1.89; the toolchain is newer.
fn lock_sidecar(path: &Path) -> Result<SidecarLock, MailboxError> {
    let io = |source| MailboxError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let mut lock_path = path.as_os_str().to_owned();
    lock_path.push(".lock");
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(PathBuf::from(lock_path))
        .map_err(io)?;
    file.lock().map_err(io)?;
    Ok(SidecarLock(file))
}

fn load(path: &Path) -> Result<Vec<MailMessage>, MailboxError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(MailboxError::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    serde_json::from_str(&text).map_err(|e| MailboxError::Malformed {
        path: path.to_path_buf(),
        detail: e.to_string(),
    })
}

fn store(path: &Path, messages: &[MailMessage]) -> Result<(), MailboxError> {
    let io = |source| MailboxError::Io {
        path: path.to_path_buf(),
        source,
    };
    let body = serde_json::to_vec_pretty(messages).map_err(|e| MailboxError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    })?;
    let mut tmp_name = path.as_os_str().to_owned();
    tmp_name.push(format!(".tmp-{}", uuid::Uuid::new_v4().simple()));
    let tmp = PathBuf::from(tmp_name);
    let written = (|| {
        let mut f = File::create(&tmp)?;
        // No fsync: the rename is what makes concurrent readers safe, and
        // an inbox is a message queue, not a record that must survive a
        // power cut (fsync per message made a busy team crawl).
        f.write_all(&body)?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(io(e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::Arc;

    #[test]
    fn append_then_read_unread_marks_read() {
        let dir = tempfile::tempdir().unwrap();
        let boxes = Mailboxes::new(dir.path());
        boxes
            .append("alpha", "team-lead", MailMessage::new("bob", "hello"))
            .unwrap();
        boxes
            .append("alpha", "team-lead", MailMessage::new("amy", "hi"))
            .unwrap();
        let path = boxes.inbox_path("alpha", "team-lead").unwrap();
        assert_eq!(
            path,
            dir.path().join("teams/alpha/inboxes/team-lead.json"),
            "the lead's inbox lives in the team's inboxes directory"
        );
        let raw: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(raw[0]["from"], "bob");
        assert_eq!(raw[0]["read"], false);
        assert!(raw[0]["timestamp"].as_str().unwrap().ends_with('Z'));

        let first = boxes.read_unread_and_mark("alpha", "team-lead").unwrap();
        assert_eq!(
            first.iter().map(|m| m.text.as_str()).collect::<Vec<_>>(),
            ["hello", "hi"]
        );
        assert!(
            boxes
                .read_unread_and_mark("alpha", "team-lead")
                .unwrap()
                .is_empty()
        );
        let all = boxes.read_all("alpha", "team-lead").unwrap();
        assert_eq!(all.len(), 2, "read messages stay for inspection");
        assert!(all.iter().all(|m| m.read));
    }

    #[test]
    fn missing_inbox_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let boxes = Mailboxes::new(dir.path());
        assert!(
            boxes
                .read_unread_and_mark("t", "nobody")
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn names_that_could_escape_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let boxes = Mailboxes::new(dir.path());
        for bad in ["../x", "a/b", "", ".", "a b", "x.json"] {
            let err = boxes
                .append("t", bad, MailMessage::new("a", "b"))
                .unwrap_err();
            assert!(matches!(err, MailboxError::InvalidName(_)), "{bad}");
            assert!(boxes.append(bad, "m", MailMessage::new("a", "b")).is_err());
        }
    }

    #[test]
    fn torn_inbox_is_a_clear_error_and_is_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let boxes = Mailboxes::new(dir.path());
        let path = boxes.inbox_path("t", "m").unwrap();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, r#"[{"from":"a","text":"b","timest"#).unwrap();
        let err = boxes.read_unread_and_mark("t", "m").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("not a valid JSON array"), "{text}");
        assert!(text.contains("m.json"), "{text}");
        let err = boxes
            .append("t", "m", MailMessage::new("x", "y"))
            .unwrap_err();
        assert!(matches!(err, MailboxError::Malformed { .. }));
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            r#"[{"from":"a","text":"b","timest"#,
            "a broken inbox is left for the user to inspect"
        );
        std::fs::write(&path, r#"{"not":"an array"}"#).unwrap();
        assert!(boxes.read_all("t", "m").is_err());
    }

    #[test]
    fn eight_writers_two_hundred_messages_each_none_lost_or_duplicated() {
        let dir = tempfile::tempdir().unwrap();
        let boxes = Arc::new(Mailboxes::new(dir.path()));
        let handles: Vec<_> = (0..8)
            .map(|w| {
                let boxes = boxes.clone();
                std::thread::spawn(move || {
                    for i in 0..200 {
                        boxes
                            .append(
                                "race",
                                "lead",
                                MailMessage::new(format!("w{w}"), format!("{w}:{i}")),
                            )
                            .unwrap();
                    }
                })
            })
            .collect();
        // A reader racing the writers: each message is handed out once.
        let mut seen = Vec::new();
        for _ in 0..50 {
            seen.extend(boxes.read_unread_and_mark("race", "lead").unwrap());
        }
        for h in handles {
            h.join().unwrap();
        }
        seen.extend(boxes.read_unread_and_mark("race", "lead").unwrap());
        let texts: Vec<String> = seen.into_iter().map(|m| m.text).collect();
        let unique: HashSet<&String> = texts.iter().collect();
        assert_eq!(texts.len(), 1600, "every message delivered exactly once");
        assert_eq!(unique.len(), 1600, "no duplicates");
        let all = boxes.read_all("race", "lead").unwrap();
        assert_eq!(all.len(), 1600);
        // Each writer's messages keep their order.
        for w in 0..8 {
            let mine: Vec<usize> = all
                .iter()
                .filter(|m| m.from == format!("w{w}"))
                .map(|m| m.text.split(':').nth(1).unwrap().parse().unwrap())
                .collect();
            assert_eq!(mine, (0..200).collect::<Vec<_>>());
        }
    }
}
