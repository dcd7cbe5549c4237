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
//!
//! This file owns the input, its checks and `call` (which way a call goes);
//! the steps live beside it: `launch.rs` (starting a command under its
//! sandbox), `foreground.rs` (waiting for it), `to_background.rs`,
//! `render.rs` (what the model is told) and `description.rs`.

pub mod background;
#[cfg(test)]
mod background_tests;
#[cfg(test)]
mod containment_tests;
mod description;
mod dry_run;
#[cfg(test)]
mod exfiltration_tests;
mod foreground;
pub mod groups;
mod launch;
mod notes;
mod output;
mod pipes;
mod pty;
mod read_only;
mod render;
#[cfg(test)]
mod sandbox_setup_tests;
mod to_background;

use catui_protocol::tool_names;
use std::path::Path;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

pub use background::{BackgroundShells, Shell, ShellStatus};
pub use description::Asking;
pub use output::{MAX_OUTPUT_CHARS, OutputBuffer, ToolOutputDir};
pub use read_only::{ReadOnlyBashInput, ReadOnlyBashTool};
pub use render::result_failed;

use super::{ToolContext, ToolError, ToolOutput, TypedTool};
use crate::permissions::sandbox::SandboxPolicy;
use crate::permissions::shell;
use crate::permissions::{Access, Grant};
use description::describe;
use foreground::{End, Outcome, run};
use launch::policy_for;
use render::{in_editor, render};
use to_background::{background_started, start_in_background};

/// Default time limit of a command.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// Largest time limit a call may ask for.
pub const MAX_TIMEOUT_MS: u64 = 600_000;

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

fn same_dir(a: &Path, b: &Path) -> bool {
    a == b || std::fs::canonicalize(b).is_ok_and(|b| b == a)
}
