//! Permission updates that come with an approval ("yes, and don't ask again
//! for this"). The shape is the Agent SDKs' `updatedPermissions` list, each
//! entry one of:
//!
//! - `{"type":"addRules"|"replaceRules"|"removeRules","behavior":"allow"|"ask"|"deny","rules":[{"toolName":"Bash","ruleContent":"git diff:*"}]}`
//! - `{"type":"setMode","mode":"acceptEdits"}`
//! - `{"type":"addDirectories"|"removeDirectories","directories":["/path"]}`
//!
//! Everything applies to the session only, whatever `destination` says:
//! no settings file is written. `replaceRules` and `removeRules` touch only
//! rules added during the session, never those of settings files or the
//! command line (a client cannot lift a configured deny rule this way).
//! A mode change is returned, not applied: the caller makes it through the
//! one transition function.

use std::path::{Path, PathBuf};

use catui_protocol::PermissionMode;
use serde_json::Value;

use super::PermissionContext;
use super::rules::{Rule, RuleBehavior, RuleOrigin, RuleSourceKind, SourcedRule};

/// What a list of updates changed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AppliedUpdates {
    /// One line per change, for the user.
    pub changes: Vec<String>,
    /// The mode a `setMode` asked for (the last one wins).
    pub mode: Option<PermissionMode>,
}

enum Update {
    Rules {
        kind: RulesKind,
        behavior: RuleBehavior,
        rules: Vec<(Rule, String)>,
    },
    Mode(PermissionMode),
    Directories {
        add: bool,
        dirs: Vec<PathBuf>,
    },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum RulesKind {
    Add,
    Replace,
    Remove,
}

/// Applies `updates` to the session's permission context. Anything
/// malformed is an error and nothing of the list is applied.
pub fn apply_updates(
    ctx: &mut PermissionContext,
    updates: &Value,
    root: &Path,
) -> Result<AppliedUpdates, UpdateError> {
    apply_all(ctx, updates, root).map_err(UpdateError)
}

/// A permission update that is malformed or not allowed; nothing of its
/// list was applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UpdateError(pub String);

fn apply_all(
    ctx: &mut PermissionContext,
    updates: &Value,
    root: &Path,
) -> Result<AppliedUpdates, String> {
    let list = match updates {
        Value::Array(list) => list.as_slice(),
        Value::Object(_) => std::slice::from_ref(updates),
        _ => return Err("permission updates must be a list of objects with a type".into()),
    };
    let parsed = list
        .iter()
        .map(|u| parse_update(u, root))
        .collect::<Result<Vec<_>, _>>()?;
    let mut applied = AppliedUpdates::default();
    for update in parsed {
        match update {
            Update::Rules {
                kind,
                behavior,
                rules,
            } => apply_rules(ctx, kind, behavior, rules, root, &mut applied.changes),
            Update::Mode(mode) => {
                applied.mode = Some(mode);
                applied.changes.push(format!("mode {mode}"));
            }
            Update::Directories { add: true, dirs } => {
                for dir in dirs {
                    if !ctx.working_dirs.contains(&dir) {
                        applied
                            .changes
                            .push(format!("directory {} added", dir.display()));
                        ctx.working_dirs.push(dir);
                    }
                }
            }
            Update::Directories { add: false, dirs } => {
                for dir in dirs {
                    // The project directory itself always stays.
                    if dir.as_path() != root && ctx.working_dirs.contains(&dir) {
                        ctx.working_dirs.retain(|d| d != &dir);
                        applied
                            .changes
                            .push(format!("directory {} removed", dir.display()));
                    }
                }
            }
        }
    }
    Ok(applied)
}

fn apply_rules(
    ctx: &mut PermissionContext,
    kind: RulesKind,
    behavior: RuleBehavior,
    rules: Vec<(Rule, String)>,
    root: &Path,
    changes: &mut Vec<String>,
) {
    let list = match behavior {
        RuleBehavior::Allow => &mut ctx.rules.allow,
        RuleBehavior::Ask => &mut ctx.rules.ask,
        RuleBehavior::Deny => &mut ctx.rules.deny,
    };
    let is_session = |r: &SourcedRule| r.origin.kind == RuleSourceKind::Session;
    match kind {
        RulesKind::Remove => {
            for (rule, text) in rules {
                let before = list.len();
                list.retain(|r| !(is_session(r) && r.rule == rule));
                if list.len() != before {
                    changes.push(format!("{behavior} rule {text} removed"));
                }
            }
            return;
        }
        RulesKind::Replace => {
            list.retain(|r| !is_session(r));
            changes.push(format!("session {behavior} rules replaced"));
        }
        RulesKind::Add => {}
    }
    for (rule, text) in rules {
        ctx.rules.push(
            behavior,
            SourcedRule {
                rule,
                origin: RuleOrigin::session(root.to_path_buf()),
            },
        );
        changes.push(format!("{behavior} {text}"));
    }
}

fn parse_update(update: &Value, root: &Path) -> Result<Update, String> {
    let kind = update["type"].as_str().unwrap_or_default();
    let rules_kind = match kind {
        "addRules" => Some(RulesKind::Add),
        "replaceRules" => Some(RulesKind::Replace),
        "removeRules" => Some(RulesKind::Remove),
        _ => None,
    };
    if let Some(kind) = rules_kind {
        return parse_rules(update, kind);
    }
    match kind {
        "setMode" => {
            let mode = update["mode"].as_str().unwrap_or_default();
            mode.parse::<PermissionMode>()
                .map(Update::Mode)
                .map_err(|e| format!("setMode: {e}"))
        }
        "addDirectories" | "removeDirectories" => {
            let dirs = update["directories"]
                .as_array()
                .ok_or_else(|| format!("{kind} needs a list of directories"))?;
            let dirs = dirs
                .iter()
                .map(|d| match d.as_str() {
                    Some(d) if !d.is_empty() => Ok(absolute(root, d)),
                    _ => Err(format!("{kind}: each directory must be a non-empty path")),
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Update::Directories {
                add: kind == "addDirectories",
                dirs,
            })
        }
        other => Err(format!(
            "unsupported permission update type '{other}' (expected addRules, replaceRules, removeRules, setMode, addDirectories or removeDirectories)"
        )),
    }
}

fn parse_rules(update: &Value, kind: RulesKind) -> Result<Update, String> {
    let behavior = match update["behavior"].as_str().unwrap_or_default() {
        "allow" => RuleBehavior::Allow,
        "ask" => RuleBehavior::Ask,
        "deny" => RuleBehavior::Deny,
        other => {
            return Err(format!(
                "unknown rule behavior '{other}': expected allow, ask or deny"
            ));
        }
    };
    let mut rules = Vec::new();
    for rule in update["rules"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        let tool = rule["toolName"].as_str().unwrap_or_default();
        let text = match rule["ruleContent"].as_str() {
            Some(content) if !content.is_empty() => format!("{tool}({content})"),
            _ => tool.to_string(),
        };
        let parsed = Rule::parse(&text).map_err(|e| e.to_string())?;
        rules.push((parsed, text));
    }
    Ok(Update::Rules {
        kind,
        behavior,
        rules,
    })
}

/// A directory as given, made absolute against the project root and
/// canonical when it exists (the one path canonicaliser decides later
/// containment; this only keeps the list free of duplicates).
fn absolute(root: &Path, dir: &str) -> PathBuf {
    let path = Path::new(dir);
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        root.join(path)
    };
    std::fs::canonicalize(&joined).unwrap_or(joined)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permissions::{Access, CallInfo, Decision, decide};
    use serde_json::json;

    fn bash(cmd: &str, root: &Path) -> CallInfo {
        CallInfo {
            tool_name: "Bash".into(),
            access: Access::Shell {
                command: cmd.into(),
                unconfined: false,
            },
            read_only: false,
            cwd: root.to_path_buf(),
        }
    }

    #[test]
    fn always_allow_adds_a_session_rule() {
        let root = std::env::temp_dir();
        let mut ctx = PermissionContext::new(root.clone());
        assert!(matches!(
            decide(&ctx, &bash("make test", &root)),
            Decision::Ask { .. }
        ));
        let applied = apply_updates(
            &mut ctx,
            &json!([{"type":"addRules","behavior":"allow","destination":"session",
                      "rules":[{"toolName":"Bash","ruleContent":"make test"}]}]),
            &root,
        )
        .unwrap();
        assert_eq!(applied.changes, ["allow Bash(make test)"]);
        assert_eq!(applied.mode, None);
        assert_eq!(
            decide(&ctx, &bash("make test", &root)),
            Decision::Allow(super::super::Grant::Explicit)
        );
        assert!(matches!(
            decide(&ctx, &bash("make clean", &root)),
            Decision::Ask { .. }
        ));
    }

    #[test]
    fn remove_and_replace_touch_only_session_rules() {
        let root = std::env::temp_dir();
        let mut ctx = PermissionContext::new(root.clone());
        ctx.rules
            .add_cli_list(RuleBehavior::Deny, "Bash(rm:*)", &root);
        let rm = json!([{"toolName":"Bash","ruleContent":"rm:*"}]);
        apply_updates(
            &mut ctx,
            &json!({"type":"removeRules","behavior":"deny","rules":rm}),
            &root,
        )
        .unwrap();
        apply_updates(
            &mut ctx,
            &json!({"type":"replaceRules","behavior":"deny","rules":[]}),
            &root,
        )
        .unwrap();
        // The command line's deny rule survives both.
        assert_eq!(ctx.rules.deny.len(), 1);
        apply_updates(
            &mut ctx,
            &json!({"type":"addRules","behavior":"allow","rules":[{"toolName":"Bash","ruleContent":"make:*"}]}),
            &root,
        )
        .unwrap();
        assert_eq!(ctx.rules.allow.len(), 1);
        apply_updates(
            &mut ctx,
            &json!({"type":"removeRules","behavior":"allow","rules":[{"toolName":"Bash","ruleContent":"make:*"}]}),
            &root,
        )
        .unwrap();
        assert!(ctx.rules.allow.is_empty());
    }

    #[test]
    fn set_mode_and_directories() {
        let root = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        let root_path = root.path().canonicalize().unwrap();
        let mut ctx = PermissionContext::new(root_path.clone());
        let before = ctx.working_dirs.len();
        let dir = other.path().to_string_lossy().to_string();
        let applied = apply_updates(
            &mut ctx,
            &json!([{"type":"setMode","mode":"acceptEdits","destination":"session"},
                    {"type":"addDirectories","directories":[dir]}]),
            &root_path,
        )
        .unwrap();
        assert_eq!(applied.mode, Some(PermissionMode::AcceptEdits));
        assert_eq!(ctx.working_dirs.len(), before + 1);
        apply_updates(
            &mut ctx,
            &json!({"type":"removeDirectories","directories":[dir]}),
            &root_path,
        )
        .unwrap();
        assert_eq!(ctx.working_dirs.len(), before);
    }

    #[test]
    fn malformed_updates_apply_nothing() {
        let root = std::env::temp_dir();
        let mut ctx = PermissionContext::new(root.clone());
        let bad = json!([{"type":"addRules","behavior":"allow","rules":[{"toolName":"Bash","ruleContent":"ok"},{"toolName":"Bad(("}]}]);
        assert!(apply_updates(&mut ctx, &bad, &root).is_err());
        assert!(ctx.rules.allow.is_empty());
        assert!(apply_updates(&mut ctx, &json!([{"type":"setMode"}]), &root).is_err());
        assert!(apply_updates(&mut ctx, &json!([{"type":"teleport"}]), &root).is_err());
        assert!(apply_updates(&mut ctx, &json!("x"), &root).is_err());
    }
}
