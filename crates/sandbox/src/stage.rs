//! The inner stage: runs inside bubblewrap's namespaces, applies Landlock
//! and seccomp to itself, and `exec`s the command.
//!
//! bubblewrap must mount before anything is restricted (a process under
//! Landlock cannot mount), so these two layers are applied by a second
//! program that bubblewrap starts: catui's own binary in a hidden mode
//! (`catui __catui-sandbox-stage …`, dispatched at the very top of `main`,
//! so it costs one `exec`), or this crate's `catui-sandbox-stage`. When the
//! network goes through the proxy, the stage first starts the forwarder
//! that carries the sandbox's loopback port to the proxy's unix socket.
//!
//! Its arguments, written by [`encode`] and read by [`main`]:
//! `[--landlock] [--seccomp] [--write DIR]… [--overlay DIR]… [--scratch DIR]
//! [--hide PATH]… [--metadata] [--unix-sockets] [--proxy SOCKET] -- PROGRAM
//! ARGS…`. A dry run (`--scratch`) first mounts an overlay on each
//! `--overlay` directory (see [`crate::overlay`]), still holding the
//! capabilities of bubblewrap's user namespace, and covers the secret
//! stores inside them again; the restrictions drop those capabilities.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::{Confinement, Layers, Network};

/// The first argument that makes catui's binary the inner stage.
pub const STAGE_ARG: &str = "__catui-sandbox-stage";

/// The exit status when the stage cannot confine or start the command
/// (as a shell reports a command it cannot run).
pub const FAILED: i32 = 126;

/// The stage's arguments for `c` under `layers`, up to and including the
/// `--` before the program.
pub fn encode(c: &Confinement, layers: &Layers) -> Vec<OsString> {
    let mut args: Vec<OsString> = Vec::new();
    if layers.landlock > 0 {
        args.push("--landlock".into());
    }
    if layers.seccomp {
        args.push("--seccomp".into());
    }
    let overlays = c.overlays();
    let temp = c
        .temp_dir
        .as_ref()
        .and_then(|t| std::fs::canonicalize(t).ok());
    for dir in c.writable_dirs() {
        // A dry run's directories are overlaid, and written only there.
        let overlaid =
            temp.as_ref() != Some(&dir) && overlays.iter().any(|l| dir.starts_with(&l.target));
        args.push(if overlaid { "--overlay" } else { "--write" }.into());
        args.push(dir.into());
    }
    if let Some(scratch) = &c.dry_run {
        args.push("--scratch".into());
        args.push(scratch.into());
    }
    for path in c.hidden_paths() {
        args.push("--hide".into());
        args.push(path.into());
    }
    if c.metadata {
        args.push("--metadata".into());
    }
    if c.unix_sockets {
        args.push("--unix-sockets".into());
    }
    if let Network::Proxy { socket } = &c.network {
        args.push("--proxy".into());
        args.push(socket.into());
    }
    // Only dry runs set it, and they run only inside bubblewrap's own
    // user namespace, where the limit counts the sandbox's processes alone.
    if let Some(n) = c.max_processes {
        args.push("--max-processes".into());
        args.push(n.to_string().into());
    }
    args.push("--".into());
    args
}

/// What the stage was asked to do.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Request {
    pub confinement: Confinement,
    pub landlock: bool,
    pub seccomp: bool,
    /// A dry run's overlaid directories (also in `confinement.writable`).
    pub overlays: Vec<PathBuf>,
    /// The program and its arguments.
    pub command: Vec<OsString>,
}

/// Reads the stage's arguments (those after [`STAGE_ARG`]).
pub fn decode(args: impl IntoIterator<Item = OsString>) -> Result<Request, String> {
    let mut request = Request::default();
    let mut args = args.into_iter();
    fn value(args: &mut dyn Iterator<Item = OsString>, flag: &str) -> Result<PathBuf, String> {
        args.next()
            .map(PathBuf::from)
            .ok_or_else(|| format!("{flag} needs a value"))
    }
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("--landlock") => request.landlock = true,
            Some("--seccomp") => request.seccomp = true,
            Some("--metadata") => request.confinement.metadata = true,
            Some("--unix-sockets") => request.confinement.unix_sockets = true,
            Some("--write") => request
                .confinement
                .writable
                .push(value(&mut args, "--write")?),
            Some("--overlay") => {
                let dir = value(&mut args, "--overlay")?;
                request.overlays.push(dir.clone());
                request.confinement.writable.push(dir);
            }
            Some("--scratch") => request.confinement.dry_run = Some(value(&mut args, "--scratch")?),
            Some("--max-processes") => {
                let n = value(&mut args, "--max-processes")?;
                let n = n
                    .to_str()
                    .and_then(|n| n.parse::<u64>().ok())
                    .ok_or_else(|| format!("--max-processes: not a number: {n:?}"))?;
                request.confinement.max_processes = Some(n);
            }
            Some("--hide") => request.confinement.hidden.push(value(&mut args, "--hide")?),
            Some("--proxy") => {
                request.confinement.network = Network::Proxy {
                    socket: value(&mut args, "--proxy")?,
                }
            }
            Some("--") => {
                request.command = args.collect();
                if request.command.is_empty() {
                    return Err("no command after `--`".into());
                }
                return Ok(request);
            }
            _ => return Err(format!("unknown argument {arg:?}")),
        }
    }
    Err("no `--` before the command".into())
}

/// The stage's entry point: confines this process and becomes the
/// command; never returns. On failure it says why on stderr and exits
/// with [`FAILED`], the command not run.
pub fn main(args: impl IntoIterator<Item = OsString>) -> ! {
    let err = match run(args) {
        Ok(never) => match never {},
        Err(e) => e,
    };
    if err.contains("the command was not run") {
        eprintln!("catui sandbox: {err}");
    } else {
        eprintln!("catui sandbox: {err}; the command was not run");
    }
    std::process::exit(FAILED)
}

enum Never {}

fn run(args: impl IntoIterator<Item = OsString>) -> Result<Never, String> {
    let request = decode(args)?;
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        let layers = Layers {
            bubblewrap: false,
            landlock: if request.landlock {
                crate::landlock::abi_version()
            } else {
                0
            },
            seccomp: request.seccomp,
        };
        if let Some(scratch) = &request.confinement.dry_run {
            // Before the Landlock rules are built: they must name the
            // overlays, not the directories beneath them.
            let overlays = crate::overlay::layout(scratch, &overlay_dirs(&request));
            crate::overlay::mount(&overlays, &request.confinement.hidden)?;
        }
        if let Some(n) = request.confinement.max_processes {
            // In bubblewrap's own user namespace the kernel counts only
            // this namespace's processes against the limit (and no
            // capability there lifts it), so the rest of the user's
            // processes neither count nor suffer.
            limit_processes(n).map_err(|e| format!("cannot limit the processes: {e}"))?;
        }
        let restrictions = crate::child::Restrictions::build(&request.confinement, layers)
            .map_err(|e| e.to_string())?;
        if let Some(socket) = request.confinement.proxy_socket() {
            crate::forward::start(socket)
                .map_err(|e| format!("cannot start the network forwarder: {e}"))?;
        }
        restrictions
            .apply()
            .map_err(|e| format!("cannot apply the restrictions: {e}"))?;
        let (program, rest) = request
            .command
            .split_first()
            .ok_or_else(|| "no command".to_string())?;
        let e = std::process::Command::new(program).args(rest).exec();
        Err(format!("cannot run {}: {e}", program.to_string_lossy()))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = request;
        Err("the inner stage needs Linux".into())
    }
}

/// Sets `RLIMIT_NPROC` (soft and hard) to `n`.
#[cfg(target_os = "linux")]
fn limit_processes(n: u64) -> std::io::Result<()> {
    let limit = libc::rlimit {
        rlim_cur: n as libc::rlim_t,
        rlim_max: n as libc::rlim_t,
    };
    // SAFETY: setrlimit reads the struct it is given, nothing else.
    #[allow(unsafe_code)]
    let rc = unsafe { libc::setrlimit(libc::RLIMIT_NPROC, &limit) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// The directories a dry run overlays: those it may write but its own
/// scratch and temp dir (which are written for real).
#[cfg(target_os = "linux")]
fn overlay_dirs(request: &Request) -> Vec<PathBuf> {
    request.overlays.clone()
}

#[cfg(test)]
#[path = "stage_tests.rs"]
mod tests;
