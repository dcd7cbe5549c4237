//! What the user decided about a project's own configuration: whether its
//! hooks may run, and which of the MCP servers its `.mcp.json` (or its
//! settings) names may be started.
//!
//! A cloned repository must never run commands just by being opened, so
//! nothing a project configures runs until the user says so. The answers
//! are kept per project (by canonical path) in `projects.json` in catui's
//! configuration directory — never in the project itself, which could
//! otherwise approve itself.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The file, under the configuration directory.
const FILE: &str = "projects.json";

/// The most a trust file may hold before it is treated as damaged.
const MAX_BYTES: u64 = 4 * 1024 * 1024;

/// One project's answers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectTrust {
    /// The user trusts the project: its hooks run and its MCP servers
    /// start (unless rejected one by one).
    #[serde(default)]
    pub trusted: bool,
    /// Per MCP server of the project: `true` approved, `false` rejected.
    #[serde(default)]
    pub mcp_servers: BTreeMap<String, bool>,
}

impl ProjectTrust {
    /// The user's answer for the project's server `name`, if any: a
    /// server-level answer wins over the project's trust.
    pub fn server(&self, name: &str) -> Option<bool> {
        self.mcp_servers
            .get(name)
            .copied()
            .or(self.trusted.then_some(true))
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
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn answers_are_kept_per_project_and_fail_closed() {
        let home = tempfile::tempdir().unwrap();
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        assert_eq!(load(home.path(), a.path()), ProjectTrust::default());
        update(home.path(), a.path(), |t| {
            t.mcp_servers.insert("fs".into(), true);
            t.mcp_servers.insert("web".into(), false);
        })
        .unwrap();
        let trust = load(home.path(), a.path());
        assert_eq!(trust.server("fs"), Some(true));
        assert_eq!(trust.server("web"), Some(false));
        assert_eq!(trust.server("other"), None);
        assert_eq!(load(home.path(), b.path()).server("fs"), None);
        update(home.path(), a.path(), |t| t.trusted = true).unwrap();
        let trust = load(home.path(), a.path());
        assert_eq!(trust.server("other"), Some(true));
        assert_eq!(trust.server("web"), Some(false), "a rejection stays");
        // A damaged file trusts nothing.
        std::fs::write(home.path().join(FILE), "{not json").unwrap();
        assert!(!load(home.path(), a.path()).trusted);
    }
}
