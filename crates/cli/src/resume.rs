//! `--resume`, `--continue` and `--fork-session`: which transcript a session
//! continues, and how its state (conversation, mode, plan, todos, read
//! files) comes back. The logic lives in `catui_core::session`; this module
//! only maps the command line onto it.

use std::path::Path;

use catui_core::plan::PlanFiles;
use catui_core::session::{self, PlanRestore, ResumedSession, SessionLock, SessionLockError};
use catui_core::tools::ToolContext;
use catui_protocol::PermissionMode;

use crate::args::Args;

/// The transcript to continue, if the command line asks for one.
pub fn requested(
    args: &Args,
    config_dir: &Path,
    cwd: &Path,
) -> Result<Option<ResumedSession>, String> {
    if args.resume.is_none() && !args.continue_session {
        if args.fork_session {
            return Err("--fork-session needs --resume or --continue".into());
        }
        return Ok(None);
    }
    if args.resume.is_some() && args.continue_session {
        return Err("use either --resume or --continue, not both".into());
    }
    let id = args.resume.as_deref().filter(|id| !id.is_empty());
    let resumed = session::resume_session(config_dir, cwd, id).map_err(|e| e.to_string())?;
    for w in &resumed.warnings {
        eprintln!("catui: {w}");
    }
    Ok(Some(resumed))
}

/// The session id to use: the resumed one, or a new one for a fork.
pub fn session_id(args: &Args, resumed: Option<&ResumedSession>) -> Result<String, String> {
    let explicit = match &args.session_id {
        Some(id) => Some(
            uuid::Uuid::parse_str(id)
                .map_err(|_| format!("--session-id must be a UUID, got '{id}'"))?
                .to_string(),
        ),
        None => None,
    };
    match resumed {
        Some(r) if !args.fork_session => {
            if explicit.is_some() {
                return Err("--session-id cannot be combined with --resume/--continue (use --fork-session for a new id)".into());
            }
            Ok(r.session_id.clone())
        }
        _ => Ok(explicit.unwrap_or_else(|| uuid::Uuid::new_v4().to_string())),
    }
}

/// Claims the session for this process: the one writer of its transcript.
/// A session that another process has open is refused (the message says
/// how to fork it instead), and so is `--session-id` naming a session that
/// already exists. `None` when no lock could be taken for another reason
/// (e.g. a read-only catui home): the session then runs without one.
pub fn lock_session(
    args: &Args,
    config_dir: &Path,
    cwd: &Path,
    session_id: &str,
    continues_existing: bool,
) -> Result<Option<SessionLock>, String> {
    let transcript = session::session_path(config_dir, cwd, session_id);
    if !continues_existing && args.session_id.is_some() && transcript.exists() {
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

/// Brings the plan back (G§7.7, or a copy for a fork, G§7.8) and returns the
/// session whose messages continue.
pub fn restore_plan(
    resumed: ResumedSession,
    fork: bool,
    config_dir: &Path,
    cwd: &Path,
    plan_files: &PlanFiles,
    new_session_id: &str,
) -> Result<ResumedSession, String> {
    if fork {
        let forked =
            session::fork_session(config_dir, cwd, &resumed, plan_files, Some(new_session_id))
                .map_err(|e| e.to_string())?;
        eprintln!(
            "catui: forked session {} into {new_session_id}",
            forked.parent_session_id
        );
        return Ok(forked.session);
    }
    match session::copy_plan_for_resume(&resumed, plan_files) {
        Ok(PlanRestore::Recovered { path, source }) => {
            eprintln!(
                "catui: the plan file was missing; recovered it from the transcript ({source:?}) into {}",
                path.display()
            );
        }
        Ok(PlanRestore::Missing { path }) => {
            eprintln!(
                "catui: the plan file {} is missing and the transcript has no copy of it",
                path.display()
            );
        }
        Ok(_) => {}
        Err(e) => eprintln!("catui: {e}"),
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
