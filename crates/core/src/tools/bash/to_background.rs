//! Putting a command in the background: started there
//! (`run_in_background`, on a terminal of its own or, with `keep_running`,
//! writing straight to its output file), or sent there by the user while it
//! ran; and the answer that tells the model so. The list of background
//! commands itself is [`background`](super::background).

use std::path::Path;
use std::sync::Arc;

use super::BashInput;
use super::background::{BackgroundShells, Shell};
use super::launch::{Started, Wiring, policy_for, start};
use crate::permissions::sandbox::SandboxPolicy;
use crate::tools::{ToolContext, ToolError, ToolOutput};

/// Starts the command as a foreground one would be (same sandbox, same
/// tracked group) and hands it to the session's background list: on a
/// terminal of its own, or — kept running after the session — writing
/// straight to its output file.
pub(super) fn start_in_background(
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
pub(super) fn background_started(shell: &Shell, by_user: bool) -> ToolOutput {
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

/// A command the user sent to the background mid-run: the background
/// shells take it over with what it printed so far.
pub(super) fn adopt_in_background(
    shells: &BackgroundShells,
    started: Started,
    command: &str,
    ctx: &ToolContext,
    so_far: &[u8],
) -> Result<Arc<Shell>, ToolError> {
    let not_created = |e: std::io::Error| {
        ToolError::failed(format!(
            "Could not create the background command's output file: {e}; the command \
             was stopped."
        ))
    };
    let slot = shells.slot(false).map_err(not_created)?;
    shells
        .adopt(started, slot, command, None, ctx.agent_id.clone(), so_far)
        .map_err(not_created)
}
