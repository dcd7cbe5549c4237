//! What the command line and the environment catui was started with ask
//! of a session: the [`SessionConfig`] made from the arguments, the
//! process's directories, trusting the project (`--trust-project`,
//! `CATUI_TRUST_PROJECT`, the trust dialog) and where start-up warnings go.
//! Shared by every front end and the broker's workers.

use std::path::PathBuf;
use std::sync::Arc;

use catui_core::builder::{Resume, SessionConfig, WarningSink};
use catui_protocol::PermissionMode;

use crate::args::Args;
use crate::sdk_flags;

/// Warnings while the session starts go to stderr.
pub fn stderr_warnings() -> WarningSink {
    Arc::new(|w: &str| eprintln!("catui: {w}"))
}

/// The process's working directory (canonical) and catui home.
pub fn process_dirs() -> Result<(PathBuf, PathBuf), String> {
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the working directory: {e}"))?;
    let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
    Ok((cwd, catui_core::config_dir::config_dir()))
}

/// What the command line asks of a session in `cwd`.
pub fn config_from_args(
    args: &Args,
    cwd: PathBuf,
    config_dir: PathBuf,
) -> Result<SessionConfig, String> {
    let permission_mode = match args.permission_mode.as_deref() {
        // Prompts are denied by the front end instead (see `build`).
        Some(_) if sdk_flags::is_dont_ask(args) => Some(PermissionMode::Default),
        Some(m) => Some(m.parse::<PermissionMode>().map_err(|e| e.to_string())?),
        None => None,
    };
    Ok(SessionConfig {
        settings_file: args.settings.as_ref().map(PathBuf::from),
        permission_mode,
        provider: args.provider.clone(),
        model: args.model.clone(),
        small_model: args.small_model.clone(),
        plan_model: args.plan_model.clone(),
        plan_effort: args.plan_effort,
        max_turns: args.max_turns,
        append_system_prompt: args.sdk.append_system_prompt.clone(),
        system_prompt: sdk_flags::system_prompt(args)?,
        agents: sdk_flags::agents(args)?,
        output_schema: sdk_flags::output_schema(args)?,
        fallback_model: args.sdk.fallback_model.clone(),
        persist_session: !args.sdk.no_session_persistence,
        allowed_tools: args.allowed_tools.clone(),
        disallowed_tools: args.disallowed_tools.clone(),
        add_dirs: args.add_dir.clone(),
        resume: Resume {
            resume: args.resume.clone(),
            continue_latest: args.continue_session,
            fork: args.fork_session,
            at: args.sdk.resume_session_at.clone(),
        },
        session_id: args.session_id.clone(),
        tools: sdk_flags::tool_list(args),
        reasoning: args.reasoning()?,
        max_budget_usd: args.max_budget_usd,
        goal: args.goal.clone(),
        pick_up_plan: args.pick_up_plan.clone(),
        mcp_servers: flag_mcp_servers(args, &cwd)?,
        strict_mcp_config: args.sdk.strict_mcp_config,
        setting_sources: sdk_flags::setting_sources(args)?,
        trust_project: trust_project(args),
        // This binary is the sandbox's inner stage (see `main`).
        sandbox_stage: std::env::current_exe().ok(),
        ..SessionConfig::new(cwd, config_dir)
    })
}

/// `--trust-project`, or `CATUI_TRUST_PROJECT` set to 1/true/yes/on in the
/// environment catui was started with (a project's own `env` cannot set
/// it: that is read later, and only once the project is trusted).
pub fn trust_project(args: &Args) -> bool {
    args.trust_project || trust_project_from_env()
}

/// `CATUI_TRUST_PROJECT` set to 1/true/yes/on.
pub fn trust_project_from_env() -> bool {
    std::env::var("CATUI_TRUST_PROJECT").is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "1" | "true" | "yes" | "on"
        )
    })
}

/// The servers of every `--mcp-config FILE|JSON`; a bad one is an error
/// (the user asked for it on this run).
fn flag_mcp_servers(
    args: &Args,
    cwd: &std::path::Path,
) -> Result<Vec<catui_core::mcp::config::ServerSpec>, String> {
    use catui_core::mcp::config;
    let mut servers = Vec::new();
    for arg in &args.sdk.mcp_config {
        let value = config::read_flag(arg, cwd).map_err(|e| format!("--mcp-config {arg}: {e}"))?;
        let (found, errors) = config::parse_servers(&value, &config::Source::Flag, "--mcp-config");
        if let Some(e) = errors.first() {
            return Err(e.to_string());
        }
        servers.extend(found);
    }
    Ok(servers)
}

/// Before an interactive session starts: when the folder's own
/// configuration waits for the user's answer (or it is the home
/// directory), asks with the trust dialog and remembers the answer.
/// `Ok(false)`: the user chose to quit.
pub fn ask_about_trust(args: &Args) -> Result<bool, String> {
    if trust_project(args) || args.sdk.setting_sources.is_some() {
        return Ok(true);
    }
    let (cwd, config_dir) = process_dirs()?;
    let question = catui_core::settings::project::TrustQuestion::gather(&config_dir, &cwd);
    if !question.should_ask() {
        return Ok(true);
    }
    let answer = catui_tui::ask_trust(catui_tui::TrustPrompt::from_question(&question))
        .map_err(|e| format!("the trust dialog failed: {e}"))?;
    let saved = match answer {
        catui_tui::TrustAnswer::Quit => return Ok(false),
        catui_tui::TrustAnswer::Trust => catui_core::trust::update(&config_dir, &cwd, |t| {
            t.accept_all(&question.inventory.items)
        }),
        catui_tui::TrustAnswer::Continue => {
            catui_core::trust::update(&config_dir, &cwd, |t| t.decline(question.unanswered()))
        }
    };
    saved.map(|_| true).map_err(|e| e.to_string())
}
