//! What status views show about the session's MCP servers: where each
//! stands ([`State`]), its summary ([`ServerStatus`], also the SDK's
//! `McpServerStatus`), and why managing one failed ([`ManageError`]).

use serde_json::{Value, json};

/// Why a server could not be reconnected, switched or approved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManageError {
    #[error("there is no MCP server named `{0}`")]
    Unknown(String),
    #[error(
        "MCP server `{0}` is a project server that is not approved; approve it with /mcp approve {0}"
    )]
    NotApproved(String),
    #[error("could not remember the answer: {0}")]
    Remember(String),
}

/// Where a server stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// Connecting.
    Pending,
    Connected,
    /// Could not connect, or went away; the message says why.
    Failed(String),
    /// Switched off by the user for this session.
    Disabled,
    /// A project's server the user has not approved yet.
    NeedsApproval,
    /// A project's server the user declined.
    Rejected,
}

impl State {
    /// The status as the SDKs' `McpServerStatus` names it (`connected`,
    /// `failed`, `pending`, `disabled`): a server waiting for the user's
    /// approval is pending, a rejected one disabled.
    pub fn sdk_label(&self) -> &'static str {
        match self {
            State::Pending | State::NeedsApproval => "pending",
            State::Connected => "connected",
            State::Failed(_) => "failed",
            State::Disabled | State::Rejected => "disabled",
        }
    }

    /// catui's own name for the state (`/mcp`, the `state` field).
    pub fn label(&self) -> &'static str {
        match self {
            State::Pending => "pending",
            State::Connected => "connected",
            State::Failed(_) => "failed",
            State::Disabled => "disabled",
            State::NeedsApproval => "needs-approval",
            State::Rejected => "rejected",
        }
    }
}

/// One server as status views show it.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerStatus {
    pub name: String,
    pub state: State,
    pub source: &'static str,
    pub tools: usize,
    pub prompts: usize,
    /// The connected server's tools: name, description, read-only (the
    /// user's override over the server's hint).
    pub tool_list: Vec<(String, String, bool)>,
}

impl ServerStatus {
    /// The SDK's `McpServerStatus` shape (with catui's extra fields).
    pub fn to_json(&self) -> Value {
        let tools: Vec<Value> = self
            .tool_list
            .iter()
            .map(|(name, description, read_only)| {
                json!({"name": name, "description": description,
                    "annotations": {"readOnly": read_only}})
            })
            .collect();
        let mut out = json!({
            "name": self.name,
            "status": self.state.sdk_label(),
            "state": self.state.label(),
            "scope": self.source,
            "source": self.source,
            "tools": tools,
        });
        match &self.state {
            State::Failed(error) => out["error"] = error.clone().into(),
            State::NeedsApproval => {
                out["error"] = format!(
                    "waiting for your approval of this project's server: /mcp approve {} or `catui mcp approve {}`",
                    self.name, self.name
                )
                .into()
            }
            State::Rejected => out["error"] = "you rejected this project's server".into(),
            _ => {}
        }
        out
    }
}
