//! Leaving plan mode when auto mode is in play: the mode
//! to restore (`auto` only while its gate is open, else `default` with a
//! notification), through the one transition function so that the
//! dangerous rules are stripped again or restored.

use catui_protocol::PermissionMode;

use crate::permissions::PermissionContext;
use crate::permissions::mode::{
    ModeChange, ModeError, auto_mode_gate_enabled, transition_permission_mode,
};
use crate::plan::contract::{AUTO_GATE_PLAN_EXIT_FALLBACK_KEY, auto_gate_plan_exit_fallback_text};
use crate::plan::tools::exit_rules::restore_mode;

/// What ending plan mode did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanExit {
    pub change: ModeChange,
    /// `(key, text)` of the fallback notification, when `auto` could not be
    /// restored because its gate is closed.
    pub fallback_notification: Option<(&'static str, String)>,
}

/// The notification that auto mode could not be restored: key `auto-mode-gate-plan-exit-fallback`.
pub fn gate_fallback_notification() -> (&'static str, String) {
    (
        AUTO_GATE_PLAN_EXIT_FALLBACK_KEY,
        auto_gate_plan_exit_fallback_text(
            "auto mode is not enabled (settings autoMode.enabled), so approval continues in default mode",
        ),
    )
}

/// Ends plan mode on `ctx`: restores `chosen`, else `pre_plan_mode`, else
/// `default`, with the gate read from `ctx`. Callers that go
/// through the engine's session hooks do the same with
/// `plan::exit::restore_mode(pre_plan_mode, chosen, auto_mode_gate_enabled(&ctx))`
/// followed by `set_permission_mode` and `notify`.
pub fn exit_plan_mode(
    ctx: &mut PermissionContext,
    chosen: Option<PermissionMode>,
) -> Result<PlanExit, ModeError> {
    let (mode, fallback) = restore_mode(ctx.pre_plan_mode, chosen, auto_mode_gate_enabled(ctx));
    let change = transition_permission_mode(ctx, mode)?;
    Ok(PlanExit {
        change,
        fallback_notification: fallback.then(gate_fallback_notification),
    })
}
