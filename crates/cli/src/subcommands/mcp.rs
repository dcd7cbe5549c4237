//! `catui mcp [list|approve|reject NAME...]`: the project's MCP servers
//! and the user's answers about them, without starting a session (for
//! scripts and headless use, where nobody can be asked).

use std::io::Write;

use catui_core::mcp::config::{self, ServerSpec, Source, Transport};

use super::{CommandError, Project};
use crate::args::McpAction;

/// The project's `.mcp.json` servers and the settings' servers.
fn configured(project: &Project) -> Result<Vec<ServerSpec>, CommandError> {
    let path = project.cwd.join(".mcp.json");
    let mut servers = match config::read_file(&path) {
        Ok(Some(value)) => {
            let origin = path.display().to_string();
            let (found, errors) =
                config::parse_servers(&value, &Source::Project(path.clone()), &origin);
            for e in errors {
                eprintln!("catui: skipped an MCP server: {e}");
            }
            found
        }
        Ok(None) => Vec::new(),
        Err(e) => return Err(CommandError::Usage(format!("{}: {e}", path.display()))),
    };
    servers.extend(project.settings.mcp_servers.iter().cloned());
    Ok(servers)
}

pub fn run(
    project: &Project,
    action: Option<&McpAction>,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    let servers = configured(project)?;
    let trust = catui_core::trust::load(&project.config_dir, &project.cwd);
    // A server the user's trust in the project covers as it is now.
    let inventory = catui_core::settings::project::inventory(&project.config_dir, &project.cwd);
    let covered = |name: &str| {
        inventory.items.iter().any(|i| {
            i.group == "mcpServers"
                && i.name == name
                && trust.verdict(i) == catui_core::trust::Verdict::Accepted
        })
    };
    match action {
        None | Some(McpAction::List) => {
            if servers.is_empty() {
                writeln!(
                    out,
                    "No MCP servers are configured for {}.",
                    project.cwd.display()
                )?;
                return Ok(());
            }
            for s in &servers {
                let answer = if s.source.needs_approval() {
                    match project
                        .settings
                        .project_mcp
                        .answer(&s.name)
                        .filter(|approved| !approved)
                        .or_else(|| trust.server(&s.name, &s.approval_digest(&project.cwd)))
                        .or_else(|| covered(&s.name).then_some(true))
                    {
                        Some(true) => "approved",
                        Some(false) => "rejected",
                        None => "needs approval",
                    }
                } else {
                    "starts"
                };
                let target = match &s.transport {
                    Transport::Stdio { command, args, .. } => {
                        format!("{command} {}", args.join(" "))
                    }
                    Transport::Http { url, .. } => url.clone(),
                    Transport::Sdk => "sdk".into(),
                };
                writeln!(
                    out,
                    "{}\t{}\t{answer}\t{}",
                    s.name,
                    s.source.label(),
                    target.trim()
                )?;
            }
            Ok(())
        }
        Some(McpAction::Approve { names } | McpAction::Reject { names }) => {
            let approve = matches!(action, Some(McpAction::Approve { .. }));
            let project_servers: Vec<&str> = servers
                .iter()
                .filter(|s| s.source.needs_approval())
                .map(|s| s.name.as_str())
                .collect();
            let chosen: Vec<String> = if names.is_empty() {
                project_servers.iter().map(|s| s.to_string()).collect()
            } else {
                for n in names {
                    if !project_servers.contains(&n.as_str()) {
                        return Err(CommandError::Usage(format!(
                            "this project has no MCP server named `{n}` (its servers: {})",
                            if project_servers.is_empty() {
                                "none".to_string()
                            } else {
                                project_servers.join(", ")
                            }
                        )));
                    }
                }
                names.clone()
            };
            // Each approval binds the server as it is now.
            let content = |n: &str| {
                servers
                    .iter()
                    .rev()
                    .find(|s| s.name == n && s.source.needs_approval())
                    .map(|s| s.approval_digest(&project.cwd))
                    .unwrap_or_default()
            };
            catui_core::trust::update(&project.config_dir, &project.cwd, |t| {
                for n in &chosen {
                    t.answer_server(n, approve, &content(n));
                }
            })
            .map_err(|e| CommandError::Usage(e.to_string()))?;
            let verb = if approve { "approved" } else { "rejected" };
            if chosen.is_empty() {
                writeln!(out, "This project configures no MCP servers.")?;
            }
            for n in chosen {
                writeln!(out, "{verb} MCP server `{n}` for {}", project.cwd.display())?;
            }
            Ok(())
        }
    }
}
