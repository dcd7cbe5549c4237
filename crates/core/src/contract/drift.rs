//! A change outside the approved plan, while it is carried out: under
//! `planDrift: "ask"` a Write, Edit or NotebookEdit of a file the plan does
//! not name (not the plan file itself, not output git ignores) is an
//! amendment, not a silent change — a question to the user even in
//! acceptEdits, whose reason says the file is outside the approved plan
//! and which step is in progress. Declined, the model is told to stay
//! within the plan or propose an amendment (`AmendPlan`). `note` leaves
//! the call alone (the end-of-turn comparison and its one note tell of
//! it); `off` says nothing.

use std::path::Path;

use super::{Contract, PlanDrift};
use crate::engine::{ToolCallView, ToolGate};
use crate::permissions::Access;
use catui_protocol::tool_names::AMEND_PLAN;

/// What a call that may change a file outside the plan does.
pub fn gate(contract: &Contract, call: &ToolCallView<'_>) -> ToolGate {
    if contract.drift != PlanDrift::Ask
        || !contract.carrying_out()
        || call.ctx.permission_mode() == catui_protocol::PermissionMode::Plan
    {
        return ToolGate::Continue;
    }
    let Access::Write { path } = call.call.access(call.ctx) else {
        return ToolGate::Continue;
    };
    let Some(plan) = contract.plan.approved_text() else {
        return ToolGate::Continue;
    };
    let project = &contract.project;
    let resolved = resolve(&path);
    let Ok(rel) = resolved.strip_prefix(project) else {
        // Outside the project: the permission layer decides as always.
        return ToolGate::Continue;
    };
    let rel = rel.to_string_lossy().into_owned();
    let plans_dir = resolve(contract.plan.files.dir());
    if resolved.starts_with(&plans_dir)
        || crate::checkpoints::compliance::plan_names(&plan, project, &rel)
        || ignored(project, &resolved)
    {
        return ToolGate::Continue;
    }
    let slug = contract.plan.files.slug();
    let step = match contract.plan.steps.current() {
        Some((n, total, text)) => format!("step {n}/{total} is in progress: {text}"),
        None => "every step is marked done".to_string(),
    };
    ToolGate::Ask {
        reason: format!(
            "{name} would change {rel}, a file outside the approved plan {slug} ({step}). Allowing it changes the plan's scope for this call only; an amendment ({AMEND_PLAN}) adds it to the plan.",
            name = call.name
        ),
        declined: format!(
            "The user declined this change: {rel} is not in the approved plan {slug}. Stay within the plan, or propose an amendment with {AMEND_PLAN} (why, and the steps or files to add) and wait for the user's answer before changing it."
        ),
    }
}

/// `path` with its folder resolved (a file that does not exist yet).
fn resolve(path: &Path) -> std::path::PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => std::fs::canonicalize(parent)
            .map(|p| p.join(name))
            .unwrap_or_else(|_| path.to_path_buf()),
        _ => path.to_path_buf(),
    }
}

/// Whether git ignores `path` in `project` (build output, caches): the
/// `.gitignore` files from the project's root down to the file's folder.
fn ignored(project: &Path, path: &Path) -> bool {
    let mut builder = ignore::gitignore::GitignoreBuilder::new(project);
    let folder = path.parent().unwrap_or(project);
    let mut folders: Vec<&Path> = folder
        .ancestors()
        .take_while(|a| a.starts_with(project))
        .collect();
    folders.reverse();
    for f in folders {
        let file = f.join(".gitignore");
        if file.is_file() {
            builder.add(file);
        }
    }
    match builder.build() {
        Ok(matcher) => matcher.matched_path_or_any_parents(path, false).is_ignore(),
        Err(_) => false,
    }
}
