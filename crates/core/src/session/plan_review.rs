//! Plans that ended a session while awaiting the user's decision (a
//! headless planning run ends with its plan, `plan_ready`), and the
//! decisions the user makes on them afterwards (`catui plans review`).
//!
//! A plan awaits approval when its session is still in plan mode and the
//! last thing the transcript says about the plan is a revision shown for
//! approval (not approved, parked or answered since). The user's decision
//! is appended to that transcript as a [`EntryBody::PlanAnswer`] — the
//! answer a stream-json client would have sent to the pending
//! `ExitPlanMode` — under the session's lock, and the resumed session
//! carries it out before anything else ([`pending_answer`]; the builder
//! hands it to `plan::carry_out_recorded`).

use std::path::{Path, PathBuf};

use catui_protocol::PermissionMode;
use catui_protocol::control::PermissionResponse;

use super::entry::{EntryBody, TranscriptEntry};
use super::list::list_sessions;
use super::lock::{SessionLock, SessionLockError};
use super::transcript::{TranscriptWriter, load};
use crate::engine::CONVERSATION_CLEARED;
use crate::plan::contract::{PLAN_APPROVED_KEY, PLAN_PARKED_KEY, PLAN_REVISION_KEY};
use crate::plan::plan_hash;

/// A plan awaiting the user's decision in an ended session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwaitingPlan {
    pub session_id: String,
    /// The session's transcript.
    pub transcript: PathBuf,
    /// The plan's slug (its file name without `.md`).
    pub slug: String,
    /// The plan file.
    pub path: PathBuf,
    /// The revision shown for approval.
    pub plan: String,
    /// Its SHA-256 (the revision a decision answers).
    pub hash: String,
    /// When it was shown (RFC 3339).
    pub presented_at: String,
}

/// What the last entries about a plan left it as.
enum PlanState {
    /// Shown for approval, then nothing: awaiting the user.
    Presented {
        path: String,
        plan: String,
        at: String,
    },
    /// Answered after the session ended; carried out on resume.
    Answered {
        path: String,
        plan: String,
        answer: PermissionResponse,
    },
    /// Approved, parked, cleared, or nothing shown yet.
    Settled,
}

/// Follows the plan events of one session's entries.
fn plan_state(entries: &[TranscriptEntry]) -> (PlanState, Option<PermissionMode>) {
    let mut state = PlanState::Settled;
    let mut mode = None;
    for entry in entries {
        match &entry.body {
            EntryBody::FileSnapshot { key, path, content } if key == PLAN_REVISION_KEY => {
                state = PlanState::Presented {
                    path: path.clone(),
                    plan: content.clone(),
                    at: entry.timestamp.clone(),
                };
            }
            EntryBody::FileSnapshot { key, .. }
                if key == PLAN_APPROVED_KEY || key == PLAN_PARKED_KEY =>
            {
                state = PlanState::Settled;
            }
            EntryBody::PlanAnswer { path, plan, answer } => {
                state = PlanState::Answered {
                    path: path.clone(),
                    plan: plan.clone(),
                    answer: answer.clone(),
                };
            }
            EntryBody::System { subtype, .. } if subtype == CONVERSATION_CLEARED => {
                state = PlanState::Settled;
            }
            // The conversation went on after the answer: it was carried out.
            EntryBody::User { is_meta: false, .. } | EntryBody::Assistant { .. }
                if matches!(state, PlanState::Answered { .. }) =>
            {
                state = PlanState::Settled;
            }
            EntryBody::PermissionMode { mode: m, .. } => mode = Some(*m),
            _ => {}
        }
    }
    (state, mode)
}

/// The plans of this project's sessions (`sessions_dir`) awaiting the
/// user's decision, newest session first.
pub fn awaiting_approval(sessions_dir: &Path) -> Vec<AwaitingPlan> {
    list_sessions(sessions_dir)
        .into_iter()
        .filter_map(|s| awaiting_in(&s.session_id, &s.path))
        .collect()
}

/// The plan of one session's transcript, when it awaits a decision.
pub fn awaiting_in(session_id: &str, transcript: &Path) -> Option<AwaitingPlan> {
    let loaded = load(transcript).ok()?;
    let (state, mode) = plan_state(&loaded.entries);
    let PlanState::Presented { path, plan, at } = state else {
        return None;
    };
    if mode != Some(PermissionMode::Plan) {
        return None;
    }
    let slug = Path::new(&path).file_stem()?.to_string_lossy().into_owned();
    Some(AwaitingPlan {
        session_id: session_id.to_string(),
        transcript: transcript.to_path_buf(),
        slug,
        path: PathBuf::from(path),
        hash: plan_hash(&plan),
        plan,
        presented_at: at,
    })
}

/// The plan named `slug` awaiting a decision, in the newest session that
/// has it.
pub fn find_awaiting(sessions_dir: &Path, slug: &str) -> Option<AwaitingPlan> {
    awaiting_approval(sessions_dir)
        .into_iter()
        .find(|p| p.slug == slug)
}

/// A decision recorded for a session and not carried out yet: the answer,
/// the revision it answers and the plan file.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedAnswer {
    pub answer: PermissionResponse,
    pub plan: String,
    pub path: String,
}

/// The answer a resumed session must carry out first, if any.
pub fn pending_answer(entries: &[TranscriptEntry]) -> Option<RecordedAnswer> {
    match plan_state(entries).0 {
        PlanState::Answered { path, plan, answer } => Some(RecordedAnswer { answer, plan, path }),
        _ => None,
    }
}

/// Why a decision could not be recorded.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error(transparent)]
    Locked(#[from] SessionLockError),
    #[error(
        "the plan {slug} no longer awaits a decision in session {session_id} (it was approved, parked or answered meanwhile); nothing was recorded"
    )]
    NoLongerAwaiting { slug: String, session_id: String },
    #[error("could not write the decision to {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Appends `answer` to the transcript of `plan`'s session as the answer to
/// its pending presentation, holding the session's lock (a session open in
/// another process is refused), after checking that the same revision
/// still awaits a decision.
pub fn record_answer(plan: &AwaitingPlan, answer: PermissionResponse) -> Result<(), RecordError> {
    let _lock = SessionLock::acquire(&plan.transcript, &plan.session_id)?;
    let still = awaiting_in(&plan.session_id, &plan.transcript);
    if still.as_ref().map(|p| &p.hash) != Some(&plan.hash) {
        return Err(RecordError::NoLongerAwaiting {
            slug: plan.slug.clone(),
            session_id: plan.session_id.clone(),
        });
    }
    let write = |source| RecordError::Write {
        path: plan.transcript.clone(),
        source,
    };
    let loaded = load(&plan.transcript).map_err(write)?;
    let cwd = loaded
        .entries
        .last()
        .map(|e| e.cwd.clone())
        .unwrap_or_default();
    let mut writer = TranscriptWriter::open(&plan.transcript)
        .map_err(write)?
        .with_session_id(plan.session_id.clone())
        .with_cwd(cwd);
    writer.set_slug(loaded.slug().map(str::to_string));
    writer
        .append(EntryBody::PlanAnswer {
            path: plan.path.display().to_string(),
            plan: plan.plan.clone(),
            answer,
        })
        .map_err(write)?;
    Ok(())
}

#[cfg(test)]
#[path = "plan_review_tests.rs"]
mod tests;
