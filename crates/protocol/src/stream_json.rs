//! The headless stream-json protocol: one JSON object per line
//! on stdout, and with `--input-format stream-json` on stdin. Field names
//! follow the Claude Code SDK conventions so existing clients work.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::attachment::Attachment;
use crate::message::Message;
use crate::mode::PermissionMode;
use crate::model::{ModelUsage, StopReason, Usage};
use std::collections::BTreeMap;

pub use crate::control::{ControlRequest, ControlResponse, PermissionResponse};

/// A line written to stdout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum OutputEvent {
    System(SystemEvent),
    Assistant {
        message: AssistantMessage,
        session_id: String,
        parent_tool_use_id: Option<String>,
        /// A fresh id for this line.
        uuid: String,
        /// While an approved plan is carried out: the step (1-based) its
        /// tool calls belong to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        plan_step: Option<u32>,
    },
    User {
        message: Message,
        session_id: String,
        parent_tool_use_id: Option<String>,
        uuid: String,
        /// While an approved plan is carried out: the step (1-based) its
        /// tool results belong to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        plan_step: Option<u32>,
        /// Set on the echo of the client's own message
        /// (`--replay-user-messages`): `uuid` is then that message's id,
        /// the one `rewind_files` takes.
        #[serde(rename = "isReplay", default, skip_serializing_if = "Option::is_none")]
        is_replay: Option<bool>,
    },
    Result(ResultEvent),
    /// With `--include-partial-messages`: one raw event of the model's
    /// stream (Anthropic Messages streaming shape).
    StreamEvent {
        uuid: String,
        session_id: String,
        event: Value,
        parent_tool_use_id: Option<String>,
    },
    /// A tool call is still running (the Agent SDKs' `tool_progress`
    /// message): at most four a second per call.
    ToolProgress {
        tool_use_id: String,
        tool_name: String,
        parent_tool_use_id: Option<String>,
        elapsed_time_seconds: f64,
        uuid: String,
        session_id: String,
    },
    ControlRequest {
        request_id: String,
        request: ControlRequest,
    },
    ControlResponse {
        response: ControlResponse,
    },
    /// A control request catui sent is no longer asked (the turn was
    /// interrupted); the client drops its pending answer.
    ControlCancelRequest {
        request_id: String,
    },
}

/// An assistant message with what the model reported about it, as the
/// Agent SDKs read it (`message.model`, `message.id`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssistantMessage {
    #[serde(flatten)]
    pub message: Message,
    pub id: String,
    /// Always `message`.
    #[serde(rename = "type")]
    pub kind: String,
    pub model: String,
    pub stop_reason: Option<StopReason>,
    pub stop_sequence: Option<String>,
    pub usage: Usage,
}

/// `{"type":"system","subtype":...}` events.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum SystemEvent {
    Init(Box<InitEvent>),
    PermissionMode {
        mode: PermissionMode,
        pre_plan_mode: Option<PermissionMode>,
    },
    Attachment {
        attachment: Attachment,
    },
    /// Something the user should see that is not part of the conversation
    /// (a retry, a fallback, a warning).
    Notification {
        key: String,
        text: String,
    },
    /// catui set the session's todo list itself (the approved plan's
    /// numbered steps become the todos). Each item has TodoWrite's shape:
    /// `content`, `status`, `activeForm`.
    Todos {
        todos: Vec<serde_json::Value>,
    },
    /// A complete message of a teammate's own conversation (its assistant
    /// messages and its tool results), so a client of the lead can follow
    /// what the team does. `agent_id` is `name@team`.
    TeammateMessage {
        session_id: String,
        agent_id: String,
        message: Message,
    },
    /// At the end of each turn after a plan was approved: how the work
    /// compares with the plan.
    PlanCompliance(crate::checkpoint::PlanCompliance),
    /// catui ran the approved plan's verification commands.
    PlanVerification(crate::contract::PlanVerification),
    /// A goal was checked as a turn ended (the goal loop).
    GoalCheck(crate::contract::GoalCheck),
    /// The work on an approved plan ended (its goal met or given up).
    PlanReport(crate::contract::PlanReport),
    /// A background task (a sub-agent started with `run_in_background`)
    /// started: the SDKs' `SDKTaskStartedMessage`.
    TaskStarted {
        #[serde(flatten)]
        task: crate::task::TaskStart,
        session_id: String,
        uuid: String,
    },
    /// A background task started a tool call: the SDKs'
    /// `SDKTaskProgressMessage`.
    TaskProgress {
        #[serde(flatten)]
        task: crate::task::TaskProgress,
        session_id: String,
        uuid: String,
    },
    /// A background task ended: the SDKs' `SDKTaskNotificationMessage`.
    TaskNotification {
        #[serde(flatten)]
        task: crate::task::TaskEnd,
        session_id: String,
        uuid: String,
    },
}

/// `{"type":"system","subtype":"init"}`: the session as it starts. The
/// SDKs' field names, plus catui's own (`permission_mode`, `plan_file`,
/// `sandbox`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InitEvent {
    pub session_id: String,
    pub cwd: String,
    pub model: String,
    pub permission_mode: PermissionMode,
    #[serde(rename = "permissionMode")]
    pub permission_mode_sdk: PermissionMode,
    pub tools: Vec<String>,
    pub plan_file: Option<String>,
    /// The sandbox layers that confine commands run without asking
    /// (`bubblewrap`, `landlock`, `seccomp`); empty where there are none.
    /// Where dry runs are on but overlays cannot be mounted, one last
    /// entry `no dry runs: <reason>`.
    pub sandbox: Vec<String>,
    /// Problems with the settings files, one line each (each also
    /// sent as a `settings` notification); absent when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub settings_warnings: Vec<String>,
    /// catui's version.
    pub claude_code_version: String,
    /// Which environment variable holds the key (`ANTHROPIC_API_KEY`,
    /// `OPENAI_API_KEY`) or `none`.
    #[serde(rename = "apiKeySource")]
    pub api_key_source: String,
    /// The MCP servers and their state once they settled (bounded by their
    /// startup timeout): `connected` with their tools, `failed`, `pending`.
    pub mcp_servers: Vec<Value>,
    /// Slash commands a user turn may start with, without the `/`.
    pub slash_commands: Vec<String>,
    pub output_style: String,
    pub agents: Vec<String>,
    pub skills: Vec<String>,
    pub plugins: Vec<Value>,
    pub uuid: String,
}

/// How a user input ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultSubtype {
    Success,
    ErrorMaxTurns,
    ErrorDuringExecution,
    PlanReady,
    /// The session spent its `--max-budget-usd`.
    ErrorMaxBudgetUsd,
    /// The model did not give output matching `--json-schema` in the
    /// attempts it had.
    ErrorMaxStructuredOutputRetries,
}

/// The one `result` event that ends the handling of each user input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultEvent {
    pub subtype: ResultSubtype,
    pub is_error: bool,
    pub result: String,
    pub session_id: String,
    pub num_turns: u32,
    pub duration_ms: u64,
    /// Time spent waiting for the model during this input.
    #[serde(default)]
    pub duration_api_ms: u64,
    /// Why the last model response stopped; `null` when no model was asked.
    pub stop_reason: Option<StopReason>,
    /// Tokens of this input's requests.
    pub usage: Usage,
    /// What the session has cost so far, in US dollars, by the price table
    /// (models without a known price count as free).
    #[serde(default)]
    pub total_cost_usd: f64,
    /// Usage and cost of the session so far, per model.
    #[serde(default, rename = "modelUsage")]
    pub model_usage: BTreeMap<String, ModelUsage>,
    pub permission_mode: PermissionMode,
    pub plan_file: Option<String>,
    pub uuid: String,
    /// For error results: what went wrong, one entry per error (the
    /// TypeScript SDK reads it; the text is also in `result`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// With `--json-schema`: the final answer, matching the schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<Value>,
    /// Processes catui leaves running when it exits: background commands
    /// started with `keep_running` that still run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_running: Vec<LeftRunning>,
    /// When a goal kept the input going (`/goal`, `--goal`, an approved
    /// plan's goal): whether it was met and why the loop ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<GoalStatus>,
    /// When the work on an approved plan ended in this input: its report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_report: Option<Box<crate::contract::PlanReport>>,
}

/// How an input's goal loop ended (the result's `goal`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoalStatus {
    pub met: bool,
    /// Why the loop ended, in words.
    pub reason: String,
    /// Continuations catui made by itself in this input.
    pub continuations: u32,
    /// What was still missing when it was given up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
}

/// A process left running after the session (`keep_running`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftRunning {
    /// Its process id (the leader of its process group).
    pub pid: i32,
    pub command: String,
}

/// A line read from stdin with `--input-format stream-json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InputMessage {
    User {
        message: Message,
        /// The client's id for this message: the transcript keeps it, so
        /// a later `rewind_files` can name the message.
        #[serde(default)]
        uuid: Option<String>,
    },
    /// Parsed by [`ClientRequest::parse`] so that an unknown subtype can
    /// still be answered.
    ControlRequest {
        request_id: String,
        request: Value,
    },
    ControlResponse {
        response: ControlResponse,
    },
    /// The client no longer waits for a request it sent.
    ControlCancelRequest {
        #[serde(default)]
        request_id: String,
    },
    /// Lines of other types (`keep_alive`, ...) are read and ignored.
    #[serde(other)]
    Other,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn init_event_shape() {
        let e = OutputEvent::System(SystemEvent::PermissionMode {
            mode: PermissionMode::Plan,
            pre_plan_mode: Some(PermissionMode::Default),
        });
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({"type":"system","subtype":"permission_mode","mode":"plan","pre_plan_mode":"default"})
        );
    }

    #[test]
    fn parses_client_lines() {
        let allow: InputMessage = serde_json::from_value(json!({
            "type":"control_response",
            "response":{"subtype":"success","request_id":"r1","response":{"behavior":"allow","updatedInput":{"a":1}}}
        }))
        .unwrap();
        let InputMessage::ControlResponse {
            response:
                ControlResponse::Success {
                    request_id,
                    response,
                },
        } = allow
        else {
            panic!("wrong variant")
        };
        assert_eq!(request_id, "r1");
        let decision: PermissionResponse = serde_json::from_value(response.unwrap()).unwrap();
        assert!(matches!(
            decision,
            PermissionResponse::Allow {
                updated_input: Some(_),
                ..
            }
        ));

        let user: InputMessage = serde_json::from_value(
            json!({"type":"user","message":{"role":"user","content":"/plan"}}),
        )
        .unwrap();
        assert!(matches!(user, InputMessage::User { message, .. } if message.text() == "/plan"));

        let ctl: InputMessage = serde_json::from_value(
            json!({"type":"control_request","request_id":"c","request":{"subtype":"interrupt"}}),
        )
        .unwrap();
        let InputMessage::ControlRequest { request, .. } = ctl else {
            panic!("wrong variant")
        };
        assert_eq!(
            crate::control::ClientRequest::parse(&request),
            Ok(crate::control::ClientRequest::Interrupt)
        );
        let other: InputMessage = serde_json::from_value(json!({"type":"keep_alive"})).unwrap();
        assert_eq!(other, InputMessage::Other);
    }

    #[test]
    fn result_carries_cost_and_usage_per_model() {
        let mut model_usage = BTreeMap::new();
        model_usage.insert(
            "claude-x".to_string(),
            ModelUsage {
                input_tokens: 10,
                output_tokens: 5,
                cost_usd: 0.25,
                context_window: 200_000,
                requests: 1,
                ..Default::default()
            },
        );
        let e = OutputEvent::Result(ResultEvent {
            subtype: ResultSubtype::ErrorMaxBudgetUsd,
            is_error: true,
            result: "budget".into(),
            session_id: "s".into(),
            num_turns: 1,
            duration_ms: 9,
            duration_api_ms: 7,
            stop_reason: Some(StopReason::EndTurn),
            usage: Usage::default(),
            total_cost_usd: 0.25,
            model_usage,
            permission_mode: PermissionMode::Default,
            plan_file: None,
            uuid: "u".into(),
            errors: vec!["budget".into()],
            structured_output: None,
            left_running: Vec::new(),
            goal: None,
            plan_report: None,
        });
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v["subtype"], "error_max_budget_usd");
        assert_eq!(v["total_cost_usd"], 0.25);
        assert_eq!(
            v["modelUsage"]["claude-x"],
            json!({"inputTokens":10,"outputTokens":5,"cacheReadInputTokens":0,
                "cacheCreationInputTokens":0,"webSearchRequests":0,"costUSD":0.25,
                "contextWindow":200000,"requests":1})
        );
        let back: OutputEvent = serde_json::from_value(v).unwrap();
        assert_eq!(back, e);
    }

    #[test]
    fn teammate_message_shape() {
        let e = OutputEvent::System(SystemEvent::TeammateMessage {
            session_id: "s1".into(),
            agent_id: "amy@core".into(),
            message: Message::assistant_text("on it"),
        });
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({"type":"system","subtype":"teammate_message","session_id":"s1",
                "agent_id":"amy@core",
                "message":{"role":"assistant","content":[{"type":"text","text":"on it"}]}})
        );
    }

    #[test]
    fn plan_approval_request_shape() {
        let e = OutputEvent::ControlRequest {
            request_id: "plan-1".into(),
            request: ControlRequest::PlanApproval {
                from: "amy".into(),
                team: "core".into(),
                plan_file_path: "/p/plan.md".into(),
                plan: "# Plan".into(),
                plan_request_id: "r9".into(),
                conflicts: Vec::new(),
            },
        };
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({"type":"control_request","request_id":"plan-1","request":{
                "subtype":"plan_approval","from":"amy","team":"core",
                "plan_file_path":"/p/plan.md","plan":"# Plan","plan_request_id":"r9"}})
        );
    }
}
