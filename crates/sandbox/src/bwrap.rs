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
///
/// Starting it costs about ten milliseconds, so a success is remembered in
/// the file `remember` (when given) for the rest of this boot: the file
/// holds the kernel's boot id, bubblewrap's path, size and modification
/// time and catui's options, and any change to them probes again. Only a
/// success is kept, so a machine that gains user namespaces is seen at the
/// next start. Should bubblewrap stop working within the same boot, a
/// confined command fails to start: it never runs unconfined.
pub fn works(remember: Option<&Path>) -> bool {
    let Some(bwrap) = program() else {
        return false;
    };
    let key = probe_key(bwrap);
    if let (Some(file), Some(key)) = (remember, key.as_deref())
        && remembered(file, key)
    {
        return true;
    }
    let works = probe(bwrap);
    if works && let (Some(file), Some(key)) = (remember, key.as_deref()) {
        keep(file, key);
    }
    works
}

/// What a remembered success depends on, or `None` when part of it cannot
/// be read (then nothing is remembered).
fn probe_key(bwrap: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let meta = std::fs::metadata(bwrap).ok()?;
    let options: Vec<String> = base_args()
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    Some(format!(
        "bubblewrap works\nboot {}\nprogram {} {} {}.{}\noptions {}\n",
        boot.trim(),
        bwrap.display(),
        meta.size(),
        meta.mtime(),
        meta.mtime_nsec(),
        options.join(" ")
    ))
}

/// Whether `file` remembers a success under exactly `key`.
fn remembered(file: &Path, key: &str) -> bool {
    std::fs::read_to_string(file).is_ok_and(|text| text == key)
}

/// Remembers a success; a failure to write only means probing again.
fn keep(file: &Path, key: &str) {
    let Some(dir) = file.parent() else {
        return;
    };
    let _ = std::fs::create_dir_all(dir);
    let temp = dir.join(format!(".bwrap-probe.{}", std::process::id()));
    if std::fs::write(&temp, key).is_ok() && std::fs::rename(&temp, file).is_err() {
        let _ = std::fs::remove_file(&temp);
    }
}

/// Starts `/bin/true` under bubblewrap with catui's options.
fn probe(bwrap: &Path) -> bool {
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
    // A store gone since the list was made (another program's temporary
    // project, removed) has nothing left to hide, and bubblewrap could not
    // mount over it: it would fail the command.
    for path in hidden.iter().filter(|p| p.symlink_metadata().is_ok()) {
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

/// [`args`] for a dry run: the same namespaces and mounts, but the inner
/// stage keeps the capabilities of bubblewrap's user namespace (which owns
/// only the sandbox's own mounts) so that it can mount the overlays; it
/// drops every one of them before the command starts.
pub fn dry_run_args(writable: &[PathBuf], hidden: &[PathBuf]) -> Vec<OsString> {
    let mut out = args(writable, hidden);
    if let Some(at) = out.iter().position(|a| a == "ALL") {
        out.insert(at + 1, "--cap-add".into());
        out.insert(at + 2, "ALL".into());
    }
    out
}

#[cfg(test)]
#[path = "bwrap_tests.rs"]
mod tests;
