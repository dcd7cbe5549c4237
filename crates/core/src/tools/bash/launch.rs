//! Starting a command: which sandbox policy this call runs under
//! ([`policy_for`]), how its input and output are wired (a pipe, a terminal
//! of its own, a file), its environment (the child allow-list), the `pwd`
//! pipe of the `EXIT` trap, and the new session and process group that is
//! tracked so that it ends with the session and killed if the call is
//! abandoned ([`GroupGuard`]).

use std::ffi::OsString;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use catui_sandbox::child_env::Tier;
use tokio::net::unix::pipe;

use super::{dry_run, groups, pty};
use crate::permissions::Grant;
use crate::permissions::sandbox::{Network, SandboxPolicy};
use crate::tools::{ToolContext, ToolError};

/// The shell every command runs in.
const SHELL: &str = "/bin/bash";

/// Environment variable naming the fd the `EXIT` trap writes `pwd` to.
const CWD_FD_VAR: &str = "__CATUI_CWD_FD";

/// The sandbox a call runs under: the read-only one when it was allowed
/// only because it was judged read-only, the working directories (and
/// the private temp dir) when acceptEdits allowed it for its edits, else
/// the session's.
pub(super) fn policy_for(ctx: &ToolContext) -> SandboxPolicy {
    if let Some(policy) = dry_run::policy(ctx) {
        return policy;
    }
    match ctx.grant {
        Grant::ReadOnly => ctx.read_only_sandbox.clone(),
        Grant::Edits => {
            let temp_dir = match &ctx.read_only_sandbox {
                SandboxPolicy::ReadOnlyExceptTemp { temp_dir } => temp_dir.clone(),
                _ => std::env::temp_dir().join(format!("catui-edits-{}", std::process::id())),
            };
            SandboxPolicy::Edits {
                writable: ctx.working_dirs(),
                temp_dir,
            }
        }
        Grant::Explicit => ctx.sandbox_policy(),
        // Decided above; a dry run never falls back to anything wider.
        Grant::DryRun => SandboxPolicy::DryRun {
            dirs: ctx.working_dirs(),
            scratch: ctx.dry_run.scratch(),
            max_processes: ctx.dry_run.max_processes(),
        },
    }
}

/// What a confined command was allowed.
pub(super) struct Confined {
    /// Where it could write.
    pub(super) writable: Vec<PathBuf>,
    /// Whether it had a way to the network (the proxy).
    pub(super) network: bool,
}

/// A command that has been started: its shell, its process group (killed
/// if this is dropped while armed), and the read ends of its pipes.
pub(super) struct Started {
    pub(super) child: tokio::process::Child,
    pub(super) group: GroupGuard,
    pub(super) output: Output,
    pub(super) cwd_reader: std::io::PipeReader,
    pub(super) confined: Option<Confined>,
    /// When it started.
    pub(super) at: std::time::Instant,
}

/// How a command's input and output are wired.
pub(super) enum Wiring {
    /// No input; output into a pipe catui reads (foreground commands).
    Pipe,
    /// A pseudo-terminal of its own (background commands: editors, REPLs
    /// and prompts work, and BashInput types into it).
    Terminal,
    /// No input; output straight into this file, so that the command
    /// needs nothing of catui to go on (`keep_running`).
    File(std::fs::File),
}

/// Where a started command's output can be read.
pub(super) enum Output {
    Pipe(pipe::Receiver),
    /// The master side of its terminal (read: its output; write: its input).
    Terminal(OwnedFd),
    /// It writes to its output file itself.
    File,
}

/// Starts `command` in `cwd` under the sandbox policy of this call (see
/// [`policy_for`]), in a new session and process group that is tracked
/// so that it ends with the session.
pub(super) fn start(
    command: &str,
    cwd: &Path,
    ctx: &ToolContext,
    wiring: Wiring,
) -> Result<Started, ToolError> {
    let spawn_err = |e: std::io::Error| ToolError::failed(format!("Could not start {SHELL}: {e}"));
    let (io, output) = match wiring {
        Wiring::Pipe => {
            let (out_reader, out_writer) = std::io::pipe().map_err(spawn_err)?;
            let rx = pipe::Receiver::from_owned_fd(OwnedFd::from(out_reader)).map_err(|e| {
                ToolError::failed(format!("Could not read the command's output: {e}"))
            })?;
            (Io::Out(OwnedFd::from(out_writer)), Output::Pipe(rx))
        }
        Wiring::Terminal => {
            let pty = pty::open().map_err(|e| {
                ToolError::failed(format!("Could not open a terminal for the command: {e}"))
            })?;
            (Io::Terminal(pty.slave), Output::Terminal(pty.master))
        }
        Wiring::File(file) => (Io::Out(OwnedFd::from(file)), Output::File),
    };
    let (cwd_reader, cwd_writer) = std::io::pipe().map_err(spawn_err)?;

    // The trap reports the final directory even when the command calls `exit`.
    let script = format!(
        "trap '__catui_status=$?; pwd -P >&\"${CWD_FD_VAR}\" 2>/dev/null; exit $__catui_status' EXIT\n{command}"
    );
    let script_args = [OsString::from("-c"), OsString::from(script)];
    let policy = policy_for(ctx);
    if matches!(policy, SandboxPolicy::DryRun { .. }) && !dry_run::one_off(ctx) {
        // From now on the planning session's commands see the copy.
        ctx.dry_run.open();
    }
    let secrets = ctx.secret_stores();
    let confinement = ctx.confiner.confinement(&policy, &secrets).map_err(|e| {
        ToolError::failed(format!(
            "Could not start the sandbox's network proxy: {e}; the command was not run."
        ))
    })?;
    let cwd_writer = OwnedFd::from(cwd_writer);
    let (mut cmd, confined) = match &confinement {
        Some(c) => {
            let mut launch = ctx
                .confiner
                .launch(Path::new(SHELL), &script_args, cwd, c)
                .map_err(|e| ToolError::failed(e.to_string()))?;
            let layers = launch.layers();
            let tier = launch.tier();
            launch.environment(ctx.env.build(tier));
            prepare(launch.command(), cwd, io, cwd_writer)?;
            let confined = (!layers.list().is_empty()).then(|| Confined {
                writable: policy.writable_paths().unwrap_or_default(),
                network: matches!(c.network, Network::Proxy { .. }) && layers.bubblewrap,
            });
            (launch.finish(), confined)
        }
        None => {
            let mut cmd = tokio::process::Command::new(SHELL);
            cmd.args(&script_args);
            // Someone allowed it: the allow-list of that tier, nothing else
            // of catui's environment.
            cmd.env_clear().envs(ctx.env.build(Tier::Approved));
            prepare(&mut cmd, cwd, io, cwd_writer)?;
            (cmd, None)
        }
    };
    if matches!(output, Output::File) {
        // It is to outlive catui: dropping its handle must not kill it.
        cmd.kill_on_drop(false);
    }
    if confinement.is_some() && confined.is_none() {
        tracing::debug!("Bash: sandbox requested but this system has no layer to enforce it");
    }

    let child = cmd.spawn().map_err(|e| {
        ToolError::failed(format!("Could not start {SHELL} in {}: {e}", cwd.display()))
    })?;
    // Close the parent's copies of the pipes' write ends, so that reading
    // sees end-of-file once the command's processes have exited.
    drop(cmd);
    let pgid = child.id().and_then(|id| i32::try_from(id).ok());
    if let Some(pgid) = pgid {
        groups::track(pgid);
    }
    let group = GroupGuard { pgid };
    Ok(Started {
        child,
        group,
        output,
        cwd_reader,
        confined,
        at: std::time::Instant::now(),
    })
}

/// A command's side of its input and output.
enum Io {
    /// stdin at `/dev/null`, stdout and stderr into this.
    Out(OwnedFd),
    /// All three on this terminal, which becomes its controlling terminal.
    Terminal(OwnedFd),
}

/// Everything a command gets besides its program and its environment (the
/// allow-list, built by the caller): the working directory, its input and
/// output (`io`), and the `pwd` pipe with the child-side setup.
fn prepare(
    cmd: &mut tokio::process::Command,
    cwd: &Path,
    io: Io,
    cwd_writer: OwnedFd,
) -> Result<(), ToolError> {
    let spawn_err = |e: std::io::Error| ToolError::failed(format!("Could not start {SHELL}: {e}"));
    let terminal = matches!(io, Io::Terminal(_));
    match io {
        Io::Out(out) => {
            cmd.stdin(Stdio::null())
                .stdout(out.try_clone().map_err(spawn_err)?)
                .stderr(out);
        }
        Io::Terminal(slave) => {
            cmd.stdin(slave.try_clone().map_err(spawn_err)?)
                .stdout(slave.try_clone().map_err(spawn_err)?)
                .stderr(slave);
            // Programs that look at the terminal type get a plain one.
            cmd.env("TERM", "xterm");
        }
    }
    cmd.current_dir(cwd).kill_on_drop(true);
    cmd.env(CWD_FD_VAR, cwd_writer.as_raw_fd().to_string());
    child_setup(cmd, cwd_writer, terminal);
    Ok(())
}

/// Kills the command's process group when dropped while armed (`pgid` set),
/// so a call abandoned mid-way leaves nothing running.
pub(super) struct GroupGuard {
    pub(super) pgid: Option<i32>,
}

impl GroupGuard {
    pub(super) fn kill(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            groups::kill(pgid);
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Child-side setup between fork and exec: a new session (so the command
/// has no controlling terminal of the user's and its process group can be
/// killed as a whole), with `terminal` its own pseudo-terminal (on stdin)
/// as the controlling one, and the `pwd` pipe left open across exec.
#[allow(unsafe_code)]
fn child_setup(cmd: &mut tokio::process::Command, cwd_writer: OwnedFd, terminal: bool) {
    // SAFETY: the closure runs in the forked child before exec and only
    // makes async-signal-safe system calls (setsid, ioctl, fcntl) on
    // integer fds the child owns; it allocates nothing and takes no locks,
    // and builds errors from errno only.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setsid() == -1 {
                return Err(std::io::Error::last_os_error());
            }
            if terminal && libc::ioctl(0, libc::TIOCSCTTY, 0) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::fcntl(cwd_writer.as_raw_fd(), libc::F_SETFD, 0) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}
