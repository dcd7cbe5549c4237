//! What each permission mode allows once no deny or ask rule has decided:
//! plan-mode enforcement (reads, read-only commands, read-only agents and
//! the plan file only), Bash outside plan mode (every simple command
//! covered), and the acceptEdits allowances inside the working directories.

use std::path::{Path, PathBuf};

use catui_protocol::PermissionMode;

use super::shell::{ShellAnalysis, SimpleCommand};
use super::{
    Access, AskWhy, CallInfo, PermissionContext, READ_ONLY_AGENT_TYPES, Rule, Target, Verdict,
    paths,
};

/// Plan mode (G§8.4): reads, read-only commands, read-only agents and the
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
    let closing = format!(
        "Keep exploring with read-only tools, write your plan to {plan}, and call ExitPlanMode when it is ready for the user's approval."
    );
    match &call.access {
        // Interaction tools (ExitPlanMode, AskUserQuestion) are not refused;
        // the caller still asks.
        Access::Read { .. } | Access::Session | Access::Interaction => Verdict::Allow,
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

/// Bash outside plan mode: read-only lines run; otherwise every simple
/// command must be allowed by a rule, be read-only on its own, or (in
/// acceptEdits) be a file-system command inside the working directories.
pub(super) fn shell_default(
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
    // After a `cd`, relative paths no longer resolve against `call.cwd`.
    let changes_dir = target.commands.iter().any(|c| {
        matches!(
            c.argv.first().map(String::as_str),
            Some("cd" | "pushd" | "popd")
        )
    });
    let accept_fs = ctx.mode == PermissionMode::AcceptEdits && !changes_dir;
    let uncovered: Vec<&SimpleCommand> = target
        .commands
        .iter()
        .filter(|c| {
            !(allowed_by_rule(c)
                || analyze(&c.text).read_only
                || (accept_fs && fs_command_inside(c, &call.cwd, working_dirs)))
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

pub(super) fn canonical_working_dirs(ctx: &PermissionContext) -> Vec<PathBuf> {
    ctx.working_dirs
        .iter()
        .filter_map(|d| paths::canonicalize(d, d).ok())
        .collect()
}

/// Whether a write lands inside the working directories and outside the
/// directories that steer the agent or the repository (`.catui`, `.git`):
/// acceptEdits never edits those without asking.
pub(super) fn write_inside_working_dirs(target: &Target, working_dirs: &[PathBuf]) -> bool {
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
pub(super) fn edit_suggestion(target: &Target, working_dirs: &[PathBuf]) -> Option<Rule> {
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
