//! Read-only analysis of shell commands, for the permission layer and plan
//! mode: is this command line safe to run without asking, and which simple
//! commands does it contain (for `Bash(prefix:*)` rules)?
//!
//! The command is parsed with tree-sitter-bash ([`parse`], with
//! [`statements`] and [`redirects`]); every simple command is extracted
//! with its unquoted words ([`words`]), its prefix assignments and every
//! redirection that applies to it, so no caller can judge a command without
//! them. Each one is judged against a list of
//! programs known to only read ([`programs`], with a file for each program
//! family whose flags or scripts matter: git, sed, awk, python, perl; and
//! [`builtins`]; `programs::wrappers` judges commands that run another
//! command by the command they run). Expansions that run code without looking like
//! commands (arithmetic, `${!x}`, `${x@P}`) are [`expand`]'s; [`belt`]
//! re-reads the text independently so that nothing the grammar missed
//! slips through.
//!
//! The analysis is an allow-list: anything it does not understand makes
//! the command line "not read-only", which only means the user is asked
//! (or, in plan mode, the command is refused). What it judges read-only
//! runs without a prompt, confined by the operating system where it can be
//! (see `docs/SECURITY.md`).

mod belt;
mod builtins;
mod expand;
mod parse;
mod programs;
mod redirects;
mod statements;
mod words;

pub(in crate::permissions) use parse::plain_command_words;
pub(in crate::permissions) use programs::wrapped_command;

#[cfg(test)]
#[path = "shell_tests.rs"]
pub(crate) mod tests;

/// One simple command found in a shell command line, with everything
/// around it that changes what it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// The command's words with quotes removed, program first. Prefix
    /// assignments (`FOO=1 ls`) are not included. A word whose value is only
    /// known when the shell runs (`$HOME`, `$(ls)`, `*`) is kept as its
    /// source text.
    pub argv: Vec<String>,
    /// The command's source text (without redirections written around a
    /// compound statement that contains it).
    pub text: String,
    /// Prefix assignments, which go into the command's environment.
    pub assignments: Vec<Assignment>,
    /// Every redirection that applies: its own and those of the compound
    /// statements (`{ }`, loops, subshells) around it.
    pub redirects: Vec<Redirect>,
    /// Why the program and its arguments are not read-only, if they are not.
    pub words_problem: Option<String>,
    /// Why the words read only while the OS confines them (they run code
    /// the project controls), if so.
    pub needs_confinement: Option<String>,
    /// Where git runs in this command (through any wrapper), relative to
    /// the command's directory: `.` for `git log`, `sub` for `git -C sub
    /// log`. The permission layer checks these are the project's own
    /// repository (`permissions::repository`).
    pub git_dirs: Vec<String>,
    /// Why its assignments or expansions are not read-only.
    pub other_problems: Vec<String>,
}

impl SimpleCommand {
    /// A command known only by its words (an unparsable line, as rules see
    /// it): never read-only.
    pub fn unanalysed(argv: Vec<String>, text: String) -> SimpleCommand {
        SimpleCommand {
            argv,
            text,
            assignments: Vec::new(),
            redirects: Vec::new(),
            words_problem: Some("the command could not be analysed".into()),
            needs_confinement: None,
            git_dirs: Vec::new(),
            other_problems: Vec::new(),
        }
    }

    /// The redirections that create or change a file.
    pub fn writes(&self) -> impl Iterator<Item = &Redirect> {
        self.redirects.iter().filter(|r| r.writes)
    }

    /// Whether the command, with its assignments, expansions and
    /// redirections, only reads (perhaps only while confined).
    pub fn is_read_only(&self) -> bool {
        self.words_problem.is_none()
            && self.other_problems.is_empty()
            && self.writes().next().is_none()
    }
}

/// `NAME=value` before a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    pub name: String,
    /// The value with quotes removed, or its source text when only known
    /// at run time.
    pub value: String,
}

/// One redirection (`2>&1`, `> out`, `< in`, `<<EOF`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The file descriptor written before the operator (`2` in `2>f`).
    pub fd: Option<String>,
    pub op: String,
    /// The file (or descriptor) after the operator, unquoted.
    pub target: String,
    /// The target is only known when the command runs.
    pub dynamic: bool,
    /// Creates or changes the file `target` (false for input, descriptor
    /// copies and `/dev/null`).
    pub writes: bool,
}

/// What the analysis found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellAnalysis {
    /// Every simple command, in pipelines, lists, subshells and
    /// substitutions, in source order.
    pub commands: Vec<SimpleCommand>,
    /// Problems that belong to no single command: unparsable text, function
    /// definitions, bare assignments, arithmetic over values not known to
    /// be numbers, redirections with no command to carry them.
    pub line_problems: Vec<String>,
    /// True only when every command is a known read-only program used with
    /// read-only flags and nothing else writes or runs code.
    pub read_only: bool,
    /// Read-only only while the OS confines what runs: why (`make -n`
    /// evaluates the Makefile). Set only when `read_only` is.
    pub needs_confinement: Option<String>,
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
///
/// let c = analyze("{ ls; } > listing.txt");
/// assert_eq!(c.commands[0].redirects[0].target, "listing.txt");
/// ```
pub fn analyze(command: &str) -> ShellAnalysis {
    let outcome = parse::walk(command);
    let reason = outcome.problems.into_iter().next();
    let read_only = reason.is_none()
        && outcome.line_problems.is_empty()
        && outcome.commands.iter().all(SimpleCommand::is_read_only);
    let reason =
        reason.or_else(|| (!read_only).then(|| "the command could not be analysed".to_string()));
    ShellAnalysis {
        commands: outcome.commands,
        line_problems: outcome.line_problems,
        read_only,
        needs_confinement: outcome.needs_confinement.filter(|_| read_only),
        reason,
    }
}
