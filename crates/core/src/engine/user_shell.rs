//! `!command`: a shell command the user types into a front end's input and
//! runs themselves, without a model turn.
//!
//! It runs through the same Bash tool the model uses — the session's
//! working directory, its sandbox, the filtered child environment, the
//! time limit and the output cap — and through the same permission
//! decision, with one difference: where the model would be asked, the user
//! is not (they typed the command). A deny rule still refuses it, and in
//! plan mode only what the model could run there without asking runs (a
//! read-only command, or one a rule allows; never a dry run, whose
//! changes are the plan's evidence). The output is shown to the user and
//! kept for the model: it opens the next input's user message, so the
//! model reads what the user saw, and the transcript keeps it there.

use std::time::Instant;

use catui_protocol::stream_json::ResultSubtype;
use catui_protocol::{ContentBlock, PermissionMode, Usage, tool_names};

use super::{Engine, EngineEvent, TurnOutcome};
use crate::permissions::{self, Decision, Grant};
use crate::tools::TypedTool;
use crate::tools::bash::{Asking, BashInput, BashTool};

/// What the user's command may run as, or why it may not run.
fn grant_for(decision: Decision, planning: bool) -> Result<Grant, String> {
    match decision {
        Decision::Deny { message } => Err(message),
        Decision::Allow(Grant::DryRun) | Decision::Ask { .. } | Decision::Classify { .. }
            if planning =>
        {
            Err(
                "Plan mode runs only commands that read (the same rule as for the model): \
                 this one may change something. Leave plan mode (Shift+Tab) to run it."
                    .into(),
            )
        }
        Decision::Allow(grant) => Ok(grant),
        // The user typed it: that is the answer a prompt would have asked for.
        Decision::Ask { .. } | Decision::Classify { .. } => Ok(Grant::Explicit),
    }
}

/// The model-facing record of one command the user ran: what they typed
/// and what it printed, marked as theirs.
pub(super) fn context_text(command: &str, output: &str) -> String {
    catui_protocol::attachment::wrap_system_reminder(&format!(
        "The user ran this shell command themselves (with `!` in the input) in the session's \
         working directory; it was not a tool call of yours.\n<command>{command}</command>\n\
         <output>\n{output}\n</output>"
    ))
}

impl Engine {
    /// Runs `command` as the user's own shell command (see the module
    /// doc). Ends with exactly one [`EngineEvent::Result`], also returned,
    /// whose text is what the user sees: the command and its output.
    pub async fn run_user_shell(&mut self, command: &str) -> TurnOutcome {
        let started = Instant::now();
        let cancel = self.new_turn_token();
        self.refresh();
        let outcome = match self.user_shell(command, cancel).await {
            Ok((shown, is_error)) => {
                let subtype = if is_error {
                    ResultSubtype::ErrorDuringExecution
                } else {
                    ResultSubtype::Success
                };
                self.outcome(subtype, shown, 0, Usage::default(), started)
            }
            Err(why) => self.outcome(
                ResultSubtype::ErrorDuringExecution,
                format!("! {command}\n{why}"),
                0,
                Usage::default(),
                started,
            ),
        };
        self.shared.emit(EngineEvent::Result(outcome.clone()));
        outcome
    }

    /// Decides and runs the command; on success returns the text to show
    /// (already through the terminal sanitiser) and whether it failed.
    async fn user_shell(
        &mut self,
        command: &str,
        cancel: tokio_util::sync::CancellationToken,
    ) -> Result<(String, bool), String> {
        let command = command.trim();
        if command.is_empty() {
            return Err("Nothing to run: type a shell command after `!`.".into());
        }
        let tool = BashTool::new(Asking::User);
        let input = BashInput {
            command: command.to_string(),
            timeout: None,
            description: None,
            unconfined: None,
            run_in_background: None,
            keep_running: None,
        };
        let mut ctx = self.tool_ctx.clone();
        ctx.cancel = cancel;
        tool.validate_input(&input, &ctx)
            .await
            .map_err(|e| e.user_text())?;
        let decision = {
            let perms = self.shared.permissions();
            let info = permissions::CallInfo {
                tool_name: tool_names::BASH.to_string(),
                access: tool.access(&input, &ctx),
                read_only: tool.is_read_only(&input),
                cwd: ctx.cwd(),
            };
            let planning = perms.mode == PermissionMode::Plan;
            grant_for(permissions::decide(&perms, &info), planning)?
        };
        ctx.grant = decision;
        let output = tool.call(input, &ctx).await.map_err(|e| e.user_text())?;
        self.pending_user_context
            .push(ContentBlock::text(context_text(command, &output.content)));
        let shown = catui_protocol::terminal::sanitize(&output.content).into_owned();
        Ok((
            format!("! {command}\n{}", shown.trim_end()),
            output.is_error || output.failed,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask() -> Decision {
        Decision::Ask {
            reason: "writes".into(),
            suggestion: None,
        }
    }

    #[test]
    fn the_user_typing_it_answers_a_prompt_outside_plan_mode() {
        assert_eq!(grant_for(ask(), false), Ok(Grant::Explicit));
        assert_eq!(
            grant_for(Decision::Allow(Grant::ReadOnly), false),
            Ok(Grant::ReadOnly)
        );
    }

    #[test]
    fn a_deny_rule_refuses_it_in_every_mode() {
        let deny = || Decision::Deny {
            message: "denied by rule Bash(rm:*)".into(),
        };
        assert_eq!(
            grant_for(deny(), false),
            Err("denied by rule Bash(rm:*)".into())
        );
        assert!(grant_for(deny(), true).is_err());
    }

    #[test]
    fn plan_mode_runs_only_what_the_model_could_run_unasked() {
        assert!(grant_for(ask(), true).is_err());
        assert!(grant_for(Decision::Allow(Grant::DryRun), true).is_err());
        assert_eq!(
            grant_for(Decision::Allow(Grant::ReadOnly), true),
            Ok(Grant::ReadOnly)
        );
    }

    #[test]
    fn the_model_reads_the_command_and_its_output_as_the_users() {
        let text = context_text("ls", "a.txt\n");
        assert!(text.contains("<command>ls</command>"));
        assert!(text.contains("a.txt"));
        assert!(text.contains("themselves"));
    }
}
