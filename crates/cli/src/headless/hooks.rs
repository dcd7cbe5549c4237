//! Hooks an Agent SDK client registers in `initialize`: for each hook
//! event, matchers (a tool-name pattern) with the ids of callbacks that
//! run in the client and are called with `hook_callback` control requests.

use std::sync::Mutex;

use serde_json::Value;

/// One matcher of one hook event.
#[derive(Debug, Clone, PartialEq)]
pub struct HookMatcher {
    pub event: String,
    /// `None`, empty or `*`: every tool. Otherwise tool names separated by
    /// `|` (`Edit|Write`).
    pub matcher: Option<String>,
    pub callback_ids: Vec<String>,
}

impl HookMatcher {
    #[allow(dead_code)] // called once hooks run (initialize refuses them until then)
    pub fn matches(&self, tool_name: Option<&str>) -> bool {
        let pattern = match self.matcher.as_deref().map(str::trim) {
            None | Some("") | Some("*") => return true,
            Some(p) => p,
        };
        let Some(tool) = tool_name else {
            return true;
        };
        pattern.split('|').any(|p| p.trim() == tool)
    }
}

/// The hook events catui calls.
pub const HOOK_EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "SessionStart",
    "SessionEnd",
];

/// The client's registered hooks.
#[derive(Default)]
pub struct SdkHooks {
    matchers: Mutex<Vec<HookMatcher>>,
}

impl SdkHooks {
    /// Registers `initialize.hooks`; returns how many callbacks. An event
    /// catui never calls is refused: a hook the client relies on must not
    /// be silently skipped.
    pub fn register(&self, hooks: &Value) -> Result<usize, String> {
        let Some(events) = hooks.as_object() else {
            return Err("initialize.hooks must be an object of hook events".into());
        };
        let mut parsed = Vec::new();
        for (event, matchers) in events {
            if !HOOK_EVENTS.contains(&event.as_str()) {
                return Err(format!(
                    "catui does not call {event} hooks (it calls {})",
                    HOOK_EVENTS.join(", ")
                ));
            }
            for m in matchers.as_array().map(Vec::as_slice).unwrap_or_default() {
                let callback_ids: Vec<String> = m["hookCallbackIds"]
                    .as_array()
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|id| id.as_str().map(str::to_string))
                    .collect();
                parsed.push(HookMatcher {
                    event: event.clone(),
                    matcher: m["matcher"].as_str().map(str::to_string),
                    callback_ids,
                });
            }
        }
        let count = parsed.iter().map(|m| m.callback_ids.len()).sum();
        match self.matchers.lock() {
            Ok(mut g) => *g = parsed,
            Err(poisoned) => *poisoned.into_inner() = parsed,
        }
        Ok(count)
    }

    /// The callback ids to call for `event` (and a tool, for tool events).
    #[allow(dead_code)] // called once hooks run (initialize refuses them until then)
    pub fn callbacks(&self, event: &str, tool_name: Option<&str>) -> Vec<String> {
        let matchers = match self.matchers.lock() {
            Ok(g) => g.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        };
        matchers
            .iter()
            .filter(|m| m.event == event && m.matches(tool_name))
            .flat_map(|m| m.callback_ids.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn matchers_select_callbacks() {
        let hooks = SdkHooks::default();
        let n = hooks
            .register(&json!({
                "PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"]},
                               {"matcher": "Edit|Write", "hookCallbackIds": ["hook_1"]},
                               {"matcher": null, "hookCallbackIds": ["hook_2"]}],
                "Stop": [{"hookCallbackIds": ["hook_3"]}]
            }))
            .unwrap();
        assert_eq!(n, 4);
        assert_eq!(
            hooks.callbacks("PreToolUse", Some("Bash")),
            ["hook_0", "hook_2"]
        );
        assert_eq!(
            hooks.callbacks("PreToolUse", Some("Write")),
            ["hook_1", "hook_2"]
        );
        assert_eq!(hooks.callbacks("Stop", None), ["hook_3"]);
        assert!(hooks.register(&json!({"Notification": []})).is_err());
    }
}
