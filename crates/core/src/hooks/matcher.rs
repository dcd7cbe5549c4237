//! Hook matchers: which hooks of an event run for one value (a tool name,
//! `SessionStart`'s source, `PreCompact`'s trigger).

/// Whether `pattern` selects `value`. No pattern, an empty one or `*`
/// selects everything, and so does an event without a value. Otherwise
/// the pattern is a regular expression over the whole value (`Bash`,
/// `Edit|Write`, `mcp__github__.*`); one that is not a valid expression
/// is read as names separated by `|`.
pub fn matches(pattern: Option<&str>, value: Option<&str>) -> bool {
    let pattern = match pattern.map(str::trim) {
        None | Some("" | "*") => return true,
        Some(p) => p,
    };
    let Some(value) = value else {
        return true;
    };
    match regex::Regex::new(&format!("^(?:{pattern})$")) {
        Ok(re) => re.is_match(value),
        Err(_) => pattern.split('|').any(|p| p.trim() == value),
    }
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn names_alternatives_and_expressions() {
        assert!(matches(None, Some("Bash")));
        assert!(matches(Some("*"), Some("Bash")));
        assert!(matches(Some("Bash"), Some("Bash")));
        assert!(!matches(Some("Bash"), Some("BashOutput")));
        assert!(matches(Some("Edit|Write"), Some("Write")));
        assert!(!matches(Some("Edit|Write"), Some("Read")));
        assert!(matches(
            Some("mcp__github__.*"),
            Some("mcp__github__create_issue")
        ));
        assert!(matches(Some("Notebook.*"), Some("NotebookEdit")));
        assert!(matches(Some("Bash"), None));
        // Not an expression: names.
        assert!(matches(Some("Ba(sh|Read"), Some("Read")));
    }
}
