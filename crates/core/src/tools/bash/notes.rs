//! What the model is told when a confined command failed: that the
//! sandbox refused it a write or the network, and — for a command that
//! ran unasked because it was judged read-only — how to ask the user for
//! more.

use super::ToolContext;
use super::foreground::Run;
use crate::permissions::Grant;

/// What programs print when the sandbox refuses a write.
const WRITE_REFUSED: &[&str] = &[
    "Permission denied",
    "Operation not permitted",
    "Read-only file system",
];

/// What programs print (lower-cased) when they find no network, no DNS
/// or no socket.
const NETWORK_REFUSED: &[&str] = &[
    "could not resolve",
    "couldn't resolve",
    "name resolution",
    "name or service not known",
    "no address associated",
    "getaddrinfo",
    "network is unreachable",
    "failed to connect",
    "couldn't connect",
    "could not connect",
    "connection refused",
    "socket",
    "/dev/tcp/",
    "/dev/udp/",
    "unable to access 'http",
    "transport '",
];

/// Why a confined command that failed may have failed, for the model: it
/// was refused a write, or the network. Commands that ran unasked because
/// they were judged read-only are also told how to ask for more — except
/// in plan mode and in read-only sub-agents, which cannot.
pub(super) fn sandbox_notes(run: &Run, ctx: &ToolContext) -> Vec<String> {
    let Some(confined) = &run.confined else {
        return Vec::new();
    };
    let can_escalate = matches!(ctx.grant, Grant::ReadOnly | Grant::Edits)
        && ctx.permission_mode() != catui_protocol::PermissionMode::Plan
        && ctx.values.get::<crate::tools::ReadOnlyAgent>().is_none();
    let mut notes = Vec::new();
    if WRITE_REFUSED.iter().any(|m| run.output.contains(m)) {
        let dirs: Vec<String> = confined
            .writable
            .iter()
            .map(|d| d.display().to_string())
            .collect();
        let mut note = format!(
            "Note: commands run in a sandbox here; writing is only allowed under {} and to /dev/null.",
            dirs.join(", ")
        );
        if can_escalate {
            note.push_str(match ctx.grant {
                Grant::Edits => {
                    " This command ran without asking because acceptEdits allows edits inside \
                     the working directories, so it was confined to writing there. If it has to \
                     write elsewhere, run it again with `unconfined: true`; the user will be \
                     asked first."
                }
                _ => {
                    " This command ran without asking because it was judged read-only, so it \
                     was confined to reading. If it has to write, run it again with \
                     `unconfined: true`; the user will be asked first."
                }
            });
        }
        notes.push(note);
    }
    let lower = run.output.to_lowercase();
    if !confined.network && NETWORK_REFUSED.iter().any(|m| lower.contains(m)) {
        let mut note = "Note: this command ran in a sandbox without network access (no \
                        connections, no name lookups, no sockets), which is likely why it failed."
            .to_string();
        if can_escalate {
            note.push_str(
                " It ran without asking, so it ran without the network. If it needs the \
                 network, run it again with `unconfined: true`; the user will be asked first.",
            );
        }
        notes.push(note);
    }
    notes
}
