//! The status line command (setting `statusLine: {"command": "…"}`): a
//! command of the user's that the terminal UI runs to draw its status
//! line. It runs as `sh -c COMMAND` in the session's working directory
//! with the session as JSON on stdin (the interface builds it), the
//! environment of a child someone allowed (the allow-list plus the
//! settings' `env` and `passEnv`, as hooks get: never catui's API key),
//! and a time limit; its first line of output, through the terminal
//! sanitiser, is what shows. When to run it (at most every 300 ms, never
//! two at once) is the interface's business (crates/tui).
//!
//! From a project's own settings it waits for trust like any command
//! (`settings::classify`).

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use catui_protocol::terminal::sanitize;
use catui_sandbox::child_env::{EnvPolicy, Tier};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

/// How long one run may take before it is killed.
pub const TIMEOUT: Duration = Duration::from_secs(1);
/// Bytes of output read at most (one line is shown).
const MAX_OUTPUT: u64 = 16 * 1024;
/// Characters of the line kept at most.
const MAX_LINE_CHARS: usize = 400;

/// Why a run gave no line.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum StatusLineError {
    #[error("could not start it: {0}")]
    Start(String),
    #[error("it did not finish within {} ms and was stopped", .0.as_millis())]
    TimedOut(Duration),
    #[error("it exited with {status}{}", stderr_note(.stderr))]
    Failed { status: String, stderr: String },
}

fn stderr_note(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!(": {stderr}")
    }
}

/// The command and what it runs with.
#[derive(Clone, PartialEq)]
pub struct StatusLineCommand {
    pub command: String,
    pub cwd: PathBuf,
    env: EnvPolicy,
}

/// Only the command: the settings' `env` may hold tokens.
impl std::fmt::Debug for StatusLineCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StatusLineCommand")
            .field("command", &self.command)
            .field("cwd", &self.cwd)
            .finish_non_exhaustive()
    }
}

impl StatusLineCommand {
    pub fn new(command: impl Into<String>, cwd: impl Into<PathBuf>, env: EnvPolicy) -> Self {
        StatusLineCommand {
            command: command.into(),
            cwd: cwd.into(),
            env,
        }
    }

    /// Runs the command once with `input` on stdin, within `timeout`: its
    /// first line, sanitised (`None` when it printed nothing), or why not.
    pub async fn run(
        &self,
        input: &str,
        timeout: Duration,
    ) -> Result<Option<String>, StatusLineError> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(&self.command)
            .current_dir(&self.cwd)
            .env_clear()
            .envs(self.env.build(Tier::Approved))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| StatusLineError::Start(e.to_string()))?;
        let mut stdin = child.stdin.take();
        let mut stdout = child.stdout.take();
        let mut stderr = child.stderr.take();
        let input = input.as_bytes().to_vec();
        let work = async {
            if let Some(mut pipe) = stdin.take() {
                // A command that does not read its input is fine.
                let _ = pipe.write_all(&input).await;
            }
            let (out, err) = tokio::join!(read_capped(stdout.take()), read_capped(stderr.take()));
            let status = child.wait().await;
            (out, err, status)
        };
        let (out, err, status) = tokio::time::timeout(timeout, work)
            .await
            .map_err(|_| StatusLineError::TimedOut(timeout))?;
        let status = status.map_err(|e| StatusLineError::Start(e.to_string()))?;
        if !status.success() {
            let status = match status.code() {
                Some(code) => format!("status {code}"),
                None => "a signal".to_string(),
            };
            return Err(StatusLineError::Failed {
                status,
                stderr: first_line(&err).unwrap_or_default(),
            });
        }
        Ok(first_line(&out))
    }
}

async fn read_capped<R: tokio::io::AsyncRead + Unpin>(pipe: Option<R>) -> String {
    let mut buf = Vec::new();
    if let Some(pipe) = pipe {
        let _ = pipe.take(MAX_OUTPUT).read_to_end(&mut buf).await;
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// The first line of `text` as it may be shown: escape sequences and
/// controls removed, tabs as spaces, cut to a sane length; `None` when
/// there is nothing to show.
pub fn first_line(text: &str) -> Option<String> {
    let line = text.lines().next()?;
    let clean = sanitize(line).replace('\t', " ");
    let clean: String = clean.trim_end().chars().take(MAX_LINE_CHARS).collect();
    (!clean.trim().is_empty()).then_some(clean)
}

#[cfg(test)]
#[path = "status_line_tests.rs"]
mod tests;
