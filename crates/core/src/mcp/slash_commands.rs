//! `/mcp` (the servers, their status, tools and errors; reconnect, switch
//! off and on, approve a project's server) and the servers' prompts as
//! slash commands: `/mcp__{server}__{prompt} [arguments]`.

use std::collections::BTreeMap;

use catui_protocol::mcp_name::{McpName, parse_tool_name, tool_name};
use futures::future::BoxFuture;
use serde_json::Value;

use super::{McpManager, State};
use crate::engine::EngineExtension;
use crate::engine::slash_commands::{CommandOutput, SlashCommand};
use crate::tools::SessionHooks;

/// The extension that answers these commands.
pub struct McpCommands(pub McpManager);

const USAGE: &str = "Usage: /mcp [reconnect|enable|disable|approve|reject NAME]";

fn local(text: impl Into<String>, is_error: bool) -> CommandOutput {
    CommandOutput::Local {
        text: text.into(),
        is_error,
    }
}

/// The `/mcp` view: one block per server.
pub fn status_text(manager: &McpManager) -> String {
    let status = manager.status();
    if status.is_empty() {
        return "No MCP servers are configured. Add them to .mcp.json in the project, to mcpServers in settings, or pass --mcp-config.".into();
    }
    let mut out = String::from("MCP servers:\n");
    for s in &status {
        let mark = match s.state {
            State::Connected => "✓",
            State::Pending => "…",
            State::Failed(_) => "✗",
            _ => "○",
        };
        out.push_str(&format!(
            "  {mark} {} ({}) — {}",
            s.name,
            s.source,
            s.state.label()
        ));
        if s.state == State::Connected {
            out.push_str(&format!(", {} tools", s.tools));
            if s.prompts > 0 {
                out.push_str(&format!(", {} prompts", s.prompts));
            }
        }
        out.push('\n');
        match &s.state {
            State::Failed(error) => out.push_str(&format!("      error: {error}\n")),
            State::NeedsApproval => out.push_str(&format!(
                "      this project's server starts once you approve it: /mcp approve {}\n",
                s.name
            )),
            _ => {}
        }
    }
    out.push_str(USAGE);
    out
}

impl McpCommands {
    fn manage(&self, args: &str) -> CommandOutput {
        let mut words = args.split_whitespace();
        let (Some(action), name) = (words.next(), words.next()) else {
            return local(status_text(&self.0), false);
        };
        let Some(name) = name else {
            return local(USAGE, true);
        };
        let manager = &self.0;
        let (result, done) = match action {
            "reconnect" => (manager.reconnect(name), "reconnecting"),
            "enable" => (manager.set_enabled(name, true), "enabled"),
            "disable" => (manager.set_enabled(name, false), "disabled"),
            "approve" => (
                manager.approve(name, true),
                "approved for this project; connecting",
            ),
            "reject" => (manager.approve(name, false), "rejected for this project"),
            _ => return local(USAGE, true),
        };
        match result {
            Ok(()) => local(format!("MCP server `{name}`: {done}."), false),
            Err(e) => local(e.to_string(), true),
        }
    }
}

/// The text of a `prompts/get` result, as the user's next message.
fn prompt_text(result: &Value) -> String {
    let mut parts = Vec::new();
    for message in result
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let content = message.get("content").cloned().unwrap_or_default();
        let blocks = match content {
            Value::Array(blocks) => blocks,
            other => vec![other],
        };
        for block in blocks {
            if let Some(text) = block.get("text").and_then(Value::as_str) {
                parts.push(text.to_string());
            } else if let Some(text) = block.pointer("/resource/text").and_then(Value::as_str) {
                parts.push(text.to_string());
            }
        }
    }
    parts.join("\n\n")
}

impl EngineExtension for McpCommands {
    fn command(
        &self,
        command: &SlashCommand,
        _session: &dyn SessionHooks,
    ) -> Option<CommandOutput> {
        (command.name == "mcp").then(|| self.manage(&command.args))
    }

    fn command_later(&self, command: &SlashCommand) -> Option<BoxFuture<'static, CommandOutput>> {
        let McpName {
            server,
            tool: Some(prompt),
        } = parse_tool_name(&command.name)?
        else {
            return None;
        };
        let known = self
            .0
            .prompts()
            .into_iter()
            .find(|(s, p)| s == server && p.name == prompt);
        let manager = self.0.clone();
        let server = server.to_string();
        let args = command.args.clone();
        Some(Box::pin(async move {
            let Some((_, prompt)) = known else {
                return local(
                    format!(
                        "The MCP server `{server}` has no prompt of that name (is it connected? see /mcp)."
                    ),
                    true,
                );
            };
            // Arguments in order, the last one taking the rest of the line.
            let mut values = BTreeMap::new();
            let mut rest = args.trim();
            for (i, (name, _)) in prompt.arguments.iter().enumerate() {
                if rest.is_empty() {
                    break;
                }
                let value = if i + 1 == prompt.arguments.len() {
                    std::mem::take(&mut rest).to_string()
                } else {
                    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                    let (word, tail) = rest.split_at(end);
                    rest = tail.trim_start();
                    word.to_string()
                };
                values.insert(name.clone(), value);
            }
            let missing: Vec<&str> = prompt
                .arguments
                .iter()
                .filter(|(name, required)| *required && !values.contains_key(name))
                .map(|(name, _)| name.as_str())
                .collect();
            if !missing.is_empty() {
                return local(
                    format!(
                        "/{} needs: {}",
                        tool_name(&server, &prompt.name),
                        missing.join(", ")
                    ),
                    true,
                );
            }
            match manager.get_prompt(&server, &prompt.name, values).await {
                Ok(result) => CommandOutput::Query {
                    notice: Some(format!(
                        "Using the prompt `{}` of MCP server `{server}`.",
                        prompt.name
                    )),
                    prompt: prompt_text(&result),
                },
                Err(e) => local(e.to_string(), true),
            }
        }))
    }
}
