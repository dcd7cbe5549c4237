//! The session's MCP servers: gathered from the project's `.mcp.json`, the
//! settings layers and the command line (`--mcp-config`, alone with
//! `--strict-mcp-config`), then handed to one [`McpManager`] that connects
//! them in the background.

use std::collections::HashMap;
use std::path::Path;

use crate::mcp::McpManager;
use crate::mcp::config::{self, ServerSpec, Source};
use crate::settings::Settings;

/// The manager for this session's servers, and a line for each problem
/// found in their configuration.
pub(super) fn manager(
    flag_servers: &[ServerSpec],
    strict: bool,
    settings: &Settings,
    cwd: &Path,
    config_dir: &Path,
    env: HashMap<String, String>,
) -> (McpManager, Vec<String>) {
    let mut problems = Vec::new();
    let mut servers: Vec<ServerSpec> = Vec::new();
    if !strict {
        let mcp_json = cwd.join(".mcp.json");
        match config::read_file(&mcp_json) {
            Ok(Some(value)) => {
                let origin = mcp_json.display().to_string();
                let (found, errors) =
                    config::parse_servers(&value, &Source::Project(mcp_json.clone()), &origin);
                servers.extend(found);
                problems.extend(errors.iter().map(|e| format!("skipped an MCP server: {e}")));
            }
            Ok(None) => {}
            Err(e) => problems.push(format!("ignored {}: {e}", mcp_json.display())),
        }
        servers.extend(settings.mcp_servers.iter().cloned());
    }
    servers.extend(flag_servers.iter().cloned());
    let answers = settings.project_mcp.clone();
    let manager = McpManager::new(servers, cwd, config_dir, env, &|name| answers.answer(name));
    let waiting = manager.awaiting_approval();
    if !waiting.is_empty() {
        problems.push(format!(
            "this project configures MCP servers that you have not approved yet: {}. They are not started. Approve one with /mcp approve NAME, or run `catui mcp approve` in the project (or set enableAllProjectMcpServers in your user settings).",
            waiting.join(", ")
        ));
    }
    (manager, problems)
}
