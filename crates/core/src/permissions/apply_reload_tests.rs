use std::path::{Path, PathBuf};

use super::*;
use crate::permissions::rules::{Rule, RuleBehavior, RuleOrigin};
use crate::permissions::secrets::SecretStores;

fn settings_rule(text: &str) -> SourcedRule {
    SourcedRule {
        rule: Rule::parse(text).unwrap(),
        origin: RuleOrigin {
            kind: RuleSourceKind::ProjectSettings,
            file: Some(PathBuf::from("/p/.catui/settings.json")),
            root: PathBuf::from("/p"),
        },
    }
}

fn rules(allow: &[&str], deny: &[&str]) -> RuleSet {
    let mut set = RuleSet::default();
    for a in allow {
        set.push(RuleBehavior::Allow, settings_rule(a));
    }
    for d in deny {
        set.push(RuleBehavior::Deny, settings_rule(d));
    }
    set
}

fn auto(enabled: bool, use_during_plan: bool) -> AutoModeConfig {
    AutoModeConfig {
        enabled,
        use_during_plan,
    }
}

fn reload(ctx: &mut PermissionContext, set: &RuleSet, auto_mode: AutoModeConfig) -> Reloaded {
    apply_reloaded_settings(
        ctx,
        ReloadedPermissions {
            rules: set,
            directories: &[],
            previous_directories: &[],
            kept_directories: &[],
            auto_mode,
            bypass_disabled: false,
            secret_paths: &[],
        },
    )
}

fn texts(list: &[SourcedRule]) -> Vec<String> {
    list.iter().map(|r| r.rule.to_string()).collect()
}

/// A context as the builder makes it: settings rules, then a command-line
/// and a session rule.
fn started(set: &RuleSet, auto_mode: AutoModeConfig) -> PermissionContext {
    let mut ctx = PermissionContext::new(PathBuf::from("/p"));
    for behavior in [RuleBehavior::Allow, RuleBehavior::Ask, RuleBehavior::Deny] {
        for r in set.list(behavior) {
            ctx.rules.push(behavior, r.clone());
        }
    }
    ctx.auto_mode = auto_mode;
    ctx.rules.push(
        RuleBehavior::Allow,
        SourcedRule {
            rule: Rule::parse("Read").unwrap(),
            origin: RuleOrigin::cli(PathBuf::from("/p")),
        },
    );
    ctx.rules.push(
        RuleBehavior::Deny,
        SourcedRule {
            rule: Rule::parse("WebFetch").unwrap(),
            origin: RuleOrigin::session(PathBuf::from("/p")),
        },
    );
    ctx
}

#[test]
fn settings_rules_are_replaced_and_the_others_kept() {
    let mut ctx = started(&rules(&["Bash(ls:*)"], &["Edit"]), auto(false, false));
    let r = reload(
        &mut ctx,
        &rules(&["Bash(git status)"], &["Write"]),
        auto(false, false),
    );
    assert!(r.rules_changed);
    assert_eq!(texts(&ctx.rules.allow), ["Read", "Bash(git status)"]);
    assert_eq!(texts(&ctx.rules.deny), ["WebFetch", "Write"]);
    assert!(r.mode_change.is_none());
}

#[test]
fn the_same_rules_again_change_nothing() {
    let set = rules(&["Bash(ls:*)"], &["Edit"]);
    let mut ctx = started(&set, auto(false, false));
    let r = reload(&mut ctx, &set, auto(false, false));
    assert!(!r.changed_anything(), "{r:?}");
}

#[test]
fn directories_follow_the_settings_but_kept_ones_stay() {
    let mut ctx = PermissionContext::new(PathBuf::from("/p"));
    ctx.working_dirs.push(PathBuf::from("/old"));
    ctx.working_dirs.push(PathBuf::from("/cli"));
    let (old, new, kept) = (
        vec![PathBuf::from("/old"), PathBuf::from("/cli")],
        vec![PathBuf::from("/new")],
        vec![PathBuf::from("/p"), PathBuf::from("/cli")],
    );
    let r = apply_reloaded_settings(
        &mut ctx,
        ReloadedPermissions {
            rules: &RuleSet::default(),
            directories: &new,
            previous_directories: &old,
            kept_directories: &kept,
            auto_mode: AutoModeConfig::default(),
            bypass_disabled: false,
            secret_paths: &[],
        },
    );
    assert!(r.directories_changed);
    let dirs: Vec<&Path> = ctx.working_dirs.iter().map(PathBuf::as_path).collect();
    assert_eq!(
        dirs,
        [Path::new("/p"), Path::new("/cli"), Path::new("/new")]
    );
}

#[test]
fn planning_turns_the_classifier_on_when_use_during_plan_is_set() {
    let set = rules(&["Bash(python3:*)", "Bash(ls:*)"], &[]);
    let mut ctx = started(&set, auto(true, false));
    transition_permission_mode(&mut ctx, PermissionMode::Plan).unwrap();
    assert!(!is_auto_mode_active(&ctx));
    let r = reload(&mut ctx, &set, auto(true, true));
    assert_eq!(r.plan_auto, Some(PlanAutoModeChange::Activate));
    assert!(is_auto_mode_active(&ctx));
    // The interpreter rule is set aside while the classifier judges.
    assert_eq!(texts(&ctx.rules.allow), ["Read", "Bash(ls:*)"]);
    assert_eq!(texts(&ctx.stripped_dangerous_rules), ["Bash(python3:*)"]);
    assert!(r.mode_change.is_none());
}

#[test]
fn planning_turns_the_classifier_off_and_says_so() {
    let set = rules(&["Bash(python3:*)"], &[]);
    let mut ctx = started(&set, auto(true, true));
    transition_permission_mode(&mut ctx, PermissionMode::Plan).unwrap();
    assert!(is_auto_mode_active(&ctx));
    let r = reload(&mut ctx, &set, auto(true, false));
    assert_eq!(r.plan_auto, Some(PlanAutoModeChange::Deactivate));
    assert!(!is_auto_mode_active(&ctx));
    assert!(ctx.stripped_dangerous_rules.is_empty());
    assert_eq!(texts(&ctx.rules.allow), ["Read", "Bash(python3:*)"]);
    let change = r.mode_change.unwrap();
    assert!(change.auto_mode_exited && !change.changed());
}

#[test]
fn a_new_dangerous_rule_is_set_aside_while_auto_stays_on() {
    let mut ctx = started(&rules(&[], &[]), auto(true, true));
    transition_permission_mode(&mut ctx, PermissionMode::Plan).unwrap();
    let r = reload(&mut ctx, &rules(&["Bash"], &[]), auto(true, true));
    assert_eq!(r.plan_auto, Some(PlanAutoModeChange::Restrip));
    assert!(r.rules_changed);
    assert_eq!(texts(&ctx.rules.allow), ["Read"]);
    assert_eq!(texts(&ctx.stripped_dangerous_rules), ["Bash"]);
}

#[test]
fn planning_from_bypass_never_turns_the_classifier_on() {
    let set = rules(&[], &[]);
    let mut ctx = started(&set, auto(true, false));
    transition_permission_mode(&mut ctx, PermissionMode::BypassPermissions).unwrap();
    transition_permission_mode(&mut ctx, PermissionMode::Plan).unwrap();
    let r = reload(&mut ctx, &set, auto(true, true));
    assert_eq!(r.plan_auto, None);
    assert!(!is_auto_mode_active(&ctx));
}

#[test]
fn auto_mode_ends_when_its_opt_in_is_withdrawn() {
    let set = rules(&["Bash(node:*)"], &[]);
    let mut ctx = started(&set, auto(true, false));
    transition_permission_mode(&mut ctx, PermissionMode::Auto).unwrap();
    assert_eq!(texts(&ctx.stripped_dangerous_rules), ["Bash(node:*)"]);
    let r = reload(&mut ctx, &set, auto(false, false));
    assert_eq!(ctx.mode, PermissionMode::Default);
    let change = r.mode_change.unwrap();
    assert_eq!(
        (change.from, change.to),
        (PermissionMode::Auto, PermissionMode::Default)
    );
    assert!(change.auto_mode_exited);
    assert!(ctx.stripped_dangerous_rules.is_empty());
    assert!(texts(&ctx.rules.allow).contains(&"Bash(node:*)".to_string()));
}

#[test]
fn auto_mode_that_stays_sets_new_dangerous_rules_aside() {
    let mut ctx = started(&rules(&[], &[]), auto(true, false));
    transition_permission_mode(&mut ctx, PermissionMode::Auto).unwrap();
    let r = reload(&mut ctx, &rules(&["Bash(sh:*)"], &[]), auto(true, false));
    assert_eq!(ctx.mode, PermissionMode::Auto);
    assert!(r.mode_change.is_none());
    assert_eq!(texts(&ctx.stripped_dangerous_rules), ["Bash(sh:*)"]);
}

#[test]
fn switching_bypass_off_ends_it_and_keeps_it_out_of_reach() {
    let mut ctx = PermissionContext::default();
    crate::permissions::transition_permission_mode(&mut ctx, PermissionMode::BypassPermissions)
        .unwrap();
    let r = apply_reloaded_settings(
        &mut ctx,
        ReloadedPermissions {
            rules: &RuleSet::default(),
            directories: &[],
            previous_directories: &[],
            kept_directories: &[],
            auto_mode: AutoModeConfig::default(),
            bypass_disabled: true,
            secret_paths: &[],
        },
    );
    assert_eq!(ctx.mode, PermissionMode::Default);
    assert!(r.mode_change.is_some_and(|c| c.changed()));
    assert_eq!(
        crate::permissions::transition_permission_mode(&mut ctx, PermissionMode::BypassPermissions),
        Err(crate::permissions::ModeError::BypassDisabled)
    );
    assert_eq!(ctx.mode, PermissionMode::Default);
}

#[test]
fn secret_paths_added_while_the_session_runs_are_secret_at_once() {
    let mut ctx = PermissionContext::new(PathBuf::from("/home/u/proj"));
    ctx.secrets = SecretStores::new(
        Some(Path::new("/home/u")),
        &[],
        &[PathBuf::from("/home/u/proj")],
    );
    let vault = Path::new("/home/u/vault/token");
    assert!(!ctx.secrets.is_secret(vault));
    apply_reloaded_settings(
        &mut ctx,
        ReloadedPermissions {
            rules: &RuleSet::default(),
            directories: &[],
            previous_directories: &[],
            kept_directories: &[],
            auto_mode: AutoModeConfig::default(),
            bypass_disabled: false,
            secret_paths: &["~/vault".to_string()],
        },
    );
    assert!(ctx.secrets.is_secret(vault));
    assert!(ctx.secrets.is_secret(Path::new("/home/u/.ssh/id_rsa")));
    // The project's own `.env` stays the project's.
    assert!(!ctx.secrets.is_secret(Path::new("/home/u/proj/.env")));
}
