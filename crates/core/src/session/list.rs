//! Listing a project's sessions (for `catui sessions`, `--continue` and the
//! resume picker), through the project's session index ([`super::index`]):
//! only transcripts whose size or modification time changed since the
//! index was written are parsed again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use catui_protocol::{ContentBlock, PermissionMode, tool_names};

use super::entry::EntryBody;
use super::index::{FileStamp, IndexedSession, read_index, write_index};
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
    /// The permission mode the session was last in (last mode change).
    pub permission_mode: Option<PermissionMode>,
    /// The session's plan slug, once it has one. Every session is given
    /// one at its start (the name its plan file would have), so this alone
    /// does not say the session planned: see `planned`.
    pub plan_slug: Option<String>,
    /// Whether the session ever planned: it was in plan mode, presented a
    /// plan, or has a plan approval, answer or report on record.
    pub planned: bool,
    pub git_branch: Option<String>,
    /// Timestamp (RFC 3339) of the last entry.
    pub last_activity: Option<String>,
}

/// The sessions stored in `project_dir` (see
/// [`super::paths::project_dir`]), newest first. A missing folder means no
/// sessions; an unreadable transcript is skipped with a warning in the log.
/// The session index is brought up to date on the way (best effort).
pub fn list_sessions(project_dir: &Path) -> Vec<SessionSummary> {
    let Ok(read_dir) = std::fs::read_dir(project_dir) else {
        return Vec::new();
    };
    let mut index = read_index(project_dir);
    let index_len = index.len();
    let mut changed = false;
    let mut fresh: Vec<IndexedSession> = Vec::new();
    let mut paths: HashMap<String, PathBuf> = HashMap::new();
    for dir_entry in read_dir.filter_map(Result::ok) {
        let path = dir_entry.path();
        if path.extension().is_none_or(|x| x != TRANSCRIPT_EXTENSION) {
            continue;
        }
        let Ok(meta) = dir_entry.metadata() else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        let stamp = FileStamp::of(&meta);
        let session_id = session_id_of(&path);
        let summary = match index.remove(&session_id) {
            Some(cached) if cached.is_fresh(stamp) => cached,
            _ => {
                changed = true;
                match summarize(&path, &session_id, stamp) {
                    Ok(s) => s,
                    Err(err) => {
                        tracing::warn!("skipping transcript {}: {err}", path.display());
                        continue;
                    }
                }
            }
        };
        paths.insert(session_id, path);
        fresh.push(summary);
    }
    // Entries left in `index` belong to deleted transcripts.
    if (changed || fresh.len() != index_len)
        && let Err(err) = write_index(project_dir, &fresh)
    {
        tracing::debug!("could not update the session index: {err}");
    }
    let mut sessions: Vec<SessionSummary> = fresh
        .into_iter()
        .filter_map(|s| {
            let path = paths.remove(&s.session_id)?;
            Some(SessionSummary {
                modified: FileStamp {
                    size: s.file_size,
                    mtime_ns: s.file_mtime_ns,
                }
                .modified(),
                session_id: s.session_id,
                path,
                first_prompt: s.first_prompt,
                message_count: s.message_count,
                permission_mode: s.permission_mode,
                plan_slug: s.plan_slug,
                planned: s.planned,
                git_branch: s.git_branch,
                last_activity: s.last_activity,
            })
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

fn session_id_of(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Reads a transcript in full and summarises it for the index.
fn summarize(path: &Path, session_id: &str, stamp: FileStamp) -> std::io::Result<IndexedSession> {
    let loaded = load(path)?;
    let mut summary = IndexedSession {
        session_id: session_id.to_string(),
        first_prompt: None,
        last_activity: loaded.entries.last().map(|e| e.timestamp.clone()),
        message_count: 0,
        permission_mode: None,
        plan_slug: loaded.slug().map(str::to_string),
        planned: false,
        git_branch: loaded
            .entries
            .iter()
            .rev()
            .find_map(|e| e.git_branch.clone()),
        file_size: stamp.size,
        file_mtime_ns: stamp.mtime_ns,
    };
    for entry in &loaded.entries {
        summary.planned |= is_planning(&entry.body);
        match &entry.body {
            EntryBody::User {
                message, is_meta, ..
            } => {
                summary.message_count += 1;
                if summary.first_prompt.is_none() && !is_meta {
                    summary.first_prompt = typed_text(message);
                }
            }
            EntryBody::Assistant { .. } => summary.message_count += 1,
            EntryBody::PermissionMode { mode, .. } => summary.permission_mode = Some(*mode),
            _ => {}
        }
    }
    Ok(summary)
}

/// Whether an entry shows the session planning: plan mode entered, a plan
/// presented (`ExitPlanMode`), or a plan's approval, answer, compliance,
/// verification or report recorded.
fn is_planning(body: &EntryBody) -> bool {
    match body {
        EntryBody::PermissionMode { mode, .. } => *mode == PermissionMode::Plan,
        EntryBody::User { plan_content, .. } => plan_content.is_some(),
        EntryBody::Assistant { message, .. } => message.content.iter().any(|b| {
            matches!(b, ContentBlock::ToolUse { name, .. }
                if name == tool_names::EXIT_PLAN_MODE || name == tool_names::ENTER_PLAN_MODE)
        }),
        EntryBody::Checkpoint { plan_slug, .. } => plan_slug.is_some(),
        EntryBody::PlanAnswer { .. }
        | EntryBody::PlanCompliance { .. }
        | EntryBody::PlanVerification { .. }
        | EntryBody::PlanReport { .. } => true,
        _ => false,
    }
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
        // Cut at the last word boundary, so no word shows half of itself.
        if let Some(space) = cut.trim_end().rfind(char::is_whitespace) {
            cut.truncate(space);
        }
        cut.truncate(cut.trim_end().len());
        cut.push('…');
    }
    Some(cut)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use catui_protocol::{Message, PermissionMode};

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

    #[test]
    fn index_is_used_while_fresh_and_rebuilt_when_stale() {
        use crate::session::index::{index_path, read_index, write_index};
        let cfg = tempfile::tempdir().unwrap();
        let cwd = Path::new("/some/indexed");
        let dir = project_dir(cfg.path(), cwd);
        let a = session_path(cfg.path(), cwd, "a");
        let b = session_path(cfg.path(), cwd, "b");
        write_session(&a, vec![EntryBody::user(Message::user_text("first a"))]);
        write_session(
            &b,
            vec![
                EntryBody::user(Message::user_text("first b")),
                EntryBody::PermissionMode {
                    mode: PermissionMode::Plan,
                    pre_plan_mode: None,
                },
            ],
        );
        let listed = list_sessions(&dir);
        assert_eq!(listed.len(), 2);
        let index = read_index(&dir);
        assert_eq!(index.len(), 2);
        assert_eq!(index["b"].permission_mode, Some(PermissionMode::Plan));
        assert_eq!(index["b"].first_prompt.as_deref(), Some("first b"));

        // A fresh entry is trusted as is: doctor it to prove it is read.
        let mut doctored: Vec<_> = index.values().cloned().collect();
        for s in &mut doctored {
            s.first_prompt = Some(format!("cached {}", s.session_id));
        }
        write_index(&dir, &doctored).unwrap();
        let listed = list_sessions(&dir);
        assert!(
            listed
                .iter()
                .all(|s| s.first_prompt.as_deref().unwrap().starts_with("cached"))
        );

        // Appending makes `a` stale: it is summarised again, `b` is not.
        write_session(&a, vec![EntryBody::user(Message::user_text("more"))]);
        let listed = list_sessions(&dir);
        let by_id = |id: &str| listed.iter().find(|s| s.session_id == id).unwrap().clone();
        assert_eq!(by_id("a").first_prompt.as_deref(), Some("first a"));
        assert_eq!(by_id("a").message_count, 2);
        assert_eq!(by_id("b").first_prompt.as_deref(), Some("cached b"));

        // Deleted transcripts leave the index; a corrupt index is rebuilt.
        std::fs::remove_file(&b).unwrap();
        assert_eq!(list_sessions(&dir).len(), 1);
        assert_eq!(read_index(&dir).len(), 1);
        std::fs::write(index_path(&dir), "{not json").unwrap();
        let listed = list_sessions(&dir);
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].first_prompt.as_deref(), Some("first a"));
        assert_eq!(read_index(&dir).len(), 1);
    }

    #[test]
    fn planned_only_for_sessions_that_planned_and_prompts_cut_at_a_word() {
        let cfg = tempfile::tempdir().unwrap();
        let cwd = Path::new("/some/planned");
        let dir = project_dir(cfg.path(), cwd);
        // Every session is given a slug at its start: that is not planning.
        let mut w = TranscriptWriter::open(session_path(cfg.path(), cwd, "chat")).unwrap();
        w.set_slug(Some("quiet-blue-fox".into()));
        let long = format!("{} tail", "word ".repeat(60));
        w.append_batch(vec![EntryBody::user(Message::user_text(long))])
            .unwrap();
        let mut w = TranscriptWriter::open(session_path(cfg.path(), cwd, "plan")).unwrap();
        w.set_slug(Some("bold-red-owl".into()));
        w.append_batch(vec![
            EntryBody::user(Message::user_text("plan it")),
            EntryBody::PermissionMode {
                mode: PermissionMode::Plan,
                pre_plan_mode: None,
            },
        ])
        .unwrap();
        let listed = list_sessions(&dir);
        let by_id = |id: &str| listed.iter().find(|s| s.session_id == id).unwrap().clone();
        assert!(!by_id("chat").planned);
        assert_eq!(by_id("chat").plan_slug.as_deref(), Some("quiet-blue-fox"));
        assert!(by_id("plan").planned);
        let cut = by_id("chat").first_prompt.unwrap();
        assert!(cut.ends_with("word…"), "{cut}");
        assert!(cut.chars().count() <= FIRST_PROMPT_CHARS + 1);
        // The index keeps the flag.
        assert!(crate::session::index::read_index(&dir)["plan"].planned);
    }

    /// `catui sessions` over 1,000 sessions (target < 200 ms): listing with
    /// a fresh index, and the first listing that builds it. Run in release:
    /// `cargo test -p catui-core --release -- --ignored --nocapture bench_list`.
    #[test]
    #[ignore]
    fn bench_list_1000_sessions() {
        let cfg = tempfile::tempdir().unwrap();
        let cwd = Path::new("/bench/list");
        for i in 0..1_000 {
            let path = session_path(cfg.path(), cwd, &format!("session-{i:04}"));
            let mut bodies = Vec::new();
            for t in 0..10 {
                bodies.push(EntryBody::user(Message::user_text(format!(
                    "session {i} turn {t}: explain the module layout and propose a refactor"
                ))));
                bodies.push(EntryBody::Assistant {
                    message: Message::assistant_text("The layout is ... ".repeat(20)),
                    usage: None,
                    model: None,
                });
            }
            write_session(&path, bodies);
        }
        let dir = project_dir(cfg.path(), cwd);
        let started = std::time::Instant::now();
        assert_eq!(list_sessions(&dir).len(), 1_000);
        let cold = started.elapsed();
        let mut warm = Vec::new();
        for _ in 0..7 {
            let started = std::time::Instant::now();
            assert_eq!(list_sessions(&dir).len(), 1_000);
            warm.push(started.elapsed());
        }
        warm.sort();
        println!(
            "list of 1,000 sessions: with index median {:?} (min {:?}, max {:?}); building the index {:?}",
            warm[3], warm[0], warm[6], cold
        );
    }
}
