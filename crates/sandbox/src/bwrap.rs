//! Layer 1: Linux namespaces through bubblewrap.
//!
//! A confined command runs in new user, mount, pid, network, ipc, uts and
//! cgroup namespaces (`--unshare-all`) with every capability dropped
//! (`--cap-drop ALL`: as root it would otherwise keep `CAP_SYS_ADMIN` and
//! could remount), in a new session (no terminal to push input into), and
//! killed with catui (`--die-with-parent`). Its file system is the host's
//! mounted read-only (`--ro-bind / /`) with a minimal `/dev`, its own
//! `/proc` (only its own processes, so not catui's environment), the
//! writable directories bound read-write, and each secret store covered: a
//! directory by an empty read-only tmpfs, a file by `/dev/null`.
//!
//! The network namespace has only a loopback interface, so nothing but a
//! forwarder the inner stage starts there (see [`crate::proxy`]) leads out.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Where bubblewrap is looked for (a fixed list: `PATH` is not trusted
/// for the program that builds the sandbox).
pub const CANDIDATES: &[&str] = &["/usr/bin/bwrap", "/usr/local/bin/bwrap", "/bin/bwrap"];

/// How long the probe may take before bubblewrap counts as not working.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// The bubblewrap program, if installed.
pub fn program() -> Option<&'static Path> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            CANDIDATES
                .iter()
                .map(PathBuf::from)
                .find(|p| is_executable(p))
        })
        .as_deref()
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The options every confined command gets, before the per-command binds.
fn base_args() -> Vec<OsString> {
    [
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
    ]
    .into_iter()
    .map(OsString::from)
    .collect()
}

/// Whether bubblewrap starts a command here with catui's options (it may
/// be installed but refused user namespaces, as in many containers).
pub fn works() -> bool {
    let Some(bwrap) = program() else {
        return false;
    };
    let Ok(mut child) = Command::new(bwrap)
        .args(base_args())
        .args(["--", "/bin/true"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    else {
        return false;
    };
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return status.success(),
            Ok(None) if started.elapsed() < PROBE_TIMEOUT => {
                std::thread::sleep(Duration::from_millis(1));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                tracing::warn!("bubblewrap did not start a command in time; not using it");
                return false;
            }
        }
    }
}

/// bubblewrap's arguments for a command confined to writing beneath
/// `writable` with `hidden` covered, up to and including the `--` that
/// precedes the program. Every path must exist and be canonical
/// ([`crate::Confinement::writable_dirs`], [`crate::Confinement::hidden_paths`]).
pub fn args(writable: &[PathBuf], hidden: &[PathBuf]) -> Vec<OsString> {
    let mut args = base_args();
    for dir in writable {
        args.push("--bind".into());
        args.push(dir.into());
        args.push(dir.into());
    }
    for path in hidden {
        if path.is_dir() {
            args.push("--tmpfs".into());
            args.push(path.into());
            args.push("--remount-ro".into());
            args.push(path.into());
        } else {
            args.push("--ro-bind".into());
            args.push("/dev/null".into());
            args.push(path.into());
        }
    }
    args.push("--".into());
    args
}

#[cfg(test)]
#[path = "bwrap_tests.rs"]
mod tests;
