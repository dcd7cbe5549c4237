//! Running one command hook: `sh -c COMMAND` in the project's root with
//! the event's JSON on stdin, an environment built from the allow-list
//! (`catui_sandbox::child_env`: never catui's API key or another
//! credential of catui's environment the user did not pass) with
//! `CATUI_PROJECT_DIR` (and `CLAUDE_PROJECT_DIR`, for scripts written for
//! Claude Code), and a timeout.
//!
//! What its exit says, in the hooks' common JSON shape:
//! - 0: its stdout, when that is a JSON object; otherwise, for
//!   `UserPromptSubmit` and `SessionStart`, its stdout is context for the
//!   model; for other events it is ignored.
//! - 2: a block, with its stderr as the reason (a deny for `PreToolUse`).
//! - anything else: an error that is reported and otherwise ignored.
//!
//! Not starting, or not finishing within the timeout (the process is
//! killed), is an error the caller fails closed on where it guards.

use super::HookFailure;
use std::path::Path;
use std::process::Stdio;

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::process::Command;

use super::config::CommandHook;
use catui_sandbox::child_env::{EnvPolicy, Tier};

/// At most this much of a hook's stdout or stderr is kept.
const MAX_OUTPUT: usize = 64 * 1024;

/// What one command hook answered.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandAnswer {
    /// In the hooks' common JSON shape (`{}`: nothing to say).
    pub output: Value,
    /// A problem to report (an exit code other than 0 and 2, unreadable
    /// JSON); the hook counts as having said nothing.
    pub problem: Option<String>,
}

/// Runs `hook` for one event. `Err`: it could not run or timed out.
pub async fn run(
    hook: &CommandHook,
    input: &Value,
    project_root: &Path,
    env: &EnvPolicy,
) -> Result<CommandAnswer, HookFailure> {
    run_command(hook, input, project_root, env)
        .await
        .map_err(HookFailure)
}

async fn run_command(
    hook: &CommandHook,
    input: &Value,
    project_root: &Path,
    env: &EnvPolicy,
) -> Result<CommandAnswer, String> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(&hook.command)
        .current_dir(project_root)
        .env_clear()
        .envs(env.build(Tier::Approved))
        .env("CATUI_PROJECT_DIR", project_root)
        .env("CLAUDE_PROJECT_DIR", project_root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("could not start `{}`: {e}", hook.command))?;
    let stdin = child.stdin.take();
    let body = serde_json::to_vec(input).unwrap_or_default();
    let run = async move {
        if let Some(mut stdin) = stdin {
            // A hook that does not read its input is fine.
            let _ = stdin.write_all(&body).await;
            drop(stdin);
        }
        child.wait_with_output().await
    };
    let output = match tokio::time::timeout(hook.timeout, run).await {
        Ok(Ok(output)) => output,
        Ok(Err(e)) => return Err(format!("`{}` failed: {e}", hook.command)),
        Err(_) => {
            return Err(format!(
                "`{}` did not finish within {}s and was stopped",
                hook.command,
                hook.timeout.as_secs_f64()
            ));
        }
    };
    let stdout = text(&output.stdout);
    let stderr = text(&output.stderr);
    Ok(match output.status.code() {
        Some(0) => answer_of_success(hook.event, &hook.command, stdout.trim()),
        Some(2) => {
            let reason = if stderr.trim().is_empty() {
                format!("`{}` exited with 2", hook.command)
            } else {
                stderr.trim().to_string()
            };
            CommandAnswer {
                output: block(hook.event, &reason),
                problem: None,
            }
        }
        code => CommandAnswer {
            output: json!({}),
            problem: Some(format!(
                "`{}` {}{}",
                hook.command,
                match code {
                    Some(c) => format!("exited with {c}"),
                    None => "was killed by a signal".into(),
                },
                first_line(&stderr)
                    .map(|l| format!(": {l}"))
                    .unwrap_or_default()
            )),
        },
    })
}

fn answer_of_success(event: &str, command: &str, stdout: &str) -> CommandAnswer {
    if stdout.starts_with('{') {
        return match serde_json::from_str::<Value>(stdout) {
            Ok(v @ Value::Object(_)) => CommandAnswer {
                output: v,
                problem: None,
            },
            _ => CommandAnswer {
                output: json!({}),
                problem: Some(format!("`{command}` printed JSON that could not be read")),
            },
        };
    }
    let output = match event {
        "UserPromptSubmit" | "SessionStart" if !stdout.is_empty() => {
            json!({"hookSpecificOutput": {"hookEventName": event, "additionalContext": stdout}})
        }
        _ => json!({}),
    };
    CommandAnswer {
        output,
        problem: None,
    }
}

/// Exit code 2's meaning for `event`.
fn block(event: &str, reason: &str) -> Value {
    if event == "PreToolUse" {
        json!({"hookSpecificOutput": {"hookEventName": event,
            "permissionDecision": "deny", "permissionDecisionReason": reason}})
    } else {
        json!({"decision": "block", "reason": reason})
    }
}

fn text(bytes: &[u8]) -> String {
    let bytes = &bytes[..bytes.len().min(MAX_OUTPUT)];
    String::from_utf8_lossy(bytes).into_owned()
}

fn first_line(s: &str) -> Option<&str> {
    s.lines().map(str::trim).find(|l| !l.is_empty())
}
