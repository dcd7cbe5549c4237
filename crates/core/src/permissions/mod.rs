//! Permissions: every tool call goes through [`decide`].
//!
//! A tool describes what a call would touch ([`Access`]); the decision
//! combines that with the session's [`PermissionContext`]: deny rules, then
//! ask rules, then allow rules, then the mode's default. Plan mode is
//! enforced here, after deny and ask rules but before allow rules, so no
//! rule can open a write or a mutating command while planning.
//!
//! - [`rules`] — parsing and matching `Tool(specifier)` rules.
//! - [`paths`] — canonical paths for every path comparison.
//! - [`mode`] — the one mode transition function.
//! - [`shell`] — read-only analysis of shell commands.

use std::path::{Path, PathBuf};

pub mod mode;
pub mod paths;
pub mod rules;
pub mod shell;

use catui_protocol::PermissionMode;

pub use mode::{
    ModeChange, mode_after_plan, prepare_context_for_plan_mode, transition_permission_mode,
};
pub use rules::{
    Rule, RuleBehavior, RuleOrigin, RuleParseError, RuleSet, RuleSourceKind, SourcedRule,
    parse_rule_list,
};
use shell::{ShellAnalysis, SimpleCommand};

/// Agent types that only read, and so may run in plan mode.
pub const READ_ONLY_AGENT_TYPES: &[&str] = &["Explore", "Plan"];

/// What a tool call would touch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// Reads these paths (files or directories searched).
    Read { paths: Vec<PathBuf> },
    /// Creates or changes this file.
    Write { path: PathBuf },
    /// Runs this shell command.
    Shell { command: String },
    /// Needs the user's answer whatever the mode (AskUserQuestion,
    /// ExitPlanMode).
    Interaction,
    /// Changes only the session's own state (TodoWrite, EnterPlanMode).
    Session,
    /// Starts a sub-agent of this type.
    Agent { subagent_type: String },
}

/// The outcome of a permission check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Allow,
    /// Ask the user; `reason` says what is being asked, `suggestion` is the
    /// rule that "always allow" would add (none when no rule can help).
    Ask {
        reason: String,
        suggestion: Option<Rule>,
    },
    /// Refuse; the message reaches the model.
    Deny {
        message: String,
    },
}

/// Whether auto mode is opted into (settings `autoMode`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AutoModeConfig {
    pub enabled: bool,
    pub use_during_plan: bool,
}

/// The permission state of a session (G§5.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionContext {
    pub mode: PermissionMode,
    /// The mode to return to when plan mode ends; set only in plan mode.
    pub pre_plan_mode: Option<PermissionMode>,
    /// Dangerous allow rules set aside while auto mode is active (G§8.1).
    pub stripped_dangerous_rules: Vec<SourcedRule>,
    pub rules: RuleSet,
    /// The working directory, `--add-dir` and `additionalDirectories`.
    pub working_dirs: Vec<PathBuf>,
    /// The session's plan file (the one file writable in plan mode).
    pub plan_file: Option<PathBuf>,
    /// Set inside a sub-agent.
    pub is_agent: bool,
    /// False when nobody can answer a prompt (plain `-p`): asks are denied.
    pub interactive: bool,
    pub auto_mode: AutoModeConfig,
}

impl Default for PermissionContext {
    fn default() -> Self {
        Self {
            mode: PermissionMode::Default,
            pre_plan_mode: None,
            stripped_dangerous_rules: Vec::new(),
            rules: RuleSet::default(),
            working_dirs: Vec::new(),
            plan_file: None,
            is_agent: false,
            interactive: true,
            auto_mode: AutoModeConfig::default(),
        }
    }
}

impl PermissionContext {
    /// A context in `default` mode whose one working directory is `cwd`.
    pub fn new(cwd: PathBuf) -> Self {
        Self {
            working_dirs: vec![cwd],
            ..Self::default()
        }
    }
}

/// One call, as the permission layer sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallInfo {
    pub tool_name: String,
    pub access: Access,
    /// The tool's own verdict (for Bash: the shell analysis).
    pub read_only: bool,
    /// Where relative paths (and shell commands) are resolved.
    pub cwd: PathBuf,
}

/// Decides whether a call may run. Every tool call goes through here.
pub fn decide(ctx: &PermissionContext, call: &CallInfo) -> Decision {
    decide_with(ctx, call, &shell::analyze)
}

/// [`decide`] with the shell analyser passed in (tests use a fake one).
pub fn decide_with(
    ctx: &PermissionContext,
    call: &CallInfo,
    analyze: &dyn Fn(&str) -> ShellAnalysis,
) -> Decision {
    let target = Target::of(call, analyze);
    match evaluate(ctx, call, &target, analyze) {
        Verdict::Allow => Decision::Allow,
        Verdict::Deny(message) => Decision::Deny { message },
        Verdict::Ask { reason, why } if !ctx.interactive => Decision::Deny {
            message: non_interactive_message(call, &reason, &why),
        },
        Verdict::Ask { reason, why } => Decision::Ask {
            reason,
            suggestion: match why {
                AskWhy::Default { suggestion, .. } => suggestion,
                AskWhy::Interaction | AskWhy::AskRule(_) => None,
            },
        },
    }
}

/// Why a call asks, to explain a denial when nobody can answer.
enum AskWhy {
    Interaction,
    AskRule(SourcedRule),
    Default {
        suggestion: Option<Rule>,
        accept_edits_would_allow: bool,
    },
}

enum Verdict {
    Allow,
    Deny(String),
    Ask { reason: String, why: AskWhy },
}

/// What the call touches, resolved once.
struct Target {
    /// (as written, made absolute; canonical when resolvable).
    paths: Vec<(PathBuf, Option<PathBuf>)>,
    shell: Option<ShellAnalysis>,
    commands: Vec<SimpleCommand>,
}

impl Target {
    fn of(call: &CallInfo, analyze: &dyn Fn(&str) -> ShellAnalysis) -> Target {
        let resolve = |p: &PathBuf| {
            (
                paths::normalize_lexically(p, &call.cwd),
                paths::canonicalize(p, &call.cwd).ok(),
            )
        };
        let (paths, shell) = match &call.access {
            Access::Read { paths } => (paths.iter().map(resolve).collect(), None),
            Access::Write { path } => (vec![resolve(path)], None),
            Access::Shell { command } => (Vec::new(), Some(analyze(command))),
            _ => (Vec::new(), None),
        };
        let mut commands = shell
            .as_ref()
            .map(|s| s.commands.clone())
            .unwrap_or_default();
        if let (true, Access::Shell { command }) = (commands.is_empty(), &call.access)
            && !command.trim().is_empty()
        {
            // Unparsable: rules still see the line as one command.
            commands.push(SimpleCommand {
                argv: command.split_whitespace().map(String::from).collect(),
                text: command.trim().to_string(),
            });
        }
        Target {
            paths,
            shell,
            commands,
        }
    }

    fn describe(&self, call: &CallInfo) -> String {
        match &call.access {
            Access::Shell { command } => format!("`{}`", command.trim()),
            Access::Agent { subagent_type } => format!("agent `{subagent_type}`"),
            _ => match self.paths.first() {
                Some((p, _)) => p.display().to_string(),
                None => call.tool_name.clone(),
            },
        }
    }
}

/// Deny and ask rules match leniently: any path under either name, any
/// simple command, also through wrappers. Allow rules match strictly:
/// canonical paths only, and every path.
fn rule_matches(rule: &SourcedRule, call: &CallInfo, target: &Target, lenient: bool) -> bool {
    if !rule.rule.covers_tool(&call.tool_name, &call.access) {
        return false;
    }
    let root = &rule.origin.root;
    match &call.access {
        Access::Shell { .. } => {
            let hit = |c: &SimpleCommand| rule.rule.matches_command(c, lenient);
            if lenient {
                target.commands.iter().any(hit)
            } else {
                !target.commands.is_empty() && target.commands.iter().all(hit)
            }
        }
        Access::Read { .. } | Access::Write { .. } => {
            let hit = |(lexical, canonical): &(PathBuf, Option<PathBuf>)| {
                let canonical_hit = canonical
                    .as_ref()
                    .is_some_and(|c| rule.rule.matches_path(c, root));
                canonical_hit || (lenient && rule.rule.matches_path(lexical, root))
            };
            if lenient {
                target.paths.iter().any(hit)
            } else {
                !target.paths.is_empty() && target.paths.iter().all(hit)
            }
        }
        Access::Agent { subagent_type } => match &rule.rule.specifier {
            None => true,
            Some(spec) => spec == subagent_type,
        },
        // Specifiers of other tools (`WebFetch(domain:...)`) are reserved.
        Access::Interaction | Access::Session => rule.rule.specifier.is_none(),
    }
}

fn evaluate(
    ctx: &PermissionContext,
    call: &CallInfo,
    target: &Target,
    analyze: &dyn Fn(&str) -> ShellAnalysis,
) -> Verdict {
    let what = target.describe(call);
    if let Some(rule) = ctx
        .rules
        .deny
        .iter()
        .find(|r| rule_matches(r, call, target, true))
    {
        return Verdict::Deny(format!(
            "Permission to run {} on {what} was denied by the rule `{}` ({}). Do not retry it; find another way or ask the user.",
            call.tool_name, rule.rule, rule.origin
        ));
    }
    if ctx.is_agent && call.tool_name == "EnterPlanMode" {
        return Verdict::Deny(
            "EnterPlanMode cannot be used by a sub-agent; only the main conversation can enter plan mode.".into(),
        );
    }
    if call.access == Access::Interaction {
        return Verdict::Ask {
            reason: format!("{} needs an answer from the user", call.tool_name),
            why: AskWhy::Interaction,
        };
    }
    if let Some(rule) = ctx
        .rules
        .ask
        .iter()
        .find(|r| rule_matches(r, call, target, true))
    {
        return Verdict::Ask {
            reason: format!(
                "the rule `{}` ({}) asks before {} runs on {what}",
                rule.rule, rule.origin, call.tool_name
            ),
            why: AskWhy::AskRule(rule.clone()),
        };
    }
    if ctx.mode == PermissionMode::Plan {
        return plan_mode(ctx, call, target, &what);
    }
    let working_dirs = canonical_working_dirs(ctx);
    match &call.access {
        Access::Shell { .. } => shell_default(ctx, call, target, analyze, &working_dirs),
        _ if ctx
            .rules
            .allow
            .iter()
            .any(|r| rule_matches(r, call, target, false)) =>
        {
            Verdict::Allow
        }
        Access::Read { .. } | Access::Session | Access::Agent { .. } => Verdict::Allow,
        Access::Write { .. } if ctx.mode == PermissionMode::BypassPermissions => Verdict::Allow,
        Access::Write { .. } => {
            let inside = write_inside_working_dirs(target, &working_dirs);
            if ctx.mode == PermissionMode::AcceptEdits && inside {
                return Verdict::Allow;
            }
            Verdict::Ask {
                reason: format!("{} wants to change {what}", call.tool_name),
                why: AskWhy::Default {
                    suggestion: edit_suggestion(target, &working_dirs),
                    accept_edits_would_allow: inside,
                },
            }
        }
        _ if call.read_only || ctx.mode == PermissionMode::BypassPermissions => Verdict::Allow,
        _ => Verdict::Ask {
            reason: format!("{} needs your permission", call.tool_name),
            why: AskWhy::Default {
                suggestion: Some(Rule::tool(call.tool_name.clone())),
                accept_edits_would_allow: false,
            },
        },
    }
}

/// Plan mode (G§8.4): reads, read-only commands, read-only agents and the
/// plan file; nothing else, whatever the allow rules say.
fn plan_mode(ctx: &PermissionContext, call: &CallInfo, target: &Target, what: &str) -> Verdict {
    let plan = match &ctx.plan_file {
        Some(p) => format!("the plan file {}", p.display()),
        None => "the plan file (none is set up yet)".to_string(),
    };
    let closing = format!(
        "Keep exploring with read-only tools, write your plan to {plan}, and call ExitPlanMode when it is ready for the user's approval."
    );
    match &call.access {
        Access::Read { .. } | Access::Session => Verdict::Allow,
        Access::Write { .. } if call.tool_name == "NotebookEdit" => Verdict::Deny(format!(
            "Plan mode is active: notebooks cannot be edited while planning. {closing}"
        )),
        Access::Write { path } => {
            if is_plan_file(ctx, path, &call.cwd) {
                Verdict::Allow
            } else {
                Verdict::Deny(format!(
                    "Plan mode is active: {} may not change {what}; the only file you may write while planning is {plan}. Describe the change in the plan instead. {closing}",
                    call.tool_name
                ))
            }
        }
        Access::Shell { .. } if call.read_only => Verdict::Allow,
        Access::Shell { .. } => {
            let why = target
                .shell
                .as_ref()
                .and_then(|s| s.reason.clone())
                .map(|r| format!(" ({r})"))
                .unwrap_or_default();
            Verdict::Deny(format!(
                "Plan mode is active: only read-only shell commands may run, and {what} is not read-only{why}. {closing}"
            ))
        }
        Access::Agent { subagent_type }
            if READ_ONLY_AGENT_TYPES.contains(&subagent_type.as_str()) =>
        {
            Verdict::Allow
        }
        Access::Agent { subagent_type } => Verdict::Deny(format!(
            "Plan mode is active: only read-only agents ({}) may be started, not `{subagent_type}`. {closing}",
            READ_ONLY_AGENT_TYPES.join(", ")
        )),
        _ if call.read_only => Verdict::Allow,
        _ => Verdict::Deny(format!(
            "Plan mode is active: {} is not available while planning. {closing}",
            call.tool_name
        )),
    }
}

/// Whether `path` is the session's plan file: same canonical path, no
/// symlink planted under the plan file's own name, no trailing slash, and
/// (on Unix) not a file hard-linked to another name.
fn is_plan_file(ctx: &PermissionContext, path: &Path, cwd: &Path) -> bool {
    let Some(plan) = &ctx.plan_file else {
        return false;
    };
    if paths::has_trailing_separator(path) {
        return false;
    }
    let Ok(plan_named) = paths::canonicalize_parent(plan, cwd) else {
        return false;
    };
    if let Ok(meta) = std::fs::symlink_metadata(&plan_named) {
        if !meta.file_type().is_file() {
            return false;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            if meta.nlink() > 1 {
                return false;
            }
        }
    }
    match paths::canonicalize(path, cwd) {
        Ok(target) => paths::same_path(&target, &plan_named),
        Err(_) => false,
    }
}

/// Bash outside plan mode: read-only lines run; otherwise every simple
/// command must be allowed by a rule, be read-only on its own, or (in
/// acceptEdits) be a file-system command inside the working directories.
fn shell_default(
    ctx: &PermissionContext,
    call: &CallInfo,
    target: &Target,
    analyze: &dyn Fn(&str) -> ShellAnalysis,
    working_dirs: &[PathBuf],
) -> Verdict {
    if call.read_only || ctx.mode == PermissionMode::BypassPermissions {
        return Verdict::Allow;
    }
    let allowed_by_rule = |c: &SimpleCommand| {
        ctx.rules.allow.iter().any(|r| {
            r.rule.covers_tool(&call.tool_name, &call.access) && r.rule.matches_command(c, false)
        })
    };
    let uncovered: Vec<&SimpleCommand> = target
        .commands
        .iter()
        .filter(|c| {
            !(allowed_by_rule(c)
                || analyze(&c.text).read_only
                || (ctx.mode == PermissionMode::AcceptEdits
                    && fs_command_inside(c, &call.cwd, working_dirs)))
        })
        .collect();
    if !target.commands.is_empty() && uncovered.is_empty() {
        return Verdict::Allow;
    }
    let why = target
        .shell
        .as_ref()
        .and_then(|s| s.reason.clone())
        .map(|r| format!(" ({r})"))
        .unwrap_or_default();
    let suggestion = match uncovered.as_slice() {
        [only] if !only.argv.is_empty() => {
            Some(Rule::with_specifier("Bash", shell_join(&only.argv)))
        }
        _ => None,
    };
    Verdict::Ask {
        reason: format!("Bash wants to run `{}`{why}", command_text(call)),
        why: AskWhy::Default {
            suggestion,
            accept_edits_would_allow: false,
        },
    }
}

fn command_text(call: &CallInfo) -> &str {
    match &call.access {
        Access::Shell { command } => command.trim(),
        _ => "",
    }
}

/// `mkdir`, `touch`, `mv`, `cp` with plain flags and literal paths that all
/// resolve inside the working directories (acceptEdits).
fn fs_command_inside(command: &SimpleCommand, cwd: &Path, working_dirs: &[PathBuf]) -> bool {
    let Some((program, args)) = command.argv.split_first() else {
        return false;
    };
    let flags: &[&str] = match program.as_str() {
        "mkdir" => &["-p", "--parents", "-v", "--verbose"],
        "touch" => &["-c", "--no-create"],
        "mv" | "cp" => &[
            "-f",
            "-i",
            "-n",
            "-v",
            "-r",
            "-R",
            "-p",
            "-a",
            "-u",
            "--force",
            "--interactive",
            "--no-clobber",
            "--verbose",
            "--recursive",
            "--archive",
            "--update",
        ],
        _ => return false,
    };
    let mut paths_seen = 0;
    let mut options_done = false;
    for arg in args {
        if !options_done && arg == "--" {
            options_done = true;
            continue;
        }
        if !options_done && arg.starts_with('-') && arg != "-" {
            if !flags.contains(&arg.as_str()) {
                return false;
            }
            continue;
        }
        // Words the shell would expand are not the paths they look like.
        if arg.is_empty() || arg.contains(['$', '`', '*', '?', '[', '{', '~', '\\']) {
            return false;
        }
        match paths::canonicalize(Path::new(arg), cwd) {
            Ok(p) if working_dirs.iter().any(|d| paths::is_within(&p, d)) => paths_seen += 1,
            _ => return false,
        }
    }
    paths_seen > 0
}

fn canonical_working_dirs(ctx: &PermissionContext) -> Vec<PathBuf> {
    ctx.working_dirs
        .iter()
        .filter_map(|d| paths::canonicalize(d, d).ok())
        .collect()
}

/// Whether a write lands inside the working directories and outside the
/// directories that steer the agent or the repository (`.catui`, `.git`):
/// acceptEdits never edits those without asking.
fn write_inside_working_dirs(target: &Target, working_dirs: &[PathBuf]) -> bool {
    target.paths.iter().all(|(_, canonical)| {
        canonical.as_ref().is_some_and(|c| {
            working_dirs.iter().any(|d| {
                paths::is_within(c, d)
                    && c.strip_prefix(d).is_ok_and(|rest| {
                        !rest
                            .components()
                            .any(|part| part.as_os_str() == ".catui" || part.as_os_str() == ".git")
                    })
            })
        })
    }) && !target.paths.is_empty()
}

/// `Edit(/dir/**)` for the written file's directory: relative to the first
/// working directory when inside it, else absolute (`//dir/**`).
fn edit_suggestion(target: &Target, working_dirs: &[PathBuf]) -> Option<Rule> {
    let (lexical, canonical) = target.paths.first()?;
    let file = canonical.as_ref().unwrap_or(lexical);
    let dir = file.parent()?;
    let spec = match working_dirs.first().and_then(|w| dir.strip_prefix(w).ok()) {
        Some(rel) if rel.as_os_str().is_empty() => "/**".to_string(),
        Some(rel) => format!("/{}/**", globset::escape(&rel.to_string_lossy())),
        None => format!("/{}/**", globset::escape(&dir.to_string_lossy())),
    };
    Some(Rule::with_specifier("Edit", spec))
}

/// Joins words into command text, quoting words that need it.
fn shell_join(argv: &[String]) -> String {
    argv.iter()
        .map(|w| {
            if !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c))
            {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The denial for a call that would ask when nobody can answer: what it
/// needed and the rule or flag that would let it run.
fn non_interactive_message(call: &CallInfo, reason: &str, why: &AskWhy) -> String {
    let head = format!(
        "{} was not run: {reason}, and nobody can answer permission prompts in this non-interactive session.",
        call.tool_name
    );
    match why {
        AskWhy::Interaction => {
            format!("{head} Continue without the user's answer, or run the session interactively.")
        }
        AskWhy::AskRule(rule) => format!(
            "{head} To let it run, remove the ask rule `{}` ({}).",
            rule.rule, rule.origin
        ),
        AskWhy::Default {
            suggestion,
            accept_edits_would_allow,
        } => {
            let mut text = head;
            if let Some(rule) = suggestion {
                text.push_str(&format!(
                    " To allow it, add `{rule}` to permissions.allow in .catui/settings.json or pass --allowed-tools \"{rule}\""
                ));
                if *accept_edits_would_allow {
                    text.push_str(", or run with --permission-mode acceptEdits");
                }
                text.push('.');
            } else if *accept_edits_would_allow {
                text.push_str(" To allow it, run with --permission-mode acceptEdits.");
            }
            text
        }
    }
}

#[cfg(test)]
#[path = "decide_tests.rs"]
mod decide_tests;
