//! Agent types: who a sub-agent is, which tools it gets and which model it
//! runs on.

use catui_protocol::tool_names;

/// Which model a sub-agent uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelChoice {
    /// The parent's model.
    Inherit,
    /// The `smallModel` setting (fast and cheap).
    Small,
    /// The planning model (`planModel`), else the parent's model.
    Planning,
    /// A model by name.
    Named(String),
}

/// A type of sub-agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentDefinition {
    pub name: String,
    /// When to use it (shown to the model in the Agent tool description).
    pub description: String,
    /// Tools it may use; `None` = every tool of the parent.
    pub tools: Option<Vec<String>>,
    /// Tools it never gets, whatever `tools` says.
    pub disallowed_tools: Vec<String>,
    pub model: ModelChoice,
    pub system_prompt: String,
    /// Leave AGENTS.md / CLAUDE.md out of its prompt.
    pub omit_memory: bool,
    /// Model requests it may make; `None`: the session's limit for
    /// sub-agents.
    pub max_turns: Option<u32>,
    /// Only reads: allowed in plan mode.
    pub read_only: bool,
    /// Where it was defined (`built-in` or a file path).
    pub source: String,
    /// Skills whose instructions go into its prompt from the start (the
    /// SDKs' `skills` of an agent definition).
    pub skills: Vec<String>,
}

/// Tools no sub-agent may use: no nesting of agents, questions for the
/// user belong to the main conversation, and the team belongs to the
/// conversation that leads or joined it (a sub-agent has no team, so the
/// team tools would always fail).
pub const ALWAYS_DISALLOWED: &[&str] = &[
    tool_names::AGENT,
    tool_names::TASK,
    tool_names::ASK_USER_QUESTION,
    tool_names::TEAM_CREATE,
    tool_names::SEND_MESSAGE,
    tool_names::TEAM_STOP,
];

/// What read-only agents may never use.
pub const WRITE_TOOLS: &[&str] = &[
    tool_names::AGENT,
    tool_names::TASK,
    tool_names::EXIT_PLAN_MODE,
    tool_names::ENTER_PLAN_MODE,
    tool_names::EDIT,
    tool_names::WRITE,
    tool_names::NOTEBOOK_EDIT,
    // They start no background command, and must not stop the session's
    // or type into it.
    tool_names::BASH_OUTPUT,
    tool_names::BASH_INPUT,
    tool_names::KILL_SHELL,
];

/// Whether an agent limited to `tools` only reads (and may run in plan
/// mode). `*` is every tool, and an MCP server's tools are only known once
/// it runs: neither counts as reading only; no list at all is every tool.
pub fn tools_read_only(tools: Option<&[String]>) -> bool {
    tools.is_some_and(|t| {
        !t.is_empty()
            && t.iter().all(|t| {
                !WRITE_TOOLS.contains(&t.as_str())
                    && t != tool_names::BASH
                    && t != "*"
                    && !catui_protocol::mcp_name::is_mcp_name(t)
            })
    })
}

/// Whether an agent limited to `tools` may run while planning: every tool
/// only reads, except `Bash` — Explore's own set. In plan mode a sub-agent
/// is held to plan mode's rules like the session (its shell commands run
/// only when judged read-only, and confined), so its Bash changes nothing.
pub fn tools_plan_safe(tools: Option<&[String]>) -> bool {
    tools.is_some_and(|t| {
        let reading: Vec<String> = t
            .iter()
            .filter(|t| *t != tool_names::BASH)
            .cloned()
            .collect();
        !reading.is_empty() && tools_read_only(Some(&reading))
    })
}

/// Agent names are letters, digits, `-` and `_`.
pub fn valid_agent_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

impl AgentDefinition {
    /// Whether this agent type may run in plan mode (see
    /// [`tools_plan_safe`]).
    pub fn may_run_while_planning(&self) -> bool {
        self.read_only || tools_plan_safe(self.tools.as_deref())
    }

    /// Whether this agent may use the tool called `name`.
    pub fn allows_tool(&self, name: &str) -> bool {
        if ALWAYS_DISALLOWED.contains(&name) || self.disallowed_tools.iter().any(|t| t == name) {
            return false;
        }
        match &self.tools {
            None => true,
            Some(list) => list.iter().any(|t| t == name || t == "*"),
        }
    }
}

const EXPLORE_PROMPT: &str = "\
You are a code-search specialist working for another agent. Your job is to find things in the \
repository quickly and report them precisely; you never change anything.

How to work:
- Start broad (Glob for file names, Grep for identifiers and strings), then Read the few files \
that matter. Issue independent searches together in one message so they run in parallel.
- Use Bash only for read-only commands (ls, git log, git diff, git show). Never create, modify \
or delete files, and never run builds, installs or anything with side effects.
- Stop as soon as you can answer; do not read the whole repository.

Your final message is returned verbatim to the agent that called you, who has not seen your \
searches. Make it a concise report: the answer first, then the relevant absolute file paths \
with line numbers and one line on what each contains. No preamble, no filler.";

const PLAN_PROMPT: &str = "\
You are a software architect helping another agent plan a change. You read and reason; you \
never modify files.

How to work:
- Read the code the change touches and the code around it: callers, tests, conventions, \
similar features that already exist. Use Glob, Grep and Read (in parallel when independent) \
and read-only Bash commands only.
- Design the change the way the codebase already does things. Consider the alternatives \
briefly and choose one, saying why. Name risks, edge cases and how to verify the result \
(which tests to add or run).

Your final message is returned to the calling agent. Structure it as: approach, step-by-step \
implementation plan (files and functions to change), testing and verification, risks. End with \
a section titled \"Critical files for implementation\" listing the 3 to 5 files that matter \
most, as absolute paths, each with a short reason.";

const GENERAL_PROMPT: &str = "\
You are a capable coding agent handling one task on behalf of another agent. Complete the task \
fully with the tools you have, following the conventions of the codebase. Search before you \
assume; verify what you change.

Your final message is returned to the calling agent, who cannot see your tool calls: report \
what you did and found, with absolute file paths, concisely.";

/// The built-in agent types.
pub fn builtin_agents() -> Vec<AgentDefinition> {
    vec![
        AgentDefinition {
            name: "Explore".into(),
            description: "Fast, read-only codebase search: finding files, symbols, usages and answering \
                          'where/how is X done' questions. Give it a precise question and say how thorough to be."
                .into(),
            tools: None,
            disallowed_tools: WRITE_TOOLS.iter().map(|s| s.to_string()).collect(),
            model: ModelChoice::Small,
            system_prompt: EXPLORE_PROMPT.into(),
            omit_memory: true,
            max_turns: None,
            read_only: true,
            source: "built-in".into(),
            skills: Vec::new(),
        },
        AgentDefinition {
            name: "Plan".into(),
            description: "Read-only software architect: designs an implementation plan for a change, with the \
                          steps, trade-offs and the critical files."
                .into(),
            tools: None,
            disallowed_tools: WRITE_TOOLS.iter().map(|s| s.to_string()).collect(),
            model: ModelChoice::Planning,
            system_prompt: PLAN_PROMPT.into(),
            omit_memory: true,
            max_turns: None,
            read_only: true,
            source: "built-in".into(),
            skills: Vec::new(),
        },
        AgentDefinition {
            name: "general-purpose".into(),
            description: "General agent for multi-step tasks: research, searching, and changes when the session's \
                          permissions allow them."
                .into(),
            tools: None,
            disallowed_tools: vec![],
            model: ModelChoice::Inherit,
            system_prompt: GENERAL_PROMPT.into(),
            omit_memory: false,
            max_turns: None,
            read_only: false,
            source: "built-in".into(),
            skills: Vec::new(),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_agents_never_get_write_tools() {
        for def in builtin_agents().into_iter().filter(|d| d.read_only) {
            for t in [
                "Edit",
                "Write",
                "NotebookEdit",
                "Agent",
                "ExitPlanMode",
                "TeamCreate",
                "SendMessage",
                "TeamStop",
                "KillShell",
            ] {
                assert!(!def.allows_tool(t), "{} allows {t}", def.name);
            }
            for t in ["Read", "Glob", "Grep", "Bash"] {
                assert!(def.allows_tool(t), "{} lacks {t}", def.name);
            }
        }
    }

    #[test]
    fn no_agent_may_nest() {
        for def in builtin_agents() {
            assert!(!def.allows_tool("Agent") && !def.allows_tool("Task"));
        }
        let plan = builtin_agents()
            .into_iter()
            .find(|d| d.name == "Plan")
            .unwrap();
        assert!(
            plan.system_prompt
                .contains("Critical files for implementation")
        );
    }
}
