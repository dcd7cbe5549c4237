//! Whether a git command would use the project's own repository.
//!
//! Git reads its configuration from the repository it runs in, and that
//! configuration can name programs (`core.fsmonitor`, `core.sshCommand`,
//! `core.pager`, diff drivers...). The project's own `.git/config` was
//! written on this machine, but a repository *committed into* the project
//! (a bare one such as `vendor/x.git`, whose `config` is an ordinary
//! tracked file) or one elsewhere on disk is someone else's. So a git
//! command pointed at one (`git -C DIR`, `cd DIR && git ...`, or a session
//! whose working directory moved there) is never read-only: it asks. The
//! analysis says where git runs ([`super::shell::SimpleCommand::git_dirs`]);
//! this module looks at the disk.

use std::path::{Path, PathBuf};

use super::paths;

/// Why git run from `dir` (absolute) would not use the project's own
/// repository: `dir` lies outside the working directories, or a directory
/// between it and the working directory holding it is a repository of its
/// own. `None` when git would find the project's repository (or none).
pub fn foreign_repository(dir: &Path, working_dirs: &[PathBuf]) -> Option<String> {
    let Ok(dir) = paths::canonicalize(dir, dir) else {
        return Some(format!("`{}` could not be resolved", dir.display()));
    };
    if !dir.exists() {
        // git fails there; nothing of anyone's is read.
        return None;
    }
    let Some(root) = working_dirs
        .iter()
        .filter(|w| paths::is_within(&dir, w))
        .max_by_key(|w| w.components().count())
    else {
        return Some(format!(
            "git would run in `{}`, outside the project, and use whatever repository is there",
            dir.display()
        ));
    };
    for level in dir.ancestors() {
        if paths::same_path(level, root) {
            return None;
        }
        if level.join(".git").exists() {
            return Some(format!(
                "`{}` is a git repository of its own inside the project, whose configuration can run programs",
                level.display()
            ));
        }
        if looks_like_bare_repository(level) {
            return Some(format!(
                "`{}` is a bare git repository committed inside the project, whose configuration can run programs",
                level.display()
            ));
        }
    }
    None
}

/// What git itself checks before taking a directory for a repository:
/// `HEAD` plus an object store and refs (or a `commondir` pointing to them).
fn looks_like_bare_repository(dir: &Path) -> bool {
    dir.join("HEAD").is_file()
        && (dir.join("commondir").is_file()
            || (dir.join("objects").is_dir() && dir.join("refs").is_dir()))
}

#[cfg(test)]
#[path = "repository_tests.rs"]
mod tests;
