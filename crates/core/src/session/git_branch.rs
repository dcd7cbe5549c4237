//! The git branch of a working directory, read from `.git/HEAD` without
//! running git (a process spawn would cost more than the whole session
//! start-up budget). Used to label transcripts for `catui sessions`.

use std::path::{Path, PathBuf};

/// What HEAD points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Head {
    /// A branch (the name after `refs/heads/`, or the full ref when HEAD
    /// points elsewhere), possibly unborn.
    Branch(String),
    /// A detached HEAD: the commit id as written in `HEAD`.
    Detached(String),
}

/// HEAD of the repository containing `cwd`, read from the git directory
/// (two small file reads, whatever the size of the repository). `None`
/// outside a repository or when HEAD is unreadable.
pub fn head(cwd: &Path) -> Option<Head> {
    let git_dir = find_git_dir(cwd)?;
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    let head = head.trim();
    if let Some(reference) = head.strip_prefix("ref:") {
        let reference = reference.trim();
        return Some(Head::Branch(
            reference
                .strip_prefix("refs/heads/")
                .unwrap_or(reference)
                .to_string(),
        ));
    }
    (!head.is_empty()).then(|| Head::Detached(head.to_string()))
}

/// The branch checked out in the repository containing `cwd`: the name
/// after `refs/heads/`, or the first 12 characters of the commit for a
/// detached HEAD. `None` outside a repository or when HEAD is unreadable.
pub fn current_branch(cwd: &Path) -> Option<String> {
    Some(match head(cwd)? {
        Head::Branch(name) => name,
        Head::Detached(id) => id.chars().take(12).collect(),
    })
}

/// The git directory of the repository containing `start`: a `.git`
/// folder, or the folder a `.git` file (worktrees, submodules) points to.
fn find_git_dir(start: &Path) -> Option<PathBuf> {
    for dir in start.ancestors() {
        let dot_git = dir.join(".git");
        if dot_git.is_dir() {
            return Some(dot_git);
        }
        if dot_git.is_file() {
            let text = std::fs::read_to_string(&dot_git).ok()?;
            let target = text.trim().strip_prefix("gitdir:")?.trim();
            let target = Path::new(target);
            return Some(if target.is_absolute() {
                target.to_path_buf()
            } else {
                dir.join(target)
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_detached_worktree_and_none() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("src/deep")).unwrap();
        std::fs::write(repo.join(".git/HEAD"), "ref: refs/heads/feature/x\n").unwrap();
        assert_eq!(
            current_branch(&repo.join("src/deep")).as_deref(),
            Some("feature/x")
        );

        std::fs::write(repo.join(".git/HEAD"), "0123456789abcdef0123\n").unwrap();
        assert_eq!(current_branch(&repo).as_deref(), Some("0123456789ab"));

        // A linked worktree: `.git` is a file pointing at the real git dir.
        let wt = dir.path().join("wt");
        let wt_git = dir.path().join("gitdirs/wt");
        std::fs::create_dir_all(&wt).unwrap();
        std::fs::create_dir_all(&wt_git).unwrap();
        std::fs::write(wt_git.join("HEAD"), "ref: refs/heads/sessions\n").unwrap();
        std::fs::write(wt.join(".git"), format!("gitdir: {}\n", wt_git.display())).unwrap();
        assert_eq!(current_branch(&wt).as_deref(), Some("sessions"));

        let plain = tempfile::tempdir().unwrap();
        // The temp dir may itself sit inside a repository; only check that
        // a folder with no HEAD anywhere does not panic.
        let _ = current_branch(plain.path());
    }
}
