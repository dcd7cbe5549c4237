//! The text the model receives of a finished command: its output, its
//! exit code or how it ended, what to do after a timeout or a missing
//! program, and the notes around it; a run in the editor's terminal
//! rendered the same way; and reading the failure mark back from a stored
//! result ([`result_failed`]).

use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

use super::foreground::End;
use crate::tools::ToolError;
use crate::tools::ToolOutput;

/// What a command that timed out may have been doing, and what to do.
const TIMEOUT_HINT: &str = "It may have been waiting for input (a prompt, an editor, a \
    pager, a REPL): commands here get no input. Run it with non-interactive flags (`-y`, \
    `--no-edit`, `--no-pager`, input from a file or a here-doc), or start it with \
    `run_in_background: true`, read it with BashOutput and answer it with BashInput. If it was \
    only slow, give it a longer `timeout` or run it in the background.";

/// What exit code 127 means, and what to check first.
const NOT_FOUND_HINT: &str = "The shell could not find a command: check its name and whether \
    it is installed (`command -v NAME`), or install it with the machine's package manager.";

/// The result of a command the editor's terminal ran.
pub(super) fn in_editor(
    ran: crate::tools::editor_files::TerminalRun,
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
pub(super) fn render(output: &str, end: End, timeout_ms: u64, notes: &[String]) -> ToolOutput {
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
