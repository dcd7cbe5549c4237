//! The one permission-mode state machine (G§5, G§8).
//!
//! `/plan`, Shift+Tab, `/mode`, `EnterPlanMode`, `ExitPlanMode`,
//! `--permission-mode` and the headless `set_permission_mode` control all
//! change modes through [`transition_permission_mode`], so `pre_plan_mode`
//! is recorded whichever way plan mode is entered.

use catui_protocol::PermissionMode;

use super::PermissionContext;
use super::rules::{Rule, RuleBehavior, SourcedRule};

/// What a transition did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModeChange {
    pub from: PermissionMode,
    pub to: PermissionMode,
    /// `pre_plan_mode` after the transition (set while in plan mode).
    pub pre_plan_mode: Option<PermissionMode>,
}

impl ModeChange {
    /// Whether the mode actually changed.
    pub fn changed(&self) -> bool {
        self.from != self.to
    }
}

/// Moves `ctx` to mode `to`. Entering plan mode records the previous mode in
/// `pre_plan_mode` (through [`prepare_context_for_plan_mode`]); leaving plan
/// mode clears it; entering `auto` sets dangerous allow rules aside and
/// leaving it restores them. Staying in the same mode changes nothing.
pub fn transition_permission_mode(ctx: &mut PermissionContext, to: PermissionMode) -> ModeChange {
    let from = ctx.mode;
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
    ModeChange {
        from,
        to: ctx.mode,
        pre_plan_mode: ctx.pre_plan_mode,
    }
}

/// The mode that approving a plan returns to: `pre_plan_mode`, else
/// `default` (G§10.8). `auto` falls back to `default` while auto mode is
/// unavailable.
pub fn mode_after_plan(ctx: &PermissionContext) -> PermissionMode {
    match ctx.pre_plan_mode {
        Some(PermissionMode::Auto) if !auto_mode_available(ctx) => PermissionMode::Default,
        Some(PermissionMode::Plan) | None => PermissionMode::Default,
        Some(mode) => mode,
    }
}

/// Prepares `ctx` for entering plan mode (G§8.1): records the mode being
/// left. The auto-mode branches (keeping the classifier active during
/// planning) follow the table of G§8.2 once auto mode exists; until then
/// [`should_plan_use_auto_mode`] is false and only `pre_plan_mode` is set.
pub fn prepare_context_for_plan_mode(ctx: &mut PermissionContext) {
    let current = ctx.mode;
    if current == PermissionMode::Plan {
        return;
    }
    let plan_auto = should_plan_use_auto_mode(ctx);
    if current == PermissionMode::Auto {
        if !plan_auto {
            restore_dangerous_rules(ctx);
        }
    } else if plan_auto && current != PermissionMode::BypassPermissions {
        strip_dangerous_rules(ctx);
    }
    ctx.pre_plan_mode = Some(current);
}

/// `shouldPlanUseAutoMode` (G§14.1): opt-in, gate, and `useDuringPlan`.
pub fn should_plan_use_auto_mode(ctx: &PermissionContext) -> bool {
    auto_mode_available(ctx) && ctx.auto_mode.use_during_plan
}

/// Whether auto mode can run: the settings opt-in and an open gate.
fn auto_mode_available(ctx: &PermissionContext) -> bool {
    ctx.auto_mode.enabled && auto_mode_gate_open()
}

/// The auto-mode gate (G§10.9). The transcript classifier does not exist
/// yet, so the gate is closed and every auto branch is skipped.
fn auto_mode_gate_open() -> bool {
    false
}

/// Whether an allow rule lets arbitrary code run (SPEC §8): the whole of
/// Bash, or a prefix rule for an interpreter, shell or package runner.
pub fn is_dangerous_allow_rule(rule: &Rule) -> bool {
    const RUNNERS: &[&str] = &[
        "bash", "sh", "zsh", "fish", "dash", "python", "python3", "node", "deno", "bun", "ruby",
        "perl", "php", "lua", "npx", "bunx", "pnpx", "uvx", "eval", "exec", "env", "sudo", "xargs",
    ];
    if rule.tool != "Bash" {
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

/// Sets dangerous allow rules aside in `stripped_dangerous_rules`.
fn strip_dangerous_rules(ctx: &mut PermissionContext) {
    let (dangerous, kept): (Vec<SourcedRule>, Vec<SourcedRule>) =
        std::mem::take(&mut ctx.rules.allow)
            .into_iter()
            .partition(|r| is_dangerous_allow_rule(&r.rule));
    ctx.rules.allow = kept;
    ctx.stripped_dangerous_rules.extend(dangerous);
}

/// Puts the rules set aside by [`strip_dangerous_rules`] back.
fn restore_dangerous_rules(ctx: &mut PermissionContext) {
    for rule in std::mem::take(&mut ctx.stripped_dangerous_rules) {
        ctx.rules.push(RuleBehavior::Allow, rule);
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::permissions::rules::RuleOrigin;

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
            let mut ctx = PermissionContext::default();
            transition_permission_mode(&mut ctx, start);
            let change = transition_permission_mode(&mut ctx, PermissionMode::Plan);
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
        transition_permission_mode(&mut ctx, PermissionMode::AcceptEdits);
        transition_permission_mode(&mut ctx, PermissionMode::Plan);
        let again = transition_permission_mode(&mut ctx, PermissionMode::Plan);
        assert!(!again.changed());
        assert_eq!(again.pre_plan_mode, Some(PermissionMode::AcceptEdits));
    }

    #[test]
    fn leaving_plan_clears_pre_plan_mode() {
        let mut ctx = PermissionContext::default();
        transition_permission_mode(&mut ctx, PermissionMode::AcceptEdits);
        transition_permission_mode(&mut ctx, PermissionMode::Plan);
        assert_eq!(mode_after_plan(&ctx), PermissionMode::AcceptEdits);
        let back = mode_after_plan(&ctx);
        let change = transition_permission_mode(&mut ctx, back);
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
        let mut ctx = PermissionContext::default();
        for r in [
            "Bash",
            "Bash(python:*)",
            "Bash(npm test)",
            "Read",
            "Bash(git diff:*)",
        ] {
            allow(&mut ctx, r);
        }
        transition_permission_mode(&mut ctx, PermissionMode::Auto);
        let kept: Vec<String> = ctx.rules.allow.iter().map(|r| r.rule.to_string()).collect();
        assert_eq!(kept, ["Bash(npm test)", "Read", "Bash(git diff:*)"]);
        assert_eq!(ctx.stripped_dangerous_rules.len(), 2);
        // auto -> plan without plan-auto restores them (G§8.2).
        transition_permission_mode(&mut ctx, PermissionMode::Plan);
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
