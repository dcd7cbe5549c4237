//! The slash-command palette: when the input starts with `/` the matching
//! commands are listed above the input box; Tab completes the selected one
//! and Enter runs it. The list is the engine's own command table plus the
//! few commands the interface answers itself, so it never offers a command
//! that does not exist.

use catui_core::engine::slash_commands::COMMANDS as ENGINE_COMMANDS;

/// Commands the interface handles without the engine.
pub const LOCAL_COMMANDS: &[(&str, &str)] = &[
    ("help", "show the keys and commands"),
    (
        "resume",
        "switch to another session of this project: /resume [ID]",
    ),
    ("bashes", "background commands: status, output, stop one"),
    (
        "plans",
        "the project's plans: read, continue here, review, export, abandon",
    ),
    (
        "agents",
        "every session on the broker, on every machine: /agents [ID to resume a local one]",
    ),
    (
        "approvals",
        "approval requests on the broker: /approvals [show|approve|reject ID]",
    ),
    ("exit", "quit catui (also /quit)"),
];

/// Every command offered, in display order: the interface's own first,
/// then the engine's (its `help` is the interface's sheet).
pub fn commands() -> Vec<(&'static str, &'static str)> {
    LOCAL_COMMANDS
        .iter()
        .copied()
        .chain(
            ENGINE_COMMANDS
                .iter()
                .copied()
                .filter(|(name, _)| !LOCAL_COMMANDS.iter().any(|(l, _)| l == name)),
        )
        .collect()
}

/// Commands matching what was typed, in list order (the one typed in full
/// first): the built-in ones, then the session's `custom` commands. Empty when the input is not a
/// bare command prefix (has a newline, a space, or matches none).
pub fn matches(input: &str, custom: &[(String, String)]) -> Vec<(String, String)> {
    let Some(typed) = input.strip_prefix('/') else {
        return Vec::new();
    };
    if typed.contains(char::is_whitespace) {
        return Vec::new();
    }
    let mut found: Vec<(String, String)> = commands()
        .into_iter()
        .map(|(name, help)| (name.to_string(), help.to_string()))
        .chain(custom.iter().cloned())
        .filter(|(name, _)| name.starts_with(typed))
        .collect();
    // A command typed in full is the one Enter runs (`/plan`, not the
    // `/plans` listed before it).
    found.sort_by_key(|(name, _)| name != typed);
    found
}

/// The part of the list to show: `max` rows that keep `selected` in view.
pub fn window(len: usize, selected: usize, max: usize) -> std::ops::Range<usize> {
    if len <= max {
        return 0..len;
    }
    let start = selected.saturating_sub(max - 1).min(len - max);
    start..start + max
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(input: &str) -> Vec<String> {
        matches(input, &[]).into_iter().map(|(n, _)| n).collect()
    }

    #[test]
    fn filters_by_prefix_over_the_real_tables() {
        let all = names("/");
        assert_eq!(all.len(), commands().len());
        for (name, _) in ENGINE_COMMANDS {
            assert!(
                all.iter().any(|n| n == name),
                "{name} missing from the palette"
            );
        }
        assert_eq!(all.iter().filter(|n| **n == "help").count(), 1);
        assert_eq!(names("/pl"), ["plans", "plan"]);
        assert_eq!(names("/plan"), ["plan", "plans"]);
        assert_eq!(names("/e"), ["exit"]);
        assert_eq!(names("/ba"), ["bashes"]);
        for name in ["mcp", "model", "resume"] {
            assert!(
                all.iter().any(|n| n == name),
                "/{name} missing from the palette"
            );
        }
        assert!(names("/plan fix the bug").is_empty());
        assert!(names("hello").is_empty());
        assert!(names("/x\ny").is_empty());
        let custom = [("git:commit".to_string(), "Commit the work".to_string())];
        assert_eq!(
            matches("/git", &custom),
            vec![("git:commit".to_string(), "Commit the work".to_string())]
        );
    }

    #[test]
    fn the_window_follows_the_selection() {
        assert_eq!(window(5, 4, 8), 0..5);
        assert_eq!(window(20, 0, 8), 0..8);
        assert_eq!(window(20, 7, 8), 0..8);
        assert_eq!(window(20, 8, 8), 1..9);
        assert_eq!(window(20, 19, 8), 12..20);
    }
}
