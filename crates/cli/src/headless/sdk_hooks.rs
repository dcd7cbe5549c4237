//! Hooks an Agent SDK client registers in `initialize`: for each hook
//! event, matchers (a tool-name pattern) with the ids of callbacks that
//! run in the client and are called with `hook_callback` control requests.
//! Only the registrations and the calls live here: core's hook engine
//! (`catui_core::hooks`) runs them with the settings' command hooks and
//! merges the answers.

use catui_core::sync::lock;
use std::sync::Mutex;

use catui_core::hooks::HookCall;
use catui_protocol::stream_json::{ControlRequest, ControlResponse, OutputEvent};
use serde_json::Value;
use tokio::sync::mpsc::UnboundedSender;

use super::pending::Pending;

/// One matcher of one hook event. The hooks' input (with the session's
/// fields) comes from the core's hook engine.
#[derive(Debug, Clone, PartialEq)]
pub struct HookMatcher {
    pub event: String,
    /// `None`, empty or `*`: every tool. Otherwise tool names separated by
    /// `|` (`Edit|Write`).
    pub matcher: Option<String>,
    pub callback_ids: Vec<String>,
}

impl HookMatcher {
    pub fn matches(&self, tool_name: Option<&str>) -> bool {
        catui_core::hooks::matcher::matches(self.matcher.as_deref(), tool_name)
    }
}

/// The hook events catui calls.
pub use catui_core::hooks::EVENTS as HOOK_EVENTS;

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
        *lock(&self.matchers) = parsed;
        Ok(count)
    }

    /// Runs the callbacks registered for `call` one after the other over
    /// `hook_callback` control requests; returns their outputs. An error
    /// answer, or the client going away, is an error (the engine fails
    /// closed where it matters).
    pub async fn run(
        &self,
        call: HookCall,
        out: &UnboundedSender<OutputEvent>,
        pending: &Pending,
    ) -> Result<Vec<Value>, String> {
        let callbacks = self.callbacks(call.event, call.tool_name.as_deref());
        let mut outputs = Vec::with_capacity(callbacks.len());
        for callback_id in callbacks {
            let (request_id, rx) = pending.register("hook");
            let sent = out.send(OutputEvent::ControlRequest {
                request_id: request_id.clone(),
                request: ControlRequest::HookCallback {
                    callback_id: callback_id.clone(),
                    input: call.input.clone(),
                    tool_use_id: call.tool_use_id.clone(),
                },
            });
            if sent.is_err() {
                pending.forget(&request_id);
                return Err("no client is connected to run the hook".into());
            }
            match rx.await {
                Ok(ControlResponse::Success { response, .. }) => {
                    outputs.push(response.unwrap_or(Value::Null))
                }
                Ok(ControlResponse::Error { error, .. }) => {
                    return Err(format!("hook {callback_id}: {error}"));
                }
                Err(_) => return Err("the client went away before the hook answered".into()),
            }
        }
        Ok(outputs)
    }

    /// The callback ids to call for `event` (and a tool, for tool events).
    pub fn callbacks(&self, event: &str, tool_name: Option<&str>) -> Vec<String> {
        let matchers = lock(&self.matchers).clone();
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
                "PostToolUse": [{"hookCallbackIds": ["hook_3"]}]
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
        assert_eq!(hooks.callbacks("PostToolUse", Some("Read")), ["hook_3"]);
        assert!(hooks.register(&json!({"Notification": []})).is_ok());
        assert!(hooks.register(&json!({"OnSomething": []})).is_err());
    }
}
