//! The project's own configuration and how far a session believes it:
//! which settings layers are read ([`SettingsSources`], the Agent SDKs'
//! `--setting-sources`), the session's [`ProjectScope`] (those sources and
//! the user's trust), merging a project settings file as far as the trust
//! goes (`Settings::apply_project`), everything a project configures that
//! waits for trust ([`inventory`], for `catui trust`, `catui trust --show`
//! and the trust dialog), and the one notice that names what was held
//! back.
//!
//! A project's configuration is its `.catui/settings.json`,
//! `.catui/settings.local.json`, `.mcp.json` and `.catui/agents/*.md`.
//! What of a settings file applies before trust is decided in
//! [`super::classify`]; `.mcp.json` servers and project agents wait as a
//! whole. docs/SECURITY.md ("Trust") describes it for users.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Settings, SettingsLayer, SettingsWarning};
use crate::agents::definitions::AgentDefinition;
use crate::trust::{ConfigItem, ProjectTrust, TrustView, Verdict};

/// Which settings layers a session reads. The `--settings` file is always
/// read: whoever started catui chose it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettingsSources {
    /// `$CATUI_CONFIG_DIR/settings.json` and the user's agents.
    pub user: bool,
    /// `.catui/settings.json`, `.mcp.json` and the project's agents.
    pub project: bool,
    /// `.catui/settings.local.json`.
    pub local: bool,
    /// Chosen by the caller (`--setting-sources`) rather than the default.
    pub explicit: bool,
}

impl Default for SettingsSources {
    fn default() -> Self {
        SettingsSources {
            user: true,
            project: true,
            local: true,
            explicit: false,
        }
    }
}

/// A `--setting-sources` list with a name that is not a source.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--setting-sources: unknown source `{0}` (the sources are user, project and local)")]
pub struct UnknownSource(pub String);

impl SettingsSources {
    /// `--setting-sources` as the Agent SDKs send it: names joined by
    /// commas, the empty string for none at all.
    pub fn parse(list: &str) -> Result<Self, UnknownSource> {
        let mut sources = SettingsSources {
            user: false,
            project: false,
            local: false,
            explicit: true,
        };
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            match name {
                "user" => sources.user = true,
                "project" => sources.project = true,
                "local" => sources.local = true,
                other => return Err(UnknownSource(other.to_string())),
            }
        }
        Ok(sources)
    }

    /// An application that listed the project's own files chose them: that
    /// counts as trusting the project for the run.
    pub fn trust_the_project(&self) -> bool {
        self.explicit && (self.project || self.local)
    }
}

/// What a session reads and how far it believes the project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectScope {
    pub sources: SettingsSources,
    pub trust: TrustView,
}

impl ProjectScope {
    /// The scope of a session in `project_root`: `sources` as given (all
    /// layers when `None`), trusted for the run when `trust_for_run` or
    /// when the caller listed the project's files, else as the user
    /// answered before.
    pub fn resolve(
        config_dir: &Path,
        project_root: &Path,
        sources: Option<SettingsSources>,
        trust_for_run: bool,
    ) -> Self {
        let sources = sources.unwrap_or_default();
        let trust = if trust_for_run || sources.trust_the_project() {
            TrustView::ForThisRun
        } else {
            TrustView::remembered(config_dir, project_root)
        };
        ProjectScope { sources, trust }
    }

    /// Every layer, the project trusted: for callers that vouch for the
    /// project themselves (tests, embedders).
    pub fn trusting() -> Self {
        ProjectScope {
            sources: SettingsSources::default(),
            trust: TrustView::ForThisRun,
        }
    }

    /// Every layer, as the user answered for `project_root`.
    pub fn remembered(config_dir: &Path, project_root: &Path) -> Self {
        Self::resolve(config_dir, project_root, None, false)
    }
}

impl Settings {
    /// Merges a project file: what narrows, and what the user's trust
    /// accepts; the rest is recorded in [`Settings::held_back`]. The
    /// project's MCP servers all go in: the MCP manager starts only those
    /// the trust covers ([`Settings::project_servers`]) or the user
    /// approved by name.
    pub(super) fn apply_project(
        &mut self,
        layer: SettingsLayer,
        path: &Path,
        project_root: &Path,
        text: &str,
        scope: &ProjectScope,
        warnings: &mut Vec<SettingsWarning>,
    ) {
        let source = shown_path(project_root, path);
        let value = serde_json::from_str(text).unwrap_or(serde_json::Value::Null);
        let mut split = super::classify::split(&source, &value);
        for mut piece in std::mem::take(&mut split.held) {
            // A hook or server is trusted with the project files it runs.
            crate::trust::files::bind(&mut piece.item, project_root, &piece.value);
            let verdict = scope.trust.verdict(&piece.item);
            let accepted = verdict == crate::trust::Verdict::Accepted;
            if piece.item.group == "mcpServers" {
                let held = (!accepted).then(|| Held {
                    item: piece.item.clone(),
                    verdict,
                });
                self.project_servers.push((piece.item.name.clone(), held));
                split.restore(piece);
            } else if accepted {
                split.restore(piece);
            } else {
                self.held_back.push(Held {
                    item: piece.item,
                    verdict,
                });
            }
        }
        let narrowing_only = !scope.trust.is_trusted();
        match serde_json::from_value::<super::file::RawSettings>(serde_json::Value::Object(
            split.kept,
        )) {
            Ok(raw) => self.apply(
                layer,
                path,
                project_root,
                raw,
                text,
                narrowing_only,
                warnings,
            ),
            // A part of a file that parsed parses; should it not, the file
            // fails closed like any invalid one.
            Err(e) => {
                let at = warnings.len();
                let fallback =
                    self.keep_restrictive_rules(layer, path, project_root, text, warnings);
                warnings.insert(
                    at,
                    SettingsWarning::Invalid {
                        path: path.to_path_buf(),
                        line: e.line(),
                        column: e.column(),
                        message: e.to_string(),
                        fallback,
                    },
                );
            }
        }
    }
}

/// One piece of the project's configuration that did not apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Held {
    pub item: ConfigItem,
    pub verdict: Verdict,
}

/// How a project file is named to people: relative to the project.
pub fn shown_path(project_root: &Path, path: &Path) -> String {
    path.strip_prefix(project_root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The pieces of a `.mcp.json` value (`{"mcpServers": {...}}` or the
/// bare map): one per server, by name.
/// Each is bound to the project files its command line names
/// ([`crate::trust::files`]).
pub fn mcp_json_items(
    project_root: &Path,
    source: &str,
    value: &Value,
) -> Vec<(String, ConfigItem)> {
    let Value::Object(servers) = value.get("mcpServers").unwrap_or(value) else {
        return Vec::new();
    };
    servers
        .iter()
        .map(|(name, spec)| {
            let mut item = ConfigItem::new(source, "mcpServers", name, true, spec);
            crate::trust::files::bind(&mut item, project_root, spec);
            if let Some(text) = super::classify::describe("mcpServers", spec) {
                item.shown = text;
            }
            (name.clone(), item)
        })
        .collect()
}

/// The piece a project agent file is: the whole file.
pub fn agent_item(
    project_root: &Path,
    path: &Path,
    text: &str,
    def: &AgentDefinition,
) -> ConfigItem {
    let mut item = ConfigItem::new(
        &shown_path(project_root, path),
        "agents",
        &def.name,
        true,
        &Value::String(text.to_string()),
    );
    item.shown = match &def.tools {
        Some(tools) => format!("tools: {}", tools.join(", ")),
        None => "tools: all".to_string(),
    };
    item
}

/// The trust item of a project command's `allowed-tools` (`/name`): bound
/// to the rules, so changing them asks again.
pub fn command_item(project_root: &Path, path: &Path, name: &str, tools: &[String]) -> ConfigItem {
    ConfigItem::new(
        &shown_path(project_root, path),
        "allowed-tools",
        &format!("/{name}"),
        true,
        &Value::from(tools.to_vec()),
    )
}

/// Whether `project_root` is the user's home directory (where a session
/// can read everything the user has).
pub fn is_home(project_root: &Path) -> bool {
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    dirs::home_dir().is_some_and(|home| canonical(&home) == canonical(project_root))
}

/// Everything a project configures that waits for trust, as it is now.
#[derive(Debug, Clone, Default)]
pub struct Inventory {
    /// The pieces, file by file.
    pub items: Vec<ConfigItem>,
    /// What applies without trust, per file (`permissions.deny`, ...).
    pub applied: Vec<(String, Vec<String>)>,
    /// Files that could not be read, one line each (nothing of them
    /// applies, so nothing of them is trusted).
    pub problems: Vec<String>,
}

/// The project files the settings layers read: `(shown name, path)`. A
/// file that is the user's own settings file (a session in the home
/// directory) is not a project file.
pub(super) fn project_settings_files(
    config_dir: &Path,
    project_root: &Path,
    sources: SettingsSources,
) -> Vec<(SettingsLayer, PathBuf)> {
    let user = config_dir.join("settings.json");
    let same = |a: &Path, b: &Path| match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    let dir = project_root.join(".catui");
    [
        (sources.project, SettingsLayer::Project, "settings.json"),
        (sources.local, SettingsLayer::Local, "settings.local.json"),
    ]
    .into_iter()
    .filter(|(wanted, ..)| *wanted)
    .map(|(_, layer, name)| (layer, dir.join(name)))
    .filter(|(_, path)| !same(path, &user))
    .collect()
}

/// Reads everything the project at `project_root` configures (its
/// settings files, `.mcp.json` and agents).
pub fn inventory(config_dir: &Path, project_root: &Path) -> Inventory {
    let mut out = Inventory::default();
    let sources = SettingsSources::default();
    for (_, path) in project_settings_files(config_dir, project_root, sources) {
        let shown = shown_path(project_root, &path);
        match super::file::read(&path) {
            Ok(Some((_, text))) => {
                let value: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
                let split = super::classify::split(&shown, &value);
                let mut applied = Vec::new();
                for (key, value) in &split.kept {
                    match value {
                        Value::Object(inner) => {
                            applied.extend(inner.keys().map(|k| format!("{key}.{k}")))
                        }
                        _ => applied.push(key.clone()),
                    }
                }
                if !applied.is_empty() {
                    out.applied.push((shown, applied));
                }
                out.items.extend(split.held.into_iter().map(|mut p| {
                    crate::trust::files::bind(&mut p.item, project_root, &p.value);
                    p.item
                }));
            }
            Ok(None) => {}
            Err(_) => out.problems.push(format!(
                "{shown} cannot be used as it is; none of it applies"
            )),
        }
    }
    let mcp_json = project_root.join(".mcp.json");
    match crate::mcp::config::read_file(&mcp_json) {
        Ok(Some(value)) => out.items.extend(
            mcp_json_items(project_root, &shown_path(project_root, &mcp_json), &value)
                .into_iter()
                .map(|(_, item)| item),
        ),
        Ok(None) => {}
        Err(e) => out.problems.push(format!(".mcp.json: {e}")),
    }
    let agents = project_root.join(".catui").join("agents");
    if !same_dir(&agents, &config_dir.join("agents")) {
        // The agents a session would load: those the file gate lets through.
        let gate = crate::agents::loader::AgentSources::all(project_root, config_dir).gate;
        for path in crate::agents::loader::agent_files(&agents) {
            if let Ok((text, def)) = crate::agents::loader::read_agent(&path, &gate) {
                out.items.push(agent_item(project_root, &path, &text, &def));
            }
        }
    }
    out.items
        .extend(project_command_items(config_dir, project_root));
    out
}

/// The trust items of the project's custom commands that name
/// `allowed-tools`.
fn project_command_items(config_dir: &Path, project_root: &Path) -> Vec<ConfigItem> {
    let dirs: Vec<_> = crate::custom_commands::command_dirs(project_root, config_dir, None)
        .into_iter()
        .filter(|(dir, source)| {
            *source == crate::custom_commands::CommandSource::Project
                && !same_dir(dir.parent().unwrap_or(dir), config_dir)
        })
        .collect();
    if dirs.iter().all(|(dir, _)| !dir.is_dir()) {
        return Vec::new();
    }
    let gate = crate::agents::loader::AgentSources::all(project_root, config_dir).gate;
    let items = std::cell::RefCell::new(Vec::new());
    let record = |path: &Path, name: &str, tools: &[String]| {
        items
            .borrow_mut()
            .push(command_item(project_root, path, name, tools));
        true
    };
    crate::custom_commands::CommandSet::discover(&dirs, &gate, &[], &record);
    items.into_inner()
}

/// Whether two paths are the same directory.
pub(crate) fn same_dir(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// What a session did not apply of the project's configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeldBack {
    /// Settings, `.mcp.json` servers and agents that wait.
    pub items: Vec<Held>,
}

impl HeldBack {
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The one notice for the user: by name, what did not apply, and the
    /// command that trusts the project. `None` when nothing was held back.
    pub fn notice(&self, project_root: &Path) -> Option<String> {
        if self.items.is_empty() {
            return None;
        }
        let names = names_by_group(self.items.iter().map(|h| &h.item));
        let changed = self
            .items
            .iter()
            .all(|h| h.verdict == Verdict::ChangedSinceTrust);
        let place = project_root.display();
        let servers = if self.items.iter().any(|h| h.item.group == "mcpServers") {
            " (One MCP server alone: `catui mcp approve NAME`.)"
        } else {
            ""
        };
        Some(if changed {
            format!(
                "This project's configuration changed since you trusted it; the new or changed parts were not applied: {names}. See the changes with `catui trust --show`; accept them with `catui trust` (in {place}).{servers}"
            )
        } else {
            format!(
                "This project is not trusted, so its own configuration that widens permissions, runs code or redirects data was not applied: {names}. Its deny and ask rules apply. To trust it, run `catui trust` in {place} (or pass --trust-project for one run).{servers}"
            )
        })
    }
}

/// `env (BASH_ENV, ANTHROPIC_BASE_URL), permissions.allow (Write), model
/// (big)`: the groups in the order first met, each with its names.
pub fn names_by_group<'a>(items: impl IntoIterator<Item = &'a ConfigItem>) -> String {
    let mut order: Vec<String> = Vec::new();
    let mut names: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for item in items {
        let group = match item.group.as_str() {
            "mcpServers" => "MCP servers".to_string(),
            other => other.to_string(),
        };
        // A single value is named by what it says.
        let name = if item.name == item.group {
            item.shown.clone()
        } else {
            item.name.clone()
        };
        if !order.contains(&group) {
            order.push(group.clone());
        }
        let list = names.entry(group).or_default();
        if !list.contains(&name) {
            list.push(name);
        }
    }
    order
        .iter()
        .map(|g| {
            format!(
                "{g} ({})",
                names.get(g).map(|n| n.join(", ")).unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// What the trust dialog shows, and whether it should be shown at all.
#[derive(Debug, Clone)]
pub struct TrustQuestion {
    pub project_root: PathBuf,
    /// The user's answers so far.
    pub trust: ProjectTrust,
    /// Everything the project configures that waits for trust.
    pub inventory: Inventory,
    pub is_home: bool,
}

impl TrustQuestion {
    pub fn gather(config_dir: &Path, project_root: &Path) -> Self {
        TrustQuestion {
            project_root: project_root.to_path_buf(),
            trust: crate::trust::load(config_dir, project_root),
            inventory: inventory(config_dir, project_root),
            is_home: is_home(project_root),
        }
    }

    /// The pieces the user has not answered for: neither accepted nor
    /// declined before.
    pub fn unanswered(&self) -> Vec<&ConfigItem> {
        self.inventory
            .items
            .iter()
            .filter(|i| self.trust.verdict(i) != Verdict::Accepted && !self.trust.declined(i))
            .collect()
    }

    /// Whether an interactive session should ask before it starts: the
    /// project configures something the user has not answered for, or it
    /// is the home directory and the user never answered for it.
    pub fn should_ask(&self) -> bool {
        let answered = self.trust.trusted || self.trust.declined.is_some();
        !self.unanswered().is_empty() || (self.is_home && !answered)
    }

    /// Whether the question is about changes since the user trusted it.
    pub fn is_about_changes(&self) -> bool {
        self.trust.trusted
    }
}

#[cfg(test)]
#[path = "project_tests.rs"]
mod tests;
