//! Read-only analysis of shell commands, for the permission layer and plan
//! mode: is this command line safe to run without asking, and which simple
//! commands does it contain (for `Bash(prefix:*)` rules)?
//!
//! The command is parsed with tree-sitter-bash ([`parse`]), every simple
//! command is extracted with its unquoted words, and each one is judged
//! against a list of programs known to only read ([`readonly_list`], with
//! [`git`] and [`scripts`] for the programs whose flags or scripts matter,
//! and [`wrappers`] for commands that run another command).
//! The analysis is deliberately conservative: anything it does not
//! understand makes the command line "not read-only", which only means the
//! user is asked (or, in plan mode, the command is refused).

mod git;
mod parse;
mod readonly_list;
mod scripts;
mod wrappers;

#[cfg(test)]
pub(crate) mod tests;

/// One simple command found in a shell command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// The command's words with quotes removed, program first. Prefix
    /// assignments (`FOO=1 ls`) are not included. A word whose value is only
    /// known when the shell runs (`$HOME`, `$(ls)`) is kept as its source
    /// text.
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
///
/// ```
/// use catui_core::permissions::shell::analyze;
///
/// let a = analyze("git log --oneline | head -n 5");
/// assert!(a.read_only);
/// assert_eq!(a.commands[0].argv, ["git", "log", "--oneline"]);
///
/// let b = analyze("ls && rm -rf target");
/// assert!(!b.read_only);
/// assert!(b.reason.unwrap_or_default().contains("rm"));
/// ```
pub fn analyze(command: &str) -> ShellAnalysis {
    let outcome = parse::walk(command);
    let reason = outcome.violations.into_iter().next();
    ShellAnalysis {
        commands: outcome.commands,
        read_only: reason.is_none(),
        reason,
    }
}
