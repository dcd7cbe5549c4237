//! The names MCP servers' tools and prompts carry in catui:
//! `mcp__{server}__{tool}`, the name the model calls a tool by, the name a
//! permission rule or an allow-list writes, and (with a `/`) the slash
//! command that runs a server's prompt.
//!
//! This module is the one place that builds such a name or takes one apart;
//! `crates/core/tests/module_layers.rs` fails when code elsewhere does it by
//! hand. It sits in the protocol crate because the name crosses every
//! boundary: the permission layer (below core's `mcp` module) matches it,
//! SDK clients write it in `allowed_tools`, and stream-json reports it.
//!
//! A server's name never contains `__` (the MCP configuration refuses it,
//! see [`SEPARATOR`]), so the server part ends at the first `__` after the
//! prefix; a tool's own name may contain anything.

/// What every MCP name starts with.
const PREFIX: &str = "mcp__";

/// What separates the prefix, the server and the tool. A server name must
/// not contain it, or its tools' names could not be taken apart.
pub const SEPARATOR: &str = "__";

/// The end of a permission rule's tool part that covers every tool of one
/// server: `mcp__{server}__*`.
const SERVER_WILDCARD: &str = "__*";

/// The name of `tool` of `server` (for a prompt, the slash command's name
/// without its `/`).
pub fn tool_name(server: &str, tool: &str) -> String {
    format!("{PREFIX}{server}{SEPARATOR}{tool}")
}

/// Whether `name` is an MCP name (a tool's, or a rule's or allow-list's
/// naming a whole server), whose tools are only known once servers run.
pub fn is_mcp_name(name: &str) -> bool {
    name.starts_with(PREFIX)
}

/// An MCP name taken apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McpName<'a> {
    pub server: &'a str,
    /// `None` for a name that stops at the server (`mcp__{server}`), as
    /// rules and allow-lists write it to mean all its tools.
    pub tool: Option<&'a str>,
}

/// Takes `name` apart: `None` when it is not an MCP name or a part is
/// empty.
pub fn parse_tool_name(name: &str) -> Option<McpName<'_>> {
    let rest = name.strip_prefix(PREFIX)?;
    match rest.split_once(SEPARATOR) {
        Some((server, tool)) if !server.is_empty() && !tool.is_empty() => Some(McpName {
            server,
            tool: Some(tool),
        }),
        Some(_) => None,
        None if !rest.is_empty() => Some(McpName {
            server: rest,
            tool: None,
        }),
        None => None,
    }
}

/// A permission rule's tool part without the server wildcard
/// (`mcp__srv__*` becomes `mcp__srv`); any other name as it is. What is
/// left must be a plain name.
pub fn without_server_wildcard(pattern: &str) -> &str {
    match pattern.strip_suffix(SERVER_WILDCARD) {
        Some(server) if is_mcp_name(server) => server,
        _ => pattern,
    }
}

/// Whether a rule's tool part `pattern` names the tool `tool`: the same
/// name, or a whole server (`mcp__srv`, `mcp__srv__*`) that `tool` belongs
/// to.
pub fn pattern_covers(pattern: &str, tool: &str) -> bool {
    if pattern == tool {
        return true;
    }
    let Some(server) = without_server_wildcard(pattern).strip_prefix(PREFIX) else {
        return false;
    };
    !server.contains(SEPARATOR)
        && tool
            .strip_prefix(PREFIX)
            .and_then(|rest| rest.strip_prefix(server))
            .is_some_and(|rest| rest.starts_with(SEPARATOR))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_built_name_parses_back_into_its_parts() {
        let name = tool_name("db", "query");
        assert_eq!(name, "mcp__db__query");
        assert_eq!(
            parse_tool_name(&name),
            Some(McpName {
                server: "db",
                tool: Some("query")
            })
        );
    }

    #[test]
    fn a_tool_name_may_hold_the_separator_but_the_server_ends_at_the_first() {
        let name = tool_name("db", "run__now");
        assert_eq!(
            parse_tool_name(&name),
            Some(McpName {
                server: "db",
                tool: Some("run__now")
            })
        );
    }

    #[test]
    fn a_server_alone_parses_with_no_tool() {
        assert_eq!(
            parse_tool_name("mcp__calc"),
            Some(McpName {
                server: "calc",
                tool: None
            })
        );
    }

    #[test]
    fn names_that_are_not_mcp_names_or_have_empty_parts_do_not_parse() {
        for name in [
            "Read",
            "mcp_",
            "mcp__",
            "mcp____x",
            "mcp__db__",
            "MCP__db__q",
        ] {
            assert_eq!(parse_tool_name(name), None, "{name}");
        }
        assert!(is_mcp_name("mcp__db__query"));
        assert!(!is_mcp_name("Bash"));
    }

    #[test]
    fn only_an_mcp_rule_loses_its_server_wildcard() {
        assert_eq!(without_server_wildcard("mcp__db__*"), "mcp__db");
        assert_eq!(without_server_wildcard("mcp__db__query"), "mcp__db__query");
        assert_eq!(without_server_wildcard("Bash__*"), "Bash__*");
    }

    #[test]
    fn a_server_rule_covers_its_tools_and_no_other_servers() {
        for pattern in ["mcp__db", "mcp__db__*"] {
            assert!(pattern_covers(pattern, "mcp__db__query"), "{pattern}");
            assert!(pattern_covers(pattern, "mcp__db__run__now"), "{pattern}");
            assert!(!pattern_covers(pattern, "mcp__dbx__query"), "{pattern}");
            assert!(!pattern_covers(pattern, "mcp__other__query"), "{pattern}");
            assert!(!pattern_covers(pattern, "Read"), "{pattern}");
        }
    }

    #[test]
    fn a_tool_rule_covers_only_that_tool() {
        assert!(pattern_covers("mcp__db__query", "mcp__db__query"));
        assert!(!pattern_covers("mcp__db__query", "mcp__db__query2"));
        assert!(!pattern_covers("mcp__db__query", "mcp__db__query__x"));
        assert!(pattern_covers("Read", "Read"));
        assert!(!pattern_covers("Read", "ReadX"));
    }
}
