//! Tools and MCP: the session's agents (agent files through the file
//! gate), skills and custom commands, the tool set fitted to who is at the
//! other end, the MCP servers (with what of the project's own waits for
//! trust), and the context every tool call gets.

use std::sync::Arc;

use catui_protocol::mcp_name::is_mcp_name;
use catui_protocol::{PermissionMode, tool_names};
use catui_providers::{ModelClient, ProviderKind};

use super::base::Base;
use super::{BuildError, extras, mcp, project};
use crate::agents::{AgentCatalog, AgentTool};
use crate::mcp::McpManager;
use crate::output::OutputFormat;
use crate::plan::{EnterPlanModeTool, ExitPlanModeTool};
use crate::settings::ProjectScope;
use crate::teams::{SendMessageTool, TeamCreateTool, TeamStopTool};
use crate::tools::bash::{Asking, BackgroundShells, BashTool, ToolOutputDir};
use crate::tools::{Adapter, ToolContext, ToolRegistry};

/// The tools and MCP stage's result.
pub(super) struct ToolsStage {
    /// Skills and custom commands.
    pub extras: extras::Extras,
    pub agents: AgentCatalog,
    /// The run's structured output (`--json-schema`).
    pub output: OutputFormat,
    pub tools: ToolRegistry,
    pub mcp: McpManager,
    /// What of the project's own configuration waits, and how to trust
    /// it (also among the settings warnings).
    pub trust_notice: Option<String>,
}

/// Tools and MCP: agents, skills and commands (their files through the
/// file gate), the tool set (or `given`), the MCP servers. Problems are
/// said through `warn` and added to `warnings`.
pub(super) fn tools_stage(
    b: &Base,
    scope: &ProjectScope,
    given: Option<ToolRegistry>,
    warnings: &mut Vec<String>,
) -> Result<ToolsStage, BuildError> {
    let cwd = b.cwd();
    let agents_gate = crate::file_gate::FileGate::for_session(
        std::slice::from_ref(cwd),
        b.config_dir(),
        project::secret_stores(
            &b.config,
            b.home.as_deref(),
            &b.settings.secret_paths,
            std::slice::from_ref(cwd),
            &b.output_dir,
        ),
    );
    let extras = extras::load(cwd, b.config_dir(), b.home.as_deref(), scope, &agents_gate);
    let crate::agents::loader::LoadedAgents {
        agents: agent_defs,
        warnings: agent_warnings,
        held: held_agents,
    } = project::agents(cwd, b.config_dir(), scope, agents_gate);
    for w in &agent_warnings {
        (b.warn)(w);
    }
    let agents = AgentCatalog::new(agent_defs);
    agents.add(b.config.agents.clone());
    let output = OutputFormat::default();
    if let Some(schema) = &b.config.output_schema {
        output.set_schema(schema.clone())?;
    }
    let mut tools = match given {
        Some(t) => t,
        None => session_tools(&agents, b.interactive, b.config.tools.as_deref()),
    };
    // Tools and texts that assume someone answers say otherwise when
    // nobody is here (or nothing asks: bypassPermissions).
    fit_tools_to_audience(
        &mut tools,
        b.nobody_here,
        b.config.permission_mode == Some(PermissionMode::BypassPermissions),
    );
    let mcp::McpSetup {
        manager: mcp,
        problems: mcp_problems,
        waiting: waiting_servers,
    } = mcp::manager(
        &b.config.mcp_servers,
        b.config.strict_mcp_config,
        &b.settings,
        scope,
        cwd,
        b.config_dir(),
        b.mcp_env(),
    );
    for text in mcp_problems {
        (b.warn)(&text);
        warnings.push(text);
    }
    // Once per session, by name: what of the project's own
    // configuration waits, and how to trust it.
    let mut waiting = waiting_servers;
    waiting.extend(extras.held.iter().cloned());
    let trust_notice =
        project::held_back(cwd, &b.settings, &held_agents, waiting, scope).notice(cwd);
    if let Some(text) = &trust_notice {
        (b.warn)(text);
        warnings.push(text.clone());
    }
    // Skills are offered when there are any (and `--tools` does not
    // leave the tool out).
    if !extras.skills.is_empty()
        && b.config
            .tools
            .as_deref()
            .is_none_or(|only| only.iter().any(|n| n == catui_protocol::tool_names::SKILL))
    {
        tools.add(crate::tools::Adapter(Arc::new(
            crate::skills::tool::SkillTool(extras.skills.clone()),
        )));
    }
    tools.add_source(Arc::new(mcp.clone()));
    Ok(ToolsStage {
        extras,
        agents,
        output,
        tools,
        mcp,
        trust_notice,
    })
}

/// What every tool call gets (the working directory, the child
/// environment, where command output goes, what Read may show the model),
/// and the session's background commands.
pub(super) fn tool_context(
    b: &Base,
    client: &Arc<dyn ModelClient>,
) -> (ToolContext, Arc<BackgroundShells>) {
    let mut tool_ctx = ToolContext::new(b.cwd().clone());
    tool_ctx.env = Arc::new(b.settings.child_env());
    tool_ctx.values.insert(ToolOutputDir(b.output_dir.clone()));
    // What Read may show the model besides text (images, PDFs).
    tool_ctx.values.insert(crate::tools::media::ModelInputs {
        images: !client.model_info(&b.resolved.model).text_only,
        documents: b.resolved.config.kind == ProviderKind::Anthropic,
    });
    let background = Arc::new(BackgroundShells::new(b.output_dir.clone()));
    (tool_ctx, background)
}

/// The built-in tools, Agent (alias Task) and ExitPlanMode; with someone
/// to answer prompts also EnterPlanMode (leaving plan mode needs an
/// approver) and the team tools (a team needs a lead that keeps
/// listening). `only`: keep just these names (and the plan-mode tools, and
/// the structured-output tool when the run asks for it).
fn session_tools(
    agents: &AgentCatalog,
    interactive: bool,
    only: Option<&[String]>,
) -> ToolRegistry {
    let mut tools = ToolRegistry::builtin();
    tools.add(Adapter(Arc::new(AgentTool::new(agents.clone()))));
    tools.add_alias(tool_names::TASK, tool_names::AGENT);
    tools.add(Adapter(Arc::new(ExitPlanModeTool)));
    if interactive {
        tools.add(Adapter(Arc::new(EnterPlanModeTool)));
        tools.add(Adapter(Arc::new(TeamCreateTool)));
        tools.add(Adapter(Arc::new(SendMessageTool)));
        tools.add(Adapter(Arc::new(TeamStopTool)));
    }
    if let Some(only) = only {
        // MCP servers' tools are chosen by configuring servers, not by
        // the list of built-in tools.
        let only = only.to_vec();
        tools.retain(move |name| {
            matches!(
                name,
                tool_names::ENTER_PLAN_MODE | tool_names::EXIT_PLAN_MODE
            ) || name == tool_names::STRUCTURED_OUTPUT
                || is_mcp_name(name)
                || only.iter().any(|n| n == name)
        });
    }
    // The listing of agent types names the tools each one really gets.
    let names = tools.names();
    tools.replace(Adapter(Arc::new(
        AgentTool::new(agents.clone()).with_session_tools(names),
    )));
    tools
}

/// Fits the tools to who is there: with nobody to answer, AskUserQuestion
/// is not offered, and Bash's text says nobody is asked (as it does when
/// the session starts in bypassPermissions, where nothing asks).
fn fit_tools_to_audience(tools: &mut ToolRegistry, nobody_here: bool, bypass: bool) {
    if nobody_here {
        tools.retain(|name| name != tool_names::ASK_USER_QUESTION);
    }
    if nobody_here || bypass {
        tools.replace(Adapter(Arc::new(BashTool::new(Asking::Nobody))));
    }
}
