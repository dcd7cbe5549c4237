//! Layer 2: Landlock.
//!
//! The ruleset is an allow-list built in the parent (or the inner stage)
//! and applied in the child right before `exec` ([`restrict`], one system
//! call):
//!
//! - reading and executing everywhere except the secret stores: every
//!   directory on the way to a store may be listed, each of its other
//!   entries read, the store itself not at all; of `/dev` only `null`,
//!   `zero`, `full`, `random` and `urandom` (not disks, memory or
//!   terminals);
//! - writing only beneath the writable directories and to `/dev/null`;
//! - no TCP `bind` or `connect` (ABI 4), except to the in-sandbox proxy
//!   forwarder when the network goes through the proxy;
//! - the scopes (ABI 6): no connection to abstract unix sockets and no
//!   signal outside the sandbox. Landlock also refuses `ptrace` — and so
//!   `/proc/PID/environ` — of any process outside the sandbox.

use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, NetPort, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, Scope,
};

use crate::{Confinement, Network, PROXY_PORT, SandboxError};

/// The newest file-system rights this code knows; older kernels get the
/// subset they support.
const FS_ABI: ABI = ABI::V9;

/// The devices a confined command may open.
const DEVICES: &[&str] = &["null", "zero", "full", "random", "urandom"];

/// The Landlock ABI version of this kernel (0 without Landlock); probed
/// by [`crate::layers`], which says what works on this machine.
pub use crate::layers::landlock_abi as abi_version;

/// The ruleset for `c`, as a file descriptor to pass to [`restrict`];
/// `None` when the kernel has no Landlock.
pub fn ruleset(c: &Confinement) -> Result<Option<OwnedFd>, SandboxError> {
    let version = abi_version();
    if version == 0 {
        return Ok(None);
    }
    let abi = ABI::from(i32::from(version));
    let err = |e: landlock::RulesetError| SandboxError::Landlock(e.to_string());
    let mut handled = AccessFs::from_all(FS_ABI);
    if c.unix_sockets {
        // Connecting to sockets on disk stays allowed (ABI 9).
        handled.remove(AccessFs::ResolveUnix);
    }
    let mut ruleset = Ruleset::default().handle_access(handled).map_err(err)?;
    if version >= 4 {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(err)?;
    }
    if version >= crate::layers::LANDLOCK_SCOPES_ABI {
        ruleset = ruleset.scope(Scope::from_all(abi)).map_err(err)?;
    }
    let mut created = ruleset.create().map_err(err)?;
    let hidden = c.hidden_paths();
    let reads = read_rules(&hidden);
    for (path, access) in &reads {
        created = add(created, path, *access & handled)?;
    }
    created = add(
        created,
        Path::new("/dev/null"),
        AccessFs::from_file(FS_ABI) & handled,
    )?;
    for dir in c.writable_dirs() {
        created = add(created, &dir, handled)?;
    }
    if let Network::Proxy { .. } = c.network {
        created = created
            .add_rule(NetPort::new(PROXY_PORT, AccessNet::ConnectTcp))
            .map_err(err)?;
    }
    Ok(created.into())
}

fn add(
    created: RulesetCreated,
    path: &Path,
    access: BitFlags<AccessFs>,
) -> Result<RulesetCreated, SandboxError> {
    let fd = match PathFd::new(path) {
        Ok(fd) => fd,
        // Gone since it was listed: nothing to allow.
        Err(_) if std::fs::symlink_metadata(path).is_err() => return Ok(created),
        Err(e) => {
            return Err(SandboxError::Landlock(format!("{}: {e}", path.display())));
        }
    };
    created
        .add_rule(PathBeneath::new(fd, access))
        .map_err(|e| SandboxError::Landlock(format!("{}: {e}", path.display())))
}

/// The read rules: what may be read (and executed) beneath each path.
/// Directories that lead to a hidden path may only be listed; their other
/// entries are readable; the hidden paths get nothing.
pub fn read_rules(hidden: &[PathBuf]) -> Vec<(PathBuf, BitFlags<AccessFs>)> {
    let mut out = Vec::new();
    visit(Path::new("/"), hidden, &mut out);
    out
}

fn visit(dir: &Path, hidden: &[PathBuf], out: &mut Vec<(PathBuf, BitFlags<AccessFs>)>) {
    let read = AccessFs::from_read(FS_ABI);
    if hidden.iter().any(|h| h == dir) {
        return;
    }
    let is_dev = dir == Path::new("/dev");
    // `/` is always entered, to reach `/dev`.
    let leads_somewhere = dir == Path::new("/") || hidden.iter().any(|h| h.starts_with(dir));
    if !is_dev && !leads_somewhere {
        out.push((dir.to_path_buf(), read));
        return;
    }
    out.push((dir.to_path_buf(), AccessFs::ReadDir.into()));
    if is_dev {
        for name in DEVICES {
            let dev = dir.join(name);
            if !hidden.contains(&dev) {
                out.push((dev, read));
            }
        }
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        // A symlink is read through its target, which has its own rule;
        // a rule on the link would open whatever it points to.
        if entry.file_type().is_ok_and(|t| t.is_symlink()) {
            continue;
        }
        visit(&entry.path(), hidden, out);
    }
}

/// Applies the ruleset `fd` to the calling thread. Async-signal-safe: one
/// system call, no allocation. `PR_SET_NO_NEW_PRIVS` must be set first.
pub fn restrict(fd: &OwnedFd) -> std::io::Result<()> {
    // SAFETY: a raw system call on an integer fd the caller keeps open.
    #[allow(unsafe_code)]
    let rc = unsafe { libc::syscall(libc::SYS_landlock_restrict_self, fd.as_raw_fd(), 0) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(test)]
#[path = "landlock_tests.rs"]
mod tests;
