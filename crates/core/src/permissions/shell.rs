//! Read-only analysis of shell commands (interface; the tree-sitter-bash
//! implementation replaces the placeholder body).

/// One simple command found in a shell command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// The words after expansion-free parsing: program first.
    pub argv: Vec<String>,
    /// The command's source text.
    pub text: String,
}

/// What the analysis found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellAnalysis {
    /// Every simple command, in pipelines, lists, subshells and
    /// substitutions, in source order.
    pub commands: Vec<SimpleCommand>,
    /// True only when every command is a known read-only program used with
    /// read-only flags and nothing writes (redirections, eval, ...).
    pub read_only: bool,
    /// Why the command is not read-only, for messages.
    pub reason: Option<String>,
}

/// Analyses `command`. Anything unparsable is not read-only.
pub fn analyze(command: &str) -> ShellAnalysis {
    let commands = command
        .split([';', '|', '&', '\n'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| SimpleCommand {
            argv: s.split_whitespace().map(String::from).collect(),
            text: s.to_string(),
        })
        .collect();
    ShellAnalysis {
        commands,
        read_only: false,
        reason: Some("shell analysis not implemented yet".into()),
    }
}
