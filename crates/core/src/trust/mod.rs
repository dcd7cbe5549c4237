//! What the user decided about a project's own configuration: which parts
//! of it they accepted (by `catui trust`, the trust dialog or a per-server
//! approval), which they chose to go on without, and which of the MCP
//! servers it names were approved or rejected one by one.
//!
//! A cloned repository must never run commands, widen permissions or
//! redirect data just by being opened, so nothing of that kind a project
//! configures applies until the user says so (the split of a project's
//! configuration into what applies at once and what waits is the settings
//! module's; docs/SECURITY.md, "Trust"). The answers are kept per project
//! (by canonical path) in `projects.json` in catui's configuration
//! directory — never in the project itself, which could otherwise approve
//! itself.
//!
//! Trust is bound to what was trusted: each piece of configuration the user
//! accepted is remembered by a digest of where it is and what it says
//! ([`ConfigItem`]). A piece that is new or changed later (a `git pull`
//! that adds a hook) is not covered and waits until the user confirms it.

pub mod files;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The file, under the configuration directory.
const FILE: &str = "projects.json";

/// The most a trust file may hold before it is treated as damaged.
const MAX_BYTES: u64 = 4 * 1024 * 1024;

/// The longest description of a value kept for people to read.
const MAX_SHOWN_CHARS: usize = 120;

/// One piece of a project's configuration that widens, runs code or
/// redirects data: an allow rule, an `env` variable, a hook, an MCP server,
/// an agent file...
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigItem {
    /// The file, relative to the project (`.catui/settings.json`).
    pub source: String,
    /// What kind of setting it is (`permissions.allow`, `env`, `hooks`,
    /// `mcpServers`, `agents`, `model`...).
    pub group: String,
    /// Which one of its group (`BASH_ENV`, `Bash(curl:*)`, `PreToolUse`,
    /// the server's or agent's name; the group itself for a single value).
    pub name: String,
    /// What it says, on one line and cut short, for people.
    pub shown: String,
    /// Whether it holds one value that a change replaces (an `env`
    /// variable, a server), rather than being one entry of a list (a rule,
    /// a hook): a changed slot is reported as changed, not as new.
    pub slot: bool,
    /// SHA-256 over the source, group, name and the value's canonical JSON.
    pub digest: String,
}

impl ConfigItem {
    pub fn new(source: &str, group: &str, name: &str, slot: bool, value: &Value) -> Self {
        let mut hasher = Sha256::new();
        for part in [source, group, name, &canonical_json(value)] {
            hasher.update(part.as_bytes());
            hasher.update([0]);
        }
        let digest = hasher
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        ConfigItem {
            source: source.to_string(),
            group: group.to_string(),
            name: name.to_string(),
            shown: shown(value),
            slot,
            digest,
        }
    }

    /// Where it is, without what it says: `.catui/settings.json env BASH_ENV`.
    pub fn label(&self) -> String {
        format!("{} {} {}", self.source, self.group, self.name)
    }
}

/// A value as people read it: strings without quotes, everything else as
/// compact JSON, on one line, cut at [`MAX_SHOWN_CHARS`].
fn shown(value: &Value) -> String {
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if one_line.chars().count() <= MAX_SHOWN_CHARS {
        return one_line;
    }
    let cut: String = one_line.chars().take(MAX_SHOWN_CHARS).collect();
    format!("{cut}…")
}

/// JSON with the keys of every object sorted, so that reformatting a file
/// or reordering its keys changes no digest.
fn canonical_json(value: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                let mut out = serde_json::Map::new();
                for k in keys {
                    out.insert(k.clone(), sorted(&map[k]));
                }
                Value::Object(out)
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(value).to_string()
}

/// What the user's answers say about one piece of configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The user accepted it (or trusts the project for this run).
    Accepted,
    /// The user trusted the project, but not this: it is new or changed
    /// since.
    ChangedSinceTrust,
    /// The user has not trusted the project.
    NotTrusted,
}

/// One project's answers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectTrust {
    /// The user trusts the project (`catui trust`, the dialog).
    #[serde(default)]
    pub trusted: bool,
    /// Per MCP server of the project, by name: `true` approved, `false`
    /// rejected (`catui mcp approve|reject`, `/mcp approve|reject`).
    #[serde(default)]
    pub mcp_servers: BTreeMap<String, bool>,
    /// Per approved MCP server, by name: the digest of what it runs
    /// (command, args, env, URL and the project files they name;
    /// `crate::mcp::config::ServerSpec::approval_digest`) when the user
    /// approved it. The approval covers that and nothing else: an
    /// approval without one (remembered by an older catui) covers nothing.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub mcp_approved: BTreeMap<String, String>,
    /// The configuration the user accepted: digest → label. `None` with
    /// `trusted`: trusted before catui remembered what (see
    /// [`ProjectTrust::is_unbound`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted: Option<BTreeMap<String, String>>,
    /// What the user chose to go on without in the trust dialog (digest →
    /// label); `Some` once the dialog was answered that way, so that it is
    /// not shown again until something new appears.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declined: Option<BTreeMap<String, String>>,
}

impl ProjectTrust {
    /// The user's own answer for the project's server `name` whose
    /// content is `content` (its approval digest), if any: a rejection
    /// holds by name; an approval only for the content it was given for.
    pub fn server(&self, name: &str, content: &str) -> Option<bool> {
        match self.mcp_servers.get(name) {
            Some(false) => Some(false),
            Some(true) => {
                (self.mcp_approved.get(name).map(String::as_str) == Some(content)).then_some(true)
            }
            None => None,
        }
    }

    /// Records the user's answer for the server `name` as it is now
    /// (`content`, its approval digest).
    pub fn answer_server(&mut self, name: &str, approved: bool, content: &str) {
        self.mcp_servers.insert(name.to_string(), approved);
        if approved {
            self.mcp_approved
                .insert(name.to_string(), content.to_string());
        } else {
            self.mcp_approved.remove(name);
        }
    }

    /// Trusted before catui bound trust to what was trusted: everything
    /// the project configures counts as accepted until the accepted set is
    /// recorded ([`ProjectTrust::accept_all`]).
    pub fn is_unbound(&self) -> bool {
        self.trusted && self.accepted.is_none()
    }

    pub fn verdict(&self, item: &ConfigItem) -> Verdict {
        let accepted = self
            .accepted
            .as_ref()
            .is_some_and(|a| a.contains_key(&item.digest));
        if accepted || self.is_unbound() {
            Verdict::Accepted
        } else if self.trusted {
            Verdict::ChangedSinceTrust
        } else {
            Verdict::NotTrusted
        }
    }

    /// Whether the user already chose to go on without `item`.
    pub fn declined(&self, item: &ConfigItem) -> bool {
        self.declined
            .as_ref()
            .is_some_and(|d| d.contains_key(&item.digest))
    }

    /// Trusts the project as configured by `items` (and nothing else).
    pub fn accept_all<'a>(&mut self, items: impl IntoIterator<Item = &'a ConfigItem>) {
        self.trusted = true;
        self.accepted = Some(
            items
                .into_iter()
                .map(|i| (i.digest.clone(), i.label()))
                .collect(),
        );
        self.declined = None;
    }

    /// Records that the user went on without `items` (keeping earlier
    /// such answers).
    pub fn decline<'a>(&mut self, items: impl IntoIterator<Item = &'a ConfigItem>) {
        let declined = self.declined.get_or_insert_with(BTreeMap::new);
        for item in items {
            declined.insert(item.digest.clone(), item.label());
        }
    }

    /// Forgets the trust and every approval; rejections stay.
    pub fn revoke(&mut self) {
        self.trusted = false;
        self.accepted = None;
        self.declined = None;
        self.mcp_servers.retain(|_, approved| !*approved);
        self.mcp_approved.clear();
    }

    /// How `items` (the project's configuration now) differ from what the
    /// user accepted.
    pub fn diff<'a>(&self, items: &'a [ConfigItem]) -> TrustDiff<'a> {
        let accepted = self.accepted.clone().unwrap_or_default();
        let mut diff = TrustDiff::default();
        if self.is_unbound() {
            return diff;
        }
        let labels: Vec<&String> = accepted.values().collect();
        for item in items {
            if accepted.contains_key(&item.digest) {
                continue;
            }
            if item.slot && labels.contains(&&item.label()) {
                diff.changed.push(item);
            } else {
                diff.added.push(item);
            }
        }
        for (digest, label) in &accepted {
            let still = items.iter().any(|i| &i.digest == digest);
            let replaced = items.iter().any(|i| i.slot && &i.label() == label);
            if !still && !replaced {
                diff.removed.push(label.clone());
            }
        }
        diff
    }
}

/// What changed in a project's configuration since the user trusted it.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct TrustDiff<'a> {
    /// Not there when the project was trusted.
    pub added: Vec<&'a ConfigItem>,
    /// There, with another value.
    pub changed: Vec<&'a ConfigItem>,
    /// Gone (labels of what was accepted).
    pub removed: Vec<String>,
}

impl TrustDiff<'_> {
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.changed.is_empty() && self.removed.is_empty()
    }
}

/// How far a session believes the project's own configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrustView {
    /// Everything applies for this run: `--trust-project`,
    /// `CATUI_TRUST_PROJECT=1`, or an SDK application that listed the
    /// project's settings in `--setting-sources`.
    ForThisRun,
    /// The user's remembered answers decide.
    Remembered(ProjectTrust),
}

impl TrustView {
    /// The remembered answers for `project_root`.
    pub fn remembered(config_dir: &Path, project_root: &Path) -> Self {
        TrustView::Remembered(load(config_dir, project_root))
    }

    pub fn verdict(&self, item: &ConfigItem) -> Verdict {
        match self {
            TrustView::ForThisRun => Verdict::Accepted,
            TrustView::Remembered(trust) => trust.verdict(item),
        }
    }

    pub fn accepts(&self, item: &ConfigItem) -> bool {
        self.verdict(item) == Verdict::Accepted
    }

    /// Whether the project as a whole is trusted (for this run or
    /// remembered), whatever changed since.
    pub fn is_trusted(&self) -> bool {
        match self {
            TrustView::ForThisRun => true,
            TrustView::Remembered(trust) => trust.trusted,
        }
    }
}

/// Why the answers could not be saved.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    #[error("could not save project approvals to {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The key of a project: its canonical path when it can be resolved.
fn key(project_root: &Path) -> String {
    std::fs::canonicalize(project_root)
        .unwrap_or_else(|_| project_root.to_path_buf())
        .display()
        .to_string()
}

/// Every project's answers. A missing, unreadable or damaged file means
/// no answers (nothing is trusted): failing closed.
fn read_all(config_dir: &Path) -> BTreeMap<String, ProjectTrust> {
    let path = config_dir.join(FILE);
    let Ok(meta) = std::fs::metadata(&path) else {
        return BTreeMap::new();
    };
    if !meta.is_file() || meta.len() > MAX_BYTES {
        return BTreeMap::new();
    }
    std::fs::read_to_string(&path)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

/// The answers for `project_root`.
pub fn load(config_dir: &Path, project_root: &Path) -> ProjectTrust {
    read_all(config_dir)
        .remove(&key(project_root))
        .unwrap_or_default()
}

/// Changes the answers for `project_root` with `change` and saves them
/// (written whole to a temporary file, then renamed over the old one).
pub fn update(
    config_dir: &Path,
    project_root: &Path,
    change: impl FnOnce(&mut ProjectTrust),
) -> Result<ProjectTrust, TrustError> {
    let path = config_dir.join(FILE);
    let mut all = read_all(config_dir);
    let entry = all.entry(key(project_root)).or_default();
    change(entry);
    let updated = entry.clone();
    let fail = |source| TrustError::Write {
        path: path.clone(),
        source,
    };
    std::fs::create_dir_all(config_dir).map_err(fail)?;
    let text = serde_json::to_string_pretty(&all)
        .map_err(|e| fail(std::io::Error::other(e.to_string())))?;
    let tmp = config_dir.join(format!(".{FILE}.{}", std::process::id()));
    std::fs::write(&tmp, text).map_err(fail)?;
    std::fs::rename(&tmp, &path).map_err(fail)?;
    Ok(updated)
}

#[cfg(test)]
#[path = "trust_tests.rs"]
mod tests;
