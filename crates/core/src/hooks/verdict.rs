//! One hook event ([`HookCall`]) and what its hooks answered, merged
//! ([`HookVerdict`]). Every hook — a command from settings or an SDK
//! client's callback — answers in the same JSON shape
//! (`hookSpecificOutput.permissionDecision`, `updatedInput`,
//! `additionalContext`, `decision: "block"`, `reason`, `continue`,
//! `stopReason`, `systemMessage`); several hooks' outputs are merged and a
//! deny wins over any allow.

use serde_json::Value;

/// One hook event for the client to run.
#[derive(Debug, Clone, PartialEq)]
pub struct HookCall {
    /// One of [`super::EVENTS`].
    pub event: &'static str,
    /// What matchers select by: the tool for tool events, the source of
    /// `SessionStart`, the trigger of `PreCompact`; `None`: every matcher.
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
    /// `systemMessage`: shown to the user.
    pub system_messages: Vec<String>,
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
            if let Some(msg) = out["systemMessage"]
                .as_str()
                .filter(|m| !m.trim().is_empty())
            {
                v.system_messages.push(msg.to_string());
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
