//! Finding the `.env*` files outside the project that a confined command
//! could read, so that the sandbox hides them as Read asks for them.
//!
//! A `.env` file is a secret by its name wherever it is, but the kernel
//! layers hide paths, not names: the files are looked for. The walk covers
//! where a user keeps projects — the home directory, every directory
//! above a project directory (so its siblings: `../other/.env`), and the
//! usual places for services (`/srv`, `/var/www`, `/mnt`, `/media`) —
//! breadth first, with a budget of directory entries. Toolchains and
//! caches, which hold packages rather than the user's secrets
//! (`node_modules`, `.cargo`, `.rustup`, `target`, `.git`...), are not
//! walked.
//!
//! It fails closed: the directories the budget did not reach are returned
//! too, to be hidden whole, so that no `.env` file escapes the walk
//! unseen; a directory that holds a project or a writable directory is
//! never among them (the walk goes into it and leaves the project out).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use super::list::ENV_FILE_PREFIX;

/// How many directory entries one walk reads before it stops (and hides
/// what it did not reach).
pub const ENTRY_BUDGET: usize = 50_000;

/// Places outside the home directory where services keep their `.env`.
pub const SERVICE_ROOTS: &[&str] = &["/srv", "/var/www", "/mnt", "/media"];

/// Directory names not walked: packages, toolchains, caches and version
/// control data, which are large and hold no `.env` of the user's.
pub const NOT_WALKED: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    "node_modules",
    "target",
    "__pycache__",
    "site-packages",
    ".venv",
    "venv",
    ".tox",
    ".cache",
    ".cargo",
    ".rustup",
    ".npm",
    ".pnpm-store",
    ".yarn",
    ".nvm",
    ".volta",
    ".bun",
    ".deno",
    ".pyenv",
    ".rbenv",
    ".gem",
    ".gradle",
    ".m2",
    ".sdkman",
    ".ghcup",
    ".opam",
    ".juliaup",
    ".local",
    ".vscode-server",
    ".cursor-server",
    "go",
    "miniconda3",
    "anaconda3",
    "snap",
    "proc",
    "sys",
    "dev",
];

/// What a walk found: the `.env*` files and directories outside the
/// project (`found`) and the directories it had no budget left for
/// (`unreached`, to be hidden whole).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Scan {
    pub found: Vec<PathBuf>,
    pub unreached: Vec<PathBuf>,
}

/// Walks `roots` for `.env*` entries, leaving out `projects` (whose own
/// `.env` files are theirs) and never returning a directory that holds one
/// of `projects` or `keep` as unreached.
pub fn scan(roots: &[PathBuf], projects: &[PathBuf], keep: &[PathBuf], budget: usize) -> Scan {
    let mut out = Scan::default();
    let mut queue: VecDeque<PathBuf> = VecDeque::new();
    let mut seen: Vec<PathBuf> = Vec::new();
    for root in roots {
        // A root inside another is walked as part of it.
        if roots.iter().any(|r| r != root && root.starts_with(r)) || seen.contains(root) {
            continue;
        }
        if projects.iter().any(|p| root.starts_with(p)) {
            continue;
        }
        seen.push(root.clone());
        queue.push_back(root.clone());
    }
    let mut left = budget;
    while let Some(dir) = queue.pop_front() {
        if left == 0 {
            unreached(&mut out, &dir, projects, keep);
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            if left == 0 {
                // The rest of this directory: hide what could hold one.
                unreached(&mut out, &dir, projects, keep);
                break;
            }
            left -= 1;
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if projects.iter().any(|p| p == &path) {
                continue;
            }
            if name.starts_with(ENV_FILE_PREFIX) {
                out.found.push(path);
                continue;
            }
            // Not through links: a link's target is walked where it is (or
            // is outside what a user's projects are).
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if is_dir && !NOT_WALKED.contains(&name.as_ref()) {
                queue.push_back(path);
            }
        }
    }
    out
}

/// Records `dir` as not walked, unless hiding it would hide a project or a
/// kept directory; then its children are unreached instead.
fn unreached(out: &mut Scan, dir: &Path, projects: &[PathBuf], keep: &[PathBuf]) {
    let holds = |d: &Path| projects.iter().chain(keep).any(|p| p.starts_with(d));
    if !holds(dir) {
        if !out.unreached.iter().any(|u| dir.starts_with(u)) {
            out.unreached.push(dir.to_path_buf());
        }
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if projects.contains(&path) {
            continue;
        }
        let name = entry.file_name();
        if name.to_string_lossy().starts_with(ENV_FILE_PREFIX) {
            out.found.push(path);
        } else if entry.file_type().is_ok_and(|t| t.is_dir()) {
            unreached(out, &path, projects, keep);
        }
    }
}

/// The roots a session's walk starts from: `home`, the directories above
/// each project directory (but `/`), and [`SERVICE_ROOTS`].
pub fn roots(home: Option<&Path>, projects: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = home.map(Path::to_path_buf).into_iter().collect();
    for project in projects {
        // The topmost directory above it (below `/`) holds all the others.
        if let Some(top) = project
            .ancestors()
            .skip(1)
            .filter(|a| a.parent().is_some())
            .last()
        {
            out.push(top.to_path_buf());
        }
    }
    out.extend(SERVICE_ROOTS.iter().map(PathBuf::from));
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
#[path = "env_files_tests.rs"]
mod tests;
