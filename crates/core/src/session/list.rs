//! Listing a project's sessions (for `catui sessions`, `--continue` and the
//! resume picker). Simple on purpose: each transcript is read in full; an
//! index can replace this when projects grow large.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use catui_protocol::ContentBlock;

use super::entry::EntryBody;
use super::paths::TRANSCRIPT_EXTENSION;
use super::transcript::load;

/// How many characters of the first prompt a summary keeps.
const FIRST_PROMPT_CHARS: usize = 200;

/// One session of a project.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionSummary {
    pub session_id: String,
    pub path: PathBuf,
    /// When the transcript was last written.
    pub modified: SystemTime,
    /// The first thing the user typed (cut to 200 characters), if any.
    pub first_prompt: Option<String>,
    /// User and assistant messages, tool results and meta messages included.
    pub message_count: usize,
}

/// The sessions stored in `project_dir` (see
/// [`super::paths::project_dir`]), newest first. A missing folder means no
/// sessions; an unreadable transcript is skipped with a warning in the log.
pub fn list_sessions(project_dir: &Path) -> Vec<SessionSummary> {
    let Ok(read_dir) = std::fs::read_dir(project_dir) else {
        return Vec::new();
    };
    let mut sessions: Vec<SessionSummary> = read_dir
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == TRANSCRIPT_EXTENSION))
        .filter_map(|path| match summarize(&path) {
            Ok(summary) => Some(summary),
            Err(err) => {
                tracing::warn!("skipping transcript {}: {err}", path.display());
                None
            }
        })
        .collect();
    sessions.sort_by(|a, b| {
        b.modified
            .cmp(&a.modified)
            .then_with(|| a.session_id.cmp(&b.session_id))
    });
    sessions
}

/// The most recent session of a project (`--continue`).
pub fn latest_session(project_dir: &Path) -> Option<SessionSummary> {
    list_sessions(project_dir).into_iter().next()
}

fn summarize(path: &Path) -> std::io::Result<SessionSummary> {
    let modified = std::fs::metadata(path)?.modified()?;
    let loaded = load(path)?;
    let mut first_prompt = None;
    let mut message_count = 0;
    for entry in &loaded.entries {
        match &entry.body {
            EntryBody::User {
                message, is_meta, ..
            } => {
                message_count += 1;
                if first_prompt.is_none() && !is_meta {
                    first_prompt = typed_text(message);
                }
            }
            EntryBody::Assistant { .. } => message_count += 1,
            _ => {}
        }
    }
    let session_id = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(SessionSummary {
        session_id,
        path: path.to_path_buf(),
        modified,
        first_prompt,
        message_count,
    })
}

/// The text a human typed in a user message: its text blocks, skipping
/// system reminders; `None` for tool results or empty text.
fn typed_text(message: &catui_protocol::Message) -> Option<String> {
    let text: Vec<&str> = message
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text { text } if !text.trim_start().starts_with("<system-reminder>") => {
                Some(text.trim())
            }
            _ => None,
        })
        .filter(|t| !t.is_empty())
        .collect();
    if text.is_empty() {
        return None;
    }
    let joined = text.join(" ");
    let mut cut: String = joined.chars().take(FIRST_PROMPT_CHARS).collect();
    if cut.len() < joined.len() {
        cut.push('…');
    }
    Some(cut)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use catui_protocol::Message;

    use super::*;
    use crate::session::paths::{project_dir, session_path, sidechain_path};
    use crate::session::redact::Redactor;
    use crate::session::transcript::TranscriptWriter;

    fn write_session(path: &Path, bodies: Vec<EntryBody>) {
        let mut w = TranscriptWriter::open(path)
            .unwrap()
            .with_redactor(Redactor::default());
        w.append_batch(bodies).unwrap();
    }

    fn set_mtime(path: &Path, secs_after_epoch: u64) {
        let f = std::fs::File::options().write(true).open(path).unwrap();
        f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(secs_after_epoch))
            .unwrap();
    }

    #[test]
    fn lists_newest_first_with_first_prompt_and_counts() {
        let cfg = tempfile::tempdir().unwrap();
        let cwd = Path::new("/some/repo");
        let old = session_path(cfg.path(), cwd, "old");
        let new = session_path(cfg.path(), cwd, "new");
        write_session(
            &old,
            vec![
                EntryBody::User {
                    message: Message::user_text("<system-reminder>meta</system-reminder>"),
                    is_meta: true,
                    plan_content: None,
                },
                EntryBody::user(Message::user_text("  fix the build  ")),
                EntryBody::Assistant {
                    message: Message::assistant_text("done"),
                    usage: None,
                    model: None,
                },
            ],
        );
        write_session(
            &new,
            vec![EntryBody::user(Message::user_text("é".repeat(300)))],
        );
        // A sidechain and a stray file are not sessions.
        write_session(
            &sidechain_path(&new, "a1"),
            vec![EntryBody::user(Message::user_text("sub"))],
        );
        std::fs::write(project_dir(cfg.path(), cwd).join("notes.txt"), "x").unwrap();
        set_mtime(&old, 1_000);
        set_mtime(&new, 2_000);

        let sessions = list_sessions(&project_dir(cfg.path(), cwd));
        let ids: Vec<&str> = sessions.iter().map(|s| s.session_id.as_str()).collect();
        assert_eq!(ids, ["new", "old"]);
        assert_eq!(sessions[1].first_prompt.as_deref(), Some("fix the build"));
        assert_eq!(sessions[1].message_count, 3);
        assert_eq!(sessions[1].path, old);
        let long = sessions[0].first_prompt.as_deref().unwrap();
        assert_eq!(long.chars().count(), FIRST_PROMPT_CHARS + 1);
        assert!(long.ends_with('…'));
        assert_eq!(
            latest_session(&project_dir(cfg.path(), cwd)).map(|s| s.session_id),
            Some("new".to_string())
        );
    }

    #[test]
    fn missing_project_dir_has_no_sessions() {
        let cfg = tempfile::tempdir().unwrap();
        assert!(list_sessions(&cfg.path().join("nothing")).is_empty());
        assert!(latest_session(&cfg.path().join("nothing")).is_none());
    }
}
