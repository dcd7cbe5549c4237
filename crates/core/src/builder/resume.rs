//! Resuming (`--resume`, `--continue`) and forking (`--fork-session`):
//! which transcript a new session continues, and how its state
//! (conversation, mode, plan, todos, read files) comes back. The transcript
//! logic lives in [`crate::session`]; this module maps the request onto it.

use std::path::Path;

use catui_protocol::PermissionMode;

use super::Resume;
use crate::plan::contract::{PLAN_APPROVED_KEY, PLAN_PARKED_KEY, PLAN_REVISION_KEY};
use crate::plan::{PlanFiles, PlanSession};
use crate::session::{self, PlanRestore, ResumedSession, SessionLock, SessionLockError};
use crate::tools::ToolContext;

/// The transcript to continue, if the command line asks for one.
/// Transcript warnings go to `warnings`.
pub fn requested(
    resume: &Resume,
    config_dir: &Path,
    cwd: &Path,
    warnings: &mut Vec<String>,
) -> Result<Option<ResumedSession>, String> {
    if resume.resume.is_none() && !resume.continue_latest {
        if resume.fork {
            return Err("--fork-session needs --resume or --continue".into());
        }
        return Ok(None);
    }
    if resume.resume.is_some() && resume.continue_latest {
        return Err("use either --resume or --continue, not both".into());
    }
    let id = resume.resume.as_deref().filter(|id| !id.is_empty());
    let resumed = session::resume_session(config_dir, cwd, id).map_err(|e| e.to_string())?;
    warnings.extend(resumed.warnings.iter().cloned());
    Ok(Some(resumed))
}

/// Why `--session-id` cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionIdError {
    #[error("--session-id must be a UUID, got '{0}'")]
    NotAUuid(String),
    /// A resumed session keeps its id; only a fork takes a new one.
    #[error(
        "--session-id cannot be combined with --resume/--continue (use --fork-session for a new id)"
    )]
    WithResume,
}

/// The session id to use: the resumed one, or a new one for a fork.
pub fn session_id(
    requested_id: Option<&str>,
    fork: bool,
    resumed: Option<&ResumedSession>,
) -> Result<String, SessionIdError> {
    let explicit = match requested_id {
        Some(id) => Some(
            uuid::Uuid::parse_str(id)
                .map_err(|_| SessionIdError::NotAUuid(id.to_string()))?
                .to_string(),
        ),
        None => None,
    };
    match resumed {
        Some(r) if !fork => {
            if explicit.is_some() {
                return Err(SessionIdError::WithResume);
            }
            Ok(r.session_id.clone())
        }
        _ => Ok(explicit.unwrap_or_else(|| uuid::Uuid::new_v4().to_string())),
    }
}

/// Claims the session for this process: the one writer of its transcript.
/// A session that another process has open is refused (the message says
/// how to fork it instead), and so is an explicit `requested_id` naming a
/// session that already exists when a new session is being started. `None`
/// when no lock could be taken for another reason (e.g. a read-only catui
/// home): the session then runs without one.
pub fn lock_session(
    requested_id: Option<&str>,
    config_dir: &Path,
    cwd: &Path,
    session_id: &str,
    continues_existing: bool,
) -> Result<Option<SessionLock>, String> {
    let transcript = session::session_path(config_dir, cwd, session_id);
    if !continues_existing && requested_id.is_some() && transcript.exists() {
        return Err(format!(
            "session {session_id} already exists in this project; continue it with --resume \
             {session_id}, or leave out --session-id to start a new session"
        ));
    }
    match SessionLock::acquire(&transcript, session_id) {
        Ok(lock) => Ok(Some(lock)),
        Err(e @ SessionLockError::InUse { .. }) => Err(e.to_string()),
        Err(e) => {
            tracing::debug!("{e}");
            Ok(None)
        }
    }
}

/// The modes to enter, in order, so the one transition function rebuilds
/// both the mode and `prePlanMode` (a session resumed in plan mode is still
/// in plan mode).
pub fn modes(resumed: &ResumedSession) -> Vec<PermissionMode> {
    let mut out = Vec::new();
    if let Some(pre) = resumed.pre_plan_mode {
        out.push(pre);
    }
    if let Some(mode) = resumed.permission_mode {
        out.push(mode);
    }
    out
}

/// Brings the plan back (or a copy for a fork) and returns the
/// session whose messages continue.
pub fn restore_plan(
    resumed: ResumedSession,
    fork: bool,
    config_dir: &Path,
    cwd: &Path,
    plan_files: &PlanFiles,
    new_session_id: &str,
    warnings: &mut Vec<String>,
) -> Result<ResumedSession, String> {
    if fork {
        let forked =
            session::fork_session(config_dir, cwd, &resumed, plan_files, Some(new_session_id))
                .map_err(|e| e.to_string())?;
        warnings.push(format!(
            "forked session {} into {new_session_id}",
            forked.parent_session_id
        ));
        return Ok(forked.session);
    }
    match session::copy_plan_for_resume(&resumed, plan_files) {
        Ok(PlanRestore::Recovered { path, source }) => {
            warnings.push(format!(
                "the plan file was missing; recovered it from the transcript ({source:?}) into {}",
                path.display()
            ));
        }
        Ok(PlanRestore::Missing { path }) => {
            warnings.push(format!(
                "the plan file {} is missing and the transcript has no copy of it",
                path.display()
            ));
        }
        Ok(_) => {}
        Err(e) => warnings.push(e.to_string()),
    }
    Ok(resumed)
}

/// Restores what the tools remember: the files read (for the stale-write
/// guard) and the todo list.
pub fn restore_tool_state(resumed: &ResumedSession, ctx: &ToolContext) {
    for path in &resumed.read_files {
        ctx.record_read(path);
    }
    if let Some(todos) = &resumed.todos
        && let Ok(items) = serde_json::from_value(todos.clone())
    {
        ctx.set_todos(items);
    }
}

/// Brings back the plan being carried out: when the transcript's last word
/// on the plan is its approval (no new presentation, park, return to plan
/// mode or `/clear` since), the approved text is what compaction keeps.
/// A plan left by an approval or a park (plan mode not entered again
/// since) is announced when plan mode is entered again (the re-entry
/// note), as it would have been in the session that left it.
pub fn restore_approved_plan(resumed: &ResumedSession, plan: &PlanSession) {
    let mut approved = None;
    let mut left = false;
    for entry in &resumed.entries {
        match &entry.body {
            session::EntryBody::FileSnapshot { key, content, .. } if key == PLAN_APPROVED_KEY => {
                approved = Some(content.clone());
                left = true;
            }
            session::EntryBody::FileSnapshot { key, .. } if key == PLAN_PARKED_KEY => {
                approved = None;
                left = true;
            }
            session::EntryBody::FileSnapshot { key, .. } if key == PLAN_REVISION_KEY => {
                approved = None;
            }
            session::EntryBody::PermissionMode {
                mode: PermissionMode::Plan,
                ..
            } => {
                approved = None;
                left = false;
            }
            session::EntryBody::System { subtype, .. }
                if subtype == crate::engine::CONVERSATION_CLEARED =>
            {
                approved = None;
                left = false;
            }
            _ => {}
        }
    }
    if let Some(text) = approved {
        plan.restore_approved(text);
    }
    if left {
        plan.state.set_has_exited_plan_mode(true);
    }
}

/// Carries out the decision the user recorded for the resumed session's
/// plan after it ended (`catui plans review`), through the same decision
/// and the same code path as a live answer; the model reads the outcome
/// before the next input (unless the approval started a fresh
/// conversation, whose prompt holds it).
pub fn carry_out_recorded(
    engine: &mut crate::engine::Engine,
    plan: &std::sync::Arc<PlanSession>,
    recorded: session::plan_review::RecordedAnswer,
) {
    let shown = serde_json::json!({
        "plan": recorded.plan,
        "planFilePath": recorded.path,
        "planHash": crate::plan::plan_hash(&recorded.plan),
    });
    let decision = match crate::plan::approval::decision::ApprovalDecision::from_response(
        &recorded.answer,
        &shown,
    ) {
        Ok(d) => d,
        Err(e) => {
            plan.tell_model_next(crate::plan::contract::answered_after_the_run(&format!(
                    "The user's answer could not be read ({e}): nothing was approved and you are still in plan mode."
                )));
            return;
        }
    };
    let summary = decision.summary();
    let mut outcome = None;
    let fresh = engine.act_between_turns(|ctx| {
        outcome = crate::plan::carry_out_recorded(plan, decision, &recorded.plan, ctx);
    });
    let (text, note) = match outcome {
        None => return,
        Some(Ok(text)) => (
            text,
            format!("Carried out your decision on the plan from the review page: {summary}"),
        ),
        Some(Err(text)) => (
            text,
            format!(
                "Your decision on the plan from the review page ({summary}) could not be carried out; the model is told why"
            ),
        ),
    };
    engine.session_hooks().notify("plan-decision", &note);
    if !fresh {
        plan.tell_model_next(text);
    }
}

/// The resume stage's result: the transcript being continued, the
/// session's id and the lock that keeps its transcript to one writer.
pub struct Started {
    pub resumed: Option<ResumedSession>,
    pub session_id: String,
    pub session_lock: Option<SessionLock>,
    /// What to tell the user about the resume (said once the plan is
    /// restored too).
    pub notes: Vec<String>,
}

/// Resume and lock: finds the session to continue (if any), settles the
/// session id, and takes the session's lock.
pub fn resume_stage(config: &super::SessionConfig) -> Result<Started, super::BuildError> {
    let mut notes = Vec::new();
    let resumed = requested(&config.resume, &config.config_dir, &config.cwd, &mut notes)
        .map_err(super::BuildError::Resume)?;
    let id = session_id(
        config.session_id.as_deref(),
        config.resume.fork,
        resumed.as_ref(),
    )?;
    // Without a transcript there is nothing to keep to one writer.
    let session_lock = if config.persist_session {
        lock_session(
            config.session_id.as_deref(),
            &config.config_dir,
            &config.cwd,
            &id,
            resumed.is_some() && !config.resume.fork,
        )
        .map_err(super::BuildError::Session)?
    } else {
        None
    };
    Ok(Started {
        resumed,
        session_id: id,
        session_lock,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_id_errors_name_what_to_change() {
        assert_eq!(
            session_id(Some("nope"), false, None),
            Err(SessionIdError::NotAUuid("nope".into()))
        );
        let id = "5f0c6a52-3c43-4bd4-9d5e-2f1f3e0d8a11";
        assert_eq!(session_id(Some(id), false, None).as_deref(), Ok(id));
    }
}
