//! BashOutput, BashInput and KillShell: the model's handles on the
//! commands Bash started in the background (see
//! [`bash::background`](super::bash::background)).

use catui_protocol::tool_names;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::bash::{BackgroundShells, MAX_OUTPUT_CHARS, OutputBuffer, Shell};
use super::{ToolContext, ToolError, ToolOutput, TypedTool};
use crate::permissions::Access;

pub struct BashOutputTool;
pub struct KillShellTool;
pub struct BashInputTool;

use catui_protocol::tool_names::BASH_INPUT;

/// After typing, how long BashInput waits at most for the command to
/// answer before returning what it printed so far.
const ANSWER_WAIT: Duration = Duration::from_secs(3);
/// The command has answered once its output has been quiet this long.
const ANSWER_QUIET: Duration = Duration::from_millis(300);
/// How often the output is looked at while waiting.
const ANSWER_POLL: Duration = Duration::from_millis(50);

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BashOutputInput {
    /// The id Bash returned for the background command (`bash_1`, …).
    pub id: String,
    /// A regular expression: only new lines that match it are returned
    /// (the others are skipped for good).
    #[serde(default)]
    pub filter: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BashInputInput {
    /// The id Bash returned for the background command (`bash_1`, …).
    pub id: String,
    /// The keys to type: `\n` is Enter, `\u001b` is Escape, `\u0003` is Ctrl+C.
    pub input: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KillShellInput {
    /// The id of the background command to stop.
    pub id: String,
}

/// The session's background commands, or the error that says there are none.
fn shells(ctx: &ToolContext) -> Result<&Arc<BackgroundShells>, ToolError> {
    ctx.values
        .get::<Arc<BackgroundShells>>()
        .ok_or_else(|| ToolError::failed("This session has no background commands."))
}

/// The background command `id`, or an error naming the ones there are.
fn find(ctx: &ToolContext, id: &str) -> Result<Arc<Shell>, ToolError> {
    let shells = shells(ctx)?;
    if let Some(shell) = shells.get(id.trim()) {
        return Ok(shell);
    }
    let known: Vec<String> = shells.list().iter().map(|s| s.id.clone()).collect();
    Err(ToolError::invalid(if known.is_empty() {
        format!("There is no background command {id}: none has been started.")
    } else {
        format!(
            "There is no background command {id}. The ones started are: {}.",
            known.join(", ")
        )
    }))
}

#[async_trait]
impl TypedTool for BashOutputTool {
    type Input = BashOutputInput;

    fn name(&self) -> &'static str {
        tool_names::BASH_OUTPUT
    }

    fn description(&self) -> String {
        "Returns what a background command (Bash with `run_in_background`) printed since the \
         last BashOutput call for it, and whether it is still running or its exit code. With \
         `filter`, only new lines matching that regular expression are returned."
            .into()
    }

    fn is_read_only(&self, _input: &BashOutputInput) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &BashOutputInput) -> bool {
        true
    }

    async fn validate_input(
        &self,
        input: &BashOutputInput,
        _ctx: &ToolContext,
    ) -> Result<(), ToolError> {
        if let Some(filter) = &input.filter {
            regex::Regex::new(filter).map_err(|e| {
                ToolError::invalid(format!("`filter` is not a valid regular expression: {e}"))
            })?;
        }
        Ok(())
    }

    fn access(&self, _input: &BashOutputInput, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn summary(&self, input: &BashOutputInput) -> String {
        format!("BashOutput({})", input.id)
    }

    async fn call(
        &self,
        input: BashOutputInput,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let shell = find(ctx, &input.id)?;
        new_output(&shell, input.filter.as_deref())
    }
}

/// What `shell` printed since the last look (only lines matching `filter`
/// when given), with its status: BashOutput's answer, and BashInput's.
fn new_output(shell: &Shell, filter: Option<&str>) -> Result<ToolOutput, ToolError> {
    let new = shell.read_new().map_err(|e| {
        ToolError::failed(format!(
            "Could not read the output of {} ({}): {e}",
            shell.id,
            shell.output_path.display()
        ))
    })?;
    let mut text = new.text;
    if let Some(filter) = filter {
        let re = regex::Regex::new(filter)
            .map_err(|e| ToolError::invalid(format!("Invalid `filter`: {e}")))?;
        let kept: Vec<&str> = text.lines().filter(|l| re.is_match(l)).collect();
        text = kept.join("\n");
    }
    let mut shown = OutputBuffer::new();
    shown.push(text.as_bytes());
    let body = shown.render();
    let body = body.trim_end_matches(['\n', '\r']);
    let mut parts = vec![format!(
        "{}: {} after {}s.",
        shell.id,
        new.status.describe(),
        shell.elapsed().as_secs()
    )];
    if body.is_empty() {
        parts.push(if filter.is_some() {
            "(no new output matching the filter)".into()
        } else {
            "(no new output)".into()
        });
    } else {
        parts.push(body.to_string());
    }
    if body.chars().count() >= MAX_OUTPUT_CHARS {
        parts.push(format!(
            "[The whole output is in {}.]",
            shell.output_path.display()
        ));
    }
    if new.lost > 0 {
        parts.push(format!(
            "[{} bytes past the output file's limit were not kept.]",
            new.lost
        ));
    }
    let display = format!("{} · {}", shell.id, new.status.describe());
    Ok(ToolOutput::text(parts.join("\n")).with_display(display))
}

#[async_trait]
impl TypedTool for BashInputTool {
    type Input = BashInputInput;

    fn name(&self) -> &'static str {
        BASH_INPUT
    }

    fn description(&self) -> String {
        "Types into a background command (Bash with `run_in_background`), which runs on a \
         terminal of its own: answer a prompt, drive a REPL, or quit an editor (`:q!\\n` in \
         vi). `\\n` is Enter. Returns what the command printed since the last look, after it \
         has had a moment to answer (up to 3 seconds); use BashOutput later for the rest."
            .into()
    }

    fn is_read_only(&self, _input: &BashInputInput) -> bool {
        false
    }

    fn is_concurrency_safe(&self, _input: &BashInputInput) -> bool {
        false
    }

    async fn validate_input(
        &self,
        input: &BashInputInput,
        _ctx: &ToolContext,
    ) -> Result<(), ToolError> {
        if input.input.is_empty() {
            return Err(ToolError::invalid(
                "`input` is empty: give the keys to type (`\\n` for Enter).",
            ));
        }
        Ok(())
    }

    fn access(&self, _input: &BashInputInput, _ctx: &ToolContext) -> Access {
        // The command itself was allowed when it started; what it does
        // with its input is its own.
        Access::Session
    }

    fn summary(&self, input: &BashInputInput) -> String {
        let shown: String = input.input.chars().take(60).collect();
        format!("{BASH_INPUT}({}, {shown:?})", input.id)
    }

    async fn call(
        &self,
        input: BashInputInput,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let shell = find(ctx, &input.id)?;
        let before = shell.bytes_written();
        shell
            .send_input(&input.input)
            .map_err(|e| ToolError::failed(format!("Could not type into {}: {e}.", shell.id)))?;
        wait_for_answer(&shell, before, ctx).await;
        new_output(&shell, None)
    }
}

/// Waits until the command printed something and then went quiet, ended,
/// or [`ANSWER_WAIT`] passed (or the call was interrupted).
async fn wait_for_answer(shell: &Shell, before: u64, ctx: &ToolContext) {
    let start = Instant::now();
    let mut last = before;
    let mut last_change = start;
    while start.elapsed() < ANSWER_WAIT && shell.status().is_running() {
        tokio::select! {
            _ = tokio::time::sleep(ANSWER_POLL) => {}
            _ = ctx.cancel.cancelled() => return,
        }
        let now = shell.bytes_written();
        if now != last {
            last = now;
            last_change = Instant::now();
        } else if now > before && last_change.elapsed() >= ANSWER_QUIET {
            return;
        }
    }
}

#[async_trait]
impl TypedTool for KillShellTool {
    type Input = KillShellInput;

    fn name(&self) -> &'static str {
        tool_names::KILL_SHELL
    }

    fn description(&self) -> String {
        "Stops a background command (Bash with `run_in_background`) and every process it \
         started."
            .into()
    }

    fn is_read_only(&self, _input: &KillShellInput) -> bool {
        false
    }

    fn is_concurrency_safe(&self, _input: &KillShellInput) -> bool {
        true
    }

    fn access(&self, _input: &KillShellInput, _ctx: &ToolContext) -> Access {
        Access::Session
    }

    fn summary(&self, input: &KillShellInput) -> String {
        format!("KillShell({})", input.id)
    }

    async fn call(
        &self,
        input: KillShellInput,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let shell = find(ctx, &input.id)?;
        if shell.kill() {
            // The model asked: no reminder that it ended.
            shell.mark_reported();
            return Ok(
                ToolOutput::text(format!("Stopped {} ({}).", shell.id, shell.command))
                    .with_display(format!("Stopped {}", shell.id)),
            );
        }
        Err(ToolError::failed(format!(
            "{} is not running: it already ended ({}).",
            shell.id,
            shell.status().describe()
        )))
    }
}
