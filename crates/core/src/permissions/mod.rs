//! Permissions: every tool call goes through [`decide`].
//!
//! A tool describes what a call would touch ([`Access`]); the decision
//! combines that with the session's [`PermissionContext`]: deny rules, then
//! ask rules, then allow rules, then the mode's default. Plan mode is
//! enforced here, after deny and ask rules but before allow rules, so no
//! rule can open a write or a mutating command while planning.
//!
//! An allowed call carries its [`Grant`]: a shell command that runs only
//! because the analysis judged it read-only ([`Grant::ReadOnly`]) must run
//! confined to reading; what a rule, the mode or the user allowed runs as
//! it is (see `docs/SECURITY.md`). In plan mode a line that is not
//! read-only may run as a dry run ([`Grant::DryRun`], [`dry_run`]).
//!
//! - [`rules`] — parsing and matching `Tool(specifier)` rules.
//! - [`paths`] — canonical paths for every path comparison.
//! - [`mode`] — the one mode transition function.
//! - [`shell`] — read-only analysis of shell commands.
//! - `shell_writes` — what acceptEdits lets a shell line write, and the
//!   lines that could carry a link to where a later write follows it.
//! - [`secrets`] — the user's secret stores (asked for, hidden from the sandbox).
//! - [`secret_search`] — what a search (Grep, Glob) leaves out of its walk.
//! - [`protected`] — the paths that run code later (asked for in acceptEdits).
//! - [`repository`] — whether a git command would use the project's own
//!   repository.
//! - [`dry_run`] — the session's dry runs: the scratch area, what ran in it.
//! - [`auto`] — the auto-mode classifier that judges calls instead of
//!   asking.

use catui_protocol::tool_names;
use std::path::PathBuf;

pub mod apply_reload;
pub mod auto;
mod defaults;
pub mod dry_run;
mod messages;
pub mod mode;
pub mod paths;
pub mod protected;
pub mod repository;
pub mod rules;
pub mod sandbox;
pub mod secret_search;
pub mod secrets;
pub mod shell;
mod shell_writes;
pub mod updates;

use catui_protocol::PermissionMode;

pub use mode::{
    ModeChange, ModeError, auto_mode_gate_enabled, is_auto_mode_active, is_wider, mode_after_plan,
    prepare_context_for_plan_mode, should_plan_use_auto_mode, transition_permission_mode,
};
pub use rules::{
    Rule, RuleBehavior, RuleOrigin, RuleParseError, RuleSet, RuleSourceKind, SourcedRule,
    parse_rule_list,
};
use secrets::SecretStores;
use shell::{ShellAnalysis, SimpleCommand};

/// What a tool call would touch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// Reads these paths (files or directories searched).
    Read { paths: Vec<PathBuf> },
    /// Creates or changes this file.
    Write { path: PathBuf },
    /// Runs this shell command. `unconfined`: the caller asks to run it
    /// without the read-only confinement, so the analysis alone can never
    /// let it run unasked.
    Shell { command: String, unconfined: bool },
    /// Needs the user's answer whatever the mode (AskUserQuestion,
    /// ExitPlanMode).
    Interaction,
    /// Changes only the session's own state (TodoWrite, EnterPlanMode), or
    /// reads what the session already reaches (the resources of its
    /// connected MCP servers).
    Session,
    /// Starts a sub-agent of this type. `read_only`: the agent type may run
    /// in plan mode (its tools only read, Bash aside, which plan mode holds
    /// to read-only commands as it does the session's). `mode`: the
    /// permission mode the input asks for it (a teammate's `mode`; the
    /// widest of several), `None` when it inherits the session's state: a
    /// mode wider than the session's is the user's to grant.
    /// `read_only_types`: the session's agent types that only read, named
    /// when plan mode refuses this one; they and `read_only` come from the
    /// agents' definitions (their `read_only` flag).
    Agent {
        subagent_type: String,
        read_only: bool,
        mode: Option<PermissionMode>,
        read_only_types: Vec<String>,
    },
    /// Reaches something outside the project's files and shell: a web page
    /// (WebFetch, `domain` set) or a tool of an MCP server. Asks unless a
    /// rule allows it (or the mode bypasses permissions); plan mode refuses
    /// it unless `read_only` (the tool's or the server's word, or the
    /// user's override of it).
    External {
        domain: Option<String>,
        read_only: bool,
    },
}

/// Why an allowed call may run, which decides how it runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Grant {
    /// A rule, the permission mode or the user allowed the call as it is.
    #[default]
    Explicit,
    /// Nobody allowed it: it runs without a prompt only because the shell
    /// analysis judged it read-only, so it must run confined to reading.
    ReadOnly,
    /// acceptEdits allowed a shell line because every write it names
    /// lands inside the working directories: it must run confined to
    /// writing there, so that the kernel judges each write on the path
    /// really written (a link the line creates cannot lead out).
    Edits,
    /// Plan mode let a line that is not read-only run as a dry run: in a
    /// throwaway copy of the working directories (overlays over a scratch
    /// area), never the real tree; otherwise confined like `Edits` (see
    /// [`dry_run`]).
    DryRun,
}

/// The outcome of a permission check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Allow(Grant),
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
    /// Auto mode: the call would ask by the mode's default, so the
    /// auto-mode classifier judges it instead. `fallback` (an `Ask`, or the
    /// non-interactive `Deny`) applies when the classifier cannot decide
    /// or has denied too often in a row. Explicit ask rules and
    /// interaction tools never get here: they always reach the user.
    Classify {
        reason: String,
        fallback: Box<Decision>,
    },
}

/// Whether auto mode is opted into (settings `autoMode`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AutoModeConfig {
    pub enabled: bool,
    pub use_during_plan: bool,
}

/// The permission state of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionContext {
    pub mode: PermissionMode,
    /// The mode to return to when plan mode ends; set only in plan mode.
    pub pre_plan_mode: Option<PermissionMode>,
    /// Dangerous allow rules set aside while auto mode is active.
    pub stripped_dangerous_rules: Vec<SourcedRule>,
    /// Where each stripped rule stood in `rules.allow` (same order as
    /// `stripped_dangerous_rules`), so restoring rebuilds the list exactly.
    pub stripped_dangerous_positions: Vec<usize>,
    pub rules: RuleSet,
    /// The working directory, `--add-dir` and `additionalDirectories`.
    pub working_dirs: Vec<PathBuf>,
    /// The session's plan file (the one file writable in plan mode).
    pub plan_file: Option<PathBuf>,
    /// Set inside a sub-agent.
    pub is_agent: bool,
    /// A read-only sub-agent: it has no plan file to write and no
    /// ExitPlanMode, so plan-mode refusals tell it to put its findings and
    /// plan in its final answer instead.
    pub plans_in_answer: bool,
    /// False when nobody can answer a prompt (plain `-p`): asks are denied.
    pub interactive: bool,
    pub auto_mode: AutoModeConfig,
    /// bypassPermissions may not be entered (settings
    /// `disableBypassPermissionsMode`).
    pub bypass_disabled: bool,
    /// Whether the session's sandbox enforces every guarantee of the
    /// read-only confinement ([`sandbox::SessionSandbox::complete`]).
    /// Without it, commands judged read-only ask instead of running
    /// unasked (in plan mode too).
    pub can_confine: bool,
    /// Whether the session's sandbox can keep a command's writes beneath
    /// the working directories ([`sandbox::SessionSandbox::confines_writes`]).
    /// Lines acceptEdits allows for their edits then run so confined;
    /// without it, lines that copy or move trees or links ask.
    pub can_confine_writes: bool,
    /// Whether plan mode runs lines that are not read-only as dry runs
    /// (settings `dryRun`, and a sandbox that can mount the overlays);
    /// without it they are refused.
    pub dry_run: bool,
    /// The user's secret stores: reading them asks in every mode but
    /// bypassPermissions, and confined commands do not see them. Built by
    /// the session from the defaults and settings `secretPaths`.
    pub secrets: SecretStores,
}

impl Default for PermissionContext {
    fn default() -> Self {
        Self {
            mode: PermissionMode::Default,
            pre_plan_mode: None,
            stripped_dangerous_rules: Vec::new(),
            stripped_dangerous_positions: Vec::new(),
            rules: RuleSet::default(),
            working_dirs: Vec::new(),
            plan_file: None,
            is_agent: false,
            plans_in_answer: false,
            interactive: true,
            auto_mode: AutoModeConfig::default(),
            bypass_disabled: false,
            can_confine: catui_sandbox::Sandbox::new(None).layers().complete(),
            can_confine_writes: catui_sandbox::Sandbox::new(None).layers().confines_writes(),
            dry_run: false,
            secrets: SecretStores::for_user(&[], &[]),
        }
    }
}

impl PermissionContext {
    /// A context in `default` mode whose one working directory is `cwd`.
    pub fn new(cwd: PathBuf) -> Self {
        Self {
            secrets: SecretStores::for_user(&[], std::slice::from_ref(&cwd)),
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
    match evaluate(ctx, call, &target) {
        Verdict::Allow(grant) => Decision::Allow(grant),
        Verdict::Deny(message) => Decision::Deny { message },
        Verdict::Ask { reason, why } => {
            let classify = matches!(why, AskWhy::Default { .. }) && mode::is_auto_mode_active(ctx);
            let plain = if ctx.interactive {
                Decision::Ask {
                    reason: reason.clone(),
                    suggestion: match why {
                        AskWhy::Default { suggestion, .. } | AskWhy::Secret { suggestion } => {
                            suggestion
                        }
                        AskWhy::Interaction | AskWhy::AskRule(_) | AskWhy::Escalation => None,
                    },
                }
            } else {
                Decision::Deny {
                    message: messages::non_interactive_message(call, &reason, &why),
                }
            };
            if classify {
                Decision::Classify {
                    reason,
                    fallback: Box::new(plain),
                }
            } else {
                plain
            }
        }
    }
}

/// Why a call asks, to explain a denial when nobody can answer. Only
/// `Default` may be judged by the auto-mode classifier instead: the others
/// are the user's to answer.
enum AskWhy {
    Interaction,
    AskRule(SourcedRule),
    /// The call reads or writes one of the user's secret stores.
    Secret {
        suggestion: Option<Rule>,
    },
    /// The call would start an agent with a wider mode than the session's.
    Escalation,
    Default {
        suggestion: Option<Rule>,
        accept_edits_would_allow: bool,
    },
}

enum Verdict {
    Allow(Grant),
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
            Access::Shell { command, .. } => (Vec::new(), Some(analyze(command))),
            _ => (Vec::new(), None),
        };
        let mut commands = shell
            .as_ref()
            .map(|s| s.commands.clone())
            .unwrap_or_default();
        if let (true, Access::Shell { command, .. }) = (commands.is_empty(), &call.access)
            && !command.trim().is_empty()
        {
            // Unparsable: rules still see the line as one command.
            commands.push(SimpleCommand::unanalysed(
                command.split_whitespace().map(String::from).collect(),
                command.trim().to_string(),
            ));
        }
        Target {
            paths,
            shell,
            commands,
        }
    }

    fn describe(&self, call: &CallInfo) -> String {
        match &call.access {
            Access::Shell { command, .. } => format!("`{}`", command.trim()),
            Access::Agent { subagent_type, .. } => format!("agent `{subagent_type}`"),
            Access::External {
                domain: Some(domain),
                ..
            } => domain.clone(),
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
    if rule.rule.is_any_tool() {
        return true;
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
        Access::Agent { subagent_type, .. } => match &rule.rule.specifier {
            None => true,
            Some(spec) => spec == subagent_type,
        },
        // `WebFetch(domain:example.com)`: that host and its subdomains.
        Access::External { domain, .. } => match &rule.rule.specifier {
            None => true,
            Some(spec) => match (spec.strip_prefix("domain:"), domain) {
                (Some(want), Some(host)) => domain_matches(want.trim(), host),
                _ => false,
            },
        },
        Access::Interaction | Access::Session => rule.rule.specifier.is_none(),
    }
}

/// The first path the call reads or writes that is in a secret store (as
/// written or as resolved, so a symlink into a store counts).
fn secret_touched(ctx: &PermissionContext, target: &Target) -> Option<PathBuf> {
    target.paths.iter().find_map(|(lexical, canonical)| {
        if ctx.secrets.is_secret(lexical) {
            Some(lexical.clone())
        } else {
            canonical
                .as_ref()
                .filter(|c| ctx.secrets.is_secret(c))
                .cloned()
        }
    })
}

/// Whether `host` is `want` or one of its subdomains (`*.` before `want`
/// means the same), compared without case.
fn domain_matches(want: &str, host: &str) -> bool {
    let want = want.strip_prefix("*.").unwrap_or(want).to_ascii_lowercase();
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    !want.is_empty()
        && (host == want
            || host
                .strip_suffix(&want)
                .is_some_and(|rest| rest.ends_with('.')))
}

/// The decision, in its order: deny rules, plan mode's refusals, secret
/// stores while planning, questions to the user, ask rules, agents asking
/// for a wider mode, secret stores, then what the mode allows
/// ([`defaults::by_access`]).
fn evaluate(ctx: &PermissionContext, call: &CallInfo, target: &Target) -> Verdict {
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
    if ctx.is_agent && call.tool_name == tool_names::ENTER_PLAN_MODE {
        return Verdict::Deny(
            "EnterPlanMode cannot be used by a sub-agent; only the main conversation can enter plan mode.".into(),
        );
    }
    // Plan mode's refusals come before ask rules, so that answering "yes"
    // to an ask rule can never run a write or a mutating command while
    // planning.
    let plan =
        (ctx.mode == PermissionMode::Plan).then(|| defaults::plan_mode(ctx, call, target, &what));
    if let Some(Verdict::Deny(message)) = plan {
        return Verdict::Deny(message);
    }
    // A secret store is read only with the user's word: an allow rule, or
    // (outside plan mode) a yes to the prompt below.
    let secret = secret_touched(ctx, target);
    let allowed_by_rule = || {
        ctx.rules
            .allow
            .iter()
            .any(|r| rule_matches(r, call, target, false))
    };
    if let Some(path) = &secret
        && ctx.mode == PermissionMode::Plan
        && !allowed_by_rule()
    {
        return Verdict::Deny(format!(
            "Plan mode is active: {} is in the user's secret stores, which are not read while planning unless the user allows it with a rule (such as `{}` in permissions.allow). Plan without it, or ask the user to add the rule.",
            ctx.secrets.shown(path),
            messages::secret_rule(call, path, &ctx.secrets)
        ));
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
    if let Access::Agent {
        mode: Some(wanted),
        subagent_type,
        ..
    } = &call.access
        && mode::is_wider(*wanted, ctx.mode)
    {
        let who = match subagent_type.as_str() {
            "teammate" => "a teammate".to_string(),
            _ => what,
        };
        return Verdict::Ask {
            reason: format!(
                "{} would start {who} in {wanted} mode, which allows more than this session's {} mode",
                call.tool_name, ctx.mode
            ),
            why: AskWhy::Escalation,
        };
    }
    if let Some(path) = &secret
        && ctx.mode != PermissionMode::BypassPermissions
        && !allowed_by_rule()
    {
        let verb = match call.access {
            Access::Write { .. } => "change",
            _ => "read",
        };
        return Verdict::Ask {
            reason: format!(
                "{} wants to {verb} {}, which is in your secret stores",
                call.tool_name,
                ctx.secrets.shown(path)
            ),
            why: AskWhy::Secret {
                suggestion: Some(messages::secret_rule(call, path, &ctx.secrets)),
            },
        };
    }
    // Outside tools that plan mode lets through still ask as in any mode.
    if let Some(verdict) = plan
        && !matches!(call.access, Access::External { .. })
    {
        return verdict;
    }
    defaults::by_access(ctx, call, target, what, allowed_by_rule)
}

#[cfg(test)]
#[path = "decide_tests.rs"]
mod decide_tests;

#[cfg(test)]
#[path = "policy_tests.rs"]
mod policy_tests;
