//! The one permission-mode state machine.
//!
//! `/plan`, Shift+Tab, `/mode`, `EnterPlanMode`, `ExitPlanMode`,
//! `--permission-mode` and the headless `set_permission_mode` control all
//! change modes through [`transition_permission_mode`], so `pre_plan_mode`
//! is recorded whichever way plan mode is entered.

use catui_protocol::PermissionMode;
use catui_protocol::tool_names;

use super::PermissionContext;
use super::rules::Rule;

/// What a transition did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModeChange {
    pub from: PermissionMode,
    pub to: PermissionMode,
    /// `pre_plan_mode` after the transition (set while in plan mode).
    pub pre_plan_mode: Option<PermissionMode>,
    /// The auto-mode classifier was active before and is not any more:
    /// schedule the `auto_mode_exit` attachment
    /// (`PlanState::set_needs_auto_mode_exit_attachment(true)`), so the
    /// model knows its calls will be asked about again.
    pub auto_mode_exited: bool,
}

impl ModeChange {
    /// Whether the mode actually changed.
    pub fn changed(&self) -> bool {
        self.from != self.to
    }
}

/// A transition that was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModeError {
    #[error(
        "auto mode is not enabled. To opt in, add \"autoMode\": {{\"enabled\": true}} to your settings (.catui/settings.json or $CATUI_CONFIG_DIR/settings.json); otherwise choose default, acceptEdits, plan or bypassPermissions"
    )]
    AutoModeDisabled,
    #[error(
        "bypassPermissions is switched off by settings (permissions.disableBypassPermissionsMode); choose default, acceptEdits or plan"
    )]
    BypassDisabled,
}

/// How strict a mode is, for comparing two: `plan` asks for (or refuses)
/// the most, `bypassPermissions` the least. An untrusted project may only
/// choose a stricter starting mode.
pub fn strictness(mode: PermissionMode) -> u8 {
    match mode {
        PermissionMode::Plan => 4,
        PermissionMode::Default => 3,
        PermissionMode::AcceptEdits => 2,
        PermissionMode::Auto => 1,
        PermissionMode::BypassPermissions => 0,
    }
}

/// Moves `ctx` to mode `to`. Entering plan mode records the previous mode in
/// `pre_plan_mode` (through [`prepare_context_for_plan_mode`]); leaving plan
/// mode clears it; entering `auto` sets dangerous allow rules aside and
/// leaving it restores them. Staying in the same mode changes nothing.
///
/// Entering `auto` while its gate is closed (settings `autoMode.enabled`
/// unset) is refused and leaves `ctx` unchanged.
pub fn transition_permission_mode(
    ctx: &mut PermissionContext,
    to: PermissionMode,
) -> Result<ModeChange, ModeError> {
    let from = ctx.mode;
    if from != to && to == PermissionMode::Auto && !auto_mode_gate_enabled(ctx) {
        return Err(ModeError::AutoModeDisabled);
    }
    if from != to && to == PermissionMode::BypassPermissions && ctx.bypass_disabled {
        return Err(ModeError::BypassDisabled);
    }
    let was_active = is_auto_mode_active(ctx);
    if from != to {
        if to == PermissionMode::Plan {
            prepare_context_for_plan_mode(ctx);
        } else {
            if from == PermissionMode::Plan {
                ctx.pre_plan_mode = None;
            }
            if to == PermissionMode::Auto {
                strip_dangerous_rules(ctx);
            } else if from == PermissionMode::Auto || from == PermissionMode::Plan {
                restore_dangerous_rules(ctx);
            }
        }
        ctx.mode = to;
    }
    Ok(ModeChange {
        from,
        to: ctx.mode,
        pre_plan_mode: ctx.pre_plan_mode,
        auto_mode_exited: was_active && !is_auto_mode_active(ctx),
    })
}

/// How much a mode lets run without asking: plan < default < acceptEdits
/// < auto < bypassPermissions.
fn width(mode: PermissionMode) -> u8 {
    match mode {
        PermissionMode::Plan => 0,
        PermissionMode::Default => 1,
        PermissionMode::AcceptEdits => 2,
        PermissionMode::Auto => 3,
        PermissionMode::BypassPermissions => 4,
    }
}

/// Whether `mode` lets more run without asking than `than`: what the model
/// may never grant itself (a teammate started in it, say) without the
/// user's word.
pub fn is_wider(mode: PermissionMode, than: PermissionMode) -> bool {
    width(mode) > width(than)
}

/// The mode that approving a plan returns to: `pre_plan_mode`, else
/// `default`. `auto` falls back to `default` while auto mode is
/// unavailable.
pub fn mode_after_plan(ctx: &PermissionContext) -> PermissionMode {
    match ctx.pre_plan_mode {
        Some(PermissionMode::Auto) if !auto_mode_gate_enabled(ctx) => PermissionMode::Default,
        Some(PermissionMode::BypassPermissions) if ctx.bypass_disabled => PermissionMode::Default,
        Some(PermissionMode::Plan) | None => PermissionMode::Default,
        Some(mode) => mode,
    }
}

/// Prepares `ctx` for entering plan mode (the table in
/// docs/PLAN_MODE.md#plan-mode-and-auto-mode):
/// records the mode being left; leaving `auto` for planning without
/// [`should_plan_use_auto_mode`] restores the stripped rules; entering from
/// `default` or `acceptEdits` with it strips them (the classifier then
/// stays active while planning). `bypassPermissions` never turns the
/// classifier on.
pub fn prepare_context_for_plan_mode(ctx: &mut PermissionContext) {
    let current = ctx.mode;
    let Some(effects) = plan_entry_effects(current, should_plan_use_auto_mode(ctx)) else {
        return;
    };
    if effects.restore_dangerous {
        restore_dangerous_rules(ctx);
    }
    if effects.strip_dangerous {
        strip_dangerous_rules(ctx);
    }
    ctx.pre_plan_mode = Some(effects.pre_plan_mode);
}

/// `shouldPlanUseAutoMode`: opt-in (which is also the gate) and
/// `useDuringPlan`.
pub fn should_plan_use_auto_mode(ctx: &PermissionContext) -> bool {
    auto_mode_gate_enabled(ctx) && ctx.auto_mode.use_during_plan
}

/// The auto-mode gate: in catui, the settings opt-in
/// `autoMode.enabled`. Pass this to `plan::exit::restore_mode` when plan
/// mode ends.
pub fn auto_mode_gate_enabled(ctx: &PermissionContext) -> bool {
    ctx.auto_mode.enabled
}

/// Whether the auto-mode classifier judges calls now (`isAutoModeActive`):
/// in `auto`, and in plan mode entered from anything but
/// `bypassPermissions` while [`should_plan_use_auto_mode`] holds.
/// Derived from the context rather than stored, so it cannot drift from
/// the mode.
pub fn is_auto_mode_active(ctx: &PermissionContext) -> bool {
    match ctx.mode {
        PermissionMode::Auto => true,
        PermissionMode::Plan => {
            should_plan_use_auto_mode(ctx)
                && ctx.pre_plan_mode != Some(PermissionMode::BypassPermissions)
        }
        _ => false,
    }
}

/// Whether an allow rule lets arbitrary code run: the whole of
/// Bash, or a prefix rule for an interpreter, shell or package runner.
pub fn is_dangerous_allow_rule(rule: &Rule) -> bool {
    const RUNNERS: &[&str] = &[
        "bash", "sh", "zsh", "fish", "dash", "python", "python3", "node", "deno", "bun", "ruby",
        "perl", "php", "lua", "npx", "bunx", "pnpx", "uvx", "eval", "exec", "env", "sudo", "xargs",
    ];
    if rule.tool != tool_names::BASH {
        return false;
    }
    let Some(spec) = rule.specifier.as_deref().map(str::trim) else {
        return true;
    };
    let Some(prefix) = spec.strip_suffix(":*").or_else(|| spec.strip_suffix(" *")) else {
        return false;
    };
    match prefix.split_whitespace().next() {
        None => true,
        Some(program) => RUNNERS.contains(&program),
    }
}

/// Sets dangerous allow rules aside in `stripped_dangerous_rules`,
/// remembering where each stood so that restoring puts the allow list back
/// exactly as it was.
pub(super) fn strip_dangerous_rules(ctx: &mut PermissionContext) {
    let mut kept = Vec::with_capacity(ctx.rules.allow.len());
    for (index, rule) in std::mem::take(&mut ctx.rules.allow).into_iter().enumerate() {
        if is_dangerous_allow_rule(&rule.rule) {
            ctx.stripped_dangerous_positions.push(index);
            ctx.stripped_dangerous_rules.push(rule);
        } else {
            kept.push(rule);
        }
    }
    ctx.rules.allow = kept;
}

/// Puts the rules set aside by [`strip_dangerous_rules`] back at their old
/// places (positions are ascending within one strip, so inserting in order
/// rebuilds the list); a rule that is already there again (added while
/// auto mode ran) is not doubled.
pub(super) fn restore_dangerous_rules(ctx: &mut PermissionContext) {
    let positions = std::mem::take(&mut ctx.stripped_dangerous_positions);
    let rules = std::mem::take(&mut ctx.stripped_dangerous_rules);
    for (i, rule) in rules.into_iter().enumerate() {
        let duplicate = ctx
            .rules
            .allow
            .iter()
            .any(|r| r.rule == rule.rule && r.origin.root == rule.origin.root);
        if duplicate {
            continue;
        }
        let at = positions
            .get(i)
            .copied()
            .unwrap_or(usize::MAX)
            .min(ctx.rules.allow.len());
        ctx.rules.allow.insert(at, rule);
    }
}

/// What the permission layer must do when entering plan mode from a mode
/// other than plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanEntryEffects {
    /// The mode to record as `prePlanMode` (restored on exit).
    pub pre_plan_mode: PermissionMode,
    /// `Some(x)`: set the auto-mode classifier active to `x`; `None`: leave it.
    pub set_auto_active: Option<bool>,
    /// Strip the dangerous allow rules (auto stays or becomes active).
    pub strip_dangerous: bool,
    /// Put back the dangerous allow rules stripped for auto mode.
    pub restore_dangerous: bool,
    /// Schedule the `auto_mode_exit` attachment.
    pub needs_auto_mode_exit_attachment: bool,
}

/// The plan-entry table of docs/PLAN_MODE.md#plan-mode-and-auto-mode.
/// `plan_auto_mode` is `shouldPlanUseAutoMode()`: auto mode
/// is opted in, its gate is enabled and `autoMode.useDuringPlan` is set.
/// Returns `None` when already in plan mode: the context is left unchanged.
pub fn plan_entry_effects(
    current_mode: PermissionMode,
    plan_auto_mode: bool,
) -> Option<PlanEntryEffects> {
    let only_record = PlanEntryEffects {
        pre_plan_mode: current_mode,
        set_auto_active: None,
        strip_dangerous: false,
        restore_dangerous: false,
        needs_auto_mode_exit_attachment: false,
    };
    Some(match (current_mode, plan_auto_mode) {
        (PermissionMode::Plan, _) => return None,
        // Auto continues into plan mode untouched.
        (PermissionMode::Auto, true) => only_record,
        // Auto stops for planning: restore its stripped rules and tell the model.
        (PermissionMode::Auto, false) => PlanEntryEffects {
            set_auto_active: Some(false),
            restore_dangerous: true,
            needs_auto_mode_exit_attachment: true,
            ..only_record
        },
        // Bypass never turns the classifier on.
        (PermissionMode::BypassPermissions, _) => only_record,
        (PermissionMode::Default | PermissionMode::AcceptEdits, true) => PlanEntryEffects {
            set_auto_active: Some(true),
            strip_dangerous: true,
            ..only_record
        },
        (PermissionMode::Default | PermissionMode::AcceptEdits, false) => only_record,
    })
}

/// What to do when the auto-mode settings change while in plan mode
/// (`transitionPlanAutoMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanAutoModeChange {
    /// Auto stays active: strip the dangerous rules again (the rule set may
    /// have changed).
    Restrip,
    /// Turn auto on and strip the dangerous rules.
    Activate,
    /// Turn auto off, restore the stripped rules and schedule the
    /// `auto_mode_exit` attachment.
    Deactivate,
}

/// `want` is `shouldPlanUseAutoMode()` under the new settings, `have`
/// whether the classifier is active now. Nothing happens outside plan mode,
/// nor when plan mode was entered from bypassPermissions.
pub fn plan_auto_mode_change(
    mode: PermissionMode,
    pre_plan_mode: Option<PermissionMode>,
    want: bool,
    have: bool,
) -> Option<PlanAutoModeChange> {
    if mode != PermissionMode::Plan || pre_plan_mode == Some(PermissionMode::BypassPermissions) {
        return None;
    }
    match (want, have) {
        (true, true) => Some(PlanAutoModeChange::Restrip),
        (true, false) => Some(PlanAutoModeChange::Activate),
        (false, true) => Some(PlanAutoModeChange::Deactivate),
        (false, false) => None,
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::permissions::AutoModeConfig;
    use crate::permissions::rules::{RuleBehavior, RuleOrigin, SourcedRule};

    #[test]
    fn modes_are_ordered_by_what_they_let_run() {
        use PermissionMode::*;
        let order = [Plan, Default, AcceptEdits, Auto, BypassPermissions];
        for (i, a) in order.iter().enumerate() {
            for (j, b) in order.iter().enumerate() {
                assert_eq!(is_wider(*a, *b), i > j, "{a} vs {b}");
            }
        }
    }

    fn go(ctx: &mut PermissionContext, to: PermissionMode) -> ModeChange {
        transition_permission_mode(ctx, to).unwrap()
    }

    /// A context with auto mode opted in (but not used during planning).
    fn opted_in() -> PermissionContext {
        PermissionContext {
            auto_mode: AutoModeConfig {
                enabled: true,
                use_during_plan: false,
            },
            ..PermissionContext::default()
        }
    }

    fn allow(ctx: &mut PermissionContext, text: &str) {
        ctx.rules.push(
            RuleBehavior::Allow,
            SourcedRule {
                rule: Rule::parse(text).unwrap(),
                origin: RuleOrigin::cli(PathBuf::from("/p")),
            },
        );
    }

    #[test]
    fn entering_plan_records_previous_mode_from_every_mode() {
        for start in [
            PermissionMode::Default,
            PermissionMode::AcceptEdits,
            PermissionMode::BypassPermissions,
            PermissionMode::Auto,
        ] {
            let mut ctx = opted_in();
            go(&mut ctx, start);
            let change = go(&mut ctx, PermissionMode::Plan);
            assert_eq!(change.from, start);
            assert_eq!(change.to, PermissionMode::Plan);
            assert_eq!(change.pre_plan_mode, Some(start));
            assert!(change.changed());
            assert_eq!(ctx.pre_plan_mode, Some(start));
        }
    }

    #[test]
    fn plan_to_plan_keeps_pre_plan_mode() {
        let mut ctx = PermissionContext::default();
        go(&mut ctx, PermissionMode::AcceptEdits);
        go(&mut ctx, PermissionMode::Plan);
        let again = go(&mut ctx, PermissionMode::Plan);
        assert!(!again.changed());
        assert_eq!(again.pre_plan_mode, Some(PermissionMode::AcceptEdits));
    }

    #[test]
    fn leaving_plan_clears_pre_plan_mode() {
        let mut ctx = PermissionContext::default();
        go(&mut ctx, PermissionMode::AcceptEdits);
        go(&mut ctx, PermissionMode::Plan);
        assert_eq!(mode_after_plan(&ctx), PermissionMode::AcceptEdits);
        let back = mode_after_plan(&ctx);
        let change = go(&mut ctx, back);
        assert_eq!(change.to, PermissionMode::AcceptEdits);
        assert_eq!(change.pre_plan_mode, None);
        assert_eq!(ctx.pre_plan_mode, None);
    }

    #[test]
    fn mode_after_plan_defaults_and_auto_falls_back() {
        let mut ctx = PermissionContext {
            mode: PermissionMode::Plan,
            ..PermissionContext::default()
        };
        assert_eq!(mode_after_plan(&ctx), PermissionMode::Default);
        ctx.pre_plan_mode = Some(PermissionMode::Auto);
        assert_eq!(mode_after_plan(&ctx), PermissionMode::Default);
    }

    #[test]
    fn auto_strips_and_restores_dangerous_rules() {
        let mut ctx = opted_in();
        for r in [
            "Bash",
            "Bash(python:*)",
            "Bash(npm test)",
            "Read",
            "Bash(git diff:*)",
        ] {
            allow(&mut ctx, r);
        }
        go(&mut ctx, PermissionMode::Auto);
        let kept: Vec<String> = ctx.rules.allow.iter().map(|r| r.rule.to_string()).collect();
        assert_eq!(kept, ["Bash(npm test)", "Read", "Bash(git diff:*)"]);
        assert_eq!(ctx.stripped_dangerous_rules.len(), 2);
        // auto -> plan without plan-auto restores them.
        go(&mut ctx, PermissionMode::Plan);
        assert!(ctx.stripped_dangerous_rules.is_empty());
        assert_eq!(ctx.rules.allow.len(), 5);
        assert_eq!(ctx.pre_plan_mode, Some(PermissionMode::Auto));
    }

    #[test]
    fn dangerous_rule_classification() {
        for (text, dangerous) in [
            ("Bash", true),
            ("Bash(*)", true),
            ("Bash(python3:*)", true),
            ("Bash(npx *)", true),
            ("Bash(npm test)", false),
            ("Bash(cargo test:*)", false),
            ("Read", false),
        ] {
            let rule = Rule::parse(text).unwrap();
            assert_eq!(is_dangerous_allow_rule(&rule), dangerous, "{text}");
        }
    }
}
