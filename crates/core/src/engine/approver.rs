//! Asking the user. The engine calls an [`Approver`] when the permission
//! layer says "ask"; front ends implement it: the TUI's dialogs
//! (`crates/tui/src/approver.rs`), stream-json control requests
//! (`crates/cli/src/headless/pending.rs`), ACP (`crates/cli/src/acp/approver.rs`)
//! and the narrated demo (`crates/cli/src/demo/approver.rs`). Anything that
//! fails or is interrupted counts as a denial.

use async_trait::async_trait;
use serde_json::Value;

use crate::hooks::HookCall;

/// A question for the user about one tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionRequest {
    pub tool_use_id: String,
    pub tool_name: String,
    pub input: Value,
    /// Why the user is asked.
    pub reason: String,
    /// Set when a sub-agent asks.
    pub agent_id: Option<String>,
    /// The rule (`Bash(npm test:*)`, `Edit`) that would allow calls like
    /// this one for the rest of the session, when there is one.
    pub suggestion: Option<String>,
    /// Whether "run as a dry run" may be the answer
    /// ([`PermissionAnswer::DryRun`]): a foreground Bash command, in a
    /// session where dry runs are on and the sandbox can mount them.
    pub dry_run: bool,
}

/// The user's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum PermissionAnswer {
    /// Run the call, possibly with input edited by the user.
    Allow {
        updated_input: Option<Value>,
        updated_permissions: Option<Value>,
    },
    /// Run it as a dry run in a fresh throwaway copy of the project
    /// (offered when [`PermissionRequest::dry_run`]); the model is told
    /// what it would have changed. Input as for `Allow`.
    DryRun { updated_input: Option<Value> },
    /// Do not run it; `message` reaches the model.
    Deny { message: String },
    /// No decision came back (the prompt was withdrawn, the client closed
    /// its input, or its answer could not be read): the call does not run,
    /// and the model is told that nobody decided — not that the user
    /// declined. `reason` says what happened.
    Unanswered { reason: String },
}

#[async_trait]
pub trait Approver: Send + Sync {
    async fn ask(&self, request: PermissionRequest) -> PermissionAnswer;

    /// Runs the hooks the client registered for `call` (SDK clients);
    /// returns each hook's JSON output. An error: a hook failed.
    async fn run_hooks(&self, _call: HookCall) -> Result<Vec<Value>, crate::hooks::HookFailure> {
        Ok(Vec::new())
    }
}

/// The approver of sessions where nobody can answer (plain `-p`).
pub struct NobodyToAsk;

#[async_trait]
impl Approver for NobodyToAsk {
    async fn ask(&self, request: PermissionRequest) -> PermissionAnswer {
        PermissionAnswer::Deny {
            message: format!(
                "{} was not run: it needs permission ({}) and nobody can answer prompts in this non-interactive session.",
                request.tool_name, request.reason
            ),
        }
    }
}
