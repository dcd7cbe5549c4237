//! The session's MCP servers: gathered from the project's `.mcp.json`, the
//! settings layers and the command line (`--mcp-config`, alone with
//! `--strict-mcp-config`), then handed to one [`McpManager`] that connects
//! them in the background.
//!
//! A project's own server (`.mcp.json`, `mcpServers` of its settings files)
//! starts when the user approved it as it is now (`catui mcp approve`
//! binds its command, args, env and the project files they name), or when
//! the user's trust in the project covers it as it is now; the others wait
//! and are named in the session's trust notice. A name in the user's
//! settings (`disabledMcpjsonServers`) can reject one; a name alone
//! (`enabledMcpjsonServers`, `enableAllProjectMcpServers`) starts none,
//! since the name says nothing about what a clone makes it run.

use std::collections::HashMap;
use std::path::Path;

use crate::mcp::McpManager;
use crate::mcp::config::{self, ServerSpec, Source};
use crate::settings::{Held, ProjectScope, Settings, project};

/// A session's MCP servers.
pub(super) struct McpSetup {
    pub manager: McpManager,
    /// A line for each problem found in their configuration.
    pub problems: Vec<String>,
    /// The project's servers that wait for the user.
    pub waiting: Vec<Held>,
}

/// The manager for this session's servers.
pub(super) fn manager(
    flag_servers: &[ServerSpec],
    strict: bool,
    settings: &Settings,
    scope: &ProjectScope,
    cwd: &Path,
    config_dir: &Path,
    env: HashMap<String, String>,
) -> McpSetup {
    let mut problems = Vec::new();
    let mut servers: Vec<ServerSpec> = Vec::new();
    // Server name → what waits of it (`None`: the trust covers it), in the
    // order the servers replace each other.
    let mut coverage: HashMap<String, Option<Held>> = HashMap::new();
    if !strict {
        let mcp_json = cwd.join(".mcp.json");
        let read = if scope.sources.project {
            config::read_file(&mcp_json)
        } else {
            Ok(None)
        };
        match read {
            Ok(Some(value)) => {
                let origin = mcp_json.display().to_string();
                let (found, errors) =
                    config::parse_servers(&value, &Source::Project(mcp_json.clone()), &origin);
                servers.extend(found);
                problems.extend(errors.iter().map(|e| format!("skipped an MCP server: {e}")));
                let source = project::shown_path(cwd, &mcp_json);
                for (name, item) in project::mcp_json_items(cwd, &source, &value) {
                    let verdict = scope.trust.verdict(&item);
                    let waits = verdict != crate::trust::Verdict::Accepted;
                    coverage.insert(name, waits.then_some(Held { item, verdict }));
                }
            }
            Ok(None) => {}
            Err(e) => problems.push(format!("ignored {}: {e}", mcp_json.display())),
        }
        servers.extend(settings.mcp_servers.iter().cloned());
        for (name, held) in &settings.project_servers {
            coverage.insert(name.clone(), held.clone());
        }
    }
    servers.extend(flag_servers.iter().cloned());
    let answers = settings.project_mcp.clone();
    let remembered = crate::trust::load(config_dir, cwd);
    // A name says nothing about what runs: names in the user's settings
    // can reject a project's server, not start one; an approval starts
    // the server it was given for (its command, args, env and scripts),
    // the trust the server as it was trusted.
    let answer = |spec: &ServerSpec| {
        let name = spec.name.as_str();
        answers
            .answer(name)
            .filter(|approved| !approved)
            .or_else(|| remembered.server(name, &spec.approval_digest(cwd)))
            .or_else(|| matches!(coverage.get(name), Some(None)).then_some(true))
    };
    let manager = McpManager::new(servers, cwd, config_dir, env, settings.child_env(), &answer);
    let waiting = manager
        .awaiting_approval()
        .iter()
        .filter_map(|name| coverage.get(name).cloned().flatten())
        .collect();
    McpSetup {
        manager,
        problems,
        waiting,
    }
}
