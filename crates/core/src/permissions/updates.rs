//! Permission updates that come with an approval: "yes, and don't ask again
//! for this" adds rules to the session (never to a settings file). The shape
//! is the field's convention:
//! `[{"type":"addRules","behavior":"allow","rules":[{"toolName":"Bash","ruleContent":"git diff:*"}]}]`.

use std::path::Path;

use serde_json::Value;

use super::PermissionContext;
use super::rules::{Rule, RuleBehavior, RuleOrigin, SourcedRule};

/// Applies `updates` to the session's rules; returns the rules added, as
/// text. Anything malformed is an error and nothing of it is applied.
pub fn apply_updates(
    ctx: &mut PermissionContext,
    updates: &Value,
    root: &Path,
) -> Result<Vec<String>, String> {
    let list = match updates {
        Value::Array(list) => list.as_slice(),
        Value::Object(_) => std::slice::from_ref(updates),
        _ => return Err("permission updates must be a list of {type, behavior, rules}".into()),
    };
    let mut parsed = Vec::new();
    for update in list {
        let kind = update["type"].as_str().unwrap_or_default();
        if kind != "addRules" {
            return Err(format!(
                "unsupported permission update type '{kind}' (only addRules)"
            ));
        }
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
            let parsed_rule = Rule::parse(&text).map_err(|e| e.to_string())?;
            parsed.push((behavior, parsed_rule, text));
        }
    }
    let mut added = Vec::new();
    for (behavior, rule, text) in parsed {
        ctx.rules.push(
            behavior,
            SourcedRule {
                rule,
                origin: RuleOrigin::session(root.to_path_buf()),
            },
        );
        added.push(text);
    }
    Ok(added)
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
        let added = apply_updates(
            &mut ctx,
            &json!([{"type":"addRules","behavior":"allow","destination":"session",
                      "rules":[{"toolName":"Bash","ruleContent":"make test"}]}]),
            &root,
        )
        .unwrap();
        assert_eq!(added, ["Bash(make test)"]);
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
    fn malformed_updates_apply_nothing() {
        let root = std::env::temp_dir();
        let mut ctx = PermissionContext::new(root.clone());
        let bad = json!([{"type":"addRules","behavior":"allow","rules":[{"toolName":"Bash","ruleContent":"ok"},{"toolName":"Bad(("}]}]);
        assert!(apply_updates(&mut ctx, &bad, &root).is_err());
        assert!(ctx.rules.allow.is_empty());
        assert!(apply_updates(&mut ctx, &json!([{"type":"setMode"}]), &root).is_err());
        assert!(apply_updates(&mut ctx, &json!("x"), &root).is_err());
    }
}
