//! What the engine tells its front ends. The TUI and the headless printer
//! translate these; neither holds behaviour of its own.

use std::collections::BTreeMap;

use catui_protocol::stream_json::ResultSubtype;
use catui_protocol::{
    Attachment, Message, ModelEvent, ModelUsage, PermissionMode, StopReason, Usage,
};

/// What the model reported about the response behind an assistant message.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResponseInfo {
    /// The model that answered (the server's name for it when it said).
    pub model: String,
    pub stop_reason: Option<StopReason>,
    pub usage: Usage,
}

/// One event of a running session.
#[derive(Debug, Clone, PartialEq)]
pub enum EngineEvent {
    /// A streaming delta of the model's answer (discard on `Retrying`).
    Delta {
        agent_id: Option<String>,
        event: ModelEvent,
    },
    /// A complete assistant message, as committed to the conversation.
    /// `uuid` is its transcript entry's (a fresh one when nothing was
    /// recorded).
    Assistant {
        message: Message,
        uuid: String,
        parent_tool_use_id: Option<String>,
        response: ResponseInfo,
    },
    /// A complete user message (tool results) committed to the conversation.
    User {
        message: Message,
        uuid: String,
        parent_tool_use_id: Option<String>,
    },
    /// A tool call starts running.
    ToolStart {
        id: String,
        name: String,
        summary: String,
        parent_tool_use_id: Option<String>,
    },
    /// A tool call finished, or was answered without running (declined,
    /// invalid, interrupted). `display` is the user-facing rendering, never
    /// the advice written for the model; `is_error` is what the model was
    /// told; `failed` whether the user should see the call as failed (also
    /// a command that exited non-zero).
    ToolEnd {
        id: String,
        name: String,
        display: String,
        is_error: bool,
        failed: bool,
        parent_tool_use_id: Option<String>,
    },
    /// A tool call is still running (at most four a second per call, see
    /// `engine::progress`): how long it has run and its latest lines of
    /// output (for Bash), `total_lines` printed in all.
    ToolProgress {
        id: String,
        name: String,
        parent_tool_use_id: Option<String>,
        elapsed: std::time::Duration,
        lines: Vec<String>,
        total_lines: u64,
    },
    /// The permission mode changed.
    PermissionMode {
        mode: PermissionMode,
        pre_plan_mode: Option<PermissionMode>,
    },
    /// Context was injected before a model request.
    Attachment(Attachment),
    /// Something to show the user outside the conversation.
    Notification { key: String, text: String },
    /// catui itself set the session's todo list (the approved plan's
    /// numbered steps). A TodoWrite call is seen through its tool call.
    Todos { todos: Vec<crate::tools::TodoItem> },
    /// Something the user must read even when output is quiet: a headless
    /// run prints it to stderr without `--verbose` (the approved plan's
    /// verification steps). Same wire form as a notification.
    Advice { key: String, text: String },
    /// A teammate's message to the lead, for the user to read; `from` is
    /// `name@team`.
    TeammateMessage { from: String, text: String },
    /// A complete message of a teammate's own conversation, relayed to the
    /// lead's front end: its assistant messages and the user messages that
    /// carry its tool results. `agent_id` is `name@team`.
    Teammate { agent_id: String, message: Message },
    /// A user's input as the engine received it, with the id its
    /// transcript entry gets (the client's own, or a fresh one): what a
    /// rewind names. Emitted before anything else of that input.
    UserMessage {
        uuid: String,
        content: Vec<catui_protocol::ContentBlock>,
    },
    /// How the work after a plan approval compares with the plan (end of
    /// each turn until the next plan or `/clear`).
    PlanCompliance(catui_protocol::checkpoint::PlanCompliance),
    /// catui ran the approved plan's verification commands.
    PlanVerification(catui_protocol::contract::PlanVerification),
    /// A goal was checked as the main conversation's turn ended (the
    /// continuation loop, `engine::turn_end`).
    GoalCheck(catui_protocol::contract::GoalCheck),
    /// The work on an approved plan ended (its goal met or given up).
    PlanReport(catui_protocol::contract::PlanReport),
    /// The step of an approved plan the work is on changed (`None`: no
    /// step any more). Tool calls from now on belong to it.
    WorkStep(Option<catui_protocol::contract::WorkStep>),
    /// A sub-agent started in the background (`run_in_background`).
    TaskStarted(catui_protocol::task::TaskStart),
    /// A background task that is another process (a dispatched plan's
    /// agent) moved on; a background sub-agent's progress is read from
    /// its own events instead.
    TaskProgress(catui_protocol::task::TaskProgress),
    /// A background sub-agent ended (finished, failed or was stopped).
    TaskEnded(catui_protocol::task::TaskEnd),
    /// The conversation's next request waits for these to start (MCP
    /// servers, named for the user); empty: it waits no longer.
    AwaitingTools { pending: Vec<String> },
    /// The handling of one user input ended.
    Result(TurnOutcome),
}

/// Notification keys that report a problem the user has to act on (a
/// settings file that was not applied, transcript entries not saved):
/// front ends show these as errors, not as quiet notes.
pub const PROBLEM_KEYS: &[&str] = &["settings", "transcript_unsaved"];

/// Whether a notification of `key` reports a problem (see [`PROBLEM_KEYS`]).
pub fn is_problem(key: &str) -> bool {
    PROBLEM_KEYS.contains(&key)
}

/// How the handling of one user input ended.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnOutcome {
    pub subtype: ResultSubtype,
    pub is_error: bool,
    /// The final assistant text, a command's output, or the error.
    pub result: String,
    /// Model requests made for this input (0 for local commands).
    pub num_turns: u32,
    pub duration_ms: u64,
    /// Usage of this input's requests.
    pub usage: Usage,
    pub cost: SessionCost,
    pub permission_mode: PermissionMode,
    pub plan_file: Option<String>,
    /// How a front end that draws may show a command's output instead of
    /// `result` as plain text.
    pub view: Option<CommandView>,
    /// The final answer as data, when the session asked for output
    /// matching a JSON schema and got it.
    pub structured_output: Option<serde_json::Value>,
    /// Background commands that will outlive the session
    /// (`keep_running`) and still run.
    pub left_running: Vec<catui_protocol::stream_json::LeftRunning>,
    /// When a goal kept the input going: how its loop ended.
    pub goal: Option<super::turn_end::GoalEnd>,
    /// When the work on an approved plan ended in this input: its report.
    pub plan_report: Option<Box<catui_protocol::contract::PlanReport>>,
}

/// A command's output as structured data, for front ends that draw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandView {
    /// A document on disk (the plan shown by `/plan`): its title, path and
    /// text, and a hint shown dimmed below it.
    Document {
        title: String,
        path: String,
        content: String,
        hint: Option<String>,
    },
}

/// What the session's model requests have used and cost, as of the end of
/// one input (all zero when the session keeps no ledger).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionCost {
    /// Time this input spent waiting for the model.
    pub api_duration_ms: u64,
    /// The whole session so far, sub-agents and teammates included, in US
    /// dollars.
    pub total_cost_usd: f64,
    /// The whole session so far, per model.
    pub model_usage: BTreeMap<String, ModelUsage>,
}
