//! Plan: the session's plan files and [`PlanSession`] (its prompts'
//! configuration, editor, planning model, exporter and plan library),
//! with the resumed session's plan brought back or copied for a fork.

use std::path::PathBuf;
use std::sync::Arc;

use catui_protocol::tool_names;

use super::base::Base;
use super::{BuildError, late, parts, resume};
use crate::plan::{PlanFiles, PlanModeConfig, PlanSession};
use crate::session::{self, ResumedSession};
use crate::tools::{ToolContext, ToolRegistry};

/// The plan stage's result.
pub(super) struct PlanStage {
    pub plan: Arc<PlanSession>,
    pub config: PlanModeConfig,
    /// The planning model (`--plan-model`, else `planModel`).
    pub model: Option<String>,
    /// The session being continued, its plan restored (a fork's copied).
    pub resumed: Option<ResumedSession>,
    /// Where `--resume-session-at` cuts the resumed conversation.
    pub resume_point: Option<usize>,
}

/// Plan: restores the resumed session's plan (saying the resume's
/// `notes` once it is), then the tools' remembered state, and sets up
/// plan mode and the plan library.
pub(super) fn plan_stage(
    b: &Base,
    resumed: Option<ResumedSession>,
    mut notes: Vec<String>,
    tool_ctx: &ToolContext,
    tools: &ToolRegistry,
) -> Result<PlanStage, BuildError> {
    let (cwd, config_dir) = (b.cwd(), b.config_dir());
    let plan_files = PlanFiles::from_settings(
        cwd,
        b.settings.plans_directory.as_deref(),
        config_dir,
        b.session_id.clone(),
    );
    let resume_point = match (&resumed, b.config.resume.at.as_deref()) {
        (Some(r), Some(at)) => Some(late::resume_point(r, at).map_err(BuildError::Resume)?),
        (None, Some(_)) => {
            return Err(BuildError::Resume(
                "--resume-session-at needs --resume or --continue".into(),
            ));
        }
        _ => None,
    };
    let resumed = match resumed {
        Some(r) => Some(
            resume::restore_plan(
                r,
                b.config.resume.fork,
                config_dir,
                cwd,
                &plan_files,
                &b.session_id,
                &mut notes,
            )
            .map_err(BuildError::Resume)?,
        ),
        None => None,
    };
    for note in &notes {
        (b.warn)(note);
    }
    if let Some(r) = &resumed {
        resume::restore_tool_state(r, tool_ctx);
    }
    let config = PlanModeConfig::resolve(
        &b.env,
        b.settings.plan_agents.map(u64::from),
        Some(b.settings.plan_variant.as_str()),
    )
    .with_nobody_to_ask(b.nobody_here);
    let editor = (b.env)("VISUAL").or_else(|| (b.env)("EDITOR"));
    let model = b
        .config
        .plan_model
        .clone()
        .or_else(|| b.settings.plan_model.clone())
        .filter(|m| !m.trim().is_empty());
    // Unattended, planning (from the start or after `/plan`) ends the run
    // with the plan for a later review: nobody is there to approve it.
    let team_tool = b.interactive && tools.names().iter().any(|n| n == tool_names::TEAM_CREATE);
    let plan = Arc::new(
        PlanSession::new(plan_files, config, editor)
            .with_exporter(parts::plan_exporter(
                session::project_dir(config_dir, cwd),
                cwd.clone(),
            ))
            .ending_runs_at_plan(!b.interactive)
            .with_team_tool(team_tool)
            .with_plan_model(model.clone())
            .with_snapshots(session::snapshot_plans_enabled(
                b.settings.snapshot_plans,
                &b.env,
            )),
    );
    if let Some(r) = &resumed {
        resume::restore_approved_plan(r, &plan);
    }
    plan.library.set_names(b.settings.plan_names);
    // A plan dispatched to a worktree is looked up in the project it
    // was approved in (`catui plans dispatch`).
    let library_project = (b.env)(crate::plan::pick_up::PLAN_ORIGIN_VAR)
        .map(PathBuf::from)
        .unwrap_or_else(|| cwd.clone());
    plan.library.set_lookup(parts::plan_library_lookup(
        session::project_dir(config_dir, &library_project),
        plan.files.dir().to_path_buf(),
    ));
    Ok(PlanStage {
        plan,
        config,
        model,
        resumed,
        resume_point,
    })
}
