//! The shadow repository of one project: a git repository in catui's
//! data directory (`$CATUI_CONFIG_DIR/checkpoints/<project>/`) whose work
//! tree is the project, with its own index. A snapshot records every file
//! git would see (`.gitignore` honoured, the project's `.git/info/exclude`
//! too) as a commit on the session's line (`refs/catui/sessions/<id>`), so
//! changes made by any means — Write, Edit, a shell command, a sub-agent —
//! are in it.
//!
//! Cost: a snapshot asks `git status` what changed since the index (one
//! `lstat` per file, directories skipped through the untracked cache) and
//! hashes only those files. The very first snapshot of a project hashes
//! every file (its own index starts empty: the project's index holds
//! contents after `.gitattributes` conversions, not the bytes on disk),
//! but in a git project the project's objects are alternates, so files as
//! committed are not stored a second time.
//!
//! Bounds: a file over [`Limits::max_file_bytes`] (a binary one over
//! [`Limits::max_binary_bytes`]) and nested repositories are left out and
//! named ([`Snapshot::skipped`]); more than [`Limits::max_changed_files`]
//! changed files at once refuse the snapshot. Sessions whose transcript is
//! older than [`KEEP_FOR`] lose their line at the next cleanup.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::CheckpointError;
use super::git::{ShadowGit, project_git};

pub use cleanup::KEEP_FOR;

#[path = "cleanup.rs"]
mod cleanup;

/// Lines a change adds and removes in one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileLines {
    /// Relative to the project.
    pub path: String,
    pub insertions: u64,
    pub deletions: u64,
}

/// What a snapshot may take in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Larger files are left out of checkpoints.
    pub max_file_bytes: u64,
    /// Larger files that look binary (a NUL byte at the start) are left out.
    pub max_binary_bytes: u64,
    /// A snapshot that would take in more changed files than this is
    /// refused (catui started in a home directory, a fresh `node_modules`
    /// that is not ignored).
    pub max_changed_files: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_file_bytes: 8 * 1024 * 1024,
            max_binary_bytes: 2 * 1024 * 1024,
            max_changed_files: 100_000,
        }
    }
}

/// The project's files at a moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    pub commit: String,
    pub tree: String,
    /// Paths left out (a rewind leaves them as they are).
    pub skipped: Vec<String>,
    /// The same, each with why (`big.bin (12.0 MiB, over the 8.0 MiB
    /// limit)`).
    pub skipped_why: Vec<String>,
    /// The paths this snapshot found changed since the one before it.
    pub changed: Vec<String>,
}

/// A path whose content differs between two snapshots: its entry in each
/// (`None` where it does not exist).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub path: String,
    pub before: Option<Blob>,
    pub after: Option<Blob>,
}

/// A file in a snapshot: its git mode (`100644`, `100755`, `120000`) and
/// blob id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blob {
    pub mode: String,
    pub id: String,
}

/// One project's shadow repository.
#[derive(Debug, Clone)]
pub struct ShadowRepo {
    git: ShadowGit,
    limits: Limits,
    /// `$CATUI_CONFIG_DIR/checkpoints`, where every project's repository is.
    root: PathBuf,
    /// The project's own git directory (its exclude file applies).
    project_git_dir: Option<PathBuf>,
}

impl ShadowRepo {
    /// The shadow repository of `project` under `config_dir` (nothing is
    /// created until the first snapshot).
    pub fn new(config_dir: &Path, project: &Path) -> Self {
        let root = config_dir.join("checkpoints");
        let git_dir = root.join(crate::session::sanitize_cwd(project));
        let project_git = project_git(project);
        ShadowRepo {
            git: ShadowGit {
                git_dir,
                work_tree: project.to_path_buf(),
                alternates: project_git.as_ref().map(|(objects, _)| objects.clone()),
            },
            limits: Limits::default(),
            root,
            project_git_dir: project_git.map(|(_, git_dir)| git_dir),
        }
    }

    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Where the repository is.
    pub fn dir(&self) -> &Path {
        &self.git.git_dir
    }

    pub fn project(&self) -> &Path {
        &self.git.work_tree
    }

    pub fn git(&self) -> &ShadowGit {
        &self.git
    }

    /// Holds the repository for one operation (other sessions of the same
    /// project wait): an advisory lock the kernel drops with the process.
    fn lock(&self) -> Result<File, CheckpointError> {
        std::fs::create_dir_all(&self.git.git_dir).map_err(|source| CheckpointError::Io {
            what: format!("create {}", self.git.git_dir.display()),
            source,
        })?;
        let path = self.git.git_dir.join("catui.lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|source| CheckpointError::Io {
                what: format!("open {}", path.display()),
                source,
            })?;
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive).map_err(|e| {
            CheckpointError::Io {
                what: format!("lock {}", path.display()),
                source: e.into(),
            }
        })?;
        Ok(file)
    }

    /// Creates the repository the first time: git's layout and catui's
    /// configuration.
    fn ensure_init(&self) -> Result<(), CheckpointError> {
        let dir = &self.git.git_dir;
        if dir.join("HEAD").is_file() {
            return self.copy_excludes();
        }
        let mut init = std::process::Command::new("git");
        init.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .args(["init", "--quiet", "--bare"])
            .arg(dir)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        let out = init.output().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => CheckpointError::GitMissing,
            _ => CheckpointError::Io {
                what: "start git init".into(),
                source: e,
            },
        })?;
        if !out.status.success() {
            return Err(CheckpointError::Git {
                command: "init".into(),
                message: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            });
        }
        let config = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\
                      \tlogallrefupdates = false\n\thooksPath = /dev/null\n\tfsmonitor = false\n\
                      \tuntrackedCache = true\n\tautocrlf = false\n\tsymlinks = true\n\
                      \tquotePath = false\n\tsplitIndex = true\n[gc]\n\tauto = 0\n\
                      [index]\n\tversion = 4\n";
        std::fs::write(dir.join("config"), config).map_err(|source| CheckpointError::Io {
            what: format!("write {}", dir.join("config").display()),
            source,
        })?;
        // Never needed, and the less of git's sample machinery the better.
        let _ = std::fs::remove_dir_all(dir.join("hooks"));
        self.copy_excludes()
    }

    /// The project's `.git/info/exclude` applies to its checkpoints too.
    fn copy_excludes(&self) -> Result<(), CheckpointError> {
        let Some(project_git_dir) = &self.project_git_dir else {
            return Ok(());
        };
        let source = project_git_dir.join("info").join("exclude");
        let target = self.git.git_dir.join("info").join("exclude");
        let wanted = std::fs::read(&source).unwrap_or_default();
        if std::fs::read(&target).ok().as_deref() == Some(wanted.as_slice()) {
            return Ok(());
        }
        std::fs::create_dir_all(self.git.git_dir.join("info"))
            .and_then(|()| std::fs::write(&target, wanted))
            .map_err(|source| CheckpointError::Io {
                what: format!("write {}", target.display()),
                source,
            })
    }

    /// Takes a snapshot on the line of session `line` (a sanitized id):
    /// a new commit whose parent is `parent`, or `parent` itself when the
    /// files have not changed since it.
    ///
    /// `only`: the paths that may have changed since `parent` (from
    /// [`super::watch`]); git then looks at those alone. `None`: every file.
    pub fn snapshot(
        &self,
        line: &str,
        parent: Option<&Snapshot>,
        only: Option<&BTreeSet<PathBuf>>,
    ) -> Result<Snapshot, CheckpointError> {
        let _lock = self.lock()?;
        self.ensure_init()?;
        let mut args: Vec<std::ffi::OsString> = [
            "--literal-pathspecs",
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--no-renames",
            "--ignore-submodules=all",
        ]
        .iter()
        .map(Into::into)
        .collect();
        if let Some(paths) = only {
            args.push("--".into());
            args.extend(paths.iter().map(|p| p.as_os_str().to_os_string()));
        }
        let status = self.git.run(&args)?;
        let mut update: Vec<&[u8]> = Vec::new();
        let mut drop_from_index: Vec<&[u8]> = Vec::new();
        let mut skipped = Vec::new();
        let mut skipped_why = Vec::new();
        for record in status.split(|b| *b == 0).filter(|r| r.len() > 3) {
            let (x, y, path) = (record[0], record[1], &record[3..]);
            let untracked = x == b'?' && y == b'?';
            if untracked && path.ends_with(b"/") {
                let name = String::from_utf8_lossy(path);
                skipped_why.push(format!("{name} (a nested git repository)"));
                skipped.push(name.trim_end_matches('/').to_string());
                continue;
            }
            if !(untracked || matches!(y, b'M' | b'T' | b'D')) {
                continue;
            }
            if let Some(link) = self.link_on_the_way(path) {
                // A folder on its way became a symlink (`mv d d.old && ln -s
                // x d`): the path is gone from the tree (the link itself is
                // taken as a link); git refuses to look beyond it.
                let name = String::from_utf8_lossy(path).into_owned();
                skipped_why.push(format!(
                    "{name} (the folder {link} on its way is now a symbolic link; not followed)"
                ));
                skipped.push(name);
                if !untracked {
                    drop_from_index.push(path);
                }
                continue;
            }
            match self.too_big(path) {
                Some(why) => {
                    let name = String::from_utf8_lossy(path).into_owned();
                    skipped_why.push(format!("{name} ({why})"));
                    skipped.push(name);
                    if !untracked {
                        drop_from_index.push(path);
                    }
                }
                None => update.push(path),
            }
        }
        if update.len() > self.limits.max_changed_files {
            return Err(CheckpointError::TooManyChanges {
                count: update.len(),
                limit: self.limits.max_changed_files,
            });
        }
        let changed: Vec<String> = update
            .iter()
            .chain(drop_from_index.iter())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect();
        if !update.is_empty() {
            self.git.run_with_input(
                &[
                    "update-index",
                    "--add",
                    "--remove",
                    "--replace",
                    "-z",
                    "--stdin",
                ],
                Some(&nul_joined(&update)),
            )?;
        }
        if !drop_from_index.is_empty() {
            self.git.run_with_input(
                &["update-index", "--force-remove", "-z", "--stdin"],
                Some(&nul_joined(&drop_from_index)),
            )?;
        }
        let tree = self.git.run_line(&["write-tree"])?;
        if let Some(parent) = parent
            && parent.tree == tree
        {
            return Ok(Snapshot {
                commit: parent.commit.clone(),
                tree,
                skipped,
                skipped_why,
                changed,
            });
        }
        let mut args = vec!["commit-tree".to_string(), tree.clone()];
        if let Some(parent) = parent {
            args.extend(["-p".to_string(), parent.commit.clone()]);
        }
        args.extend(["-m".to_string(), "catui checkpoint".to_string()]);
        let commit = self.git.run_line(&args)?;
        // The line keeps the commit (and its ancestors) from cleanup; HEAD
        // is the index's tree, so `status` compares with it for free. Both
        // are written as git writes loose refs, without a process each.
        self.write_ref(&line_ref(line), &commit)?;
        self.write_ref("HEAD", &commit)?;
        Ok(Snapshot {
            commit,
            tree,
            skipped,
            skipped_why,
            changed,
        })
    }

    /// Points the loose ref `name` (or a detached `HEAD`) at `commit`:
    /// the file replaced in one rename.
    fn write_ref(&self, name: &str, commit: &str) -> Result<(), CheckpointError> {
        let path = self.git.git_dir.join(name);
        let io = |source| CheckpointError::Io {
            what: format!("write {}", path.display()),
            source,
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let tmp = path.with_extension("catui-lock");
        std::fs::write(&tmp, format!("{commit}\n"))
            .and_then(|()| std::fs::rename(&tmp, &path))
            .map_err(io)
    }

    /// The first folder on the way to `path` (relative) that is a
    /// symbolic link now, if one is.
    fn link_on_the_way(&self, path: &[u8]) -> Option<String> {
        let rel = path_from_bytes(path);
        let mut at = self.git.work_tree.clone();
        let parents: Vec<_> = rel.parent()?.components().collect();
        for part in parents {
            at.push(part);
            if std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
                let shown = at.strip_prefix(&self.git.work_tree).unwrap_or(&at);
                return Some(shown.display().to_string());
            }
        }
        None
    }

    /// Why the file at `path` (relative) is left out, if it is.
    fn too_big(&self, path: &[u8]) -> Option<String> {
        let full = self.git.work_tree.join(path_from_bytes(path));
        let meta = std::fs::symlink_metadata(&full).ok()?;
        if !meta.is_file() {
            return None;
        }
        let size = meta.len();
        let mib = |n: u64| format!("{:.1} MiB", n as f64 / (1024.0 * 1024.0));
        if size > self.limits.max_file_bytes {
            return Some(format!(
                "{}, over the {} limit",
                mib(size),
                mib(self.limits.max_file_bytes)
            ));
        }
        if size > self.limits.max_binary_bytes && looks_binary(&full) {
            return Some(format!(
                "binary, {}, over the {} limit for binary files",
                mib(size),
                mib(self.limits.max_binary_bytes)
            ));
        }
        None
    }

    /// The paths whose content differs between commits `from` and `to`.
    pub fn changes(&self, from: &str, to: &str) -> Result<Vec<Change>, CheckpointError> {
        if from == to {
            return Ok(Vec::new());
        }
        let out = self
            .git
            .run(&["diff-tree", "-r", "-z", "--no-renames", "--raw", from, to])?;
        Ok(parse_raw_diff(&out))
    }

    /// Lines added and removed between `from` and `to`, per file, in the
    /// order git lists them (binary files count nothing).
    pub fn file_line_counts(
        &self,
        from: &str,
        to: &str,
    ) -> Result<Vec<FileLines>, CheckpointError> {
        if from == to {
            return Ok(Vec::new());
        }
        let out = self.git.run(&[
            "diff-tree",
            "-r",
            "-z",
            "--no-renames",
            "--numstat",
            from,
            to,
        ])?;
        // With -z and no renames each record is `added TAB removed TAB path`.
        Ok(out
            .split(|b| *b == 0)
            .filter_map(|record| {
                let text = String::from_utf8_lossy(record);
                let mut parts = text.splitn(3, '\t');
                let (a, r, path) = (parts.next()?, parts.next()?, parts.next()?);
                Some(FileLines {
                    path: path.to_string(),
                    insertions: a.trim().parse().unwrap_or(0),
                    deletions: r.trim().parse().unwrap_or(0),
                })
            })
            .collect())
    }

    /// The tree of `commit`, or `None` when the repository no longer has
    /// it (cleaned up).
    pub fn tree_of(&self, commit: &str) -> Option<String> {
        self.git
            .run_line(&[
                "rev-parse",
                "--verify",
                "--quiet",
                &format!("{commit}^{{tree}}"),
            ])
            .ok()
            .filter(|t| !t.is_empty())
    }

    /// Makes `commit` the tip of `line` unless the line exists already (a
    /// fork's first use: its copied checkpoints stay reachable even when
    /// the parent session is cleaned up).
    pub fn adopt(&self, line: &str, commit: &str) -> Result<(), CheckpointError> {
        let name = line_ref(line);
        if self
            .git
            .run(&["rev-parse", "--verify", "--quiet", &name])
            .is_ok()
        {
            return Ok(());
        }
        self.git.run(&["update-ref", &name, commit]).map(|_| ())
    }
}

/// The ref of a session's line of checkpoints.
fn line_ref(line: &str) -> String {
    let safe: String = line
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("refs/catui/sessions/{safe}")
}

fn nul_joined(paths: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for p in paths {
        out.extend_from_slice(p);
        out.push(0);
    }
    out
}

/// A path as git wrote it (bytes) as a path of this system.
pub fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
    }
    #[cfg(not(unix))]
    {
        PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// Whether the file starts with a NUL byte in its first 8000 bytes (git's
/// own test for binary content).
fn looks_binary(path: &Path) -> bool {
    let Ok(file) = File::open(path) else {
        return false;
    };
    let mut head = Vec::with_capacity(8000);
    if file.take(8000).read_to_end(&mut head).is_err() {
        return false;
    }
    head.contains(&0)
}

/// Parses `git diff-tree -z --raw`: `:old_mode new_mode old_id new_id
/// status\0path\0` per change.
fn parse_raw_diff(out: &[u8]) -> Vec<Change> {
    let mut changes = Vec::new();
    let mut fields = out.split(|b| *b == 0);
    while let Some(meta) = fields.next() {
        if meta.is_empty() {
            continue;
        }
        let Some(path) = fields.next() else {
            break;
        };
        let meta = String::from_utf8_lossy(meta);
        let parts: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
        let [old_mode, new_mode, old_id, new_id, _status] = parts.as_slice() else {
            continue;
        };
        let side = |mode: &str, id: &str| {
            (mode != "000000").then(|| Blob {
                mode: mode.to_string(),
                id: id.to_string(),
            })
        };
        changes.push(Change {
            path: String::from_utf8_lossy(path).into_owned(),
            before: side(old_mode, old_id),
            after: side(new_mode, new_id),
        });
    }
    changes
}

#[cfg(test)]
#[path = "shadow_tests.rs"]
mod tests;
