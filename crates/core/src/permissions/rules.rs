//! Permission rules: `Tool` or `Tool(specifier)`, where they came from, and
//! how one rule matches one call.
//!
//! - `Bash`, `Bash(*)`: every command; `Bash(npm test)`: exactly that
//!   command; `Bash(git diff:*)`: commands whose words start with `git diff`.
//! - `Read(glob)`, `Edit(glob)`, `Write(glob)`: gitignore-style paths: `/x`
//!   from the settings file's project root, `//x` absolute, `~/x` from home,
//!   `x` anywhere. `Edit`/`Write` rules cover every file-writing tool,
//!   `Read` rules every reading tool (Read, Glob, Grep).
//! - `Agent(Explore)`: one agent type; other names (`WebFetch`,
//!   `mcp__server__tool`, `mcp__server`) match the tool by name.
//!
//! The decision order (deny, ask, allow) lives in [`super::decide`].

use catui_protocol::tool_names;
use std::fmt;
use std::path::{Path, PathBuf};

use catui_protocol::mcp_name;
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use super::Access;
use super::paths;
use super::shell::{SimpleCommand, plain_command_words};

/// One rule: a tool name and an optional specifier.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Rule {
    pub tool: String,
    /// `None` means the whole tool (`Bash`, `Bash()`, `Bash(*)`).
    pub specifier: Option<String>,
}

/// Why a rule's text is not a rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleParseError {
    #[error("empty permission rule: write a tool name such as `Read` or `Bash(npm test)`")]
    Empty,
    #[error("permission rule `{0}` has no tool name before `(`: write it as `Tool(specifier)`")]
    EmptyToolName(String),
    #[error(
        "permission rule `{0}` has unbalanced parentheses: write it as `Tool(specifier)` with one closing `)` at the end"
    )]
    Unbalanced(String),
    #[error(
        "permission rule `{0}` has an invalid tool name: use letters, digits, `_` and `-` only (e.g. `Bash`, `mcp__server__tool`)"
    )]
    BadToolName(String),
    #[error("permission rule `{rule}` has an invalid path pattern: {reason}")]
    BadPattern { rule: String, reason: String },
}

impl Rule {
    /// A rule for the whole tool.
    pub fn tool(name: impl Into<String>) -> Rule {
        Rule {
            tool: name.into(),
            specifier: None,
        }
    }

    /// The rule that covers every call of every tool that reaches outside
    /// the session (reads, writes, commands, agents). It cannot be
    /// written in settings; it stands in for the rules of a settings file
    /// that could not be read (see `settings`).
    pub fn any_tool() -> Rule {
        Rule::tool(ANY_TOOL)
    }

    /// Whether this is [`Rule::any_tool`].
    pub fn is_any_tool(&self) -> bool {
        self.tool == ANY_TOOL
    }

    /// For a rule that does not parse: the whole tool it names, when its
    /// tool name (the text before `(`) is a valid one. `Read(./.env` gives
    /// `Read`; a deny rule that cannot be understood then denies the whole
    /// tool rather than nothing.
    pub fn whole_tool_of(text: &str) -> Option<Rule> {
        let name = text.split('(').next().unwrap_or_default().trim();
        let rule = Rule::parse(name).ok()?;
        rule.specifier.is_none().then_some(rule)
    }

    /// A rule with a specifier, as in `Bash(npm test)`.
    pub fn with_specifier(name: impl Into<String>, specifier: impl Into<String>) -> Rule {
        Rule {
            tool: name.into(),
            specifier: Some(specifier.into()),
        }
    }

    /// Parses `Tool` or `Tool(specifier)`. The specifier may itself hold
    /// balanced parentheses (`Bash(echo (a))`).
    pub fn parse(text: &str) -> Result<Rule, RuleParseError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(RuleParseError::Empty);
        }
        let (tool, specifier) = match text.find('(') {
            None => {
                if text.contains(')') {
                    return Err(RuleParseError::Unbalanced(text.into()));
                }
                (text, None)
            }
            Some(open) => {
                let tool = text[..open].trim();
                if tool.is_empty() {
                    return Err(RuleParseError::EmptyToolName(text.into()));
                }
                let inner = text[open + 1..]
                    .strip_suffix(')')
                    .ok_or_else(|| RuleParseError::Unbalanced(text.into()))?;
                if !balanced(inner) {
                    return Err(RuleParseError::Unbalanced(text.into()));
                }
                let inner = inner.trim();
                let specifier = (!inner.is_empty() && inner != "*").then(|| inner.to_string());
                (tool, specifier)
            }
        };
        // `mcp__server__*` is the one wildcard a tool name may carry.
        let name_part = mcp_name::without_server_wildcard(tool);
        if !name_part
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(RuleParseError::BadToolName(text.into()));
        }
        let rule = Rule {
            tool: tool.to_string(),
            specifier,
        };
        if let (true, Some(spec)) = (rule.is_path_rule(), &rule.specifier) {
            path_matcher(spec, Path::new("/")).map_err(|reason| RuleParseError::BadPattern {
                rule: text.into(),
                reason,
            })?;
        }
        Ok(rule)
    }

    fn is_path_rule(&self) -> bool {
        matches!(
            self.tool.as_str(),
            tool_names::READ | tool_names::EDIT | tool_names::WRITE
        )
    }

    /// Whether this rule is about the tool `tool_name` doing `access`,
    /// ignoring the specifier.
    pub fn covers_tool(&self, tool_name: &str, access: &Access) -> bool {
        match self.tool.as_str() {
            ANY_TOOL => !matches!(access, Access::Session | Access::Interaction),
            // File rules follow what the call does, so `Edit(...)` also
            // covers Write and NotebookEdit, `Read(...)` also Glob and Grep.
            tool_names::EDIT | tool_names::WRITE => matches!(access, Access::Write { .. }),
            tool_names::READ => matches!(access, Access::Read { .. }),
            name if mcp_name::is_mcp_name(name) => mcp_name::pattern_covers(name, tool_name),
            name => name == tool_name,
        }
    }

    /// Whether this (Bash) rule allows every command (`Bash`, `Bash(*)`).
    pub fn allows_every_command(&self) -> bool {
        matches!(
            CommandPattern::from_specifier(self.specifier.as_deref()),
            CommandPattern::Any
        )
    }

    /// Whether this (Bash) rule matches one simple command. `lenient`
    /// also looks through wrappers (`sudo`, `env`, `timeout`, ...) and a
    /// path-qualified program name: right for deny and ask rules, never
    /// for allow rules.
    pub fn matches_command(&self, command: &SimpleCommand, lenient: bool) -> bool {
        let pattern = CommandPattern::from_specifier(self.specifier.as_deref());
        if pattern.matches(&command.argv) {
            return true;
        }
        if !lenient {
            return false;
        }
        let stripped = super::shell::wrapped_command(&command.argv);
        let mut variants = vec![stripped.to_vec()];
        if let Some(first) = stripped.first()
            && let Some(base) = Path::new(first).file_name()
        {
            let mut v = stripped.to_vec();
            v[0] = base.to_string_lossy().into_owned();
            variants.push(v);
        }
        variants.iter().any(|argv| pattern.matches(argv))
    }

    /// Whether this (Read/Edit/Write) rule's pattern matches `path`
    /// (absolute), with `/x` patterns taken from `root`. A rule without a
    /// specifier matches every path.
    pub fn matches_path(&self, path: &Path, root: &Path) -> bool {
        let Some(spec) = &self.specifier else {
            return true;
        };
        match path_matcher(spec, root) {
            Ok(set) => set.is_match(path),
            Err(_) => false,
        }
    }
}

/// The tool name of [`Rule::any_tool`] (not a valid name in a rule's text).
const ANY_TOOL: &str = "*";

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.specifier {
            Some(spec) => write!(f, "{}({spec})", self.tool),
            None => f.write_str(&self.tool),
        }
    }
}

fn balanced(s: &str) -> bool {
    let mut depth = 0i32;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

/// What a Bash specifier asks for. Its words are split by the shell
/// analysis's own lexer, so they compare with the commands' words.
enum CommandPattern {
    Any,
    Exact(Vec<String>),
    Prefix(Vec<String>),
    /// Not one plain command (`a && b`, `FOO=1 make`, `ls > out`, an
    /// unbalanced quote): no single command's words are that.
    Nothing,
}

impl CommandPattern {
    fn from_specifier(spec: Option<&str>) -> CommandPattern {
        let Some(spec) = spec.map(str::trim) else {
            return CommandPattern::Any;
        };
        let prefix = spec.strip_suffix(":*").or_else(|| spec.strip_suffix(" *"));
        match prefix {
            Some(p) if p.trim().is_empty() => CommandPattern::Any,
            Some(p) => {
                plain_command_words(p).map_or(CommandPattern::Nothing, CommandPattern::Prefix)
            }
            None if spec.is_empty() || spec == "*" => CommandPattern::Any,
            None => {
                plain_command_words(spec).map_or(CommandPattern::Nothing, CommandPattern::Exact)
            }
        }
    }

    fn matches(&self, argv: &[String]) -> bool {
        match self {
            CommandPattern::Any => true,
            CommandPattern::Exact(w) => argv == w.as_slice(),
            CommandPattern::Prefix(w) => argv.len() >= w.len() && argv[..w.len()] == w[..],
            CommandPattern::Nothing => false,
        }
    }
}

/// Compiles a gitignore-style path specifier into a matcher of absolute
/// paths. A pattern also matches everything below a matching directory.
fn path_matcher(spec: &str, root: &Path) -> Result<GlobSet, String> {
    let anchored = |base: &Path, rest: &str| {
        let base = paths::canonicalize(base, base).unwrap_or_else(|_| base.to_path_buf());
        let base = globset::escape(&base.to_string_lossy());
        let base = base.trim_end_matches('/');
        if rest.is_empty() {
            base.to_string()
        } else {
            format!("{base}/{rest}")
        }
    };
    let pattern = if let Some(rest) = spec.strip_prefix("//") {
        format!("/{rest}")
    } else if spec == "~" || spec.starts_with("~/") {
        let home = dirs::home_dir().ok_or_else(|| {
            "`~` is used but the home directory is unknown; write an absolute path (`//path`)"
                .to_string()
        })?;
        anchored(&home, spec.trim_start_matches('~').trim_start_matches('/'))
    } else if let Some(rest) = spec.strip_prefix('/') {
        anchored(root, rest)
    } else if let Some(rest) = spec.strip_prefix("./") {
        anchored(root, rest)
    } else {
        format!("**/{spec}")
    };
    let pattern = pattern.trim_end_matches('/');
    let pattern = if pattern.is_empty() { "/" } else { pattern };
    let mut builder = GlobSetBuilder::new();
    for p in [pattern.to_string(), format!("{pattern}/**")] {
        let glob = GlobBuilder::new(&p)
            .literal_separator(true)
            .case_insensitive(paths::CASE_INSENSITIVE_FS)
            .build()
            .map_err(|e| e.to_string())?;
        builder.add(glob);
    }
    builder.build().map_err(|e| e.to_string())
}

/// Allow, ask or deny.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleBehavior {
    Allow,
    Ask,
    Deny,
}

impl fmt::Display for RuleBehavior {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RuleBehavior::Allow => "allow",
            RuleBehavior::Ask => "ask",
            RuleBehavior::Deny => "deny",
        })
    }
}

/// Which layer a rule came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleSourceKind {
    UserSettings,
    ProjectSettings,
    LocalSettings,
    /// `--settings FILE`.
    FlagSettings,
    /// `--allowed-tools` / `--disallowed-tools`.
    CliArg,
    /// Added during the session ("always allow").
    Session,
    /// A custom command's `allowed-tools`, for its turn only.
    Command,
    /// Stands in for a settings file that could not be applied (its
    /// `file`): see [`Rule::any_tool`].
    UnappliedSettings,
}

/// Where a rule came from: the layer, its file, and the root that `/x`
/// patterns are relative to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RuleOrigin {
    pub kind: RuleSourceKind,
    pub file: Option<PathBuf>,
    pub root: PathBuf,
}

impl RuleOrigin {
    pub fn cli(root: PathBuf) -> RuleOrigin {
        RuleOrigin {
            kind: RuleSourceKind::CliArg,
            file: None,
            root,
        }
    }

    pub fn session(root: PathBuf) -> RuleOrigin {
        RuleOrigin {
            kind: RuleSourceKind::Session,
            file: None,
            root,
        }
    }
}

impl fmt::Display for RuleOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let layer = match self.kind {
            RuleSourceKind::UserSettings => "user settings",
            RuleSourceKind::ProjectSettings => "project settings",
            RuleSourceKind::LocalSettings => "local settings",
            RuleSourceKind::FlagSettings => "--settings file",
            RuleSourceKind::CliArg => "command line",
            RuleSourceKind::Session => "this session",
            RuleSourceKind::Command => "the allowed-tools of the command",
            RuleSourceKind::UnappliedSettings => {
                return match &self.file {
                    Some(file) => write!(
                        f,
                        "in place of the rules of {}, which could not be applied",
                        file.display()
                    ),
                    None => f.write_str("in place of a settings file that could not be applied"),
                };
            }
        };
        match &self.file {
            Some(file) => write!(f, "{layer} {}", file.display()),
            None => f.write_str(layer),
        }
    }
}

/// A rule with its origin.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SourcedRule {
    pub rule: Rule,
    pub origin: RuleOrigin,
}

/// The allow, ask and deny rules of a session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleSet {
    pub allow: Vec<SourcedRule>,
    pub ask: Vec<SourcedRule>,
    pub deny: Vec<SourcedRule>,
}

impl RuleSet {
    pub fn list(&self, behavior: RuleBehavior) -> &[SourcedRule] {
        match behavior {
            RuleBehavior::Allow => &self.allow,
            RuleBehavior::Ask => &self.ask,
            RuleBehavior::Deny => &self.deny,
        }
    }

    /// Adds a rule unless the same rule with the same root is already there
    /// (first occurrence wins, order kept).
    pub fn push(&mut self, behavior: RuleBehavior, rule: SourcedRule) {
        let list = match behavior {
            RuleBehavior::Allow => &mut self.allow,
            RuleBehavior::Ask => &mut self.ask,
            RuleBehavior::Deny => &mut self.deny,
        };
        let duplicate = list
            .iter()
            .any(|r| r.rule == rule.rule && r.origin.root == rule.origin.root);
        if !duplicate {
            list.push(rule);
        }
    }

    /// Adds the rules of a command-line list (`--allowed-tools`,
    /// `--disallowed-tools`); returns the malformed entries.
    pub fn add_cli_list(
        &mut self,
        behavior: RuleBehavior,
        list: &str,
        root: &Path,
    ) -> Vec<RuleParseError> {
        let mut errors = Vec::new();
        for parsed in parse_rule_list(list) {
            match parsed {
                Ok(rule) => self.push(
                    behavior,
                    SourcedRule {
                        rule,
                        origin: RuleOrigin::cli(root.to_path_buf()),
                    },
                ),
                Err(e) => errors.push(e),
            }
        }
        errors
    }
}

/// Splits a command-line rule list: entries separated by commas or
/// whitespace, except inside parentheses (`Bash(git diff:*), Read`).
pub fn parse_rule_list(list: &str) -> Vec<Result<Rule, RuleParseError>> {
    let mut entries = Vec::new();
    let mut current = String::new();
    let mut depth = 0i32;
    for c in list.chars() {
        match c {
            '(' => {
                depth += 1;
                current.push(c);
            }
            ')' => {
                depth -= 1;
                current.push(c);
            }
            c if depth <= 0 && (c == ',' || c.is_whitespace()) => {
                if !current.trim().is_empty() {
                    entries.push(std::mem::take(&mut current));
                }
                current.clear();
            }
            c => current.push(c),
        }
    }
    if !current.trim().is_empty() {
        entries.push(current);
    }
    entries.iter().map(|e| Rule::parse(e)).collect()
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
