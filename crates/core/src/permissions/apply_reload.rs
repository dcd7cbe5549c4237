//! Settings that changed while a session runs: the permission side.
//!
//! The settings layer notices the changed files and reads them again
//! (`crate::settings::reload`); [`apply_reloaded_settings`]
//! swaps their rules, directories and auto-mode opt-in into a live
//! [`PermissionContext`], keeping what did not come from a settings file
//! (command-line rules, rules added during the session, `--add-dir`).
//! Auto mode follows the new opt-in: while planning through
//! [`plan_auto_mode_change`], and `auto` itself ends when its gate closes;
//! `bypassPermissions` ends when `disableBypassPermissionsMode` appears.

use std::path::PathBuf;

use catui_protocol::PermissionMode;

use super::mode::{
    PlanAutoModeChange, is_auto_mode_active, plan_auto_mode_change, restore_dangerous_rules,
    should_plan_use_auto_mode, strip_dangerous_rules,
};
use super::rules::{RuleSet, RuleSourceKind, SourcedRule};
use super::{AutoModeConfig, ModeChange, PermissionContext, transition_permission_mode};

/// The permission part of freshly read settings.
#[derive(Debug, Clone, Copy)]
pub struct ReloadedPermissions<'a> {
    /// Every settings file's rules (including the ask-everything stand-in
    /// of a file that could not be applied).
    pub rules: &'a RuleSet,
    /// `additionalDirectories` now.
    pub directories: &'a [PathBuf],
    /// `additionalDirectories` as last applied.
    pub previous_directories: &'a [PathBuf],
    /// Directories that stay whatever the settings say: the project and
    /// `--add-dir`.
    pub kept_directories: &'a [PathBuf],
    pub auto_mode: AutoModeConfig,
    /// `disableBypassPermissionsMode` now.
    pub bypass_disabled: bool,
    /// `secretPaths` now (added to the defaults).
    pub secret_paths: &'a [String],
}

/// What applying reloaded settings changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reloaded {
    /// The allow, ask or deny rules differ.
    pub rules_changed: bool,
    /// Working directories added or removed.
    pub directories_changed: bool,
    /// What plan mode did about the new auto-mode opt-in.
    pub plan_auto: Option<PlanAutoModeChange>,
    /// A mode change to announce: `auto` ended because its gate closed, or
    /// the classifier stopped judging plan mode's calls
    /// (`auto_mode_exited`).
    pub mode_change: Option<ModeChange>,
}

impl Reloaded {
    pub fn changed_anything(&self) -> bool {
        self.rules_changed
            || self.directories_changed
            || self
                .plan_auto
                .is_some_and(|c| c != PlanAutoModeChange::Restrip)
            || self.mode_change.is_some()
    }
}

/// Whether a rule came from a settings file (and so is replaced on reload).
fn from_settings(rule: &SourcedRule) -> bool {
    matches!(
        rule.origin.kind,
        RuleSourceKind::UserSettings
            | RuleSourceKind::ProjectSettings
            | RuleSourceKind::LocalSettings
            | RuleSourceKind::FlagSettings
            | RuleSourceKind::UnappliedSettings
    )
}

/// Same rules, in any order.
fn same_rules(a: &[SourcedRule], b: &[SourcedRule]) -> bool {
    a.len() == b.len() && a.iter().all(|r| b.contains(r)) && b.iter().all(|r| a.contains(r))
}

/// Puts reloaded settings into `ctx` (see the module documentation).
pub fn apply_reloaded_settings(
    ctx: &mut PermissionContext,
    new: ReloadedPermissions<'_>,
) -> Reloaded {
    let had_auto = is_auto_mode_active(ctx);
    // Work on the whole allow list: the stripped rules go back first and
    // are set aside again below if auto mode stays on.
    if had_auto {
        restore_dangerous_rules(ctx);
    }
    let before = ctx.rules.clone();
    for list in [
        &mut ctx.rules.allow,
        &mut ctx.rules.ask,
        &mut ctx.rules.deny,
    ] {
        list.retain(|r| !from_settings(r));
    }
    for behavior in [
        super::RuleBehavior::Allow,
        super::RuleBehavior::Ask,
        super::RuleBehavior::Deny,
    ] {
        for rule in new.rules.list(behavior) {
            ctx.rules.push(behavior, rule.clone());
        }
    }
    let rules_changed = !(same_rules(&before.allow, &ctx.rules.allow)
        && same_rules(&before.ask, &ctx.rules.ask)
        && same_rules(&before.deny, &ctx.rules.deny));

    let dirs_before = ctx.working_dirs.clone();
    ctx.working_dirs.retain(|d| {
        !new.previous_directories.contains(d)
            || new.directories.contains(d)
            || new.kept_directories.contains(d)
    });
    for dir in new.directories {
        if !ctx.working_dirs.contains(dir) {
            ctx.working_dirs.push(dir.clone());
        }
    }
    let directories_changed = dirs_before != ctx.working_dirs;
    ctx.secrets = ctx.secrets.rebuilt(new.secret_paths, &ctx.working_dirs);

    ctx.auto_mode = new.auto_mode;
    ctx.bypass_disabled = new.bypass_disabled;
    if ctx.bypass_disabled && ctx.pre_plan_mode == Some(PermissionMode::BypassPermissions) {
        ctx.pre_plan_mode = Some(PermissionMode::Default);
    }
    let mut reloaded = Reloaded {
        rules_changed,
        directories_changed,
        ..Reloaded::default()
    };
    match ctx.mode {
        PermissionMode::Plan => {
            let want = should_plan_use_auto_mode(ctx);
            reloaded.plan_auto = plan_auto_mode_change(ctx.mode, ctx.pre_plan_mode, want, had_auto);
            match reloaded.plan_auto {
                Some(PlanAutoModeChange::Restrip | PlanAutoModeChange::Activate) => {
                    strip_dangerous_rules(ctx);
                }
                // The rules are back already; the model is told its calls
                // will be asked about again.
                Some(PlanAutoModeChange::Deactivate) => {
                    reloaded.mode_change = Some(ModeChange {
                        from: ctx.mode,
                        to: ctx.mode,
                        pre_plan_mode: ctx.pre_plan_mode,
                        auto_mode_exited: true,
                    });
                }
                None => {}
            }
        }
        PermissionMode::Auto if ctx.auto_mode.enabled => strip_dangerous_rules(ctx),
        PermissionMode::Auto => {
            // The opt-in was withdrawn: auto mode cannot go on.
            reloaded.mode_change = transition_permission_mode(ctx, PermissionMode::Default).ok();
        }
        PermissionMode::BypassPermissions if ctx.bypass_disabled => {
            // Switched off: the session leaves it.
            reloaded.mode_change = transition_permission_mode(ctx, PermissionMode::Default).ok();
        }
        _ => {}
    }
    reloaded
}

#[cfg(test)]
#[path = "apply_reload_tests.rs"]
mod tests;
