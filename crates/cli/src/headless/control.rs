//! Control requests from the stream-json client (the Agent SDKs):
//! `initialize`, `interrupt`, `set_permission_mode`, `set_model`,
//! `mcp_status`, `mcp_reconnect`, `mcp_toggle`, `get_context_usage`,
//! `rewind_files`, `stop_task`, and catui's `rewind_to_plan`. Every request
//! is answered; one catui does not know gets an `error` response that
//! names it.
//!
//! `initialize` also carries options the SDKs send instead of flags (see
//! [`catui_core::builder::LateSetup`]): `agents`, and from the TypeScript
//! SDK `systemPrompt`, `appendSystemPrompt`, `jsonSchema` and
//! `mcpServers`; each takes effect before the first user message.

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
    pub late: catui_core::builder::LateSetup,
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
            "planModeInstructions",
            "catui's plan mode uses its own instructions",
        ),
        (
            "appendSubagentSystemPrompt",
            "sub-agents keep their own prompts",
        ),
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
                for problem in self.apply_initialize_options(&options) {
                    self.notify("invalid_option", problem);
                }
                let mut response = self.initialize_response(registered);
                if options.get("mcpServers").is_some_and(|v| !v.is_null()) {
                    // The TypeScript SDK ends the session unless told its
                    // servers were taken.
                    response["mcp_servers_applied"] = true.into();
                }
                Ok(Some(response))
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
                approval,
                dry_run,
                force,
            } => self.rewind(RewindRequest {
                target: RewindTarget::Plan { slug, approval },
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

    fn notify(&self, key: &str, text: String) {
        eprintln!("catui: {text}");
        let _ = self.out.send(OutputEvent::System(
            catui_protocol::stream_json::SystemEvent::Notification {
                key: key.into(),
                text,
            },
        ));
    }

    /// Applies what `initialize` sets in place of flags; returns one line
    /// per option that could not be used.
    fn apply_initialize_options(&self, options: &serde_json::Map<String, Value>) -> Vec<String> {
        let mut problems = Vec::new();
        if let Some(agents) = options.get("agents").filter(|v| !v.is_null()) {
            let (agents, more) =
                catui_core::agents::sdk::parse_sdk_agents(agents, "initialize.agents");
            problems.extend(more);
            self.late.add_agents(agents);
        }
        let (base, append) = system_prompt_options(options);
        if base.is_some() || append.is_some() {
            self.late.set_system_prompt(base, append);
        }
        if let Some(schema) = options.get("jsonSchema").filter(|v| !v.is_null())
            && let Err(e) = self.late.set_output_schema(schema.clone())
        {
            problems.push(format!("initialize.jsonSchema: {e}"));
        }
        if let Some(servers) = options.get("mcpServers").filter(|v| !v.is_null()) {
            use catui_core::mcp::config;
            let (found, errors) =
                config::parse_servers(servers, &config::Source::Flag, "initialize.mcpServers");
            problems.extend(errors.iter().map(ToString::to_string));
            self.late.add_mcp_servers(found);
        }
        problems
    }

    fn initialize_response(&self, hooks: usize) -> Value {
        let commands: Vec<Value> = COMMANDS
            .iter()
            .map(|(name, description)| {
                json!({"name": name, "description": description, "argumentHint": ""})
            })
            .collect();
        let agents: Vec<Value> = self
            .late
            .agents()
            .iter()
            .map(|a| json!({"name": a.name, "description": a.description}))
            .collect();
        json!({
            "commands": commands,
            "agents": agents,
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

/// The system prompt options of the TypeScript SDK's `initialize`: a
/// string or a list of strings replaces catui's base (`systemPrompt`, as
/// `--system-prompt`); a preset keeps it, with its `append`, and so does
/// `appendSystemPrompt` (as `--append-system-prompt`).
fn system_prompt_options(
    options: &serde_json::Map<String, Value>,
) -> (Option<String>, Option<String>) {
    let mut append = options
        .get("appendSystemPrompt")
        .and_then(Value::as_str)
        .map(str::to_string);
    let base = match options.get("systemPrompt") {
        Some(Value::String(text)) => Some(text.clone()),
        Some(Value::Array(parts)) => Some(
            parts
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("\n\n"),
        ),
        Some(Value::Object(preset)) => {
            if append.is_none() {
                append = preset
                    .get("append")
                    .and_then(Value::as_str)
                    .map(str::to_string);
            }
            None
        }
        _ => None,
    };
    (base, append)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initialize_options_catui_cannot_honour_are_named() {
        let options = json!({"systemPrompt": [""], "appendSystemPrompt": "Be brief.",
            "jsonSchema": {"type": "object"}, "agents": {},
            "planModeInstructions": "Plan well."});
        let notes = unsupported_initialize_options(options.as_object().unwrap());
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("planModeInstructions"));
    }

    #[test]
    fn system_prompt_options_take_each_form_the_sdk_sends() {
        let get = |v: Value| system_prompt_options(v.as_object().unwrap());
        assert_eq!(
            get(json!({"systemPrompt": ["You review SQL.", "Be terse."]})),
            (Some("You review SQL.\n\nBe terse.".into()), None)
        );
        assert_eq!(
            get(json!({"systemPrompt": "You review SQL."})),
            (Some("You review SQL.".into()), None)
        );
        assert_eq!(
            get(
                json!({"systemPrompt": {"type": "preset", "preset": "claude_code", "append": "Be brief."}})
            ),
            (None, Some("Be brief.".into()))
        );
        assert_eq!(
            get(json!({"appendSystemPrompt": "Be brief."})),
            (None, Some("Be brief.".into()))
        );
        assert_eq!(get(json!({})), (None, None));
    }
}
