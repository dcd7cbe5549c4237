//! The headless stream-json protocol: one JSON object per line
//! on stdout, and with `--input-format stream-json` on stdin. Field names
//! follow the Claude Code SDK conventions so existing clients work.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::attachment::Attachment;
use crate::message::Message;
use crate::mode::PermissionMode;
use crate::model::{ModelUsage, Usage};
use std::collections::BTreeMap;

/// A line written to stdout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum OutputEvent {
    System(SystemEvent),
    Assistant {
        message: Message,
        session_id: String,
        parent_tool_use_id: Option<String>,
    },
    User {
        message: Message,
        session_id: String,
        parent_tool_use_id: Option<String>,
    },
    Result(ResultEvent),
    ControlRequest {
        request_id: String,
        request: ControlRequest,
    },
    ControlResponse {
        response: ControlResponse,
    },
}

/// `{"type":"system","subtype":...}` events.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum SystemEvent {
    Init {
        session_id: String,
        cwd: String,
        model: String,
        permission_mode: PermissionMode,
        tools: Vec<String>,
        plan_file: Option<String>,
        /// `landlock` or `unavailable`.
        sandbox: String,
        /// Problems with the settings files, one line each (each also
        /// sent as a `settings` notification); absent when there are none.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        settings_warnings: Vec<String>,
    },
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
    /// A complete message of a teammate's own conversation (its assistant
    /// messages and its tool results), so a client of the lead can follow
    /// what the team does. `agent_id` is `name@team`.
    TeammateMessage {
        session_id: String,
        agent_id: String,
        message: Message,
    },
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
}

/// A control request, in either direction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum ControlRequest {
    /// Agent → client: may this tool run?
    CanUseTool {
        tool_name: String,
        input: Value,
        tool_use_id: String,
        /// Set when the call comes from a sub-agent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent_id: Option<String>,
    },
    /// Agent → client: a teammate asks the lead to approve its plan. The
    /// client answers `{"behavior":"allow"}` or
    /// `{"behavior":"deny","message":"feedback"}`.
    PlanApproval {
        /// The teammate's name.
        from: String,
        team: String,
        plan_file_path: String,
        /// The plan's text.
        plan: String,
        /// The teammate's own id for this plan submission.
        plan_request_id: String,
    },
    /// Client → agent.
    SetPermissionMode { mode: String },
    /// Client → agent: stop the running turn.
    Interrupt,
}

/// A control response, in either direction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum ControlResponse {
    Success {
        request_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        response: Option<Value>,
    },
    Error {
        request_id: String,
        error: String,
    },
}

impl ControlResponse {
    pub fn request_id(&self) -> &str {
        match self {
            ControlResponse::Success { request_id, .. }
            | ControlResponse::Error { request_id, .. } => request_id,
        }
    }
}

/// The client's answer to `can_use_tool`, found in
/// `control_response.response.response`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "behavior", rename_all = "snake_case")]
pub enum PermissionResponse {
    Allow {
        #[serde(
            rename = "updatedInput",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        updated_input: Option<Value>,
        #[serde(
            rename = "updatedPermissions",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        updated_permissions: Option<Value>,
    },
    Deny {
        #[serde(default)]
        message: String,
    },
}

/// A line read from stdin with `--input-format stream-json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InputMessage {
    User {
        message: Message,
    },
    ControlRequest {
        request_id: String,
        request: ControlRequest,
    },
    ControlResponse {
        response: ControlResponse,
    },
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
        assert!(matches!(user, InputMessage::User { message } if message.text() == "/plan"));

        let ctl: InputMessage = serde_json::from_value(
            json!({"type":"control_request","request_id":"c","request":{"subtype":"interrupt"}}),
        )
        .unwrap();
        assert!(matches!(
            ctl,
            InputMessage::ControlRequest {
                request: ControlRequest::Interrupt,
                ..
            }
        ));
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
            usage: Usage::default(),
            total_cost_usd: 0.25,
            model_usage,
            permission_mode: PermissionMode::Default,
            plan_file: None,
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
