//! Bash: runs a shell command in the session's working directory.
//!
//! Each call is a fresh `/bin/bash -c` in its own session and process group
//! (so a timeout or interrupt can kill everything it started, and it cannot
//! reach the user's terminal; see [`groups`] for background jobs and the
//! end of the session), with stdin at `/dev/null`, stdout and stderr
//! interleaved in one pipe, provider API keys removed from the environment,
//! and the session's sandbox policy applied — or, for a command allowed only
//! because it was judged read-only, the read-only one (through the
//! session's [`SessionSandbox`](crate::permissions::sandbox::SessionSandbox):
//! bubblewrap, Landlock and seccomp). When a confined command fails for
//! lack of a write or of the network, the result says why and what to do.
//! The working directory carries
//! over between calls: an `EXIT` trap writes the final `pwd` to a private
//! pipe that the tool reads after the shell exits.

pub mod background;
#[cfg(test)]
mod background_tests;
#[cfg(test)]
mod containment_tests;
mod dry_run;
#[cfg(test)]
mod exfiltration_tests;
pub mod groups;
mod notes;
mod output;
mod pipes;
mod pty;
mod read_only;
#[cfg(test)]
mod sandbox_setup_tests;

use catui_protocol::tool_names;
use std::ffi::OsString;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use catui_sandbox::child_env::Tier;
use schemars::JsonSchema;
use serde::Deserialize;
use tokio::net::unix::pipe;
use tokio_util::sync::CancellationToken;

pub use background::{BackgroundShells, Shell, ShellStatus};
pub use output::{MAX_OUTPUT_CHARS, OutputBuffer, ToolOutputDir};
pub use read_only::{ReadOnlyBashInput, ReadOnlyBashTool};

use super::{ToolContext, ToolError, ToolOutput, TypedTool};
use crate::permissions::sandbox::{Network, SandboxPolicy};
use crate::permissions::shell;
use crate::permissions::{Access, Grant};
use catui_protocol::tool_names::BASH_INPUT;

/// Default time limit of a command.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// Largest time limit a call may ask for.
pub const MAX_TIMEOUT_MS: u64 = 600_000;

/// The shell every command runs in.
const SHELL: &str = "/bin/bash";

/// Environment variable naming the fd the `EXIT` trap writes `pwd` to.
const CWD_FD_VAR: &str = "__CATUI_CWD_FD";

/// After the shell exits, how long to wait for the output pipe to close
/// (background jobs may hold it open) before returning what was read.
const DRAIN_AFTER_EXIT: Duration = Duration::from_millis(200);
/// After killing the process group, how long to wait for the pipe to close.
const DRAIN_AFTER_KILL: Duration = Duration::from_millis(500);

/// What a command that timed out may have been doing, and what to do.
const TIMEOUT_HINT: &str = "It may have been waiting for input (a prompt, an editor, a \
    pager, a REPL): commands here get no input. Run it with non-interactive flags (`-y`, \
    `--no-edit`, `--no-pager`, input from a file or a here-doc), or start it with \
    `run_in_background: true`, read it with BashOutput and answer it with BashInput. If it was \
    only slow, give it a longer `timeout` or run it in the background.";

/// What exit code 127 means, and what to check first.
const NOT_FOUND_HINT: &str = "The shell could not find a command: check its name and whether \
    it is installed (`command -v NAME`), or install it with the machine's package manager.";

/// Characters of a command's first line in its one-line summary.
const SUMMARY_CHARS: usize = 400;
/// Bash, as the main conversation and general agents get it.
#[derive(Debug, Clone, Copy, Default)]
pub struct BashTool {
    asking: Asking,
}

impl BashTool {
    /// Bash whose text speaks of asking as `asking` says.
    pub fn new(asking: Asking) -> Self {
        BashTool { asking }
    }
}

/// What Bash's text says happens when a command needs more than it may do
/// unasked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Asking {
    /// The user is asked first.
    #[default]
    User,
    /// Nobody is asked: the permission mode and rules decide (an
    /// unattended run, bypassPermissions).
    Nobody,
    /// A read-only agent: it never widens what it does, and has no
    /// background commands.
    Never,
}

/// Bash's description for `asking`.
fn describe(asking: Asking) -> String {
    let unconfined = match asking {
        Asking::User => {
            " If such a command fails because it needs to write or to reach the network, run it \
             again with `unconfined: true` and the user will be asked."
        }
        Asking::Nobody => {
            " If such a command fails because it needs to write or to reach the network, run it \
             again with `unconfined: true`; nobody is asked here, so it runs only where the \
             permission mode or rules allow it."
        }
        Asking::Never => "",
    };
    // Read-only agents get neither `unconfined` nor background commands.
    let background = if asking == Asking::Never {
        String::new()
    } else {
        format!(
            "- With `run_in_background: true` the command starts and the call returns at once \
             with an id (no `&` needed, no time limit). Read what it printed since the last look \
             with BashOutput, type into it with {BASH_INPUT} (it runs on a terminal of its own, so \
             editors, REPLs and prompts work there), stop it with KillShell; when it ends you \
             are told with its exit code, so there is no need to poll or sleep. Use it for \
             servers, watchers, long builds or test runs, and interactive programs.\n\
             - Everything started here ends when the session ends. Add `keep_running: true` \
             (with `run_in_background`) only for a service the task needs after the session: \
             it is then left running, without a terminal or input.\n"
        )
    };
    format!(
        "Runs a command with bash and returns what it printed (stdout and stderr together) \
         and its exit code.\n\n\
         - The working directory carries over between calls, so a `cd` stays in effect; other \
         shell state does not (`export`, `source`, aliases), so set variables in the command \
         that needs them. File tools ignore `cd`: their relative paths start at the project root.\n\
         - A command run this way has no input (stdin is empty) and no terminal: editors, \
         pagers and prompts wait until the time limit, so pass non-interactive flags \
         (`--no-edit`, `-y`, `--no-pager`).\n\
         - Quote paths that contain spaces. Join dependent steps with `&&`; independent \
         read-only commands can go in separate calls.\n\
         - To read or search files use Read, Glob and Grep rather than `cat`, `head`, `find` or \
         `grep`; `ls` is fine for a quick look at one directory.\n\
         - The time limit is `timeout` milliseconds (default {DEFAULT_TIMEOUT_MS}, at most \
         {MAX_TIMEOUT_MS}); when it passes, the command and everything it started are killed.\n\
         - Output longer than {MAX_OUTPUT_CHARS} characters is shortened: the beginning and \
         the end are kept, and the whole output is saved to a file whose path is given.\n\
         {background}- Processes the command leaves running in the background (`server &`) keep \
         running until the session ends, and are stopped then (those of a command run in the \
         read-only sandbox end with it).\n\
         - Commands that only read run without asking, in a read-only sandbox (writes only \
         to a private temporary directory and /dev/null, no network).{unconfined}\n\
         - In plan mode, commands that are not read-only run as dry runs where the system \
         allows it: in a throwaway copy of the project (and home directory), no network; the \
         result says so and lists what changed in the copy, and nothing of it survives \
         planning. Where dry runs are not possible, only read-only commands may run in plan \
         mode."
    )
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BashInput {
    /// The shell command to run (bash syntax).
    pub command: String,
    /// Time limit in milliseconds, at most 600000. Defaults to 120000.
    #[serde(default)]
    pub timeout: Option<u64>,
    /// A short, plain description of what the command does, shown to the user.
    #[serde(default)]
    pub description: Option<String>,
    /// Set to true only to run again a command that failed because it ran
    /// in the read-only sandbox and needs to write. The user is asked first.
    #[serde(default)]
    pub unconfined: Option<bool>,
    /// Set to true to start the command and return at once with an id,
    /// for servers, watchers and long builds.
    #[serde(default)]
    pub run_in_background: Option<bool>,
    /// With `run_in_background`: the command keeps running after this
    /// session ends, instead of being stopped with it. Only for a service
    /// the task needs afterwards.
    #[serde(default)]
    pub keep_running: Option<bool>,
}

#[async_trait]
impl TypedTool for BashTool {
    type Input = BashInput;

    fn name(&self) -> &'static str {
        tool_names::BASH
    }

    fn description(&self) -> String {
        describe(self.asking)
    }

    fn can_run_dry(&self, input: &BashInput) -> bool {
        // A background command could outlive its copy and its change count.
        input.run_in_background != Some(true)
    }

    fn is_read_only(&self, input: &BashInput) -> bool {
        // A process left behind after the session is never "only reading".
        input.keep_running != Some(true) && shell::analyze(&input.command).read_only
    }

    fn is_concurrency_safe(&self, input: &BashInput) -> bool {
        self.is_read_only(input)
    }

    async fn validate_input(&self, input: &BashInput, _ctx: &ToolContext) -> Result<(), ToolError> {
        if input.command.trim().is_empty() {
            return Err(ToolError::invalid(
                "The command is empty. Pass the shell command to run in `command`.",
            ));
        }
        if input.keep_running == Some(true) && input.run_in_background != Some(true) {
            return Err(ToolError::invalid(
                "`keep_running` needs `run_in_background: true`: only a background command \
                 can outlive the session.",
            ));
        }
        if let Some(ms) = input.timeout
            && (ms == 0 || ms > MAX_TIMEOUT_MS)
        {
            return Err(ToolError::invalid(format!(
                "timeout must be between 1 and {MAX_TIMEOUT_MS} milliseconds, got {ms}."
            )));
        }
        Ok(())
    }

    fn access(&self, input: &BashInput, _ctx: &ToolContext) -> Access {
        Access::Shell {
            command: input.command.clone(),
            // A process that outlives the session cannot stay in the
            // session's sandbox: it is asked for like an unconfined one.
            unconfined: input.unconfined.unwrap_or(false) || input.keep_running == Some(true),
        }
    }

    fn summary(&self, input: &BashInput) -> String {
        // Long enough for a wide terminal's header row; front ends cut to fit.
        let first = input.command.lines().next().unwrap_or_default();
        let mut shown: String = first.chars().take(SUMMARY_CHARS).collect();
        if shown.len() < input.command.len() {
            shown.push('…');
        }
        format!("Bash({shown})")
    }

    async fn call(&self, input: BashInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let timeout_ms = input
            .timeout
            .unwrap_or(DEFAULT_TIMEOUT_MS)
            .min(MAX_TIMEOUT_MS);
        let mut notes = Vec::new();
        let mut cwd = ctx.cwd();
        if !cwd.is_dir() {
            notes.push(format!(
                "The working directory {} no longer exists; the command ran in {} instead.",
                cwd.display(),
                ctx.project_root.display()
            ));
            cwd = ctx.project_root.clone();
            ctx.set_cwd(cwd.clone());
        }
        if input.run_in_background == Some(true) {
            // A dry run's changes are counted when it ends and its scratch
            // area goes with plan mode: a background one could outlive both.
            if ctx.grant == Grant::DryRun {
                return Err(ToolError::failed(
                    "Plan mode runs a command that is not read-only only as a dry run in the \
                     foreground, where its changes can be listed and thrown away: run it again \
                     without `run_in_background`.",
                ));
            }
            return start_in_background(&input, &cwd, ctx);
        }
        // A command that runs unconfined (the user or a rule allowed it) runs
        // in the editor's terminal when there is one; confined ones (judged
        // read-only, plan mode) always run here, where the confinement is.
        if let Some(super::editor_files::EditorShell(terminal)) = ctx.values.get()
            && policy_for(ctx) == SandboxPolicy::None
        {
            let ran = terminal
                .run(
                    &input.command,
                    &cwd,
                    Duration::from_millis(timeout_ms),
                    &ctx.cancel,
                )
                .await
                .map_err(|e| {
                    ToolError::failed(format!("The editor could not run the command: {e}"))
                })?;
            return in_editor(ran, timeout_ms, &notes);
        }
        let policy = policy_for(ctx);
        // A one-off dry run's copy goes when the call ends, however it ends.
        let _one_off = dry_run::OneOff::guard(ctx);
        let before = match &policy {
            SandboxPolicy::DryRun { .. } => Some(dry_run::Before::take(ctx, &policy)?),
            _ => None,
        };
        let watch = || before.as_ref().map(dry_run::Before::watch);
        let mut outcome = run(&input.command, &cwd, timeout_ms, ctx, watch()).await?;
        if matches!(&outcome, Outcome::Ran(run) if run.sandbox_not_set_up()) {
            // Nothing of the command ran: bubblewrap failed while setting
            // up, typically because a secret file it was to cover vanished
            // between the check and the mount (another program's temporary
            // project removed). The next launch lists what exists then.
            tracing::debug!("Bash: the sandbox could not be set up; launching once more");
            outcome = run(&input.command, &cwd, timeout_ms, ctx, watch()).await?;
        }
        let run = match outcome {
            Outcome::Ran(run) => run,
            Outcome::Detached(shell) => return Ok(background_started(&shell, true)),
        };
        if let Some(new_cwd) = &run.final_cwd
            && !same_dir(new_cwd, &cwd)
        {
            ctx.set_cwd(new_cwd.clone());
        }
        if let End::Exited(status) = run.end
            && !status.success()
        {
            notes.extend(notes::sandbox_notes(&run, ctx));
        }
        if let (End::ScratchFull, Some(before)) = (run.end, &before) {
            notes.push(dry_run::over_limit(before.max_bytes));
        }
        if let (End::TooManyProcesses, Some(before)) = (run.end, &before) {
            notes.push(dry_run::too_many_processes(before.max_processes));
        }
        let output = match run.end {
            End::Cancelled => return Err(ToolError::Cancelled),
            end => render(&run.output, end, timeout_ms, &notes),
        };
        Ok(match before {
            Some(before) => {
                let code = match run.end {
                    End::Exited(status) => status.code(),
                    _ => None,
                };
                // Only the lines plan mode let run dry are the plan's
                // evidence; read-only ones that saw the copy are not.
                let record = ctx.grant == Grant::DryRun && !dry_run::one_off(ctx);
                dry_run::finish(output, &before, ctx, &input.command, code, record)
            }
            None => output,
        })
    }
}

/// Starts the command as a foreground one would be (same sandbox, same
/// tracked group) and hands it to the session's background list: on a
/// terminal of its own, or — kept running after the session — writing
/// straight to its output file.
fn start_in_background(
    input: &BashInput,
    cwd: &Path,
    ctx: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let Some(shells) = ctx.values.get::<Arc<BackgroundShells>>() else {
        return Err(ToolError::failed(
            "Background commands are not available here; run the command without \
             `run_in_background`.",
        ));
    };
    let kept = input.keep_running == Some(true);
    if kept && policy_for(ctx) != SandboxPolicy::None {
        return Err(ToolError::failed(
            "`keep_running` cannot be used for a command that runs in the sandbox: it would \
             end with the sandbox when the session ends. Run it without `keep_running`.",
        ));
    }
    let file_err = |e: std::io::Error| {
        ToolError::failed(format!(
            "Could not create the background command's output file: {e}; the command was not \
             started."
        ))
    };
    let slot = shells.slot(kept).map_err(file_err)?;
    let wiring = if kept {
        Wiring::File(slot.file_for_command().map_err(file_err)?)
    } else {
        Wiring::Terminal
    };
    let started = start(&input.command, cwd, ctx, wiring)?;
    let shell = shells
        .adopt(
            started,
            slot,
            &input.command,
            input.description.clone(),
            ctx.agent_id.clone(),
            &[],
        )
        .map_err(|e| {
            ToolError::failed(format!(
                "Could not follow the background command: {e}; the command was stopped."
            ))
        })?;
    Ok(background_started(&shell, false))
}

/// The answer to a call whose command now runs in the background
/// (`by_user`: the user sent it there while it ran).
fn background_started(shell: &Shell, by_user: bool) -> ToolOutput {
    let sent = if by_user {
        "The user sent this command to the background while it ran; it keeps running. "
    } else {
        ""
    };
    let kept = match shell.pid() {
        Some(pid) if shell.kept => format!(
            " It keeps running after this session ends (pid {pid}); nothing will stop it then."
        ),
        _ => String::new(),
    };
    ToolOutput::text(format!(
        "{sent}Running in the background with id {id}. Its output goes to {path}. Read new \
         output with BashOutput (id {id}), stop it with KillShell; you will be told when it \
         ends.{kept}",
        id = shell.id,
        path = shell.output_path.display(),
    ))
    // Said as what happened when it was said: the line stays in the
    // scrollback after the command ends (the interface says so then).
    .with_display(if by_user {
        format!("Sent to the background as {}", shell.id)
    } else {
        format!("Started in the background as {}", shell.id)
    })
}

/// The result of a command the editor's terminal ran.
fn in_editor(
    ran: super::editor_files::TerminalRun,
    timeout_ms: u64,
    notes: &[String],
) -> Result<ToolOutput, ToolError> {
    use std::os::unix::process::ExitStatusExt;
    if ran.cancelled {
        return Err(ToolError::Cancelled);
    }
    let end = if ran.timed_out {
        End::TimedOut
    } else {
        match (ran.exit_code, ran.signal) {
            (Some(code), _) => End::Exited(ExitStatus::from_raw(((code & 0xff) as i32) << 8)),
            // The signal's name is not always a number; 9 stands for "killed".
            (None, Some(sig)) => End::Exited(ExitStatus::from_raw(signal_number(&sig))),
            (None, None) => End::Exited(ExitStatus::from_raw(0)),
        }
    };
    Ok(render(&ran.output, end, timeout_ms, notes))
}

fn signal_number(name: &str) -> i32 {
    match name.trim_start_matches("SIG") {
        "HUP" => 1,
        "INT" => 2,
        "QUIT" => 3,
        "TERM" => 15,
        other => other.parse().unwrap_or(9),
    }
}

/// The sandbox a call runs under: the read-only one when it was allowed
/// only because it was judged read-only, the working directories (and
/// the private temp dir) when acceptEdits allowed it for its edits, else
/// the session's.
fn policy_for(ctx: &ToolContext) -> SandboxPolicy {
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

fn same_dir(a: &Path, b: &Path) -> bool {
    a == b || std::fs::canonicalize(b).is_ok_and(|b| b == a)
}

/// How a run ended.
#[derive(Debug, Clone, Copy)]
enum End {
    Exited(ExitStatus),
    TimedOut,
    Cancelled,
    /// The user sent it to the background.
    Detached,
    /// A dry run's scratch area grew past its limit: it was stopped.
    ScratchFull,
    /// A dry run reached its process limit (a fork bomb): it was stopped.
    TooManyProcesses,
}

/// What became of a foreground command.
enum Outcome {
    Ran(Run),
    /// Sent to the background: it runs on as this entry.
    Detached(Arc<Shell>),
}

struct Run {
    output: String,
    end: End,
    final_cwd: Option<PathBuf>,
    /// What the command could do, when it ran confined.
    confined: Option<Confined>,
}

impl Run {
    /// Whether bubblewrap failed before the command's shell started: it
    /// exits with 1 and says so on the output, and the shell's exit trap,
    /// which always reports the final directory, never ran.
    fn sandbox_not_set_up(&self) -> bool {
        matches!(self.end, End::Exited(status) if status.code() == Some(1))
            && self.final_cwd.is_none()
            && self.confined.is_some()
            && self.output.starts_with("bwrap: ")
    }
}

/// What a confined command was allowed.
struct Confined {
    /// Where it could write.
    writable: Vec<PathBuf>,
    /// Whether it had a way to the network (the proxy).
    network: bool,
}

/// Whether a result `render` wrote is of a command that failed in the
/// user's eyes (exited non-zero, killed): what `ToolOutput::failed` said
/// when it ran, read back from a stored transcript so that a resumed
/// session shows the same mark as the live one.
pub fn result_failed(content: &str) -> bool {
    let Some(last) = content
        .lines()
        .rev()
        .find(|l| !l.starts_with("Note:") && !l.trim().is_empty())
    else {
        return false;
    };
    last.starts_with("Killed by signal ")
        || last.starts_with("The command ended abnormally")
        || last
            .strip_prefix("Exit code: ")
            .is_some_and(|code| !code.starts_with("0"))
}

/// The text the model receives.
fn render(output: &str, end: End, timeout_ms: u64, notes: &[String]) -> ToolOutput {
    let (trailing, leading): (Vec<String>, Vec<String>) =
        notes.iter().cloned().partition(|n| n.starts_with("Note:"));
    let mut parts = leading;
    let body = output.trim_end_matches(['\n', '\r']);
    if !body.is_empty() {
        parts.push(body.to_string());
    }
    let mut is_error = false;
    let mut failed = true;
    match end {
        End::Exited(status) => match (status.code(), status.signal()) {
            (Some(0), _) => failed = false,
            (Some(127), _) => parts.push(format!("Exit code: 127. {NOT_FOUND_HINT}")),
            (Some(code), _) => parts.push(format!("Exit code: {code}")),
            (None, Some(sig)) => parts.push(format!("Killed by signal {sig}")),
            (None, None) => parts.push("The command ended abnormally".into()),
        },
        End::TimedOut => {
            is_error = true;
            parts.push(format!(
                "Command timed out after {timeout_ms} ms. {TIMEOUT_HINT}"
            ));
        }
        End::ScratchFull | End::TooManyProcesses => is_error = true,
        End::Cancelled | End::Detached => {}
    }
    parts.extend(trailing);
    if parts.is_empty() {
        parts.push("(no output)".into());
    }
    ToolOutput {
        content: parts.join("\n"),
        display: None,
        is_error,
        failed,
        media: Vec::new(),
    }
}

/// A command that has been started: its shell, its process group (killed
/// if this is dropped while armed), and the read ends of its pipes.
pub(super) struct Started {
    pub(super) child: tokio::process::Child,
    pub(super) group: GroupGuard,
    pub(super) output: Output,
    pub(super) cwd_reader: std::io::PipeReader,
    confined: Option<Confined>,
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
fn start(
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

async fn run(
    command: &str,
    cwd: &Path,
    timeout_ms: u64,
    ctx: &ToolContext,
    watch: Option<dry_run::Watch>,
) -> Result<Outcome, ToolError> {
    // The user may send it to the background (not a read-only agent's:
    // such an agent has no BashOutput or KillShell to follow it with).
    let shells = ctx
        .values
        .get::<Arc<BackgroundShells>>()
        .filter(|_| ctx.values.get::<super::ReadOnlyAgent>().is_none())
        .cloned();
    let foreground = shells.as_ref().map(|s| s.foreground());
    let detached = foreground
        .as_ref()
        .map(background::Foreground::detached)
        .unwrap_or_default();
    let Started {
        mut child,
        mut group,
        output,
        cwd_reader,
        confined,
        at,
    } = start(command, cwd, ctx, Wiring::Pipe)?;
    let Output::Pipe(out_rx) = output else {
        return Err(ToolError::failed(
            "The command's output pipe was not set up.",
        ));
    };
    let pid = child.id();
    let stop = CancellationToken::new();
    let hand_over = CancellationToken::new();
    let spill = ctx
        .values
        .get::<ToolOutputDir>()
        .map(|dir| output::spill_path(&dir.0, ctx.tool_use_id.as_deref()));
    let live = ctx.values.get::<super::live::LiveOutput>().cloned();
    let mut reader = tokio::spawn(pipes::collect(
        out_rx,
        stop.clone(),
        hand_over.clone(),
        spill,
        live,
    ));

    let end = tokio::select! {
        status = child.wait() => match status {
            Ok(status) => End::Exited(status),
            Err(e) => return Err(ToolError::failed(format!("Waiting for the command failed: {e}"))),
        },
        _ = tokio::time::sleep(Duration::from_millis(timeout_ms)) => End::TimedOut,
        _ = ctx.cancel.cancelled() => End::Cancelled,
        _ = detached.cancelled() => End::Detached,
        limit = async {
            match watch {
                Some(w) => dry_run::watch(w, pid).await,
                None => std::future::pending().await,
            }
        } => match limit {
            dry_run::Limit::Scratch => End::ScratchFull,
            dry_run::Limit::Processes => End::TooManyProcesses,
        },
    };
    drop(foreground);
    if let (End::Detached, Some(shells)) = (end, shells) {
        hand_over.cancel();
        let (buffer, rx) = reader
            .await
            .map_err(|e| ToolError::failed(format!("Reading the command's output failed: {e}")))?;
        let out_rx = match rx {
            Some(rx) => rx,
            // The output had already ended: the background entry reads an
            // empty pipe.
            None => pipes::closed_pipe()
                .map_err(|e| ToolError::failed(format!("Could not hand the command over: {e}")))?,
        };
        let started = Started {
            child,
            group,
            output: Output::Pipe(out_rx),
            cwd_reader,
            confined,
            at,
        };
        return adopt_in_background(&shells, started, command, ctx, &buffer.so_far());
    }
    let drain = match end {
        End::Exited(_) => {
            // Background jobs the command started may keep running; they
            // stay tracked and end with the session.
            group.pgid = None;
            DRAIN_AFTER_EXIT
        }
        End::TimedOut
        | End::Cancelled
        | End::Detached
        | End::ScratchFull
        | End::TooManyProcesses => {
            group.kill();
            // Reap the shell so no zombie is left behind.
            let _ = child.wait().await;
            DRAIN_AFTER_KILL
        }
    };
    let buffer = match tokio::time::timeout(drain, &mut reader).await {
        Ok(joined) => joined.ok(),
        Err(_) => {
            stop.cancel();
            reader.await.ok()
        }
    };
    let output = buffer.map(|(b, _)| b.render()).unwrap_or_default();
    let final_cwd = match end {
        End::Exited(_) => pipes::read_cwd(cwd_reader).await,
        End::TimedOut
        | End::Cancelled
        | End::Detached
        | End::ScratchFull
        | End::TooManyProcesses => None,
    };
    Ok(Outcome::Ran(Run {
        output,
        end,
        final_cwd,
        confined,
    }))
}

/// A command the user sent to the background mid-run: the background
/// shells take it over with what it printed so far.
fn adopt_in_background(
    shells: &BackgroundShells,
    started: Started,
    command: &str,
    ctx: &ToolContext,
    so_far: &[u8],
) -> Result<Outcome, ToolError> {
    let not_created = |e: std::io::Error| {
        ToolError::failed(format!(
            "Could not create the background command's output file: {e}; the command \
             was stopped."
        ))
    };
    let slot = shells.slot(false).map_err(not_created)?;
    let shell = shells
        .adopt(started, slot, command, None, ctx.agent_id.clone(), so_far)
        .map_err(not_created)?;
    Ok(Outcome::Detached(shell))
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
