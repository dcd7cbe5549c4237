//! What each permission mode allows once no deny or ask rule has decided:
//! plan-mode enforcement (reads, read-only commands, read-only agents and
//! the plan file only), Bash outside plan mode (the whole line read-only,
//! or every simple command covered), and the acceptEdits allowances inside
//! the working directories.
//!
//! Every mode judges Bash by the same whole-line analysis: a line judged
//! read-only is allowed with [`Grant::ReadOnly`] and so runs confined.

use catui_protocol::tool_names;
use std::path::{Path, PathBuf};

use catui_protocol::PermissionMode;

use super::secrets::SecretStores;
use super::shell::SimpleCommand;
use super::shell_writes::Scope;
use super::{
    Access, AskWhy, CallInfo, Grant, PermissionContext, Rule, Target, Verdict, paths, protected,
};

/// Plan mode: reads, read-only commands, read-only agents and the
/// plan file; nothing else, whatever the allow rules say. `Allow` here
/// means "plan mode does not refuse it": ask rules still apply after.
pub(super) fn plan_mode(
    ctx: &PermissionContext,
    call: &CallInfo,
    target: &Target,
    what: &str,
) -> Verdict {
    let plan = match &ctx.plan_file {
        Some(p) => format!("the plan file {}", p.display()),
        None => "the plan file (none is set up yet)".to_string(),
    };
    let closing = if ctx.plans_in_answer {
        "Keep exploring with read-only tools and put your findings and your plan in your final answer.".to_string()
    } else {
        format!(
            "Keep exploring with read-only tools, write your plan to {plan}, and call ExitPlanMode when it is ready for the user's approval."
        )
    };
    match &call.access {
        // Interaction tools (ExitPlanMode, AskUserQuestion) are not refused;
        // the caller still asks.
        Access::Read { .. } | Access::Session | Access::Interaction => {
            Verdict::Allow(Grant::Explicit)
        }
        Access::Write { .. } if call.tool_name == tool_names::NOTEBOOK_EDIT => Verdict::Deny(
            format!("Plan mode is active: notebooks cannot be edited while planning. {closing}"),
        ),
        Access::Write { path } => {
            if is_plan_file(ctx, path, &call.cwd) {
                Verdict::Allow(Grant::Explicit)
            } else {
                Verdict::Deny(format!(
                    "Plan mode is active: {} may not change {what}; the only file you may write while planning is {plan}. Describe the change in the plan instead. {closing}",
                    call.tool_name
                ))
            }
        }
        Access::Shell {
            unconfined: true, ..
        } => Verdict::Deny(format!(
            "Plan mode is active: shell commands run only read-only and confined, so {what} cannot run unconfined. {closing}"
        )),
        Access::Shell { .. } => {
            let foreign = foreign_git(call, target, &canonical_working_dirs(ctx));
            plan_mode_shell(ctx, call, target, foreign.as_deref(), what, &closing)
        }
        // Nothing started while planning may leave plan mode's limits.
        Access::Agent {
            mode: Some(mode), ..
        } if super::mode::is_wider(*mode, PermissionMode::Plan) => Verdict::Deny(format!(
            "Plan mode is active: {} may not start {what} in {mode} mode while planning. {closing}",
            call.tool_name
        )),
        // Decided from the agent type's definition: its tools all only
        // read (the built-in Explore and Plan, and such custom agents).
        Access::Agent {
            read_only: true, ..
        } => Verdict::Allow(Grant::Explicit),
        // The caller still asks (or applies rules) as in any mode.
        Access::External {
            read_only: true, ..
        } => Verdict::Allow(Grant::Explicit),
        Access::External { .. } => Verdict::Deny(format!(
            "Plan mode is active: {} may change something outside the project (it is not marked read-only), so it cannot run while planning. Describe what it would do in the plan instead. {closing}",
            call.tool_name
        )),
        Access::Agent {
            subagent_type,
            read_only_types,
            ..
        } => {
            let which = if read_only_types.is_empty() {
                "agents whose tools only read".to_string()
            } else {
                format!("read-only agents ({})", read_only_types.join(", "))
            };
            Verdict::Deny(format!(
                "Plan mode is active: only {which} may be started, not `{subagent_type}`. {closing}"
            ))
        }
    }
}

/// Bash in plan mode: a read-only line runs confined; one that only
/// looks read-only where the sandbox is incomplete is the user's to
/// decide (an approved line still runs under plan mode's read-only
/// sandbox); anything else runs as a dry run in a throwaway copy where
/// the sandbox can mount one (settings `dryRun`), and is refused where it
/// cannot.
fn plan_mode_shell(
    ctx: &PermissionContext,
    call: &CallInfo,
    target: &Target,
    foreign: Option<&str>,
    what: &str,
    closing: &str,
) -> Verdict {
    match runs_as_read_only(ctx, target, foreign) {
        Ok(()) => Verdict::Allow(Grant::ReadOnly),
        // Read-only agents (Explore, Plan) report instead: they never run
        // what is not read-only, not even in a copy.
        Err(_) if ctx.dry_run && !ctx.plans_in_answer => Verdict::Allow(Grant::DryRun),
        Err(why) if judged_read_only(target, foreign).is_ok() => Verdict::Ask {
            reason: format!("Bash wants to run `{}` ({why})", command_text(call)),
            why: AskWhy::Default {
                suggestion: None,
                accept_edits_would_allow: false,
            },
        },
        Err(why) => Verdict::Deny(format!(
            "Plan mode is active: only read-only shell commands may run, and {what} is not read-only ({why}). {closing}"
        )),
    }
}

/// Whether `path` is the session's plan file: same canonical path, no
/// symlink planted under the plan file's own name, no trailing slash, and
/// (on Unix) not a file hard-linked to another name.
pub(super) fn is_plan_file(ctx: &PermissionContext, path: &Path, cwd: &Path) -> bool {
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

/// Whether the analysis judges the whole line read-only: every part of
/// it, what it can only trust while confined (`make -n`) marked so, and
/// git in it using the project's own repository (`foreign`: why not).
fn judged_read_only(target: &Target, foreign: Option<&str>) -> Result<(), String> {
    let Some(shell) = &target.shell else {
        return Err("the command was not analysed".into());
    };
    if !shell.read_only {
        return Err(shell
            .reason
            .clone()
            .unwrap_or_else(|| "the command is not read-only".into()));
    }
    if let Some(why) = foreign {
        return Err(why.to_string());
    }
    Ok(())
}

/// Whether the whole line may run unasked as read-only: the analysis says
/// so, and the sandbox that makes a misjudgment harmless is complete.
fn runs_as_read_only(
    ctx: &PermissionContext,
    target: &Target,
    foreign: Option<&str>,
) -> Result<(), String> {
    judged_read_only(target, foreign)?;
    if !ctx.can_confine {
        return Err(
            "it looks read-only, but this system's sandbox cannot fully confine it (see the \
             `read-only-confinement` notice)"
                .into(),
        );
    }
    Ok(())
}

/// How many directories a line's `cd`s may lead to before the analysis
/// stops following them.
const MAX_CD_PLACES: usize = 16;

/// Why git in this line would not use the project's own repository, if it
/// would not: it runs from the call's directory, moved by the `cd`s and
/// `pushd`s before it in the line (each perhaps not taken: it may fail, or
/// sit in a branch or subshell) and by its own `-C`. In a loop every `cd`
/// of the line may come before any git.
fn foreign_git(call: &CallInfo, target: &Target, working_dirs: &[PathBuf]) -> Option<String> {
    if target.commands.iter().all(|c| c.git_dirs.is_empty()) {
        return None;
    }
    let looping = command_text(call)
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| matches!(w, "for" | "while" | "until" | "select"));
    let mut places = vec![call.cwd.clone()];
    if looping {
        for command in &target.commands {
            if let Some(why) = moved_by(command, &mut places) {
                return Some(why);
            }
        }
    }
    for command in &target.commands {
        if !looping && let Some(why) = moved_by(command, &mut places) {
            return Some(why);
        }
        for place in &places {
            for dir in &command.git_dirs {
                // The shell expands `~`; joined as text it would name a
                // directory that does not exist.
                if dir.starts_with('~') || dir.contains("/~") {
                    return Some(format!(
                        "git runs in `{dir}`, in the home directory rather than the project"
                    ));
                }
                let why =
                    super::repository::foreign_repository(&place.join(dir.as_str()), working_dirs);
                if why.is_some() {
                    return why;
                }
            }
        }
    }
    None
}

/// Adds where `command` moves to when it is a `cd` or `pushd`. `Some`:
/// why git after it runs somewhere only known at run time.
fn moved_by(command: &SimpleCommand, places: &mut Vec<PathBuf>) -> Option<String> {
    let (program, args) = command.argv.split_first()?;
    if !matches!(program.as_str(), "cd" | "pushd") {
        return None;
    }
    let dest = args
        .iter()
        .find(|a| !matches!(a.as_str(), "-L" | "-P" | "-e" | "-@" | "--"));
    let dest = match dest {
        Some(d) if d != "-" && !d.contains(['$', '`', '*', '?', '[', '{', '~', '\\']) => d,
        _ => {
            return Some(format!(
                "git runs after `{}`, in a directory only known when the command runs",
                command.text
            ));
        }
    };
    let moved: Vec<PathBuf> = places.iter().map(|p| p.join(dest)).collect();
    places.extend(moved);
    (places.len() > MAX_CD_PLACES).then(|| "git runs after too many `cd`s to follow".into())
}

/// Bash outside plan mode: a read-only line runs unasked and confined;
/// otherwise every simple command must be covered (allowed by a rule,
/// read-only on its own, or in acceptEdits' scope) and nothing else in the
/// line may write or run code.
pub(super) fn shell_default(
    ctx: &PermissionContext,
    call: &CallInfo,
    target: &Target,
    working_dirs: &[PathBuf],
) -> Verdict {
    if ctx.mode == PermissionMode::BypassPermissions {
        return Verdict::Allow(Grant::Explicit);
    }
    let unconfined = matches!(
        call.access,
        Access::Shell {
            unconfined: true,
            ..
        }
    );
    let foreign = foreign_git(call, target, working_dirs);
    let read_only = runs_as_read_only(ctx, target, foreign.as_deref());
    if !unconfined && read_only.is_ok() {
        return Verdict::Allow(Grant::ReadOnly);
    }
    let bash_rules: Vec<&Rule> = ctx
        .rules
        .allow
        .iter()
        .map(|r| &r.rule)
        .filter(|r| r.covers_tool(&call.tool_name, &call.access))
        .collect();
    if bash_rules.iter().any(|r| r.allows_every_command()) {
        return Verdict::Allow(Grant::Explicit);
    }
    let scope = Scope {
        cwd: &call.cwd,
        working_dirs,
        secrets: &ctx.secrets,
        // After a `cd`, relative paths no longer resolve against `call.cwd`.
        changes_dir: target.commands.iter().any(|c| {
            matches!(
                c.argv.first().map(String::as_str),
                Some("cd" | "pushd" | "popd")
            )
        }),
    };
    // A line that is read-only as a whole runs unasked only confined; where
    // the sandbox is incomplete its read-only commands need a rule. (In a
    // line that writes, which runs unconfined anyway, they count as before.)
    let read_only_words_count =
        ctx.can_confine || judged_read_only(target, foreign.as_deref()).is_err();
    // `rules`: whether allow rules may cover the command (without them,
    // only acceptEdits' own commands and read-only words do).
    let covered_by = |c: &SimpleCommand, accept_edits: bool, rules: bool| {
        let by_rule = rules && bash_rules.iter().any(|r| r.matches_command(c, false));
        // The line will run unconfined, so a command that reads only while
        // confined needs a rule of its own; and a request to run unconfined
        // is never covered by the read-only verdict.
        let words = by_rule
            || (!unconfined
                && read_only_words_count
                && c.words_problem.is_none()
                && c.needs_confinement.is_none()
                && (c.git_dirs.is_empty() || foreign.is_none()))
            || (accept_edits && scope.fs_command_inside(c));
        words
            && c.other_problems.is_empty()
            && c.writes().all(|r| accept_edits && scope.redirect_inside(r))
    };
    let covered = |c: &SimpleCommand, accept_edits: bool| covered_by(c, accept_edits, true);
    let line_ok = target
        .shell
        .as_ref()
        .is_some_and(|s| s.line_problems.is_empty());
    let accept_edits = ctx.mode == PermissionMode::AcceptEdits;
    let uncovered: Vec<&SimpleCommand> = target
        .commands
        .iter()
        .filter(|c| !covered(c, accept_edits))
        .collect();
    if line_ok && !target.commands.is_empty() && uncovered.is_empty() {
        if !accept_edits || target.commands.iter().all(|c| covered(c, false)) {
            return Verdict::Allow(Grant::Explicit);
        }
        let needs_rules = target.commands.iter().any(|c| !covered_by(c, true, false));
        return edits_verdict(ctx, call, target, &scope, unconfined, needs_rules);
    }
    let accept_edits_would_allow =
        line_ok && !target.commands.is_empty() && target.commands.iter().all(|c| covered(c, true));
    let why = match (&read_only, unconfined) {
        (Ok(()), true) => " (it asks to run without the read-only sandbox)".to_string(),
        (Err(r), _) => format!(" ({r})"),
        (Ok(()), false) => String::new(),
    };
    let suggestion = match uncovered.as_slice() {
        [only]
            if !only.argv.is_empty()
                && only.other_problems.is_empty()
                && only.writes().next().is_none() =>
        {
            Some(Rule::with_specifier(
                tool_names::BASH,
                shell_join(&only.argv),
            ))
        }
        _ => None,
    };
    Verdict::Ask {
        reason: format!("Bash wants to run `{}`{why}", command_text(call)),
        why: AskWhy::Default {
            suggestion,
            accept_edits_would_allow,
        },
    }
}

/// A line acceptEdits allows for its edits (every write it names lands
/// inside the working directories): it runs confined to writing there
/// ([`Grant::Edits`]) — or, where nothing can confine its writes, as it
/// is. It asks instead when it asked to run unconfined, or when a `cp` or
/// `mv` in it could carry a link a later write follows
/// ([`Scope::moved_links`]), or, where nothing can confine its writes,
/// when a command in it is allowed only by a rule (`needs_rules`: it may
/// create a link the line's writes then follow).
fn edits_verdict(
    ctx: &PermissionContext,
    call: &CallInfo,
    target: &Target,
    scope: &Scope,
    unconfined: bool,
    needs_rules: bool,
) -> Verdict {
    let why = if unconfined {
        Some("it asks to run without the sandbox acceptEdits runs its edits in".to_string())
    } else if needs_rules && !ctx.can_confine_writes {
        Some(
            "a command allowed by a rule writes beside edits, and nothing here confines where \
             the line writes"
                .to_string(),
        )
    } else {
        target
            .commands
            .iter()
            .find_map(|c| scope.moved_links(c, ctx.can_confine_writes))
    };
    match why {
        Some(why) => Verdict::Ask {
            reason: format!("Bash wants to run `{}` ({why})", command_text(call)),
            why: AskWhy::Default {
                suggestion: None,
                accept_edits_would_allow: false,
            },
        },
        None if ctx.can_confine_writes => Verdict::Allow(Grant::Edits),
        None => Verdict::Allow(Grant::Explicit),
    }
}

fn command_text(call: &CallInfo) -> &str {
    match &call.access {
        Access::Shell { command, .. } => command.trim(),
        _ => "",
    }
}

/// What the mode allows once no deny rule, ask rule, plan-mode refusal or
/// secret store has decided: Bash by its analysis, then an allow rule
/// (`allowed_by_rule`), then each kind of access by the mode.
pub(super) fn by_access(
    ctx: &PermissionContext,
    call: &CallInfo,
    target: &Target,
    what: String,
    allowed_by_rule: impl Fn() -> bool,
) -> Verdict {
    let working_dirs = canonical_working_dirs(ctx);
    match &call.access {
        Access::Shell { .. } => shell_default(ctx, call, target, &working_dirs),
        _ if allowed_by_rule() => Verdict::Allow(Grant::Explicit),
        Access::Read { .. } | Access::Session | Access::Agent { .. } => {
            Verdict::Allow(Grant::Explicit)
        }
        Access::Write { .. } if ctx.mode == PermissionMode::BypassPermissions => {
            Verdict::Allow(Grant::Explicit)
        }
        Access::Write { .. } => {
            let inside = write_inside_working_dirs(target, &working_dirs, &ctx.secrets);
            if ctx.mode == PermissionMode::AcceptEdits && inside {
                return Verdict::Allow(Grant::Explicit);
            }
            Verdict::Ask {
                reason: format!("{} wants to change {what}", call.tool_name),
                why: AskWhy::Default {
                    suggestion: edit_suggestion(target, &working_dirs),
                    accept_edits_would_allow: inside,
                },
            }
        }
        Access::External { .. } if ctx.mode == PermissionMode::BypassPermissions => {
            Verdict::Allow(Grant::Explicit)
        }
        Access::External { domain, .. } => Verdict::Ask {
            reason: match domain {
                Some(domain) => format!("{} wants to fetch from {domain}", call.tool_name),
                None => format!("{} needs your permission", call.tool_name),
            },
            why: AskWhy::Default {
                suggestion: Some(match domain {
                    Some(domain) => Rule {
                        tool: call.tool_name.clone(),
                        specifier: Some(format!("domain:{domain}")),
                    },
                    None => Rule::tool(call.tool_name.clone()),
                }),
                accept_edits_would_allow: false,
            },
        },
        _ if call.read_only || ctx.mode == PermissionMode::BypassPermissions => {
            Verdict::Allow(Grant::Explicit)
        }
        _ => Verdict::Ask {
            reason: format!("{} needs your permission", call.tool_name),
            why: AskWhy::Default {
                suggestion: Some(Rule::tool(call.tool_name.clone())),
                accept_edits_would_allow: false,
            },
        },
    }
}

pub(super) fn canonical_working_dirs(ctx: &PermissionContext) -> Vec<PathBuf> {
    ctx.working_dirs
        .iter()
        .filter_map(|d| paths::canonicalize(d, d).ok())
        .collect()
}

/// Whether a write lands inside the working directories and outside the
/// protected paths and secret stores: acceptEdits never edits those
/// without asking.
pub(super) fn write_inside_working_dirs(
    target: &Target,
    working_dirs: &[PathBuf],
    secrets: &SecretStores,
) -> bool {
    target.paths.iter().all(|(_, canonical)| {
        canonical
            .as_ref()
            .is_some_and(|c| protected::writable_inside(c, working_dirs, secrets))
    }) && !target.paths.is_empty()
}

/// `Edit(/dir/**)` for the written file's directory: relative to the first
/// working directory when inside it, else absolute (`//dir/**`).
pub(super) fn edit_suggestion(target: &Target, working_dirs: &[PathBuf]) -> Option<Rule> {
    let (lexical, canonical) = target.paths.first()?;
    let file = canonical.as_ref().unwrap_or(lexical);
    let dir = file.parent()?;
    let spec = match working_dirs.first().and_then(|w| dir.strip_prefix(w).ok()) {
        Some(rel) if rel.as_os_str().is_empty() => "/**".to_string(),
        Some(rel) => format!("/{}/**", globset::escape(&rel.to_string_lossy())),
        None => format!("/{}/**", globset::escape(&dir.to_string_lossy())),
    };
    Some(Rule::with_specifier(tool_names::EDIT, spec))
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
