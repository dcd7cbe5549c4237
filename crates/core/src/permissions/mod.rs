//! Permissions: every tool call goes through [`decide`].
//!
//! A tool describes what a call would touch ([`Access`]); the decision
//! combines that with the mode and the rules: deny rules, then ask rules,
//! then allow rules, then the mode's default.

use std::path::PathBuf;

pub mod sandbox;
pub mod shell;

use catui_protocol::PermissionMode;

/// What a tool call would touch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// Reads these paths (files or directories searched).
    Read { paths: Vec<PathBuf> },
    /// Creates or changes this file.
    Write { path: PathBuf },
    /// Runs this shell command.
    Shell { command: String },
    /// Needs the user's answer whatever the mode (AskUserQuestion,
    /// ExitPlanMode).
    Interaction,
    /// Changes only the session's own state (TodoWrite, EnterPlanMode).
    Session,
    /// Starts a sub-agent of this type.
    Agent { subagent_type: String },
}

/// The outcome of a permission check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Allow,
    /// Ask the user; the text says what is being asked.
    Ask {
        reason: String,
    },
    /// Refuse; the message reaches the model.
    Deny {
        message: String,
    },
}

/// The permission state of a session (G§5.1).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PermissionContext {
    pub mode: PermissionMode,
    pub pre_plan_mode: Option<PermissionMode>,
    /// The session's plan file (the one file writable in plan mode).
    pub plan_file: Option<PathBuf>,
}

/// The one mode transition function (placeholder until the permission
/// layer lands): records `pre_plan_mode` when entering plan mode.
pub fn transition_permission_mode(
    ctx: &mut PermissionContext,
    to: PermissionMode,
) -> Result<(), String> {
    if to == PermissionMode::Plan && ctx.mode != PermissionMode::Plan {
        ctx.pre_plan_mode = Some(ctx.mode);
    } else if ctx.mode == PermissionMode::Plan && to != PermissionMode::Plan {
        ctx.pre_plan_mode = None;
    }
    ctx.mode = to;
    Ok(())
}

/// Decides whether a call may run.
pub fn decide(
    ctx: &PermissionContext,
    tool_name: &str,
    access: &Access,
    read_only: bool,
) -> Decision {
    match access {
        Access::Read { .. } | Access::Session => Decision::Allow,
        _ if read_only => Decision::Allow,
        _ if ctx.mode == PermissionMode::BypassPermissions
            && !matches!(access, Access::Interaction) =>
        {
            Decision::Allow
        }
        _ => Decision::Ask {
            reason: format!("{tool_name} needs your permission"),
        },
    }
}
