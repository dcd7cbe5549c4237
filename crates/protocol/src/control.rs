//! Control messages of the stream-json protocol, as the Agent
//! SDKs send and read them: requests catui sends to the client (permission
//! prompts, plan approvals, hook callbacks), requests the client sends to
//! catui (`initialize`, `interrupt`, `set_model`, ...), and the responses
//! in both directions.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A control request catui sends to the client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum ControlRequest {
    /// May this tool run?
    CanUseTool {
        tool_name: String,
        input: Value,
        tool_use_id: String,
        /// Set when the call comes from a sub-agent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent_id: Option<String>,
        /// Permission updates the client may send back with an allow
        /// ("and don't ask again"), in `updatedPermissions` shape.
        #[serde(default)]
        permission_suggestions: Vec<Value>,
        /// Why catui asks.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        decision_reason: Option<String>,
    },
    /// A teammate asks the lead to approve its plan. The client answers
    /// `{"behavior":"allow"}` or `{"behavior":"deny","message":"feedback"}`.
    PlanApproval {
        /// The teammate's name.
        from: String,
        team: String,
        plan_file_path: String,
        /// The plan's text.
        plan: String,
        /// The teammate's own id for this plan submission.
        plan_request_id: String,
        /// Files the plan shares with other teammates' pending or approved
        /// plans: `[{"file", "plan", "teammate"}]`.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        conflicts: Vec<Value>,
    },
    /// Runs a hook the client registered in `initialize`.
    HookCallback {
        callback_id: String,
        input: Value,
        tool_use_id: Option<String>,
    },
    /// One JSON-RPC message for an MCP server inside the SDK application
    /// (answered with `{"mcp_response": ...}`).
    McpMessage { server_name: String, message: Value },
}

/// A control request the client sends to catui.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum ClientRequest {
    /// The SDK's handshake: its hooks (event → matchers with callback
    /// ids) and other session options.
    Initialize {
        #[serde(default)]
        hooks: Option<Value>,
        /// Options the TypeScript SDK (0.3) sends here instead of as
        /// flags: `systemPrompt`, `appendSystemPrompt`, `jsonSchema`, ...
        #[serde(flatten)]
        options: serde_json::Map<String, Value>,
    },
    /// Stop the running turn.
    Interrupt,
    SetPermissionMode {
        mode: String,
    },
    /// Switch the model from the next request on; `null`: back to the
    /// session's own model.
    SetModel {
        #[serde(default)]
        model: Option<String>,
    },
    McpStatus,
    /// Connect an MCP server again.
    McpReconnect {
        #[serde(rename = "serverName")]
        server_name: String,
    },
    /// Switch an MCP server on or off for the session.
    McpToggle {
        #[serde(rename = "serverName")]
        server_name: String,
        enabled: bool,
    },
    GetContextUsage,
    /// Restore the project's files to their state at a user message (the
    /// Agent SDKs' `rewind_files`). `dry_run` only says what would change;
    /// `force` (catui's) restores even files changed outside catui since.
    RewindFiles {
        user_message_id: String,
        #[serde(default)]
        dry_run: bool,
        #[serde(default)]
        force: bool,
    },
    /// Back to a plan: the files as they were when plan `slug` (default:
    /// the last approved) was approved, plan mode again, and the approved
    /// text in the plan file (catui's own request).
    RewindToPlan {
        #[serde(default)]
        slug: Option<String>,
        /// Which approval of the plan (from 1, in the order they were made;
        /// a plan approved again after a revision keeps its slug); absent:
        /// the last.
        #[serde(default)]
        approval: Option<usize>,
        #[serde(default)]
        dry_run: bool,
        #[serde(default)]
        force: bool,
    },
    /// Stop a background task: a sub-agent by the `task_id` of its
    /// `task_started` line, or a background command by its id (`bash_1`).
    StopTask {
        task_id: String,
    },
}

impl ClientRequest {
    /// Reads a request; an unknown or malformed one is an error whose
    /// text can be sent back to the client.
    pub fn parse(request: &Value) -> Result<ClientRequest, String> {
        let subtype = request
            .get("subtype")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        serde_json::from_value(request.clone()).map_err(|e| {
            if subtype.is_empty() {
                "control request without a subtype".to_string()
            } else if e.to_string().starts_with("unknown variant") {
                format!("unsupported control request subtype: {subtype}")
            } else {
                format!("malformed {subtype} control request: {e}")
            }
        })
    }
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
        /// Run a Bash command as a dry run, in a throwaway copy of the
        /// project, instead of for real (catui's own; outside plan mode).
        #[serde(rename = "dryRun", default, skip_serializing_if = "std::ops::Not::not")]
        dry_run: bool,
    },
    Deny {
        #[serde(default)]
        message: String,
        /// Also stop the running turn.
        #[serde(default)]
        interrupt: bool,
        /// Review comments on lines of the plan (ExitPlanMode only):
        /// `[{"line": 3, "text": "..."}]`, line numbers 1-based.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        comments: Vec<PlanLineComment>,
        /// ExitPlanMode only: park the plan ("not now") instead of keeping
        /// planning; `message` is the user's note.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        park: bool,
    },
}

/// A comment on one line of a plan shown for approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanLineComment {
    pub line: usize,
    pub text: String,
    /// The passage of the line (or from it on) the comment is about, when
    /// the user selected one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passage: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn client_requests_parse_and_unknown_ones_are_named() {
        assert_eq!(
            ClientRequest::parse(&json!({"subtype":"initialize","hooks":null})),
            Ok(ClientRequest::Initialize {
                hooks: None,
                options: Default::default()
            })
        );
        let Ok(ClientRequest::Initialize { options, .. }) = ClientRequest::parse(
            &json!({"subtype":"initialize","systemPrompt":[""],"appendSystemPrompt":"x"}),
        ) else {
            panic!("initialize with options must parse");
        };
        assert_eq!(options["appendSystemPrompt"], "x");
        assert!(!options.contains_key("subtype"));
        assert_eq!(
            ClientRequest::parse(&json!({"subtype":"set_model","model":"m2"})),
            Ok(ClientRequest::SetModel {
                model: Some("m2".into())
            })
        );
        assert_eq!(
            ClientRequest::parse(&json!({"subtype":"rewind_files","user_message_id":"u"})),
            Ok(ClientRequest::RewindFiles {
                user_message_id: "u".into(),
                dry_run: false,
                force: false
            })
        );
        assert_eq!(
            ClientRequest::parse(&json!({"subtype":"teleport","to":"u"})),
            Err("unsupported control request subtype: teleport".into())
        );
        assert!(
            ClientRequest::parse(&json!({"subtype":"set_permission_mode"}))
                .unwrap_err()
                .starts_with("malformed set_permission_mode")
        );
    }
}
