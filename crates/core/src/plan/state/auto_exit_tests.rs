//! The auto-mode side of the mode state machine: the opt-in gate, every row
//! of the plan-entry table (docs/PLAN_MODE.md#plan-mode-and-auto-mode)
//! through the real transition function, and leaving
//! plan mode.

use std::path::PathBuf;

use catui_protocol::PermissionMode::{self, *};

use crate::permissions::auto::*;
use crate::permissions::rules::{Rule, RuleBehavior, RuleOrigin, SourcedRule};
use crate::permissions::{
    AutoModeConfig, ModeChange, ModeError, PermissionContext, is_auto_mode_active,
    transition_permission_mode,
};
use crate::plan::state::auto_exit::*;

const RULES: &[&str] = &[
    "Read",
    "Bash",
    "Bash(git diff:*)",
    "Bash(python3:*)",
    "Edit(/src/**)",
    "Bash(npx *)",
    "Bash(npm test)",
];

fn ctx(enabled: bool, use_during_plan: bool) -> PermissionContext {
    let mut ctx = PermissionContext {
        auto_mode: AutoModeConfig {
            enabled,
            use_during_plan,
        },
        ..PermissionContext::default()
    };
    for text in RULES {
        ctx.rules.push(
            RuleBehavior::Allow,
            SourcedRule {
                rule: Rule::parse(text).unwrap(),
                origin: RuleOrigin::cli(PathBuf::from("/p")),
            },
        );
    }
    ctx
}

fn allow_texts(ctx: &PermissionContext) -> Vec<String> {
    ctx.rules.allow.iter().map(|r| r.rule.to_string()).collect()
}

fn stripped(ctx: &PermissionContext) -> bool {
    !ctx.stripped_dangerous_rules.is_empty()
}

fn go(ctx: &mut PermissionContext, to: PermissionMode) -> ModeChange {
    transition_permission_mode(ctx, to).unwrap()
}

#[test]
fn auto_is_refused_while_the_gate_is_closed() {
    let mut c = ctx(false, true);
    let before = c.clone();
    let err = transition_permission_mode(&mut c, Auto).unwrap_err();
    assert_eq!(err, ModeError::AutoModeDisabled);
    let text = err.to_string();
    assert!(text.contains("auto mode is not enabled"), "{text}");
    assert!(text.contains("\"autoMode\": {\"enabled\": true}"), "{text}");
    assert_eq!(c, before, "a refused transition changes nothing");
    // From plan mode too.
    go(&mut c, Plan);
    assert!(transition_permission_mode(&mut c, Auto).is_err());
    assert_eq!(c.mode, Plan);
}

#[test]
fn entering_auto_strips_and_leaving_restores_byte_for_byte() {
    let mut c = ctx(true, false);
    let original = c.rules.clone();
    go(&mut c, Auto);
    assert_eq!(
        allow_texts(&c),
        [
            "Read",
            "Bash(git diff:*)",
            "Edit(/src/**)",
            "Bash(npm test)"
        ]
    );
    assert!(is_auto_mode_active(&c));
    let change = go(&mut c, Default);
    assert!(change.auto_mode_exited);
    assert_eq!(c.rules, original, "same rules, same order, same origins");
    assert!(c.stripped_dangerous_positions.is_empty());
    // Through plan mode and back, with auto kept during planning.
    let mut c = ctx(true, true);
    go(&mut c, Auto);
    go(&mut c, Plan);
    assert!(stripped(&c));
    let exit = exit_plan_mode(&mut c, Some(AcceptEdits)).unwrap();
    assert_eq!(exit.change.to, AcceptEdits);
    assert_eq!(c.rules, original);
}

// The plan-entry table, row by row.

#[test]
fn row_plan_is_left_unchanged() {
    for plan_auto in [true, false] {
        let mut c = ctx(true, plan_auto);
        go(&mut c, Auto);
        go(&mut c, Plan);
        let before = c.clone();
        let change = go(&mut c, Plan);
        assert!(!change.changed());
        crate::permissions::prepare_context_for_plan_mode(&mut c);
        assert_eq!(c, before);
    }
}

#[test]
fn row_auto_with_plan_auto_mode_stays_active() {
    let mut c = ctx(true, true);
    go(&mut c, Auto);
    let change = go(&mut c, Plan);
    assert_eq!(c.pre_plan_mode, Some(Auto));
    assert!(is_auto_mode_active(&c));
    assert!(stripped(&c));
    assert!(!change.auto_mode_exited);
}

#[test]
fn row_auto_without_plan_auto_mode_turns_off_and_restores() {
    let mut c = ctx(true, false);
    let original = c.rules.clone();
    go(&mut c, Auto);
    let change = go(&mut c, Plan);
    assert_eq!(c.pre_plan_mode, Some(Auto));
    assert!(!is_auto_mode_active(&c));
    assert!(!stripped(&c));
    assert_eq!(c.rules, original);
    assert!(change.auto_mode_exited, "schedules auto_mode_exit");
}

#[test]
fn row_default_and_accept_edits_with_plan_auto_mode_turn_auto_on() {
    for start in [Default, AcceptEdits] {
        let mut c = ctx(true, true);
        go(&mut c, start);
        let change = go(&mut c, Plan);
        assert_eq!(c.pre_plan_mode, Some(start));
        assert!(is_auto_mode_active(&c), "{start:?}");
        assert!(stripped(&c));
        assert!(!change.auto_mode_exited);
    }
}

#[test]
fn row_bypass_with_plan_auto_mode_does_not_turn_auto_on() {
    let mut c = ctx(true, true);
    go(&mut c, BypassPermissions);
    go(&mut c, Plan);
    assert_eq!(c.pre_plan_mode, Some(BypassPermissions));
    assert!(!is_auto_mode_active(&c));
    assert!(!stripped(&c));
}

#[test]
fn row_others_without_plan_auto_mode_only_record() {
    // plan_auto is false when either the opt-in or useDuringPlan is off.
    for (enabled, during) in [(true, false), (false, true), (false, false)] {
        for start in [Default, AcceptEdits, BypassPermissions] {
            let mut c = ctx(enabled, during);
            go(&mut c, start);
            let rules = c.rules.clone();
            go(&mut c, Plan);
            assert_eq!(c.pre_plan_mode, Some(start));
            assert!(!is_auto_mode_active(&c));
            assert_eq!(c.rules, rules);
        }
    }
}

// Leaving plan mode: which mode comes back, and the auto-mode fallback.

#[test]
fn exit_restores_auto_with_the_gate_open_and_strips_again() {
    for plan_auto in [true, false] {
        let mut c = ctx(true, plan_auto);
        go(&mut c, Auto);
        go(&mut c, Plan);
        let exit = exit_plan_mode(&mut c, None).unwrap();
        assert_eq!(exit.change.to, Auto);
        assert_eq!(exit.fallback_notification, None);
        assert!(!exit.change.auto_mode_exited);
        assert_eq!(c.pre_plan_mode, None);
        assert!(stripped(&c), "dangerous rules are set aside again");
        assert!(!allow_texts(&c).contains(&"Bash".to_string()));
    }
}

#[test]
fn exit_falls_back_to_default_with_the_gate_closed() {
    let mut c = ctx(true, true);
    let original = c.rules.clone();
    go(&mut c, Auto);
    go(&mut c, Plan);
    // The opt-in is withdrawn while planning.
    c.auto_mode.enabled = false;
    let exit = exit_plan_mode(&mut c, None).unwrap();
    assert_eq!(exit.change.to, Default);
    let (key, text) = exit.fallback_notification.unwrap();
    assert_eq!(key, "auto-mode-gate-plan-exit-fallback");
    assert!(text.starts_with("plan exit -> default · "), "{text}");
    assert_eq!(c.rules, original);
    assert!(!stripped(&c));
}

#[test]
fn exit_from_plan_auto_to_a_manual_mode_schedules_the_auto_exit_notice() {
    let mut c = ctx(true, true);
    let original = c.rules.clone();
    go(&mut c, Default);
    go(&mut c, Plan);
    assert!(is_auto_mode_active(&c));
    let exit = exit_plan_mode(&mut c, None).unwrap();
    assert_eq!(exit.change.to, Default);
    assert!(exit.change.auto_mode_exited, "autoWasUsedDuringPlan");
    assert_eq!(exit.fallback_notification, None);
    assert_eq!(c.rules, original);
    // Without auto during planning there is nothing to announce.
    let mut c = ctx(true, false);
    go(&mut c, Plan);
    assert!(
        !exit_plan_mode(&mut c, None)
            .unwrap()
            .change
            .auto_mode_exited
    );
}

#[test]
fn chosen_mode_wins_over_pre_plan_auto() {
    let mut c = ctx(true, true);
    go(&mut c, Auto);
    go(&mut c, Plan);
    let exit = exit_plan_mode(&mut c, Some(AcceptEdits)).unwrap();
    assert_eq!(exit.change.to, AcceptEdits);
    assert!(exit.change.auto_mode_exited);
    assert!(!stripped(&c));
}

#[test]
fn texts_for_the_model_and_the_user() {
    assert_eq!(
        denied_result("Deletes the home directory"),
        denied_result("Deletes the home directory.")
    );
    assert!(denied_result("x").starts_with("Auto mode denied this action: x. "));
    assert_eq!(
        decision_text(
            "Bash",
            &AutoReview::Deny {
                reason: "no".into()
            }
        ),
        "auto mode denied Bash: no"
    );
}
