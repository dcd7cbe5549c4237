//! Hooks that run in the client (the Agent SDKs' `hooks` option, called
//! over the front end's [`Approver`](super::Approver)): `PreToolUse` before
//! a call's permission check, `PostToolUse` after it ran. Their outputs use
//! the SDKs' shape (`hookSpecificOutput.permissionDecision`,
//! `updatedInput`, `additionalContext`, `decision: "block"`, `reason`,
//! `continue`, `stopReason`); several hooks' outputs are merged and a deny
//! wins over any allow. A hook never lifts what the permission layer
//! refuses (plan mode stays enforced): its `allow` only skips a prompt.

use serde_json::{Value, json};

use super::Engine;

/// One hook event for the client to run.
#[derive(Debug, Clone, PartialEq)]
pub struct HookCall {
    /// `PreToolUse`, `PostToolUse`.
    pub event: &'static str,
    /// The tool, for tool events (matchers select by it).
    pub tool_name: Option<String>,
    pub tool_use_id: Option<String>,
    /// The event's input fields (the front end adds the session's).
    pub input: Value,
}

/// What a permission decision of a hook asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookDecision {
    Allow,
    Ask,
    Deny,
}

/// The merged outputs of the hooks of one event.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookVerdict {
    pub decision: Option<HookDecision>,
    /// Why (the deny's reason first).
    pub reasons: Vec<String>,
    pub updated_input: Option<Value>,
    pub additional_context: Vec<String>,
    /// `decision: "block"`: the reason.
    pub block: Option<String>,
    /// `continue: false`: the stop reason.
    pub stop: Option<String>,
}

impl HookVerdict {
    /// Merges each hook's JSON output.
    pub fn merge(outputs: &[Value]) -> HookVerdict {
        let mut v = HookVerdict::default();
        for out in outputs {
            let specific = &out["hookSpecificOutput"];
            let decision = match specific["permissionDecision"].as_str() {
                Some("deny") => Some(HookDecision::Deny),
                Some("ask") => Some(HookDecision::Ask),
                Some("allow") => Some(HookDecision::Allow),
                _ => None,
            };
            let reason = specific["permissionDecisionReason"]
                .as_str()
                .or(out["reason"].as_str())
                .filter(|r| !r.trim().is_empty());
            if let Some(d) = decision {
                // Deny beats ask beats allow.
                let rank = |d: HookDecision| match d {
                    HookDecision::Deny => 2,
                    HookDecision::Ask => 1,
                    HookDecision::Allow => 0,
                };
                if v.decision.is_none_or(|old| rank(d) > rank(old)) {
                    v.decision = Some(d);
                }
                if let Some(r) = reason {
                    if d == HookDecision::Deny {
                        v.reasons.insert(0, r.to_string());
                    } else {
                        v.reasons.push(r.to_string());
                    }
                }
            }
            if out["decision"].as_str() == Some("block") {
                v.block = Some(reason.unwrap_or("blocked by a hook").to_string());
            }
            if let Some(input) = specific.get("updatedInput").filter(|i| i.is_object()) {
                v.updated_input = Some(input.clone());
            }
            if let Some(ctx) = specific["additionalContext"].as_str() {
                v.additional_context.push(ctx.to_string());
            }
            if out["continue"] == Value::Bool(false) {
                v.stop = Some(
                    out["stopReason"]
                        .as_str()
                        .unwrap_or("stopped by a hook")
                        .to_string(),
                );
            }
        }
        v
    }

    /// The refusal text when the hooks deny or block the call.
    pub fn refusal(&self, event: &str) -> Option<String> {
        let reason = match (&self.decision, &self.block) {
            (Some(HookDecision::Deny), _) => self
                .reasons
                .first()
                .cloned()
                .unwrap_or_else(|| "denied".into()),
            (_, Some(block)) => block.clone(),
            _ => return None,
        };
        Some(format!("Blocked by a {event} hook: {reason}"))
    }
}

/// Runs the client's hooks for `call`. A hook that fails counts as a deny
/// for `PreToolUse` (fail closed) and is reported for the other events.
pub(super) async fn run(engine: &Engine, call: HookCall) -> HookVerdict {
    let event = call.event;
    match engine.approver.run_hooks(call).await {
        Ok(outputs) => HookVerdict::merge(&outputs),
        Err(e) if event == "PreToolUse" => HookVerdict {
            decision: Some(HookDecision::Deny),
            reasons: vec![format!("the hook failed ({e})")],
            ..HookVerdict::default()
        },
        Err(e) => {
            engine.shared.emit(super::EngineEvent::Notification {
                key: "hook-failed".into(),
                text: format!("A {event} hook failed: {e}"),
            });
            HookVerdict::default()
        }
    }
}

pub(super) async fn pre_tool_use(
    engine: &Engine,
    id: &str,
    name: &str,
    input: &Value,
) -> HookVerdict {
    let mode = engine.shared.permissions().mode;
    run(
        engine,
        HookCall {
            event: "PreToolUse",
            tool_name: Some(name.to_string()),
            tool_use_id: Some(id.to_string()),
            input: json!({"hook_event_name": "PreToolUse", "tool_name": name,
                "tool_input": input, "tool_use_id": id, "permission_mode": mode}),
        },
    )
    .await
}

/// Runs `PostToolUse` hooks; returns the text to add to the tool result.
pub(super) async fn post_tool_use(
    engine: &Engine,
    id: &str,
    name: &str,
    content: &str,
    is_error: bool,
) -> Option<String> {
    let input = engine
        .messages
        .last()
        .and_then(|m| m.tool_uses().find(|(use_id, _, _)| *use_id == id))
        .map(|(_, _, input)| input.clone())
        .unwrap_or(Value::Null);
    let mode = engine.shared.permissions().mode;
    let verdict = run(
        engine,
        HookCall {
            event: "PostToolUse",
            tool_name: Some(name.to_string()),
            tool_use_id: Some(id.to_string()),
            input: json!({"hook_event_name": "PostToolUse", "tool_name": name,
                "tool_input": input, "tool_response": content, "is_error": is_error,
                "tool_use_id": id, "permission_mode": mode}),
        },
    )
    .await;
    if let Some(stop) = &verdict.stop {
        engine.shared.set_run_end(super::RunEnd {
            subtype: catui_protocol::stream_json::ResultSubtype::Success,
            result: stop.clone(),
        });
    }
    let mut extra: Vec<String> = verdict.block.into_iter().collect();
    extra.extend(verdict.additional_context);
    (!extra.is_empty()).then(|| extra.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deny_wins_over_any_allow() {
        let v = HookVerdict::merge(&[
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "allow"}}),
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny", "permissionDecisionReason": "no"}}),
            json!({}),
        ]);
        assert_eq!(v.decision, Some(HookDecision::Deny));
        assert_eq!(
            v.refusal("PreToolUse").unwrap(),
            "Blocked by a PreToolUse hook: no"
        );
    }

    #[test]
    fn outputs_merge() {
        let v = HookVerdict::merge(&[json!({"continue": false, "stopReason": "enough",
            "decision": "block", "reason": "bad",
            "hookSpecificOutput": {"updatedInput": {"a": 1}, "additionalContext": "ctx"}})]);
        assert_eq!(v.stop.as_deref(), Some("enough"));
        assert_eq!(v.block.as_deref(), Some("bad"));
        assert_eq!(v.updated_input, Some(json!({"a": 1})));
        assert_eq!(v.additional_context, ["ctx"]);
    }
}
