//! Running a command in the foreground: waiting for it to exit, time out,
//! be interrupted, be sent to the background by the user, or pass a dry
//! run's limits; collecting its output and final directory; and telling a
//! sandbox that failed to set up (nothing ran: launching once more is safe)
//! from a command that failed by itself ([`Run::sandbox_not_set_up`]).

use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::background::{self, BackgroundShells, Shell};
use super::dry_run;
use super::launch::{Confined, Output, Started, Wiring, start};
use super::output::{self, ToolOutputDir};
use super::pipes::{self, DRAIN_AFTER_EXIT, DRAIN_AFTER_KILL};
use super::to_background::adopt_in_background;
use crate::tools::{ToolContext, ToolError};

/// How a run ended.
#[derive(Debug, Clone, Copy)]
pub(super) enum End {
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
pub(super) enum Outcome {
    Ran(Run),
    /// Sent to the background: it runs on as this entry.
    Detached(Arc<Shell>),
}

pub(super) struct Run {
    pub(super) output: String,
    pub(super) end: End,
    pub(super) final_cwd: Option<PathBuf>,
    /// What the command could do, when it ran confined.
    pub(super) confined: Option<Confined>,
}

impl Run {
    /// Whether bubblewrap failed before the command's shell started: it
    /// exits with 1 and says so on the output, and the shell's exit trap,
    /// which always reports the final directory, never ran.
    pub(super) fn sandbox_not_set_up(&self) -> bool {
        matches!(self.end, End::Exited(status) if status.code() == Some(1))
            && self.final_cwd.is_none()
            && self.confined.is_some()
            && self.output.starts_with("bwrap: ")
    }
}

pub(super) async fn run(
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
        .filter(|_| ctx.values.get::<crate::tools::ReadOnlyAgent>().is_none())
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
    let live = ctx.values.get::<crate::tools::live::LiveOutput>().cloned();
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
        let shell = adopt_in_background(&shells, started, command, ctx, &buffer.so_far())?;
        return Ok(Outcome::Detached(shell));
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
