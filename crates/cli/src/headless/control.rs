//! Control requests from the stream-json client (the Agent SDKs):
//! `initialize`, `interrupt`, `set_permission_mode`, `set_model`,
//! `mcp_status`, `mcp_reconnect`, `mcp_toggle`, `get_context_usage`,
//! `rewind_files`, `stop_task`, and catui's `rewind_to_plan`. Every request
//! is answered; one catui does not know gets an `error` response that
//! names it.

use std::sync::Arc;

use catui_core::checkpoints::{Checkpoints, RewindReport, RewindRequest, RewindTarget};
use catui_core::engine::EngineControl;
use catui_core::engine::slash_commands::COMMANDS;
use catui_protocol::PermissionMode;
use catui_protocol::control::ClientRequest;
use catui_protocol::stream_json::{ControlResponse, OutputEvent};
use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedSender;

use super::pending::Pending;
use super::sdk_hooks::SdkHooks;

/// What answering controls needs.
pub struct Controls {
    pub control: EngineControl,
    pub pending: Arc<Pending>,
    pub out: UnboundedSender<OutputEvent>,
    /// The model the session started with (`set_model` with no model
    /// returns to it).
    pub default_model: String,
    pub hooks: Arc<SdkHooks>,
    pub mcp: catui_core::mcp::McpManager,
    /// The session's checkpoints (`rewind_files`, `rewind_to_plan`).
    pub checkpoints: Option<Arc<Checkpoints>>,
    /// Background agents and commands (`stop_task`).
    pub background: super::Background,
}

/// One line per option of `initialize` that catui cannot honour (the
/// TypeScript SDK sends these instead of flags), so none is a silent no-op.
fn unsupported_initialize_options(options: &serde_json::Map<String, Value>) -> Vec<String> {
    let non_empty = |v: &Value| match v {
        Value::Null => false,
        Value::String(s) => !s.trim().is_empty(),
        Value::Array(a) => a
            .iter()
            .any(|x| x.as_str().is_none_or(|s| !s.trim().is_empty())),
        Value::Object(o) => !o.is_empty(),
        _ => true,
    };
    let mut out = Vec::new();
    for (key, why) in [
        (
            "systemPrompt",
            "catui keeps its own system prompt (plan mode depends on it)",
        ),
        (
            "appendSystemPrompt",
            "pass it as --append-system-prompt (extraArgs) instead",
        ),
        ("jsonSchema", "no structured output is produced"),
        (
            "planModeInstructions",
            "catui's plan mode uses its own instructions",
        ),
        (
            "appendSubagentSystemPrompt",
            "sub-agents keep their own prompts",
        ),
        ("agents", "define agents as files in .catui/agents/"),
    ] {
        if options.get(key).is_some_and(non_empty) {
            out.push(format!(
                "initialize.{key} is not supported by catui and was ignored: {why}"
            ));
        }
    }
    out
}

use catui_core::mcp::config::ServerSpec;

impl Controls {
    /// Answers one control request (also while a turn runs).
    pub fn answer(&self, request_id: &str, request: &Value) -> ControlResponse {
        let result = ClientRequest::parse(request).and_then(|r| self.handle(r));
        match result {
            Ok(response) => ControlResponse::Success {
                request_id: request_id.to_string(),
                response,
            },
            Err(error) => ControlResponse::Error {
                request_id: request_id.to_string(),
                error,
            },
        }
    }

    fn handle(&self, request: ClientRequest) -> Result<Option<Value>, String> {
        match request {
            ClientRequest::Initialize { hooks, options } => {
                for text in unsupported_initialize_options(&options) {
                    eprintln!("catui: {text}");
                    let _ = self.out.send(OutputEvent::System(
                        catui_protocol::stream_json::SystemEvent::Notification {
                            key: "unsupported_option".into(),
                            text,
                        },
                    ));
                }
                let registered = match hooks {
                    Some(hooks) if !hooks.is_null() => self.hooks.register(&hooks)?,
                    _ => 0,
                };
                // The TypeScript SDK names its in-process servers here
                // rather than in --mcp-config.
                let sdk_servers: Vec<ServerSpec> = options
                    .get("sdkMcpServers")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .filter_map(ServerSpec::sdk)
                    .collect();
                self.mcp.add(sdk_servers);
                Ok(Some(self.initialize_response(registered)))
            }
            ClientRequest::Interrupt => {
                // Prompts still waiting are withdrawn (and count as denied).
                for request_id in self.pending.cancel("perm-") {
                    let _ = self
                        .out
                        .send(OutputEvent::ControlCancelRequest { request_id });
                }
                self.control.interrupt();
                Ok(None)
            }
            ClientRequest::SetPermissionMode { mode } => {
                let mode = mode.parse::<PermissionMode>().map_err(|e| e.to_string())?;
                self.control
                    .set_permission_mode(mode)
                    .map_err(|e| e.to_string())?;
                Ok(None)
            }
            ClientRequest::SetModel { model } => {
                let model = model
                    .filter(|m| !m.trim().is_empty() && m != "default")
                    .unwrap_or_else(|| self.default_model.clone());
                self.control.set_model(&model);
                Ok(None)
            }
            ClientRequest::McpStatus => {
                let servers: Vec<Value> = self.mcp.status().iter().map(|s| s.to_json()).collect();
                Ok(Some(json!({ "mcpServers": servers })))
            }
            ClientRequest::McpReconnect { server_name } => {
                self.mcp
                    .reconnect(&server_name)
                    .map_err(|e| e.to_string())?;
                Ok(None)
            }
            ClientRequest::McpToggle {
                server_name,
                enabled,
            } => {
                self.mcp
                    .set_enabled(&server_name, enabled)
                    .map_err(|e| e.to_string())?;
                Ok(None)
            }
            ClientRequest::RewindFiles {
                user_message_id,
                dry_run,
                force,
            } => self.rewind(RewindRequest {
                target: RewindTarget::Message(user_message_id),
                code: true,
                conversation: false,
                force,
                dry_run,
            }),
            ClientRequest::RewindToPlan {
                slug,
                dry_run,
                force,
            } => self.rewind(RewindRequest {
                target: RewindTarget::Plan(slug),
                code: true,
                conversation: false,
                force,
                dry_run,
            }),
            ClientRequest::StopTask { task_id } => {
                self.background.stop(&task_id)?;
                Ok(None)
            }
            ClientRequest::GetContextUsage => {
                let usage = self.control.context_usage();
                let percentage = if usage.window == 0 {
                    0.0
                } else {
                    usage.tokens as f64 * 100.0 / usage.window as f64
                };
                Ok(Some(json!({
                    "totalTokens": usage.tokens,
                    "maxTokens": usage.window,
                    "rawMaxTokens": usage.window,
                    "percentage": percentage,
                    "model": usage.model,
                    "categories": [],
                })))
            }
        }
    }

    /// A rewind, answered as the SDKs' `RewindFilesResult`
    /// (`canRewind`, `filesChanged`, `insertions`, `deletions`) plus
    /// catui's detail. A dry run that would overwrite work done outside
    /// catui answers `canRewind: false` with the files; a real rewind that
    /// cannot be made is an error response (the SDKs raise it).
    fn rewind(&self, request: RewindRequest) -> Result<Option<Value>, String> {
        let Some(checkpoints) = &self.checkpoints else {
            return Err(catui_core::checkpoints::CheckpointError::NotEnabled.to_string());
        };
        let dry_run = request.dry_run;
        match checkpoints.rewind(&request) {
            Ok(report) => Ok(Some(rewind_result(&report))),
            Err(e) if dry_run => Ok(Some(json!({"canRewind": false, "error": e.to_string()}))),
            Err(e) => Err(e.to_string()),
        }
    }

    fn initialize_response(&self, hooks: usize) -> Value {
        let commands: Vec<Value> = COMMANDS
            .iter()
            .map(|(name, description)| {
                json!({"name": name, "description": description, "argumentHint": ""})
            })
            .collect();
        json!({
            "commands": commands,
            "output_style": "default",
            "available_output_styles": ["default"],
            "models": [{
                "value": self.default_model,
                "displayName": self.default_model,
                "description": "the session's model",
            }],
            "account": {},
            "pid": std::process::id(),
            "hooks_applied": true,
            "hook_callbacks": hooks,
        })
    }
}

/// The answer to a rewind request.
fn rewind_result(report: &RewindReport) -> Value {
    let mut files: Vec<&String> = report.restored.iter().chain(&report.deleted).collect();
    files.sort();
    let blocked = report.dry_run && !report.outside.is_empty();
    let mut out = json!({
        "canRewind": !blocked,
        "filesChanged": files,
        "insertions": report.insertions,
        "deletions": report.deletions,
        "restored": report.restored,
        "deleted": report.deleted,
        "changedOutside": report.outside,
        "kept": report.kept,
        "skippedLinks": report.refused.len(),
    });
    if blocked {
        out["error"] = json!(format!(
            "files changed outside catui since then would be overwritten: {} (send force: true to rewind anyway)",
            report.outside.join(", ")
        ));
    }
    if let Some(plan) = &report.plan_file {
        out["planFilePath"] = json!(plan.display().to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initialize_options_catui_cannot_honour_are_named() {
        let options = json!({"systemPrompt": [""], "appendSystemPrompt": "Be brief.",
            "jsonSchema": {"type": "object"}, "agents": {}});
        let notes = unsupported_initialize_options(options.as_object().unwrap());
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[0].contains("appendSystemPrompt"));
        assert!(notes[1].contains("jsonSchema"));
    }
}
