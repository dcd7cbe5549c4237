//! The names of catui's own tools: the name the model calls a tool by, the
//! name a permission rule or an allow-list writes, the name stream-json and
//! the approval requests report.
//!
//! This module is the one place such a name is spelt; code elsewhere uses
//! these constants, so a misspelt name does not compile, and
//! `crates/core/tests/module_layers.rs` fails when a name is written as a
//! string literal outside this file (tests excepted). It sits in the
//! protocol crate because the names cross every boundary: the permission
//! layer matches them, the TUI and ACP front ends show them, SDK clients
//! write them. MCP tools' names are built by [`crate::mcp_name`] instead.

/// Runs a subagent.
pub const AGENT: &str = "Agent";
/// The older name of [`AGENT`], still accepted from models and settings.
pub const TASK: &str = "Task";
/// Proposes an amendment to the approved plan while it runs.
pub const AMEND_PLAN: &str = "AmendPlan";
/// Asks the user multiple-choice questions.
pub const ASK_USER_QUESTION: &str = "AskUserQuestion";
/// Runs a shell command.
pub const BASH: &str = "Bash";
/// Types into a background shell's terminal.
pub const BASH_INPUT: &str = "BashInput";
/// Reads a background shell's new output.
pub const BASH_OUTPUT: &str = "BashOutput";
/// Ends a background shell.
pub const KILL_SHELL: &str = "KillShell";
/// Replaces exact text in a file.
pub const EDIT: &str = "Edit";
/// Writes a whole file.
pub const WRITE: &str = "Write";
/// Reads a file.
pub const READ: &str = "Read";
/// Edits a Jupyter notebook's cells.
pub const NOTEBOOK_EDIT: &str = "NotebookEdit";
/// Finds files by name pattern.
pub const GLOB: &str = "Glob";
/// Searches file contents.
pub const GREP: &str = "Grep";
/// Fetches a web page as text.
pub const WEB_FETCH: &str = "WebFetch";
/// Keeps the session's task list.
pub const TODO_WRITE: &str = "TodoWrite";
/// Asks to enter plan mode.
pub const ENTER_PLAN_MODE: &str = "EnterPlanMode";
/// Presents the plan for approval.
pub const EXIT_PLAN_MODE: &str = "ExitPlanMode";
/// Starts a team of teammates.
pub const TEAM_CREATE: &str = "TeamCreate";
/// Sends a message to a teammate.
pub const SEND_MESSAGE: &str = "SendMessage";
/// Stops a team.
pub const TEAM_STOP: &str = "TeamStop";
/// Lists the resources MCP servers offer.
pub const LIST_MCP_RESOURCES: &str = "ListMcpResourcesTool";
/// Reads one MCP resource.
pub const READ_MCP_RESOURCE: &str = "ReadMcpResourceTool";
/// Loads a skill's instructions.
pub const SKILL: &str = "Skill";
/// Gives the run's final answer in the required JSON schema.
pub const STRUCTURED_OUTPUT: &str = "StructuredOutput";

/// Every name above, for checks that must know them all.
pub const ALL: &[&str] = &[
    AGENT,
    TASK,
    AMEND_PLAN,
    ASK_USER_QUESTION,
    BASH,
    BASH_INPUT,
    BASH_OUTPUT,
    KILL_SHELL,
    EDIT,
    WRITE,
    READ,
    NOTEBOOK_EDIT,
    GLOB,
    GREP,
    WEB_FETCH,
    TODO_WRITE,
    ENTER_PLAN_MODE,
    EXIT_PLAN_MODE,
    TEAM_CREATE,
    SEND_MESSAGE,
    TEAM_STOP,
    LIST_MCP_RESOURCES,
    READ_MCP_RESOURCE,
    SKILL,
    STRUCTURED_OUTPUT,
];
