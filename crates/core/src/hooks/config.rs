//! Command hooks as written in settings (`hooks` in every settings layer):
//!
//! ```json
//! {"hooks": {"PreToolUse": [{"matcher": "Bash",
//!   "hooks": [{"type": "command", "command": "~/bin/guard.sh", "timeout": 30}]}]}}
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use super::EVENTS;

/// How long a command hook may run when its `timeout` is not given.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// One command hook of one event.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandHook {
    /// One of [`EVENTS`].
    pub event: &'static str,
    /// See [`super::matcher::matches`].
    pub matcher: Option<String>,
    /// Run with `sh -c` in the project's root.
    pub command: String,
    pub timeout: Duration,
    /// The settings file it came from.
    pub source: PathBuf,
}

/// Reads the `hooks` value of one settings file. Anything malformed
/// rejects the file's hooks as a whole with a message naming what.
pub fn parse(value: &Value, source: &Path) -> Result<Vec<CommandHook>, super::HookConfigError> {
    parse_hooks(value, source).map_err(super::HookConfigError)
}

fn parse_hooks(value: &Value, source: &Path) -> Result<Vec<CommandHook>, String> {
    let Some(events) = value.as_object() else {
        return Err("`hooks` must be an object of hook events".into());
    };
    let mut hooks = Vec::new();
    for (name, matchers) in events {
        let Some(event) = EVENTS.iter().copied().find(|e| e == name) else {
            return Err(format!(
                "unknown hook event `{name}` (known: {})",
                EVENTS.join(", ")
            ));
        };
        let Some(matchers) = matchers.as_array() else {
            return Err(format!("hooks.{name} must be a list of matchers"));
        };
        for (i, m) in matchers.iter().enumerate() {
            let at = format!("hooks.{name}[{i}]");
            let matcher = match &m["matcher"] {
                Value::Null => None,
                Value::String(s) => Some(s.clone()),
                _ => return Err(format!("{at}.matcher must be a string")),
            };
            let Some(list) = m["hooks"].as_array() else {
                return Err(format!("{at}.hooks must be a list of hooks"));
            };
            for (j, hook) in list.iter().enumerate() {
                let at = format!("{at}.hooks[{j}]");
                match hook["type"].as_str() {
                    Some("command") => {}
                    Some(other) => {
                        return Err(format!(
                            "{at}: hooks of type `{other}` are not supported (only `command`)"
                        ));
                    }
                    None => return Err(format!("{at}.type must be \"command\"")),
                }
                let command = match hook["command"].as_str().map(str::trim) {
                    Some(c) if !c.is_empty() => c.to_string(),
                    _ => return Err(format!("{at}.command must be a non-empty string")),
                };
                let timeout = match &hook["timeout"] {
                    Value::Null => DEFAULT_TIMEOUT,
                    t => match t.as_f64() {
                        Some(secs) if secs > 0.0 && secs <= 86_400.0 => {
                            Duration::from_secs_f64(secs)
                        }
                        _ => {
                            return Err(format!(
                                "{at}.timeout must be a number of seconds (0 < timeout <= 86400)"
                            ));
                        }
                    },
                };
                hooks.push(CommandHook {
                    event,
                    matcher: matcher.clone(),
                    command,
                    timeout,
                    source: source.to_path_buf(),
                });
            }
        }
    }
    Ok(hooks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_events_matchers_and_timeouts() {
        let hooks = parse(
            &json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
                        {"type": "command", "command": "guard.sh", "timeout": 5}]}],
                    "Stop": [{"hooks": [{"type": "command", "command": "done.sh"}]}]}),
            Path::new("/s.json"),
        )
        .unwrap();
        assert_eq!(hooks.len(), 2);
        assert_eq!(hooks[0].event, "PreToolUse");
        assert_eq!(hooks[0].matcher.as_deref(), Some("Bash"));
        assert_eq!(hooks[0].timeout, Duration::from_secs(5));
        assert_eq!(hooks[1].timeout, DEFAULT_TIMEOUT);
    }

    #[test]
    fn malformed_hooks_are_refused_with_where() {
        let p = Path::new("/s.json");
        let e = parse(&json!({"PreToolUs": []}), p).unwrap_err();
        assert!(e.0.contains("unknown hook event `PreToolUs`"), "{e}");
        let e = parse(&json!({"Stop": [{"hooks": [{"type": "prompt"}]}]}), p).unwrap_err();
        assert!(e.0.contains("hooks.Stop[0].hooks[0]"), "{e}");
        let e = parse(
            &json!({"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": -1}]}]}),
            p,
        )
        .unwrap_err();
        assert!(e.0.contains("timeout"), "{e}");
        assert!(parse(&json!([]), p).is_err());
    }
}
