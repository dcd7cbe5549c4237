//! Putting the project's files back as a snapshot had them: each path
//! that differs is rewritten from the snapshot's content (with its mode,
//! symlinks as symlinks), and files the snapshot did not have are deleted
//! (with the folders that held only them).
//!
//! Nothing outside the project is touched: paths must be plain relative
//! paths, and a path whose folder is (now) a symlink is refused, not
//! followed. Every blob is read before the first file changes, so a
//! missing object stops the restore before it starts.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::CheckpointError;
use super::shadow::{Blob, Change, ShadowRepo, path_from_bytes};

/// What a restore did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Restored {
    /// Files written back (changed or deleted since).
    pub written: Vec<String>,
    /// Files deleted (new since).
    pub deleted: Vec<String>,
    /// Paths refused because a folder on their way is a symlink (or the
    /// path is not a plain relative path), with why.
    pub refused: Vec<String>,
}

/// What restoring `changes` (from the target snapshot, `before`, to the
/// files now, `after`) would write and delete; paths in `keep` stay as
/// they are.
pub fn plan(changes: &[Change], keep: &HashSet<String>) -> (Vec<String>, Vec<String>) {
    let mut write = Vec::new();
    let mut delete = Vec::new();
    for change in changes.iter().filter(|c| !keep.contains(&c.path)) {
        match &change.before {
            Some(blob) if blob.mode == GITLINK => {}
            Some(_) => write.push(change.path.clone()),
            None => delete.push(change.path.clone()),
        }
    }
    (write, delete)
}

/// A git mode for a nested repository's commit: nothing to restore.
const GITLINK: &str = "160000";
const SYMLINK: &str = "120000";
const EXECUTABLE: &str = "100755";

/// Restores the files `changes` name (see [`plan`]).
pub fn restore(
    repo: &ShadowRepo,
    changes: &[Change],
    keep: &HashSet<String>,
) -> Result<Restored, CheckpointError> {
    let root = repo.project();
    let mut done = Restored::default();
    let wanted: Vec<(&String, &Blob)> = changes
        .iter()
        .filter(|c| !keep.contains(&c.path))
        .filter_map(|c| c.before.as_ref().map(|b| (&c.path, b)))
        .filter(|(_, b)| b.mode != GITLINK)
        .collect();
    let ids: Vec<String> = wanted.iter().map(|(_, b)| b.id.clone()).collect();
    let contents = repo.git().read_blobs(&ids)?;

    // New files first (deepest first), so a folder that became a file (or
    // the other way round) is free before it is written.
    let mut deletions: Vec<&Change> = changes
        .iter()
        .filter(|c| c.before.is_none() && !keep.contains(&c.path))
        .collect();
    deletions.sort_by_key(|c| std::cmp::Reverse(c.path.matches('/').count()));
    for change in deletions {
        let target = match inside(root, &change.path) {
            Ok(t) => t,
            Err(why) => {
                done.refused.push(format!("{} ({why})", change.path));
                continue;
            }
        };
        match std::fs::remove_file(&target) {
            Ok(()) => {
                done.deleted.push(change.path.clone());
                remove_empty_parents(root, &target);
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(CheckpointError::Io {
                    what: format!("delete {}", target.display()),
                    source,
                });
            }
        }
    }
    for ((path, blob), content) in wanted.into_iter().zip(contents) {
        let target = match inside(root, path) {
            Ok(t) => t,
            Err(why) => {
                done.refused.push(format!("{path} ({why})"));
                continue;
            }
        };
        write_entry(&target, blob, &content).map_err(|source| CheckpointError::Io {
            what: format!("restore {}", target.display()),
            source,
        })?;
        done.written.push(path.clone());
    }
    Ok(done)
}

/// `root/rel` when `rel` is a plain relative path whose existing folders
/// are real folders inside `root` (not symlinks).
fn inside(root: &Path, rel: &str) -> Result<PathBuf, &'static str> {
    let rel_path = path_from_bytes(rel.as_bytes());
    if rel_path
        .components()
        .any(|c| !matches!(c, Component::Normal(_)))
    {
        return Err("not a plain path inside the project");
    }
    let mut at = root.to_path_buf();
    let parts: Vec<_> = rel_path.components().collect();
    for part in &parts[..parts.len().saturating_sub(1)] {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err("a folder on its way is a symlink; not followed");
            }
            Ok(meta) if !meta.is_dir() => return Err("a folder on its way is a file"),
            Ok(_) => {}
            // Missing folders are created as real folders.
            Err(_) => break,
        }
    }
    Ok(root.join(rel_path))
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes one snapshot entry at `target`: a file through a temporary file
/// renamed over it (a symlink there is replaced, never followed), or a
/// symlink.
fn write_entry(target: &Path, blob: &Blob, content: &[u8]) -> std::io::Result<()> {
    let dir = target.parent().unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(dir)?;
    if let Ok(meta) = std::fs::symlink_metadata(target)
        && meta.is_dir()
    {
        // Only an empty folder can be in the way here (its files were
        // deleted first); anything else is an error, not a loss.
        std::fs::remove_dir(target)?;
    }
    if blob.mode == SYMLINK {
        let _ = std::fs::remove_file(target);
        #[cfg(unix)]
        {
            let link = path_from_bytes(content);
            return std::os::unix::fs::symlink(link, target);
        }
        #[cfg(not(unix))]
        {
            return std::fs::write(target, content);
        }
    }
    let tmp = dir.join(format!(
        ".catui-restore-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        file.write_all(content)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = if blob.mode == EXECUTABLE {
                0o755
            } else {
                0o644
            };
            file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
        drop(file);
        std::fs::rename(&tmp, target)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Removes the folders above `path` that are now empty, up to `root`.
fn remove_empty_parents(root: &Path, path: &Path) {
    let mut dir = path.parent();
    while let Some(d) = dir {
        if d == root || !d.starts_with(root) || std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_relative_paths_under_real_folders() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("real")).unwrap();
        let outside = tempfile::tempdir().unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path(), root.join("link")).unwrap();
        assert!(inside(root, "real/a.txt").is_ok());
        assert!(inside(root, "new/deeper/a.txt").is_ok());
        assert!(inside(root, "../escape.txt").is_err());
        assert!(inside(root, "/etc/passwd").is_err());
        #[cfg(unix)]
        assert!(inside(root, "link/a.txt").is_err());
    }

    #[test]
    fn empty_folders_above_a_deleted_file_go() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("a/b/c")).unwrap();
        std::fs::write(root.join("a/keep.txt"), "k").unwrap();
        std::fs::write(root.join("a/b/c/new.txt"), "n").unwrap();
        std::fs::remove_file(root.join("a/b/c/new.txt")).unwrap();
        remove_empty_parents(root, &root.join("a/b/c/new.txt"));
        assert!(!root.join("a/b").exists());
        assert!(root.join("a/keep.txt").exists());
    }
}
