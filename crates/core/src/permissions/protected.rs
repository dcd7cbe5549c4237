//! The paths that run code later or steer the agent: the one list that
//! acceptEdits never writes without asking, whether the write comes from a
//! file tool (Write, Edit, NotebookEdit) or from the shell (`> f`, `cp`,
//! `mv`, `touch`, `mkdir`).
//!
//! A file edited here acts long after the edit was accepted, and not
//! where catui can see it: git runs hooks and reads its configuration,
//! hook managers (husky, pre-commit, lefthook) install commands, editors
//! run tasks and settings when the folder is opened, direnv and shells
//! source their startup files, and catui itself starts the MCP servers of
//! `.mcp.json` and applies `.catui/`. So a name on this list is protected
//! at any depth below a working directory, not only at the project root:
//! hooks can be pointed at a sub-directory (`core.hooksPath=sub/.husky`),
//! editors open sub-folders as workspaces, direnv acts in every directory
//! a shell enters, and a nested repository has its own `.git/`. Names are
//! compared without case where the file system ignores it.
//!
//! Plan mode refuses every write but the plan file anyway; default mode
//! asks for every write. See `docs/SECURITY.md`.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::paths::{self, CASE_INSENSITIVE_FS};
use super::secrets::SecretStores;

/// Whether the canonical path `p` is inside a working directory, outside
/// what runs code later or steers the agent ([`PROTECTED_DIRS`]: `.catui`,
/// `.git`, `.husky`, `.mcp.json`, `.bashrc`...) and outside the user's
/// secret stores (a working directory may be the home directory).
pub(super) fn writable_inside(p: &Path, working_dirs: &[PathBuf], secrets: &SecretStores) -> bool {
    !secrets.is_secret(p)
        && working_dirs.iter().any(|d| {
            paths::is_within(p, d)
                && p.strip_prefix(d)
                    .is_ok_and(|rest| protected_part(rest).is_none())
        })
}

/// Directories whose contents run code later or steer the agent.
pub const PROTECTED_DIRS: &[&str] = &[
    // catui's own settings, agents and commands.
    ".catui",
    // Git's configuration and hooks (also of nested repositories).
    ".git",
    // Hook managers.
    ".husky",
    ".githooks",
    // Editors' tasks, launch configurations and settings.
    ".vscode",
    ".idea",
    ".devcontainer",
];

/// Files that run code later or steer the agent.
pub const PROTECTED_FILES: &[&str] = &[
    // MCP servers catui starts.
    ".mcp.json",
    // Hook managers' configuration.
    ".pre-commit-config.yaml",
    "lefthook.yml",
    ".lefthook.yml",
    // direnv.
    ".envrc",
    // Shell startup files.
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".cshrc",
    ".tcshrc",
    ".kshrc",
    ".inputrc",
    // Editors' per-directory startup files (vim's and neovim's `exrc`).
    ".exrc",
    ".vimrc",
    ".nvimrc",
    ".nvim.lua",
    // Git configuration kept beside the code.
    ".gitconfig",
    ".gitmodules",
];

/// The first protected name among `rest`'s components (a path relative to
/// a working directory), if any.
pub fn protected_part(rest: &Path) -> Option<&'static str> {
    rest.components().find_map(|part| {
        let name = part.as_os_str();
        PROTECTED_DIRS
            .iter()
            .chain(PROTECTED_FILES)
            .copied()
            .find(|p| same_name(name, p))
    })
}

fn same_name(name: &OsStr, protected: &str) -> bool {
    if CASE_INSENSITIVE_FS {
        name.to_str()
            .is_some_and(|n| n.eq_ignore_ascii_case(protected))
    } else {
        name == protected
    }
}

#[cfg(test)]
#[path = "protected_tests.rs"]
mod tests;
