//! Loop and error reflection: a conversation that makes the same tool call
//! (same tool, same input) three times in a row, or gets the same error
//! three times in a row, is told to step back and try another way. The
//! note rides with the tool results of the call that completed the run of
//! three, as a `<system-reminder>`, so the model reads it before deciding
//! what to do next; a run that goes on is reminded again every third
//! repetition.

use catui_protocol::{ContentBlock, Message, ToolResultContent};
use serde_json::Value;

/// Repetitions that earn the reminder.
pub const REPEATS: u32 = 3;
/// Characters of an error compared (long errors differ in their tails:
/// timings, paths of spilled output).
const ERROR_PREFIX_CHARS: usize = 300;

/// The last call and error a conversation saw, and how often in a row.
#[derive(Debug, Default)]
pub(super) struct LoopGuard {
    call: Option<(String, Value)>,
    calls: u32,
    error: Option<String>,
    errors: u32,
}

impl LoopGuard {
    /// Notes the calls of `assistant` and their `results` (in call order);
    /// the reminder to add when a call or an error repeated
    /// [`REPEATS`] times in a row.
    pub(super) fn observe(
        &mut self,
        assistant: &Message,
        results: &[ContentBlock],
    ) -> Option<String> {
        let mut repeated_call = None;
        let mut repeated_error = false;
        for (id, name, input) in assistant.tool_uses() {
            let key = (name.to_string(), input.clone());
            if self.call.as_ref() == Some(&key) {
                self.calls += 1;
            } else {
                self.call = Some(key);
                self.calls = 1;
            }
            if self.calls.is_multiple_of(REPEATS) {
                repeated_call = Some(name.to_string());
            }
            match error_of(results, id) {
                Some(text) => {
                    if self.error.as_deref() == Some(text.as_str()) {
                        self.errors += 1;
                    } else {
                        self.error = Some(text);
                        self.errors = 1;
                    }
                    if self.errors.is_multiple_of(REPEATS) {
                        repeated_error = true;
                    }
                }
                None => {
                    self.error = None;
                    self.errors = 0;
                }
            }
        }
        match (repeated_call, repeated_error) {
            (Some(name), _) => Some(format!(
                "You have now made the same {name} call, with the same input, {REPEATS} times in \
                 a row. Doing it again will give the same result. Step back: work out why it is \
                 not getting you closer, check the assumption behind it, and try a different \
                 approach (other arguments, another tool, or another way to the goal)."
            )),
            (None, true) => Some(format!(
                "The same error has now come back {REPEATS} times in a row. Repeating what led \
                 to it will not fix it. Step back: read the error again, check what it says \
                 first (the path, the name, the exact text), and try a different approach."
            )),
            (None, false) => None,
        }
    }
}

/// The start of the error text of call `id`'s result, when it failed.
fn error_of(results: &[ContentBlock], id: &str) -> Option<String> {
    results.iter().find_map(|b| match b {
        ContentBlock::ToolResult {
            tool_use_id,
            content,
            is_error: true,
        } if tool_use_id == id => {
            let text = match content {
                ToolResultContent::Text(t) => t.clone(),
                other => other.as_text(),
            };
            Some(text.chars().take(ERROR_PREFIX_CHARS).collect())
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use catui_protocol::Role;
    use serde_json::json;

    fn call(id: &str, name: &str, input: Value) -> Message {
        Message {
            role: Role::Assistant,
            content: vec![ContentBlock::ToolUse {
                id: id.into(),
                name: name.into(),
                input,
            }],
        }
    }

    #[test]
    fn the_third_identical_call_in_a_row_is_reminded() {
        let mut guard = LoopGuard::default();
        let ok = |id: &str| vec![ContentBlock::tool_result(id, "fine", false)];
        let read = |id: &str| call(id, "Read", json!({"file_path": "a"}));
        assert_eq!(guard.observe(&read("1"), &ok("1")), None);
        assert_eq!(guard.observe(&read("2"), &ok("2")), None);
        let note = guard.observe(&read("3"), &ok("3")).unwrap();
        assert!(note.contains("same Read call"), "{note}");
        // A different input starts a new count.
        let other = call("4", "Read", json!({"file_path": "b"}));
        assert_eq!(guard.observe(&other, &ok("4")), None);
        assert_eq!(guard.observe(&read("5"), &ok("5")), None);
    }

    #[test]
    fn the_same_error_three_times_is_reminded_even_from_different_calls() {
        let mut guard = LoopGuard::default();
        let err = |id: &str| vec![ContentBlock::tool_result(id, "No such file: x", true)];
        for (i, path) in ["a", "b"].iter().enumerate() {
            let id = i.to_string();
            let m = call(&id, "Read", json!({ "file_path": path }));
            assert_eq!(guard.observe(&m, &err(&id)), None);
        }
        let m = call("9", "Grep", json!({"pattern": "x"}));
        let note = guard.observe(&m, &err("9")).unwrap();
        assert!(note.contains("same error"), "{note}");
    }
}
