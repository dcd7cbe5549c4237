//! `catui trust`, `catui trust --revoke` and `catui trust --show`: the
//! user's trust in the project's own configuration (docs/SECURITY.md,
//! "Trust"), given, withdrawn or looked at without starting a session.

use std::io::Write;

use catui_core::settings::project::{self, Inventory};
use catui_core::trust::{ConfigItem, ProjectTrust, TrustDiff, Verdict};

use super::{CommandError, Project};

pub fn run(
    project: &Project,
    revoke: bool,
    show: bool,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    let inventory = project::inventory(&project.config_dir, &project.cwd);
    for problem in &inventory.problems {
        eprintln!("catui: {problem}");
    }
    if show {
        let trust = catui_core::trust::load(&project.config_dir, &project.cwd);
        return show_trust(project, &trust, &inventory, out);
    }
    let save = |change: &dyn Fn(&mut ProjectTrust)| {
        catui_core::trust::update(&project.config_dir, &project.cwd, change)
            .map_err(|e| CommandError::Usage(e.to_string()))
    };
    let place = project.cwd.display();
    if revoke {
        save(&ProjectTrust::revoke)?;
        writeln!(
            out,
            "Revoked trust in {place}: its allow rules, env, hooks, MCP servers, agents and other widening settings wait again until you run `catui trust`."
        )?;
        return Ok(());
    }
    save(&|t| t.accept_all(&inventory.items))?;
    if inventory.items.is_empty() {
        writeln!(
            out,
            "Trusted {place}. It configures nothing that waits for trust now; what it adds later waits until you trust it again."
        )?;
    } else {
        writeln!(
            out,
            "Trusted {place}: its own configuration applies as it is now: {}.",
            project::names_by_group(&inventory.items)
        )?;
        writeln!(
            out,
            "What it adds or changes later waits until you trust it again (see `catui trust --show`)."
        )?;
    }
    Ok(())
}

/// One line per piece: `[status] file  group name = value`.
fn item_line(status: &str, item: &ConfigItem) -> String {
    let what = if item.name == item.group {
        format!("{} = {}", item.group, item.shown)
    } else if item.name == item.shown {
        format!("{} {}", item.group, item.name)
    } else {
        format!("{} {} = {}", item.group, item.name, item.shown)
    };
    format!("  [{status}] {}  {what}", item.source)
}

fn show_trust(
    project: &Project,
    trust: &ProjectTrust,
    inventory: &Inventory,
    out: &mut dyn Write,
) -> Result<(), CommandError> {
    let diff: TrustDiff = trust.diff(&inventory.items);
    let state = if trust.is_unbound() {
        "trusted (before catui recorded what it trusted: run `catui trust` to record it, so that later changes wait)".to_string()
    } else if trust.trusted && diff.added.is_empty() && diff.changed.is_empty() {
        "trusted".to_string()
    } else if trust.trusted {
        format!(
            "trusted, but changed since: {} new, {} changed (they wait until you trust it again)",
            diff.added.len(),
            diff.changed.len()
        )
    } else {
        "not trusted".to_string()
    };
    writeln!(out, "Project: {}", project.cwd.display())?;
    writeln!(out, "Trust: {state}")?;
    if inventory.applied.is_empty() && inventory.items.is_empty() {
        writeln!(
            out,
            "It has no configuration of its own (.catui/settings.json, .catui/settings.local.json, .mcp.json, .catui/agents/)."
        )?;
    }
    if !inventory.applied.is_empty() {
        writeln!(out, "Applies without trust (it only narrows):")?;
        for (file, keys) in &inventory.applied {
            writeln!(out, "  {file}: {}", keys.join(", "))?;
        }
    }
    if !inventory.items.is_empty() {
        writeln!(
            out,
            "Widens permissions, runs code or redirects data (applies only when trusted):"
        )?;
        for item in &inventory.items {
            let status = match trust.verdict(item) {
                Verdict::Accepted => "trusted",
                Verdict::NotTrusted => "waits",
                Verdict::ChangedSinceTrust if diff.changed.contains(&item) => "changed",
                Verdict::ChangedSinceTrust => "new",
            };
            writeln!(out, "{}", item_line(status, item))?;
        }
    }
    if !diff.removed.is_empty() {
        writeln!(out, "Removed since you trusted it:")?;
        for label in &diff.removed {
            writeln!(out, "  {label}")?;
        }
    }
    let by_name: Vec<String> = trust
        .mcp_servers
        .iter()
        .map(|(name, ok)| format!("{name} ({})", if *ok { "approved" } else { "rejected" }))
        .collect();
    if !by_name.is_empty() {
        writeln!(out, "MCP servers answered by name: {}", by_name.join(", "))?;
    }
    if trust.trusted {
        writeln!(
            out,
            "`catui trust` trusts it as it is now; `catui trust --revoke` withdraws the trust."
        )?;
    } else if !inventory.items.is_empty() {
        writeln!(
            out,
            "`catui trust` trusts it as it is now (or pass --trust-project for one run)."
        )?;
    }
    Ok(())
}
