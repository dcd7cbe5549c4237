//! The slash-command palette: when the input starts with `/` the matching
//! commands are listed above the input box; Tab completes the selected one
//! and Enter runs it.

/// Commands offered, with one-line help. The engine's dispatcher decides
/// what each does; this list only helps typing them.
pub const COMMANDS: &[(&str, &str)] = &[
    ("plan", "enter plan mode, or show the current plan"),
    ("plan open", "open the plan file in your editor"),
    ("mode", "show or set the permission mode"),
    ("clear", "start a fresh conversation"),
    ("compact", "summarise older turns to free context"),
    ("resume", "resume an earlier session"),
    ("help", "list the commands"),
    ("exit", "quit catui"),
    ("agents", "list the available agent types"),
    ("todos", "show the current todo list"),
    ("team", "list teammates and what they are doing"),
    ("team show", "a teammate's recent work: /team show NAME"),
    ("team stop", "stop a teammate: /team stop NAME"),
];

/// Commands matching what was typed, in list order. Empty when the input is
/// not a bare command prefix (has a newline, or arguments that match none).
pub fn matches(input: &str) -> Vec<(&'static str, &'static str)> {
    let Some(typed) = input.strip_prefix('/') else {
        return Vec::new();
    };
    if typed.contains('\n') {
        return Vec::new();
    }
    COMMANDS
        .iter()
        .copied()
        .filter(|(name, _)| name.starts_with(typed))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(input: &str) -> Vec<&'static str> {
        matches(input).into_iter().map(|(n, _)| n).collect()
    }

    #[test]
    fn filters_by_prefix() {
        assert_eq!(
            names("/"),
            COMMANDS.iter().map(|(n, _)| *n).collect::<Vec<_>>()
        );
        assert_eq!(names("/pl"), ["plan", "plan open"]);
        assert_eq!(names("/plan "), ["plan open"]);
        assert_eq!(names("/plan"), ["plan", "plan open"]);
        assert_eq!(names("/c"), ["clear", "compact"]);
        assert_eq!(names("/te"), ["team", "team show", "team stop"]);
        assert!(names("/plan fix the bug").is_empty());
        assert!(names("hello").is_empty());
        assert!(names("/x\ny").is_empty());
    }
}
