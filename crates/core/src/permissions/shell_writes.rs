//! What acceptEdits lets a shell line write: `mkdir`, `touch`, `mv`, `cp`
//! and redirections whose literal paths resolve inside the working
//! directories, outside the paths that run code later ([`protected`]) and
//! the secret stores.
//!
//! These words are judged before the line runs, so they cannot see a link
//! the line itself creates: in `cp -a docs d && echo k >> d/ssh/keys`
//! (where `docs/ssh` is a link to `~/.ssh`) `d/ssh/keys` does not exist
//! yet and looks inside. The guarantee therefore does not come from here:
//! a line allowed for its edits runs confined to writing beneath the
//! working directories ([`super::Grant::Edits`]), where the kernel judges
//! the path really written. What this module adds is [`Scope::moved_links`]:
//! a line whose `cp`/`mv` carries links (or, where nothing can confine its
//! writes, any tree or path not there yet) asks, because a link moved to
//! another depth, or copied, can lead a write to a protected path inside
//! the working directories, which confinement to them cannot refuse.

use std::path::{Path, PathBuf};

use super::secrets::SecretStores;
use super::shell::{Redirect, SimpleCommand};
use super::{paths, protected::writable_inside};

/// At most this many entries of a copied or moved tree are looked at for
/// links; a larger tree asks.
const MAX_TREE_ENTRIES: usize = 20_000;

/// `cp` and `mv` flags acceptEdits takes (each keeps paths literal and
/// creates no link of its own).
const COPY_MOVE_FLAGS: &[&str] = &[
    "-f",
    "-i",
    "-n",
    "-v",
    "-r",
    "-R",
    "-p",
    "-a",
    "-u",
    "--force",
    "--interactive",
    "--no-clobber",
    "--verbose",
    "--recursive",
    "--archive",
    "--update",
];

/// Where acceptEdits may write from the shell.
pub(super) struct Scope<'a> {
    pub(super) cwd: &'a Path,
    pub(super) working_dirs: &'a [PathBuf],
    pub(super) secrets: &'a SecretStores,
    /// The line changes directory, so relative paths do not resolve
    /// against `cwd`.
    pub(super) changes_dir: bool,
}

impl Scope<'_> {
    /// A literal path that resolves inside the working directories and is
    /// not protected.
    fn path_inside(&self, word: &str) -> bool {
        // Words the shell would expand are not the paths they look like.
        if self.changes_dir
            || word.is_empty()
            || word.contains(['$', '`', '*', '?', '[', '{', '~', '\\'])
        {
            return false;
        }
        match paths::canonicalize(Path::new(word), self.cwd) {
            Ok(p) => writable_inside(&p, self.working_dirs, self.secrets),
            Err(_) => false,
        }
    }

    pub(super) fn redirect_inside(&self, r: &Redirect) -> bool {
        !r.dynamic && self.path_inside(&r.target)
    }

    /// `mkdir`, `touch`, `mv`, `cp` with plain flags and literal paths that
    /// all resolve inside the working directories (acceptEdits).
    pub(super) fn fs_command_inside(&self, command: &SimpleCommand) -> bool {
        let Some((program, args)) = command.argv.split_first() else {
            return false;
        };
        let flags: &[&str] = match program.as_str() {
            "mkdir" => &["-p", "--parents", "-v", "--verbose"],
            "touch" => &["-c", "--no-create"],
            "mv" | "cp" => COPY_MOVE_FLAGS,
            _ => return false,
        };
        let Some(paths) = path_args(args, flags) else {
            return false;
        };
        !paths.is_empty() && paths.iter().all(|p| self.path_inside(p))
    }

    /// Why a `cp` or `mv` in the line could carry a link somewhere a later
    /// write follows it, if it could: a source that is a link or holds
    /// one, or one too large to look through. Where the line's writes
    /// cannot be confined (`confined` false) also a source that is a
    /// directory, or that does not exist before the line runs (the line
    /// may create it as anything).
    pub(super) fn moved_links(&self, command: &SimpleCommand, confined: bool) -> Option<String> {
        let (program, args) = command.argv.split_first()?;
        if !matches!(program.as_str(), "cp" | "mv") {
            return None;
        }
        let paths = path_args(args, COPY_MOVE_FLAGS)?;
        let sources = match paths.split_last() {
            Some((_, sources)) if !sources.is_empty() => sources,
            _ => return None,
        };
        for source in sources {
            let Ok(at) = paths::canonicalize_parent(Path::new(source), self.cwd) else {
                return Some(format!("`{program} {source}`: the path cannot be resolved"));
            };
            let Ok(meta) = std::fs::symlink_metadata(&at) else {
                if confined {
                    continue;
                }
                return Some(format!(
                    "`{program} {source}` names a path that does not exist before the line runs"
                ));
            };
            if meta.file_type().is_symlink() {
                return Some(format!("`{program} {source}` moves a symbolic link"));
            }
            if !meta.is_dir() {
                continue;
            }
            match first_link(&at) {
                Ok(None) => {}
                Ok(Some(link)) => {
                    let shown = link.strip_prefix(self.cwd).unwrap_or(&link);
                    return Some(format!(
                        "`{program} {source}` carries the symbolic link {}",
                        shown.display()
                    ));
                }
                Err(why) => return Some(format!("`{program} {source}`: {why}")),
            }
            if !confined {
                return Some(format!(
                    "`{program} {source}` {} a directory, and nothing here confines where the \
                     line writes",
                    if program == "mv" { "renames" } else { "copies" }
                ));
            }
        }
        None
    }
}

/// The path arguments of `args` (options among `flags` skipped), or
/// `None` when an option is not among them.
fn path_args<'a>(args: &'a [String], flags: &[&str]) -> Option<Vec<&'a str>> {
    let mut out = Vec::new();
    let mut options_done = false;
    for arg in args {
        if !options_done && arg == "--" {
            options_done = true;
            continue;
        }
        if !options_done && arg.starts_with('-') && arg != "-" {
            if !flags.contains(&arg.as_str()) {
                return None;
            }
            continue;
        }
        out.push(arg.as_str());
    }
    Some(out)
}

/// The first symbolic link beneath the directory `dir` (links are not
/// followed), or why the tree could not be looked through.
fn first_link(dir: &Path) -> Result<Option<PathBuf>, String> {
    let mut pending = vec![dir.to_path_buf()];
    let mut seen = 0usize;
    while let Some(dir) = pending.pop() {
        let entries = std::fs::read_dir(&dir)
            .map_err(|e| format!("{} cannot be listed ({e})", dir.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("{} cannot be listed ({e})", dir.display()))?;
            seen += 1;
            if seen > MAX_TREE_ENTRIES {
                return Err(format!(
                    "the tree has more than {MAX_TREE_ENTRIES} entries to look through for links"
                ));
            }
            let kind = entry
                .file_type()
                .map_err(|e| format!("{} cannot be read ({e})", entry.path().display()))?;
            if kind.is_symlink() {
                return Ok(Some(entry.path()));
            }
            if kind.is_dir() {
                pending.push(entry.path());
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
#[path = "shell_writes_tests.rs"]
mod tests;
