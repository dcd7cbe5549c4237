//! What a search (Grep, Glob) leaves out of its walk: the user's secret
//! stores, unless the user allowed reading them by an allow rule.
//!
//! Reading a secret store by name asks (see [`super::decide`]); a search
//! whose root merely contains one (Grep in `~`, Glob of `/`) runs as any
//! read does, and its walk skips the stores instead, so neither their
//! contents nor their file names reach the model unasked. The search says
//! what it skipped, so the model can ask for a store by name. In
//! `bypassPermissions` nothing is skipped.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use catui_protocol::PermissionMode;

use super::rules::SourcedRule;
use super::secrets::SecretStores;
use super::{Access, PermissionContext, paths};
use crate::sync::lock;

/// The secret stores one search must not walk into.
#[derive(Debug)]
pub struct SecretWalk {
    stores: SecretStores,
    /// The session's allow rules for the searching tool.
    allow: Vec<SourcedRule>,
    /// The stores (or secret files) left out, for the note.
    skipped: Mutex<BTreeSet<PathBuf>>,
}

impl SecretWalk {
    /// What a search by `tool` from `root` must skip; `None` when nothing
    /// can be secret below `root` (a search of the project), when the root
    /// is itself a secret store (reading it was asked or allowed), or in
    /// bypassPermissions.
    pub fn for_search(ctx: &PermissionContext, tool: &str, root: &Path) -> Option<SecretWalk> {
        if ctx.mode == PermissionMode::BypassPermissions {
            return None;
        }
        let root = paths::canonicalize(root, root).unwrap_or_else(|_| root.to_path_buf());
        let stores = &ctx.secrets;
        let in_project = ctx.working_dirs.iter().any(|d| {
            let d = paths::canonicalize(d, d).unwrap_or_else(|_| d.clone());
            paths::is_within(&root, &d)
        });
        // Outside the project, `.env*` files may be anywhere below.
        let may_hold_secrets = !in_project || stores.has_secret_within(&root);
        if stores.is_secret(&root) || !may_hold_secrets {
            return None;
        }
        let probe = Access::Read { paths: Vec::new() };
        let allow = ctx
            .rules
            .allow
            .iter()
            .filter(|r| r.rule.covers_tool(tool, &probe))
            .cloned()
            .collect();
        Some(SecretWalk {
            stores: stores.clone(),
            allow,
            skipped: Mutex::default(),
        })
    }

    /// Whether the walk may enter or report `path`. A store skipped is
    /// remembered for [`SecretWalk::note`].
    pub fn keeps(&self, path: &Path) -> bool {
        if !self.stores.is_secret(path) || self.allowed(path) {
            return true;
        }
        let store = self
            .stores
            .store_of(path)
            .map_or_else(|| path.to_path_buf(), Path::to_path_buf);
        lock(&self.skipped).insert(store);
        false
    }

    /// An allow rule covers `path` (for a directory, also what is in it:
    /// `Read(~/.aws/**)` opens the walk into `~/.aws`).
    fn allowed(&self, path: &Path) -> bool {
        let inside = path.join("*");
        self.allow.iter().any(|r| {
            r.rule.is_any_tool()
                || r.rule.matches_path(path, &r.origin.root)
                || r.rule.matches_path(&inside, &r.origin.root)
        })
    }

    /// What was left out, for the tool result (none when nothing was).
    pub fn note(&self) -> Option<String> {
        let skipped = lock(&self.skipped);
        if skipped.is_empty() {
            return None;
        }
        let names: Vec<String> = skipped.iter().map(|p| self.stores.shown(p)).collect();
        Some(format!(
            "(not searched: {} — the user's secret stores are left out of searches; name one as the path to ask the user for it)",
            names.join(", ")
        ))
    }
}

#[cfg(test)]
#[path = "secret_search_tests.rs"]
mod tests;
