//! The file gate: the one way catui reads a file *by itself* for the model
//! — memory files (`AGENTS.md`, `CLAUDE.md`) and their `@` imports, agent
//! definitions, plan files, the files a plan names, and (as they are
//! added) skills, custom commands and `@` mentions. The model's own reads
//! go through the Read tool and its permission check; what catui puts in
//! a prompt unasked goes through here, so that a file committed to a
//! repository cannot smuggle anything else in (a `CLAUDE.md` that links to
//! `/proc/self/environ` or to `../../home/u/.ssh/id_rsa`).
//!
//! A file passes only when it is
//!
//! - a regular file (no FIFO, device, socket or directory: opening cannot
//!   hang and reading is bounded, see [`crate::safe_fs`]);
//! - that *resolves*, after every symlink, inside one of the gate's roots
//!   — the session's working directories and catui's own directory, or a
//!   narrower root the caller names ([`FileGate::within`]: a skill's own
//!   folder, the directory a memory file was found in);
//! - that is not in a secret store ([`SecretStores`]: the list every layer
//!   shares, catui's settings and transcripts included);
//! - and that is not on a kernel file system (procfs, sysfs, debugfs,
//!   cgroupfs, ...), whose "regular files" are views of processes and
//!   devices.
//!
//! The checks are made on the file actually opened: its resolved name is
//! read back from the open descriptor and its file system from `fstatfs`,
//! so a link swapped between the check and the open changes nothing.
//!
//! A refusal is a [`GateRefusal`] whose text names the file and why; the
//! callers show it to the user (a start-up warning, a notification), never
//! drop it silently.
//!
//! ```no_run
//! use catui_core::file_gate::{FileGate, Limit};
//! use catui_core::permissions::secrets::SecretStores;
//! # use std::path::{Path, PathBuf};
//! let project = PathBuf::from("/src/app");
//! let gate = FileGate::for_session(
//!     std::slice::from_ref(&project),
//!     Path::new("/home/u/.catui"),
//!     SecretStores::for_user(&[], std::slice::from_ref(&project)),
//! );
//! match gate.read(&project.join("AGENTS.md"), Limit::Prefix(40 * 1024)) {
//!     Ok(file) => println!("{}", file.text()),
//!     Err(refusal) => eprintln!("catui: {refusal}"),
//! }
//! ```

use std::io::Read;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use crate::permissions::paths;
use crate::permissions::secrets::SecretStores;
use crate::safe_fs::{self, SafeReadError};

/// How much of a file a caller takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// The whole file, refused when larger than this many bytes.
    Whole(u64),
    /// At most this many bytes from the start (the rest is left out and
    /// [`GatedFile::truncated`] says so).
    Prefix(u64),
}

/// A file the gate let through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatedFile {
    /// Where it really is (every symlink resolved).
    pub resolved: PathBuf,
    /// Its bytes, or the first ones ([`Limit::Prefix`]).
    pub bytes: Vec<u8>,
    /// Its size when opened.
    pub size: u64,
    /// Whether bytes were left out.
    pub truncated: bool,
}

impl GatedFile {
    /// The bytes as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

/// Why the gate did not let a file through.
#[derive(Debug, thiserror::Error)]
pub enum GateRefusal {
    /// It resolves outside every root.
    #[error("{} was not read: it leads to {}, outside {}", path.display(), resolved.display(), roots)]
    Outside {
        path: PathBuf,
        resolved: PathBuf,
        /// The roots, in words.
        roots: String,
    },
    /// It resolves into a secret store.
    #[error("{} was not read: it leads to {}, a secret store", path.display(), resolved.display())]
    Secret { path: PathBuf, resolved: PathBuf },
    /// It is on a kernel file system (procfs, sysfs, ...).
    #[error("{} was not read: it leads to {}, which is {kind}, not a file", path.display(), resolved.display())]
    Kernel {
        path: PathBuf,
        resolved: PathBuf,
        kind: &'static str,
    },
    /// Missing, not a regular file, too large, unreadable.
    #[error(transparent)]
    Read(#[from] SafeReadError),
}

impl GateRefusal {
    /// Whether the file does not exist (callers that look for optional
    /// files skip those quietly; every other refusal is shown).
    pub fn is_not_found(&self) -> bool {
        matches!(self, GateRefusal::Read(e) if e.is_not_found())
    }
}

/// The gate: the roots files must resolve inside, and the secret stores
/// they must stay out of.
#[derive(Debug, Clone)]
pub struct FileGate {
    roots: Vec<PathBuf>,
    secrets: SecretStores,
}

impl FileGate {
    /// A gate letting through files beneath `roots` (canonicalised here)
    /// that are not in `secrets`.
    pub fn new(roots: impl IntoIterator<Item = PathBuf>, secrets: SecretStores) -> Self {
        let mut canonical: Vec<PathBuf> = Vec::new();
        for root in roots {
            let root = paths::canonicalize(&root, &root).unwrap_or(root);
            if !canonical.contains(&root) {
                canonical.push(root);
            }
        }
        FileGate {
            roots: canonical,
            secrets,
        }
    }

    /// The session's gate: its working directories (each with the git
    /// repository it is in, so that a sub-directory's file may link to
    /// the repository's own) and catui's own directory, the session's
    /// secret stores.
    pub fn for_session(working_dirs: &[PathBuf], config_dir: &Path, secrets: SecretStores) -> Self {
        let roots = working_dirs
            .iter()
            .flat_map(|d| std::iter::once(d.clone()).chain(repository_root(d)))
            .chain(std::iter::once(config_dir.to_path_buf()));
        Self::new(roots, secrets)
    }

    /// The same secret stores, with `root` as the only root: for files
    /// that must stay inside their own folder (a skill's files, the
    /// imports of a memory file found above the project).
    pub fn within(&self, root: &Path) -> FileGate {
        Self::new([root.to_path_buf()], self.secrets.clone())
    }

    /// The roots files must resolve inside.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// The home directory `~` stands for in paths the gate is given.
    pub fn home(&self) -> Option<&Path> {
        self.secrets.home()
    }

    /// Whether `path` (absolute) would pass, judged on its name alone
    /// (every symlink followed) without opening it: for listing files before reading
    /// them. [`FileGate::read`] checks again on the file it opens.
    pub fn admits(&self, path: &Path) -> Result<PathBuf, GateRefusal> {
        let resolved =
            paths::canonicalize(path, Path::new("/")).map_err(|e| SafeReadError::Io {
                path: path.to_path_buf(),
                source: std::io::Error::other(e),
            })?;
        self.judge(path, &resolved, kernel_by_name(&resolved))?;
        Ok(resolved)
    }

    /// Reads `path` if the gate lets it through (see the module docs).
    pub fn read(&self, path: &Path, limit: Limit) -> Result<GatedFile, GateRefusal> {
        // Judged by name first, so that nothing is even opened outside
        // (opening a device or a procfs file can have effects).
        self.admits(path)?;
        let (file, meta) = safe_fs::open_regular(path)?;
        // Then on what was opened: its real name and its file system.
        let resolved = opened_path(&file).unwrap_or_else(|| {
            paths::canonicalize(path, Path::new("/")).unwrap_or_else(|_| path.to_path_buf())
        });
        let kernel = kernel_file_system(&file).or_else(|| kernel_by_name(&resolved));
        self.judge(path, &resolved, kernel)?;
        let size = meta.len();
        let io = |source| SafeReadError::Io {
            path: path.to_path_buf(),
            source,
        };
        let (cap, whole) = match limit {
            Limit::Whole(max) => {
                if size > max {
                    return Err(SafeReadError::TooLarge {
                        path: path.to_path_buf(),
                        size,
                        limit: max,
                    }
                    .into());
                }
                (max, true)
            }
            Limit::Prefix(cap) => (cap, false),
        };
        let mut bytes = Vec::with_capacity(usize::try_from(size.min(cap)).unwrap_or(0));
        file.take(cap.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(io)?;
        let over = bytes.len() as u64 > cap;
        if over && whole {
            return Err(SafeReadError::TooLarge {
                path: path.to_path_buf(),
                size: bytes.len() as u64,
                limit: cap,
            }
            .into());
        }
        if over {
            bytes.truncate(usize::try_from(cap).unwrap_or(usize::MAX));
        }
        Ok(GatedFile {
            resolved,
            bytes,
            size,
            truncated: over,
        })
    }

    /// [`FileGate::read`] of the whole file as text, refused above `max`
    /// bytes.
    pub fn read_text(&self, path: &Path, max: u64) -> Result<String, GateRefusal> {
        self.read(path, Limit::Whole(max)).map(|f| f.text())
    }

    fn judge(
        &self,
        path: &Path,
        resolved: &Path,
        kernel: Option<&'static str>,
    ) -> Result<(), GateRefusal> {
        if let Some(kind) = kernel {
            return Err(GateRefusal::Kernel {
                path: path.to_path_buf(),
                resolved: resolved.to_path_buf(),
                kind,
            });
        }
        if self.secrets.is_secret(resolved) || self.secrets.is_secret(path) {
            return Err(GateRefusal::Secret {
                path: path.to_path_buf(),
                resolved: resolved.to_path_buf(),
            });
        }
        if !self.roots.iter().any(|r| paths::is_within(resolved, r)) {
            let roots: Vec<String> = self.roots.iter().map(|r| self.secrets.shown(r)).collect();
            return Err(GateRefusal::Outside {
                path: path.to_path_buf(),
                resolved: resolved.to_path_buf(),
                roots: roots.join(", "),
            });
        }
        Ok(())
    }
}

/// The work tree of the git repository `dir` is in: the nearest directory
/// at or above it holding a `.git` (a directory, or a file for worktrees
/// and submodules).
pub fn repository_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())
        .map(Path::to_path_buf)
}

/// The kernel file systems under their usual names.
const KERNEL_DIRS: &[(&str, &str)] = &[
    ("/proc", "procfs"),
    ("/sys", "sysfs"),
    ("/dev", "the device directory"),
];

fn kernel_by_name(resolved: &Path) -> Option<&'static str> {
    KERNEL_DIRS
        .iter()
        .find(|(dir, _)| resolved.starts_with(dir))
        .map(|(_, kind)| *kind)
}

/// The name the kernel has for the open file (`/proc/self/fd/N`), when
/// procfs is mounted.
fn opened_path(file: &std::fs::File) -> Option<PathBuf> {
    std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()
}

/// Which kernel file system the open file is on, if it is on one.
#[cfg(target_os = "linux")]
fn kernel_file_system(file: &std::fs::File) -> Option<&'static str> {
    // SAFETY: `statfs` is plain data that fstatfs fills; the fd is open
    // for the duration of the call (borrowed from `file`).
    #[allow(unsafe_code)]
    let stat = unsafe {
        let mut stat: libc::statfs = std::mem::zeroed();
        if libc::fstatfs(file.as_raw_fd(), &raw mut stat) != 0 {
            return None;
        }
        stat
    };
    let kinds = [
        (libc::PROC_SUPER_MAGIC, "procfs"),
        (libc::SYSFS_MAGIC, "sysfs"),
        (libc::DEBUGFS_MAGIC, "debugfs"),
        (libc::TRACEFS_MAGIC, "tracefs"),
        (libc::SECURITYFS_MAGIC, "securityfs"),
        (libc::CGROUP_SUPER_MAGIC, "cgroupfs"),
        (libc::CGROUP2_SUPER_MAGIC, "cgroupfs"),
        (libc::DEVPTS_SUPER_MAGIC, "devpts"),
        (libc::BPF_FS_MAGIC, "bpffs"),
    ];
    kinds
        .iter()
        .find(|(magic, _)| stat.f_type == *magic)
        .map(|(_, kind)| *kind)
}

#[cfg(not(target_os = "linux"))]
fn kernel_file_system(_file: &std::fs::File) -> Option<&'static str> {
    None
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
