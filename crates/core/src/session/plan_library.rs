//! The plan library: every plan of a project with the state its history
//! puts it in — `draft`, `parked`, `approved`, `in_progress`, `done`,
//! `abandoned` — read from the project's transcripts (presentations,
//! approvals, parkings, end reports), the plan file's progress section and
//! the library's own marks (a plan the user abandoned, a plan handed to a
//! background agent). `catui plans list`, `/plans` and `/plan use` read it.
//!
//! The marks live in `{sessions_dir}/plan-library/marks.jsonl`, one event a
//! line, outside the transcripts: marking a plan from the shell has no
//! session to write into.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{EntryBody, list_sessions};
use crate::plan::approval::progress::{progress_of, without_progress};
use crate::plan::contract::{PLAN_APPROVED_KEY, PLAN_PARKED_KEY, PLAN_REVISION_KEY};
use crate::plan::plan_hash;

/// Where a plan stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanState {
    /// Written (maybe presented), never approved or parked.
    Draft,
    /// Set aside by the user: nothing approved.
    Parked,
    /// Approved, no step done yet.
    Approved,
    /// Approved, some steps done.
    InProgress,
    /// Its goal was met (every step done, verification passed).
    Done,
    /// Marked abandoned by the user.
    Abandoned,
}

impl PlanState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::Parked => "parked",
            Self::Approved => "approved",
            Self::InProgress => "in_progress",
            Self::Done => "done",
            Self::Abandoned => "abandoned",
        }
    }
}

/// One plan of the library.
#[derive(Debug, Clone)]
pub struct LibraryEntry {
    /// The file's name without `.md`.
    pub slug: String,
    pub path: PathBuf,
    /// The plan's first non-empty line.
    pub title: String,
    pub modified: std::time::SystemTime,
    /// The newest session of this project that used the slug.
    pub session: Option<String>,
    pub state: PlanState,
    /// `(done, total)` from the progress section.
    pub steps: Option<(usize, usize)>,
    /// The last approved revision's SHA-256 and text.
    pub approved: Option<(String, String)>,
    /// The file no longer holds the approved text (its progress section
    /// aside); false when it was never approved.
    pub changed_since_approval: bool,
    /// The background agent the plan was handed to, if any.
    pub dispatch: Option<Dispatch>,
}

/// A plan handed to a background agent in a git worktree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dispatch {
    pub branch: String,
    pub worktree: String,
    /// `running`, `done`, `failed`.
    pub status: String,
}

/// A mark the library keeps outside the transcripts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    pub slug: String,
    /// RFC 3339.
    pub at: String,
    #[serde(flatten)]
    pub kind: MarkKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum MarkKind {
    Abandoned,
    Dispatched(Dispatch),
}

/// The file of marks for the project whose transcripts are in
/// `sessions_dir`.
pub fn marks_file(sessions_dir: &Path) -> PathBuf {
    sessions_dir.join("plan-library").join("marks.jsonl")
}

/// Appends a mark.
pub fn add_mark(sessions_dir: &Path, slug: &str, kind: MarkKind) -> std::io::Result<()> {
    let path = marks_file(sessions_dir);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mark = Mark {
        slug: slug.to_string(),
        at: now(),
        kind,
    };
    let line = serde_json::to_string(&mark).map_err(std::io::Error::other)?;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)?;
    writeln!(file, "{line}")
}

/// The marks recorded so far, oldest first; lines that cannot be read are
/// skipped (a half-written last line must not hide the others).
pub fn marks(sessions_dir: &Path) -> Vec<Mark> {
    let Ok(text) = std::fs::read_to_string(marks_file(sessions_dir)) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// `t` as RFC 3339 (seconds), for `catui plans list --json`.
pub fn rfc3339(t: std::time::SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// What the transcripts say about one slug.
#[derive(Debug, Default)]
struct History {
    /// `(timestamp, kind)` of the newest plan event: revision, approved,
    /// parked.
    last: Option<(String, &'static str)>,
    approved: Option<(String, String)>,
    /// The timestamp and goal of the newest end report.
    report: Option<(String, bool)>,
    /// `(timestamp, session)` of the newest event of any kind.
    session: Option<(String, String)>,
}

/// Reads every transcript of `sessions_dir` once.
fn histories(sessions_dir: &Path) -> HashMap<String, History> {
    let mut out: HashMap<String, History> = HashMap::new();
    for summary in list_sessions(sessions_dir) {
        let Ok(loaded) = crate::session::transcript::load(&summary.path) else {
            continue;
        };
        for entry in loaded.entries {
            let at = entry.timestamp.clone();
            let (slug, kind) = match &entry.body {
                EntryBody::FileSnapshot { key, path, .. } => {
                    let kind = match key.as_str() {
                        k if k == PLAN_APPROVED_KEY => "approved",
                        k if k == PLAN_PARKED_KEY => "parked",
                        k if k == PLAN_REVISION_KEY => "revision",
                        _ => continue,
                    };
                    let Some(slug) = Path::new(path).file_stem().and_then(|s| s.to_str()) else {
                        continue;
                    };
                    (slug.to_string(), kind)
                }
                EntryBody::PlanReport { report } => (report.slug.clone(), "report"),
                _ => continue,
            };
            let h = out.entry(slug).or_default();
            if h.session.as_ref().is_none_or(|(t, _)| *t <= at) {
                h.session = Some((at.clone(), entry.session_id.clone()));
            }
            match (&entry.body, kind) {
                (EntryBody::PlanReport { report }, _)
                    if h.report.as_ref().is_none_or(|(t, _)| *t <= at) =>
                {
                    h.report = Some((at, report.goal_met));
                }
                (EntryBody::FileSnapshot { content, .. }, kind) => {
                    if kind == "approved" && h.approved.as_ref().is_none_or(|(t, _)| *t <= at) {
                        h.approved = Some((at.clone(), content.clone()));
                    }
                    if h.last.as_ref().is_none_or(|(t, _)| *t <= at) {
                        h.last = Some((at, kind));
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// The state of a plan from its history, its text and the marks.
fn state_of(
    history: Option<&History>,
    text: &str,
    abandoned_at: Option<&str>,
) -> (PlanState, bool) {
    let last = history.and_then(|h| h.last.as_ref());
    let approved = history.and_then(|h| h.approved.as_ref());
    let changed = approved.is_some_and(|(_, content)| !same_text(content, text));
    let last_event_at = last.map(|(t, _)| t.as_str()).unwrap_or("");
    if let Some(at) = abandoned_at
        && at >= last_event_at
    {
        return (PlanState::Abandoned, changed);
    }
    let state = match last.map(|(_, k)| *k) {
        None | Some("revision") => PlanState::Draft,
        Some("parked") => PlanState::Parked,
        _ => {
            let report = history.and_then(|h| h.report.as_ref());
            let met = report.is_some_and(|(at, met)| *met && at.as_str() >= last_event_at);
            let done_steps = progress_of(text).map(|(d, _)| d).unwrap_or(0);
            if met {
                PlanState::Done
            } else if done_steps > 0 {
                PlanState::InProgress
            } else {
                PlanState::Approved
            }
        }
    };
    (state, changed)
}

/// Whether `now` (the file) still holds the approved `approved` text: the
/// progress section catui writes back is not a change.
pub fn same_text(approved: &str, now: &str) -> bool {
    let hash = plan_hash(approved);
    plan_hash(now) == hash
        || plan_hash(&without_progress(now)) == hash
        || plan_hash(&without_progress(now)) == plan_hash(&without_progress(approved))
}

/// Every `.md` plan in `plans_dir` with its state, newest first.
pub fn library(sessions_dir: &Path, plans_dir: &Path) -> Vec<LibraryEntry> {
    let Ok(read_dir) = std::fs::read_dir(plans_dir) else {
        return Vec::new();
    };
    let histories = histories(sessions_dir);
    let marks = marks(sessions_dir);
    // slug -> owning session (sessions come newest first).
    let mut owners: HashMap<String, String> = HashMap::new();
    for s in list_sessions(sessions_dir) {
        if let Some(slug) = s.plan_slug {
            owners.entry(slug).or_insert(s.session_id);
        }
    }
    let mut out: Vec<LibraryEntry> = read_dir
        .filter_map(Result::ok)
        .filter_map(|e| {
            let path = e.path();
            if path.extension().is_none_or(|x| x != "md") {
                return None;
            }
            let meta = e.metadata().ok().filter(|m| m.is_file())?;
            let slug = path.file_stem()?.to_string_lossy().into_owned();
            let text = crate::plan::get_plan(&path).unwrap_or_default();
            let history = histories.get(&slug);
            let abandoned_at = marks
                .iter()
                .rev()
                .find(|m| m.slug == slug && m.kind == MarkKind::Abandoned)
                .map(|m| m.at.clone());
            let (state, changed) = state_of(history, &text, abandoned_at.as_deref());
            // `{slug}-agent-{id}` belongs to the session owning `{slug}`.
            let base = slug.split("-agent-").next().unwrap_or(&slug);
            let session = owners
                .get(base)
                .cloned()
                .or_else(|| history.and_then(|h| h.session.as_ref().map(|(_, s)| s.clone())));
            let dispatch = marks.iter().rev().find_map(|m| match &m.kind {
                MarkKind::Dispatched(d) if m.slug == slug => Some(d.clone()),
                _ => None,
            });
            Some(LibraryEntry {
                title: text
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("(empty)")
                    .trim()
                    .to_string(),
                steps: progress_of(&text),
                approved: history
                    .and_then(|h| h.approved.as_ref())
                    .map(|(_, content)| (plan_hash(content), content.clone())),
                changed_since_approval: changed,
                modified: meta.modified().unwrap_or(std::time::SystemTime::UNIX_EPOCH),
                session,
                state,
                dispatch,
                path,
                slug,
            })
        })
        .collect();
    out.sort_by(|a, b| b.modified.cmp(&a.modified).then(a.slug.cmp(&b.slug)));
    out
}

/// One plan of the library by slug.
pub fn entry(sessions_dir: &Path, plans_dir: &Path, slug: &str) -> Option<LibraryEntry> {
    library(sessions_dir, plans_dir)
        .into_iter()
        .find(|e| e.slug == slug)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(last: &'static str, approved: Option<&str>) -> History {
        History {
            last: Some(("2026-12-06T10:00:00.000Z".into(), last)),
            approved: approved.map(|a| ("2026-12-06T09:00:00.000Z".into(), a.to_string())),
            report: None,
            session: None,
        }
    }

    #[test]
    fn states_follow_the_last_event_and_the_progress() {
        let plan = "# P\n1. a\n2. b\n";
        assert_eq!(state_of(None, plan, None).0, PlanState::Draft);
        assert_eq!(
            state_of(Some(&history("revision", None)), plan, None).0,
            PlanState::Draft
        );
        assert_eq!(
            state_of(Some(&history("parked", None)), plan, None).0,
            PlanState::Parked
        );
        let h = history("approved", Some(plan));
        assert_eq!(state_of(Some(&h), plan, None), (PlanState::Approved, false));
        let progressed = crate::plan::approval::progress::with_progress(
            plan,
            &crate::plan::approval::progress::progress_section(
                &["a".into(), "b".into()],
                &[Some("now".into()), None],
            ),
        );
        assert_eq!(
            state_of(Some(&h), &progressed, None),
            (PlanState::InProgress, false),
            "the progress section is no change"
        );
        assert_eq!(
            state_of(Some(&h), "# P\n1. a\n2. c\n", None),
            (PlanState::Approved, true)
        );
        let mut met = history("approved", Some(plan));
        met.report = Some(("2026-12-06T11:00:00.000Z".into(), true));
        assert_eq!(state_of(Some(&met), plan, None).0, PlanState::Done);
        assert_eq!(
            state_of(Some(&h), plan, Some("2026-12-06T12:00:00.000Z")).0,
            PlanState::Abandoned
        );
        assert_eq!(
            state_of(Some(&h), plan, Some("2026-12-06T08:00:00.000Z")).0,
            PlanState::Approved,
            "approved again after it was abandoned"
        );
    }

    #[test]
    fn marks_round_trip_and_skip_bad_lines() {
        let dir = tempfile::tempdir().unwrap();
        add_mark(dir.path(), "a-b-c", MarkKind::Abandoned).unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(marks_file(dir.path()))
            .unwrap()
            .write_all(b"{not json\n")
            .unwrap();
        add_mark(
            dir.path(),
            "a-b-c",
            MarkKind::Dispatched(Dispatch {
                branch: "catui/a-b-c".into(),
                worktree: "/w".into(),
                status: "running".into(),
            }),
        )
        .unwrap();
        let read = marks(dir.path());
        assert_eq!(read.len(), 2);
        assert_eq!(read[0].kind, MarkKind::Abandoned);
        assert!(matches!(read[1].kind, MarkKind::Dispatched(_)));
    }
}
