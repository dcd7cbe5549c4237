//! Operating-system confinement of shell commands: the last line of defence
//! behind the read-only analysis of [`super::shell`].
//!
//! A [`SandboxPolicy`] says where a command may write. On Linux it is
//! enforced with Landlock: the ruleset is built in the parent (which may
//! allocate and report errors normally), and the child only makes two
//! async-signal-safe system calls between `fork` and `exec`
//! (`prctl(PR_SET_NO_NEW_PRIVS)` and `landlock_restrict_self`). Reading stays
//! allowed everywhere; writing is allowed only beneath the policy's
//! writable directories and to `/dev/null`.
//!
//! Where the kernel has no Landlock, [`sandbox_status`] says
//! `"unavailable"` and commands run unconfined (the analysis still applies).

use std::path::PathBuf;
use std::sync::OnceLock;

/// Where a shell command may write.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum SandboxPolicy {
    /// No confinement.
    #[default]
    None,
    /// Writes only into a private temporary directory (plan mode). The
    /// directory is created if missing and exported as `TMPDIR`.
    ReadOnlyExceptTemp { temp_dir: PathBuf },
    /// Writes only beneath these directories.
    WorkingDirs { writable: Vec<PathBuf> },
}

impl SandboxPolicy {
    /// The directories writes are confined to, or `None` when unconfined.
    pub fn writable_paths(&self) -> Option<Vec<PathBuf>> {
        match self {
            SandboxPolicy::None => None,
            SandboxPolicy::ReadOnlyExceptTemp { temp_dir } => Some(vec![temp_dir.clone()]),
            SandboxPolicy::WorkingDirs { writable } => Some(writable.clone()),
        }
    }
}

/// How a command was set up to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confinement {
    /// The policy asked for none.
    Unconfined,
    /// Landlock restrictions are applied in the child before `exec`.
    Landlock,
    /// The policy asked for confinement but the kernel cannot enforce it;
    /// the command runs unconfined.
    Unavailable,
}

/// Why a command could not be prepared for confinement.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("cannot prepare the sandbox directory {path}: {source}. Check that it can be created.")]
    Directory {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot build the Landlock rules ({0}); the command was not run")]
    Ruleset(String),
}

/// `"landlock"` when this kernel can confine commands, else `"unavailable"`.
pub fn sandbox_status() -> &'static str {
    static STATUS: OnceLock<&'static str> = OnceLock::new();
    STATUS.get_or_init(|| {
        if imp::landlock_supported() {
            "landlock"
        } else {
            "unavailable"
        }
    })
}

/// Arranges for `cmd` to run under `policy`. Call before spawning; the
/// restriction applies to the child and everything it starts.
pub fn confine(
    cmd: &mut tokio::process::Command,
    policy: &SandboxPolicy,
) -> Result<Confinement, SandboxError> {
    let Some(writable) = policy.writable_paths() else {
        return Ok(Confinement::Unconfined);
    };
    if let SandboxPolicy::ReadOnlyExceptTemp { temp_dir } = policy {
        std::fs::create_dir_all(temp_dir).map_err(|source| SandboxError::Directory {
            path: temp_dir.clone(),
            source,
        })?;
        // Tools that need scratch files then find a place they may write.
        cmd.env("TMPDIR", temp_dir);
    }
    imp::confine(cmd, &writable)
}

#[cfg(target_os = "linux")]
mod imp {
    use std::os::fd::{AsRawFd, OwnedFd};
    use std::path::PathBuf;

    use landlock::{
        ABI, Access, AccessFs, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
        RulesetCreatedAttr,
    };

    use super::{Confinement, SandboxError};

    /// The newest filesystem rights this code knows; older kernels get the
    /// subset they support (best effort).
    const ABI_USED: ABI = ABI::V5;

    pub(super) fn landlock_supported() -> bool {
        Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(AccessFs::from_all(ABI::V1))
            .and_then(|r| r.create())
            .is_ok()
    }

    fn ruleset(writable: &[PathBuf]) -> Result<Option<OwnedFd>, SandboxError> {
        let err = |e: &dyn std::fmt::Display| SandboxError::Ruleset(e.to_string());
        let open = |p: &std::path::Path| {
            PathFd::new(p).map_err(|e| SandboxError::Ruleset(format!("{}: {e}", p.display())))
        };
        let mut created = Ruleset::default()
            .handle_access(AccessFs::from_all(ABI_USED))
            .map_err(|e| err(&e))?
            .create()
            .map_err(|e| err(&e))?
            .add_rule(PathBeneath::new(
                open("/".as_ref())?,
                AccessFs::from_read(ABI_USED),
            ))
            .map_err(|e| err(&e))?
            .add_rule(PathBeneath::new(
                open("/dev/null".as_ref())?,
                AccessFs::from_file(ABI_USED),
            ))
            .map_err(|e| err(&e))?;
        for dir in writable {
            // A writable directory that does not exist has nothing to allow.
            if !dir.exists() {
                tracing::debug!(path = %dir.display(), "sandbox: skipping missing writable directory");
                continue;
            }
            created = created
                .add_rule(PathBeneath::new(open(dir)?, AccessFs::from_all(ABI_USED)))
                .map_err(|e| err(&e))?;
        }
        Ok(created.into())
    }

    pub(super) fn confine(
        cmd: &mut tokio::process::Command,
        writable: &[PathBuf],
    ) -> Result<Confinement, SandboxError> {
        match ruleset(writable)? {
            Some(fd) => {
                restrict_child(cmd, fd);
                Ok(Confinement::Landlock)
            }
            None => {
                tracing::warn!("Landlock is not available; running the command unconfined");
                Ok(Confinement::Unavailable)
            }
        }
    }

    /// Restricts the child with the ruleset `fd` between fork and exec.
    #[allow(unsafe_code)]
    fn restrict_child(cmd: &mut tokio::process::Command, fd: OwnedFd) {
        // SAFETY: the closure runs in the forked child before exec, where
        // only async-signal-safe calls are allowed. It makes two raw system
        // calls on an integer fd owned by the closure (kept open until the
        // Command is dropped, closed in the child by O_CLOEXEC at exec) and
        // builds an `io::Error` from errno, which does not allocate. No
        // locks are taken and no memory is allocated.
        unsafe {
            cmd.pre_exec(move || {
                let raw = fd.as_raw_fd();
                if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                if libc::syscall(libc::SYS_landlock_restrict_self, raw, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::path::PathBuf;

    use super::{Confinement, SandboxError};

    pub(super) fn landlock_supported() -> bool {
        false
    }

    pub(super) fn confine(
        _cmd: &mut tokio::process::Command,
        _writable: &[PathBuf],
    ) -> Result<Confinement, SandboxError> {
        Ok(Confinement::Unavailable)
    }
}
