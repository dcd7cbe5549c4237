//! Taking up a plan of the library in this session: `/plan use SLUG`,
//! `catui --plan SLUG` (and the SDKs through that flag).
//!
//! - An approved plan whose file still holds the approved text (catui's
//!   progress section aside) becomes this session's approved plan without
//!   a new approval: its steps are bound with the ones already done, the
//!   steps still undone become the todo list, the plan's goal and
//!   verification carry on, and the model is told it continues an
//!   approved plan.
//! - An approved plan whose file changed since goes back to plan mode and
//!   to approval, presented with the diff since the approved text.
//! - A parked plan (or a draft, or one marked abandoned) goes back to
//!   planning: plan mode, with the plan file re-attached for the model.
//!
//! What the library knows (approvals, parkings) lives in the transcripts,
//! which the session layer reads: it plugs a lookup in through
//! [`LibraryHooks`].

use catui_protocol::PermissionMode;

use crate::plan::approval::progress::{active_steps, done_times, todos_for};
use crate::plan::contract::PLAN_APPROVED_KEY;
use crate::plan::files::slug::is_valid_slug;
use crate::plan::state::plan_session::{
    ApprovedPlan, PlanSession, plan_hash, verification_section,
};
use crate::tools::SessionHooks;

/// The project a dispatched plan was approved in: a background agent in a
/// git worktree takes the plan up from that project's library.
pub const PLAN_ORIGIN_VAR: &str = "CATUI_PLAN_ORIGIN";

// The hooks live with the plan session that holds them; named here too,
// where the builder plugs them in.
pub use crate::plan::state::library_hooks::{
    DispatchRequest, Dispatcher, LibraryHooks, LibraryPlan,
};

/// What taking up a plan did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PickedUp {
    /// For the user.
    pub text: String,
    pub is_error: bool,
    /// A request for the model to act on at once (present the changed plan
    /// for approval); `None`: the model reads the outcome with the next
    /// input.
    pub prompt: Option<String>,
}

impl PickedUp {
    fn error(text: String) -> Self {
        Self {
            text,
            is_error: true,
            prompt: None,
        }
    }
}

/// Takes up plan `slug` of the library as this session's plan.
pub fn use_plan(session: &dyn SessionHooks, plan: &PlanSession, slug: &str) -> PickedUp {
    let slug = slug.trim().trim_end_matches(".md");
    if !is_valid_slug(slug) {
        return PickedUp::error(format!(
            "'{slug}' is not a plan name: use a slug shown by `catui plans list` (for example brisk-cedar-otter)"
        ));
    }
    let dir = plan.files.dir().to_path_buf();
    let path = dir.join(format!("{slug}.md"));
    let Some(text) = crate::plan::get_plan(&path).filter(|t| !t.trim().is_empty()) else {
        return PickedUp::error(format!(
            "There is no plan '{slug}' in {}; `catui plans list` shows the plans.",
            dir.display()
        ));
    };
    let found = plan.library.lookup(slug).unwrap_or_default();
    if let Err(e) = plan.files.adopt_slug(slug) {
        return PickedUp::error(e.to_string());
    }
    plan.library.slug_changed(slug);
    plan.clear_revisions();
    plan.steps.unbind();
    plan.forget_approved();
    plan.set_verification(None);
    let shown = path.display().to_string();
    // Parked and never-approved plans go back to planning, whatever an
    // older approval said.
    let planning = matches!(found.state.as_str(), "" | "draft" | "parked" | "abandoned");
    match found.approved.filter(|_| !planning) {
        Some(approved) if !found.changed_since_approval => {
            continue_approved(session, plan, slug, &shown, &approved, &text)
        }
        Some(approved) => {
            if let Err(e) = enter_plan_mode(session, plan) {
                return PickedUp::error(e);
            }
            // The presentation that follows shows what changed since the
            // approved text.
            plan.compare_next_with(approved);
            PickedUp {
                text: format!(
                    "Plan {slug} changed since it was approved: it goes to approval again (plan mode is on)."
                ),
                is_error: false,
                prompt: Some(format!(
                    "The user took up the plan {slug} ({shown}) with /plan use. It was approved before, but the file has changed since, so it needs the user's approval again. Read it and present it with ExitPlanMode now; do not implement anything before it is approved."
                )),
            }
        }
        None => {
            if let Err(e) = enter_plan_mode(session, plan) {
                return PickedUp::error(e);
            }
            let state = if found.state.is_empty() {
                "draft".to_string()
            } else {
                found.state
            };
            plan.tell_model_next(format!(
                "The user took up the plan {slug} with /plan use; it is not approved ({state}). Your plan file is now {shown}: read it, continue planning from it (or replace it), and present it with ExitPlanMode when it is ready."
            ));
            PickedUp {
                text: format!(
                    "Plan mode: continuing the {state} plan {slug} ({shown}). Nothing is approved yet."
                ),
                is_error: false,
                prompt: None,
            }
        }
    }
}

/// `planNames: "date-topic"`: before the main plan is first presented,
/// its file takes the name `{date}-{topic}` (from its first heading, else
/// the request). A plan with a history under its old name (approved,
/// parked, presented before) keeps it; so does one whose topic gives no
/// name or whose rename fails (logged).
pub fn name_by_topic(plan: &PlanSession) {
    let hooks = &plan.library;
    if !hooks.names_by_date_topic() || plan.presented_hash().is_some() {
        return;
    }
    let slug = plan.files.slug();
    if crate::plan::files::topic::is_dated(&slug)
        || hooks
            .lookup(&slug)
            .is_some_and(|p| p.approved.is_some() || p.state != "draft")
    {
        return;
    }
    let Some(text) = plan.files.read(None) else {
        return;
    };
    let date = chrono::Utc::now().format("%Y-%m-%d").to_string();
    let request = hooks.request();
    let Some(base) = crate::plan::files::topic::date_topic_slug(&date, &text, request.as_deref())
    else {
        return;
    };
    let dir = plan.files.dir();
    let Some(name) = (1..100)
        .map(|n| {
            if n == 1 {
                base.clone()
            } else {
                format!("{base}-{n}")
            }
        })
        .find(|n| !dir.join(format!("{n}.md")).exists())
    else {
        return;
    };
    let from = plan.files.path(None);
    let to = dir.join(format!("{name}.md"));
    if let Err(e) = std::fs::rename(&from, &to) {
        tracing::warn!(
            "could not rename the plan {} to {}: {e}",
            from.display(),
            to.display()
        );
        return;
    }
    if plan.files.adopt_slug(&name).is_err() {
        // Not a valid slug after all: put the file back.
        let _ = std::fs::rename(&to, &from);
        return;
    }
    hooks.slug_changed(&name);
}

/// Plan mode on, with the re-entry notice for the plan file.
fn enter_plan_mode(session: &dyn SessionHooks, plan: &PlanSession) -> Result<(), String> {
    plan.state.set_has_exited_plan_mode(true);
    if session.permission_mode() != PermissionMode::Plan {
        session
            .set_permission_mode(PermissionMode::Plan)
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The approved plan, unchanged, becomes this session's approved plan.
fn continue_approved(
    session: &dyn SessionHooks,
    plan: &PlanSession,
    slug: &str,
    shown: &str,
    approved: &str,
    now: &str,
) -> PickedUp {
    let mut mode = session.permission_mode();
    if mode == PermissionMode::Plan {
        match crate::plan::approval::leave_plan_mode(session, None) {
            Ok(m) => mode = m,
            Err(e) => return PickedUp::error(e.to_string()),
        }
        plan.state.record_plan_approved_exit();
    }
    let steps = active_steps(approved);
    let done = done_times(now, &steps);
    let undone: Vec<String> = steps
        .iter()
        .zip(&done)
        .filter(|(_, d)| d.is_none())
        .map(|(s, _)| s.clone())
        .collect();
    let done_count = steps.len() - undone.len();
    plan.steps.bind_done(steps.clone(), done);
    plan.set_verification(verification_section(approved));
    let hash = plan_hash(approved);
    // This session carries the approval on: a resume of it, and the
    // library, see the plan as approved here.
    session.snapshot_file(PLAN_APPROVED_KEY, shown, approved);
    plan.approved(&ApprovedPlan {
        path: plan.files.path(None),
        text: approved.to_string(),
        hash: hash.clone(),
        skipped_steps: Vec::new(),
        mode,
        model: session.model(),
    });
    if !undone.is_empty() {
        session.todos_set(&todos_for(&undone));
    }
    let mut told = format!(
        "The user took up the approved plan {slug} ({shown}) with /plan use: you are continuing a plan the user already approved (sha256 {}), with no new approval. {done_count} of {} steps are done.",
        &hash[..12],
        steps.len()
    );
    if undone.is_empty() {
        told.push_str(" Every step is done: finish the work (its verification) and report.");
    } else {
        told.push_str(
            " The steps still to do are your todo list (same text); mark each completed with TodoWrite as you finish it:",
        );
        for step in &undone {
            told.push_str(&format!("\n- {step}"));
        }
    }
    told.push_str(&format!(
        "\n\n## Approved Plan:\n{}",
        crate::plan::approval::progress::without_progress(approved).trim_end()
    ));
    plan.tell_model_next(told);
    PickedUp {
        text: format!(
            "Continuing the approved plan {slug} ({shown}, sha256 {}): {done_count}/{} steps done; {} left on the todo list. No new approval needed.",
            &hash[..12],
            steps.len(),
            undone.len()
        ),
        is_error: false,
        prompt: None,
    }
}
