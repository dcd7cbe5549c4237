//! A plan's verification, run by catui: the exact commands its
//! verification section names ([`verification_commands`]) — what the user
//! approves along with the plan — and running them under the session's
//! sandbox and permission mode ([`run_verification`]).
//!
//! A command is a line of a fenced block in the section, or an inline code
//! span shaped like a command (`cargo test`, `pytest`, `./check.sh`; not a
//! file name such as `cli.py` or a flag). The approval dialog and the
//! `ExitPlanMode` request list them (`verification`), so what runs is what
//! the user read.

use catui_protocol::contract::{PlanVerification, VerificationRun};
use catui_protocol::tool_names;

use crate::permissions::{self, Access, Decision, Grant};
use crate::tools::{ToolContext, TypedTool};

/// Lines of output kept per command.
const TAIL_LINES: usize = 20;
/// Characters of output kept per command.
const TAIL_CHARS: usize = 2_000;
/// How long one verification command may run.
pub const COMMAND_TIMEOUT_MS: u64 = 600_000;
/// At most this many commands are taken from one plan.
const MAX_COMMANDS: usize = 12;

/// The commands of `plan`'s verification section, in order, each once.
pub fn verification_commands(plan: &str) -> Vec<String> {
    let Some(section) = super::state::plan_session::verification_section(plan) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    let mut push = |command: String| {
        let command = command.trim().to_string();
        if !command.is_empty() && !out.contains(&command) && out.len() < MAX_COMMANDS {
            out.push(command);
        }
    };
    let mut fence: Option<bool> = None;
    let mut continued = String::new();
    for line in section.lines() {
        let bare = line.trim();
        if let Some(info) = bare.strip_prefix("```") {
            fence = match fence {
                // A fence of shell, or of nothing named, holds commands.
                None => Some(matches!(
                    info.trim(),
                    "" | "sh" | "bash" | "shell" | "console" | "zsh"
                )),
                Some(_) => None,
            };
            continue;
        }
        match fence {
            Some(true) => {
                let text = bare.strip_prefix("$ ").unwrap_or(bare);
                if text.is_empty() || text.starts_with('#') {
                    continue;
                }
                if let Some(head) = text.strip_suffix('\\') {
                    continued.push_str(head.trim_end());
                    continued.push(' ');
                    continue;
                }
                continued.push_str(text);
                push(std::mem::take(&mut continued));
            }
            Some(false) => {}
            None => {
                for span in code_spans(bare) {
                    if looks_like_command(span) {
                        push(span.to_string());
                    }
                }
            }
        }
    }
    out
}

/// The inline code spans of a line (single backticks).
fn code_spans(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('`') else { break };
        out.push(&after[..end]);
        rest = &after[end + 1..];
    }
    out
}

/// Whether an inline code span reads as a command: its first word is a
/// program name (no file extension, no folder, not a flag) or a script
/// run from here (`./x`).
fn looks_like_command(span: &str) -> bool {
    let span = span.trim();
    let Some(first) = span.split_whitespace().next() else {
        return false;
    };
    if span.len() > 300 || first.starts_with('-') {
        return false;
    }
    if first.starts_with("./") {
        return true;
    }
    first
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "_+-".contains(c))
        && first.chars().any(|c| c.is_ascii_alphabetic())
}

/// Runs `commands` one after the other under the session's sandbox and
/// permission mode: a deny rule (or plan mode) still refuses one; anything
/// else runs, approved with the plan. Stops early when `ctx.cancel` fires.
pub async fn run_verification(
    slug: &str,
    commands: &[String],
    ctx: &ToolContext,
) -> PlanVerification {
    let mut runs = Vec::new();
    for command in commands {
        if ctx.cancel.is_cancelled() {
            runs.push(VerificationRun {
                command: command.clone(),
                exit_code: -1,
                output_tail: "not run: interrupted by the user".into(),
            });
            continue;
        }
        runs.push(run_one(command, ctx).await);
    }
    PlanVerification {
        slug: slug.to_string(),
        passed: !runs.is_empty() && runs.iter().all(|r| r.exit_code == 0),
        commands: runs,
    }
}

async fn run_one(command: &str, ctx: &ToolContext) -> VerificationRun {
    let refused = |why: String| VerificationRun {
        command: command.to_string(),
        exit_code: -1,
        output_tail: format!("not run: {why}"),
    };
    // The user approved this string with the plan: what would ask runs;
    // what the rules or the mode refuse stays refused.
    let decision = {
        let info = permissions::CallInfo {
            tool_name: tool_names::BASH.into(),
            access: Access::Shell {
                command: command.to_string(),
                unconfined: false,
            },
            read_only: false,
            cwd: ctx.cwd(),
        };
        permissions::decide(&ctx.permission_context(), &info)
    };
    if let Decision::Deny { message } = decision {
        return refused(message);
    }
    let mut ctx = ctx.clone();
    ctx.grant = Grant::Explicit;
    let input = crate::tools::bash::BashInput {
        command: command.to_string(),
        timeout: Some(COMMAND_TIMEOUT_MS),
        description: Some("catui runs the approved plan's verification".into()),
        unconfined: None,
        run_in_background: None,
        keep_running: None,
    };
    match crate::tools::bash::BashTool::default()
        .call(input, &ctx)
        .await
    {
        Ok(out) => {
            let (exit_code, text) = exit_code_of(&out.content, out.failed, out.is_error);
            VerificationRun {
                command: command.to_string(),
                exit_code,
                output_tail: tail(&text),
            }
        }
        Err(e) => refused(e.to_string()),
    }
}

/// The exit code Bash's answer reports (its last line says when it is not
/// 0), and the output without that line.
fn exit_code_of(content: &str, failed: bool, is_error: bool) -> (i32, String) {
    if !failed && !is_error {
        return (0, content.to_string());
    }
    let (body, last) = match content.rsplit_once('\n') {
        Some((body, last)) => (body, last),
        None => ("", content),
    };
    match last
        .strip_prefix("Exit code: ")
        .and_then(|n| n.trim().parse().ok())
    {
        Some(code) => (code, body.to_string()),
        None => (-1, content.to_string()),
    }
}

/// The last lines of `text`, at most [`TAIL_LINES`] and [`TAIL_CHARS`].
fn tail(text: &str) -> String {
    // Command output is shown in the terminal, the plan file and the
    // transcript: no escape sequence of it survives.
    let text = catui_protocol::terminal::sanitize(text);
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let start = lines.len().saturating_sub(TAIL_LINES);
    let mut out = lines[start..].join("\n");
    if out.len() > TAIL_CHARS {
        let mut cut = out.len() - TAIL_CHARS;
        while !out.is_char_boundary(cut) {
            cut += 1;
        }
        out = out[cut..].to_string();
    }
    out
}

/// The verification's lines of the plan file's progress section.
pub fn progress_lines(run: &PlanVerification, at: &str) -> String {
    let mut out = format!(
        "Verification ({at}): {}\n",
        if run.passed { "passed" } else { "failed" }
    );
    for c in &run.commands {
        out.push_str(&format!(
            "- [{}] `{}` — exit {}\n",
            if c.exit_code == 0 { "x" } else { " " },
            c.command,
            c.exit_code
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_come_from_fences_and_command_like_spans() {
        let plan = "# P\n1. Change `cli.py`\n\n## Verification\n- Run `python -m pytest tests/` and `./check.sh`\n- `cli.py --json` prints JSON; see `src/report.py`\n- `--json` works\n```sh\n$ make lint\n# a comment\ncargo test \\\n  --all\n```\n```python\nprint(1)\n```\n- `pytest` again\n\n## Risks\n`rm -rf /`\n";
        assert_eq!(
            verification_commands(plan),
            [
                "python -m pytest tests/",
                "./check.sh",
                "make lint",
                "cargo test --all",
                "pytest"
            ]
        );
        assert!(verification_commands("# P\n1. a\n").is_empty());
    }

    #[test]
    fn the_exit_code_is_read_from_bash_s_answer() {
        assert_eq!(exit_code_of("ok", false, false), (0, "ok".into()));
        assert_eq!(
            exit_code_of("FAILED test_x\nExit code: 3", true, false),
            (3, "FAILED test_x".into())
        );
        assert_eq!(exit_code_of("Command timed out", true, true).0, -1);
        let long: String = (0..50).map(|i| format!("line {i}\n")).collect();
        assert_eq!(tail(&long).lines().count(), TAIL_LINES);
        assert!(tail(&long).ends_with("line 49"));
    }
}
