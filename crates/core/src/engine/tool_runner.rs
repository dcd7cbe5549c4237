//! Running the tool calls of one assistant message: every call
//! is parsed, validated and passed through the permission layer; runs of
//! consecutive concurrency-safe calls execute together, everything else in
//! order; results come back in call order, and every tool_use gets exactly
//! one tool_result — also on error and on interrupt.

use catui_protocol::{ContentBlock, Message};
use futures::future::join_all;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

mod auto_review;

use super::approver::{PermissionAnswer, PermissionRequest};
use super::declined::{INTERRUPTED, declined_view};
use super::hook_points as client_hooks;
use super::shared::set_mode;
use super::{Engine, EngineEvent, ToolCallView, ToolGate, ToolRunView};
use crate::hooks::HookDecision;
use crate::permissions::{self, Decision, Grant};
use crate::tools::{ParsedCall, ToolContext, ToolError, ToolOutput};

/// A call after parsing and permission, ready to run or already answered.
enum Slot {
    Ready {
        id: String,
        name: String,
        call: ParsedCall,
        /// Why it may run (a read-only grant runs confined).
        grant: Grant,
    },
    /// Answered without running (refused, invalid, interrupted): the
    /// model's tool_result and the user-facing line for the front ends.
    Answered {
        name: String,
        block: ContentBlock,
        display: String,
        /// Whether the user should see it as failed: not when the user
        /// declined it or stopped the turn before it ran (their own
        /// decision, told as such rather than marked as an error).
        failed: bool,
    },
}

impl Slot {
    /// An error result that never ran: `model` goes to the model, `user`
    /// to the user.
    fn refused(name: &str, id: &str, model: impl Into<String>, user: impl Into<String>) -> Slot {
        Slot::Answered {
            name: name.to_string(),
            block: ContentBlock::tool_result(id, model.into(), true),
            display: user.into(),
            failed: true,
        }
    }

    /// [`Slot::refused`] by the user's own decision (declined, or stopped
    /// before it ran): an error for the model, not a failure to show. The
    /// user's row is read back from the model's text where it can be
    /// ([`declined_view`]), as a resumed session reads it.
    fn declined(name: &str, id: &str, model: impl Into<String>, user: impl Into<String>) -> Slot {
        let model = model.into();
        let user = declined_view(name, &model).unwrap_or_else(|| user.into());
        match Slot::refused(name, id, model, user) {
            Slot::Answered {
                name,
                block,
                display,
                ..
            } => Slot::Answered {
                name,
                block,
                display,
                failed: false,
            },
            ready => ready,
        }
    }

    /// A block built by `parse`, shown to the user as it is.
    fn unparsed(name: &str, block: ContentBlock) -> Slot {
        let display = match &block {
            ContentBlock::ToolResult { content, .. } => content.as_text(),
            _ => String::new(),
        };
        Slot::Answered {
            name: name.to_string(),
            block,
            display,
            failed: true,
        }
    }
}

pub(super) async fn run_tool_calls(
    engine: &Engine,
    assistant: &Message,
    cancel: &CancellationToken,
) -> Vec<ContentBlock> {
    let mut ctx = engine.tool_ctx.clone();
    ctx.cancel = cancel.clone();
    ctx.values
        .insert(crate::tools::CallingMessageText(assistant.text()));

    // Parse everything first (pure), so batches are known before anyone is
    // asked anything.
    let parsed: Vec<(String, String, Value, Result<ParsedCall, ContentBlock>)> = assistant
        .tool_uses()
        .map(|(id, name, input)| {
            (
                id.to_string(),
                name.to_string(),
                input.clone(),
                parse(engine, id, name, input, Source::Model),
            )
        })
        .collect();

    // The message's calls that parsed, for tools whose calls must not repeat
    // within one message.
    ctx.values.insert(crate::tools::CallingMessageCalls(
        parsed
            .iter()
            .filter(|(.., call)| call.is_ok())
            .map(|(id, name, ..)| (id.clone(), name.clone()))
            .collect(),
    ));
    let mut results: Vec<ContentBlock> = Vec::with_capacity(parsed.len());
    let mut batch: Vec<Slot> = Vec::new();
    for (id, name, input, call) in parsed {
        let safe = matches!(&call, Ok(c) if c.is_concurrency_safe());
        if !safe && !batch.is_empty() {
            results.extend(run_batch(engine, &ctx, std::mem::take(&mut batch)).await);
        }
        let slot = match call {
            Err(block) => Slot::unparsed(&name, block),
            Ok(_) if cancel.is_cancelled() => interrupted(&name, &id),
            Ok(call) => authorize(engine, &ctx, id, name, &input, call).await,
        };
        batch.push(slot);
        if !safe {
            results.extend(run_batch(engine, &ctx, std::mem::take(&mut batch)).await);
        }
    }
    results.extend(run_batch(engine, &ctx, batch).await);
    results
}

fn interrupted(name: &str, id: &str) -> Slot {
    Slot::declined(name, id, INTERRUPTED, "Interrupted · not run")
}

/// Finds the tool and parses the input against its schema.
/// Who wrote a tool input.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    /// The model: only the fields of the tool's schema are accepted.
    Model,
    /// The user, through a permission answer: may also fill in the fields
    /// reserved for the approval step (an edited plan, question answers).
    User,
}

fn parse(
    engine: &Engine,
    id: &str,
    name: &str,
    input: &Value,
    source: Source,
) -> Result<ParsedCall, ContentBlock> {
    let Some(tool) = engine.tools.get(name) else {
        let available = engine.tools.names().join(", ");
        return Err(ContentBlock::tool_result(
            id,
            format!("No tool named '{name}' exists. Available tools: {available}."),
            true,
        ));
    };
    if source == Source::Model
        && let (Some(fields), Some(given)) = (
            tool.input_schema()["properties"].as_object().cloned(),
            input.as_object(),
        )
        && let Some(extra) = given.keys().find(|k| !fields.contains_key(*k))
    {
        // Approval-only fields (plan text, answers) never come from the model.
        return Err(ContentBlock::tool_result(
            id,
            format!(
                "Invalid input for {name}: unknown field `{extra}`. Check the tool's input schema."
            ),
            true,
        ));
    }
    tool.parse(input)
        .map_err(|e| ContentBlock::tool_result(id, e.to_string(), true))
}

/// Validates a call and passes it through the permission layer, asking the
/// user when the layer says so.
async fn authorize(
    engine: &Engine,
    ctx: &ToolContext,
    id: String,
    name: String,
    input: &Value,
    call: ParsedCall,
) -> Slot {
    // The call's own id, for the checks and prompts before it runs.
    let mut call_ctx = ctx.clone();
    call_ctx.tool_use_id = Some(id.clone());
    let ctx = &call_ctx;
    if let Err(e) = call.validate(ctx).await {
        return Slot::refused(&name, &id, e.to_string(), e.user_text());
    }
    // Tool lifecycle hooks may answer the call themselves, or ask the
    // user about it whatever the mode would do.
    let mut forced: Option<(String, String)> = None;
    for extension in &engine.shared.extensions {
        let view = ToolCallView {
            id: &id,
            name: &name,
            input,
            call: call.as_ref(),
            ctx,
            agent_id: engine.config.agent_id.as_deref(),
        };
        match extension.before_tool(&view) {
            ToolGate::Continue => {}
            ToolGate::Ask { reason, declined } => {
                forced.get_or_insert((reason, declined));
            }
            ToolGate::Answer {
                content,
                display,
                is_error,
                end_run,
            } => {
                if let Some(end) = end_run {
                    engine.shared.set_run_end(end);
                }
                return Slot::Answered {
                    block: ContentBlock::tool_result(id, content, is_error),
                    display,
                    failed: true,
                    name,
                };
            }
        }
    }
    // The client's PreToolUse hooks: a deny refuses the call, an edited
    // input replaces the model's, an allow or ask adjusts only the prompt.
    let pre = client_hooks::pre_tool_use(engine, &id, &name, input).await;
    if let Some(refusal) = pre.refusal("PreToolUse") {
        return Slot::refused(&name, &id, refusal.clone(), refusal);
    }
    let edited;
    let (call, input) = match pre.updated_input {
        Some(updated) => {
            let call = match parse(engine, &id, &name, &updated, Source::User) {
                Ok(call) => call,
                Err(block) => return Slot::unparsed(&name, block),
            };
            if let Err(e) = call.validate(ctx).await {
                return Slot::refused(&name, &id, e.to_string(), e.user_text());
            }
            edited = updated;
            (call, &edited)
        }
        None => (call, input),
    };
    let access = call.access(ctx);
    let read_only = call.is_read_only();
    let decision = {
        let perms = engine.shared.permissions();
        let info = permissions::CallInfo {
            tool_name: name.clone(),
            access,
            read_only,
            cwd: ctx.cwd(),
        };
        permissions::decide(&perms, &info)
    };
    // A hook may deny in plan mode, never allow: only the user opens a
    // prompt there.
    let planning = engine.shared.permissions().mode == catui_protocol::PermissionMode::Plan;
    let decision = match (pre.decision, decision) {
        // Like the user answering yes: the call runs as it is.
        (Some(HookDecision::Allow), Decision::Ask { .. }) if !planning => {
            Decision::Allow(permissions::Grant::Explicit)
        }
        (Some(HookDecision::Ask), Decision::Allow(_)) => Decision::Ask {
            reason: pre
                .reasons
                .first()
                .cloned()
                .unwrap_or_else(|| "a PreToolUse hook asks for confirmation".into()),
            suggestion: None,
        },
        (_, decision) => decision,
    };
    // An extension's question: asked unless the call is refused anyway.
    let mut declined = None;
    let decision = match (forced, decision) {
        (Some(_), deny @ Decision::Deny { .. }) | (None, deny) => deny,
        (Some((reason, text)), _) => {
            declined = Some(text);
            Decision::Ask {
                reason,
                suggestion: None,
            }
        }
    };
    match decision {
        Decision::Allow(grant) => Slot::Ready {
            id,
            name,
            call,
            grant,
        },
        Decision::Deny { message } => Slot::refused(&name, &id, message.clone(), message),
        Decision::Ask { reason, suggestion } => {
            let question = Question {
                reason,
                suggestion: suggestion.map(|rule| rule.to_string()),
                declined,
            };
            let held = HeldCall {
                id,
                name,
                input,
                call,
            };
            ask_user(engine, ctx, held, question).await
        }
        Decision::Classify { reason, fallback } => {
            let held = HeldCall {
                id,
                name,
                input,
                call,
            };
            auto_review::classify(engine, ctx, held, reason, *fallback).await
        }
    }
}

/// How many times a changed text is presented again within one call before
/// a stale approval is left to the tool to refuse.
const MAX_REPRESENTATIONS: usize = 3;

/// A parsed call waiting for a decision about it (the user's, or auto
/// mode's classifier's): what is carried from the permission check to
/// whoever decides.
pub(super) struct HeldCall<'a> {
    pub(super) id: String,
    pub(super) name: String,
    /// The input as the model sent it.
    pub(super) input: &'a Value,
    pub(super) call: ParsedCall,
}

/// What the user is asked about a call: why, and the rule that would
/// allow calls like it from now on.
pub(super) struct Question {
    pub(super) reason: String,
    pub(super) suggestion: Option<String>,
    /// What the model reads when the user says no, instead of the tool's
    /// own text (an extension's question).
    pub(super) declined: Option<String>,
}

/// Asks the user through the approver (the normal path of `Ask`, and auto
/// mode's fallback).
async fn ask_user(
    engine: &Engine,
    ctx: &ToolContext,
    held: HeldCall<'_>,
    question: Question,
) -> Slot {
    let HeldCall {
        id,
        name,
        input,
        call,
    } = held;
    let mut reason = question.reason;
    let question_declined = question.declined;
    let mut asked = 0;
    let (shown, mut answer) = loop {
        let shown = call
            .permission_input(ctx)
            .map(|extra| merge_input(input, extra));
        let shown = shown.unwrap_or_else(|| input.clone());
        let request = PermissionRequest {
            tool_use_id: id.clone(),
            tool_name: name.clone(),
            input: shown.clone(),
            reason: reason.clone(),
            agent_id: engine.config.agent_id.clone(),
            suggestion: question.suggestion.clone(),
            dry_run: call.can_run_dry() && engine.shared.permissions().dry_run,
        };
        client_hooks::permission_notification(engine, &name).await;
        let answer = tokio::select! {
            a = engine.approver.ask(request) => a,
            _ = ctx.cancel.cancelled() => PermissionAnswer::Deny { message: "interrupted".into() },
        };
        if ctx.cancel.is_cancelled() {
            // An interrupted prompt never counts as approval.
            return interrupted(&name, &id);
        }
        asked += 1;
        // An approval of something that changed while the user looked at
        // it (a plan rewritten during review) is asked again with the new
        // text; past the limit the call itself refuses a stale answer.
        if let PermissionAnswer::Allow { updated_input, .. } = &answer
            && asked <= MAX_REPRESENTATIONS
            && let Some(why) = call.stale_answer(updated_input.as_ref().unwrap_or(&shown), ctx)
        {
            reason = why;
            continue;
        }
        break (shown, answer);
    };
    if let PermissionAnswer::Allow {
        updated_input,
        updated_permissions: Some(updates),
    } = &mut answer
    {
        // "Yes, and don't ask again": changes for the rest of the session.
        let applied = {
            let mut perms = engine.shared.permissions();
            permissions::updates::apply_updates(&mut perms, updates, &ctx.project_root)
        };
        let text = match applied {
            Ok(applied) => {
                if let Some(mode) = applied.mode {
                    if call.takes_mode_in_input() {
                        // The call itself picks the mode once approved
                        // (leaving plan mode): the update becomes its input.
                        let mut edited = updated_input.take().unwrap_or_else(|| shown.clone());
                        if let Value::Object(fields) = &mut edited
                            && fields.get("mode").is_none_or(Value::is_null)
                        {
                            fields.insert("mode".into(), Value::String(mode.to_string()));
                        }
                        *updated_input = Some(edited);
                    } else if let Err(e) = set_mode(&engine.shared, mode) {
                        engine.shared.emit(EngineEvent::Notification {
                            key: "permission-rules".into(),
                            text: format!("The mode change was not applied: {e}"),
                        });
                    }
                }
                format!("Changed for this session: {}", applied.changes.join(", "))
            }
            Err(e) => format!("The permission update was not applied: {e}"),
        };
        engine.shared.emit(EngineEvent::Notification {
            key: "permission-rules".into(),
            text,
        });
    }
    match answer {
        PermissionAnswer::Allow {
            updated_input: Some(updated),
            ..
        } if updated != *input => match parse(engine, &id, &name, &updated, Source::User) {
            Ok(call) => match call.validate(ctx).await {
                Ok(()) => Slot::Ready {
                    id,
                    name,
                    call,
                    grant: Grant::Explicit,
                },
                Err(e) => Slot::refused(&name, &id, e.to_string(), e.user_text()),
            },
            Err(block) => Slot::unparsed(&name, block),
        },
        PermissionAnswer::Allow { .. } => Slot::Ready {
            id,
            name,
            call,
            grant: Grant::Explicit,
        },
        PermissionAnswer::DryRun { updated_input } => {
            dry_run_slot(engine, ctx, id, name, input, call, updated_input).await
        }
        PermissionAnswer::Deny { message } => {
            let told = question_declined.map(|text| match message.trim() {
                "" => text,
                said => format!("{text}\n\nThe user said: {said}"),
            });
            let text = told.or_else(|| call.denied_result(&message, ctx)).unwrap_or_else(|| {
                if message.trim().is_empty() {
                    format!(
                        "The user declined to run {name}. Do not retry the same call; adapt or ask."
                    )
                } else {
                    format!("The user declined to run {name}: {message}")
                }
            });
            let feedback = message.trim();
            let shown = call.denied_summary(feedback).unwrap_or_else(|| {
                if feedback.is_empty() {
                    "Declined".to_string()
                } else {
                    format!("Declined · {feedback}")
                }
            });
            Slot::declined(&name, &id, text, shown)
        }
        PermissionAnswer::Unanswered { reason } => {
            let text = call.unanswered_result(&reason, ctx).unwrap_or_else(|| {
                format!(
                    "{name} was not run: no decision came back from the user ({reason}). The user \
                     neither allowed nor declined it; do not take this as their answer."
                )
            });
            Slot::refused(&name, &id, text, format!("Not run · no answer ({reason})"))
        }
    }
}

/// The user answered "run as a dry run": the call (with the input they
/// edited, if they did) runs in a fresh throwaway copy of the project —
/// or, where it cannot run dry (not a foreground shell command, dry runs
/// off or unavailable), it does not run at all and the model is told why.
async fn dry_run_slot(
    engine: &Engine,
    ctx: &ToolContext,
    id: String,
    name: String,
    input: &Value,
    call: ParsedCall,
    updated_input: Option<Value>,
) -> Slot {
    let call = match updated_input {
        Some(updated) if updated != *input => {
            match parse(engine, &id, &name, &updated, Source::User) {
                Ok(call) => {
                    if let Err(e) = call.validate(ctx).await {
                        return Slot::refused(&name, &id, e.to_string(), e.user_text());
                    }
                    call
                }
                Err(block) => return Slot::unparsed(&name, block),
            }
        }
        _ => call,
    };
    let why_not = if !call.can_run_dry() {
        Some(format!(
            "only a foreground Bash command can run as a dry run, and this {name} call cannot"
        ))
    } else if !engine.shared.permissions().dry_run {
        Some(
            "dry runs are off in this session (setting `dryRun`, or the sandbox cannot mount \
             the throwaway copy here)"
                .to_string(),
        )
    } else {
        None
    };
    match why_not {
        Some(why) => Slot::refused(
            &name,
            &id,
            format!(
                "The user chose to run {name} as a dry run, but {why}; it was not run. The user \
                 did not allow it to run for real: do not retry it as it is; ask or adapt."
            ),
            "Not run · no dry run here".to_string(),
        ),
        None => Slot::Ready {
            id,
            name,
            call,
            grant: Grant::DryRun,
        },
    }
}

/// The model's input with the tool's extra prompt fields added.
fn merge_input(input: &Value, extra: Value) -> Value {
    match (input, extra) {
        (Value::Object(base), Value::Object(more)) => {
            let mut out = base.clone();
            out.extend(more);
            Value::Object(out)
        }
        (_, extra) => extra,
    }
}

async fn run_batch(engine: &Engine, ctx: &ToolContext, batch: Vec<Slot>) -> Vec<ContentBlock> {
    let parent = engine.config.parent_tool_use_id.clone();
    let futures = batch.into_iter().map(|slot| {
        let parent = parent.clone();
        async move {
            match slot {
                Slot::Answered {
                    name,
                    block,
                    display,
                    failed,
                } => {
                    if let ContentBlock::ToolResult {
                        tool_use_id,
                        is_error,
                        ..
                    } = &block
                    {
                        engine.shared.emit(EngineEvent::ToolEnd {
                            id: tool_use_id.clone(),
                            name,
                            display,
                            is_error: *is_error,
                            failed: *is_error && failed,
                            parent_tool_use_id: parent,
                        });
                    }
                    block
                }
                Slot::Ready {
                    id,
                    name,
                    call,
                    grant,
                } => {
                    let mut ctx = ctx.clone();
                    ctx.tool_use_id = Some(id.clone());
                    ctx.grant = grant;
                    let live = crate::tools::live::LiveOutput::new();
                    ctx.values.insert(live.clone());
                    let ctx = &ctx;
                    // Lifecycle hooks run before the call starts (and
                    // before the next call of a concurrent batch starts).
                    for extension in &engine.shared.extensions {
                        extension.before_run(&ToolRunView {
                            id: &id,
                            name: &name,
                            call: call.as_ref(),
                            ctx,
                            agent_id: engine.config.agent_id.as_deref(),
                        });
                    }
                    engine.shared.emit(EngineEvent::ToolStart {
                        id: id.clone(),
                        name: name.clone(),
                        summary: call.summary(),
                        parent_tool_use_id: parent.clone(),
                    });
                    // What it may change, for the continuation loop.
                    let access = call.access(ctx);
                    let read_only = call.is_read_only();
                    let watched = super::progress::Watched {
                        id: &id,
                        name: &name,
                        parent_tool_use_id: parent.as_deref(),
                        live,
                    };
                    let result = super::progress::watch(
                        &engine.shared,
                        watched,
                        call_interruptibly(call.call(ctx), &ctx.cancel, STOP_GRACE),
                    )
                    .await;
                    let mut media = Vec::new();
                    let (content, display, is_error, failed) = match result {
                        Ok(ToolOutput {
                            content,
                            display,
                            is_error,
                            failed,
                            media: shown,
                        }) => {
                            media = shown;
                            let display = display.unwrap_or_else(|| content.clone());
                            (content, display, is_error, failed || is_error)
                        }
                        Err(ToolError::Cancelled) => (
                            "Interrupted by the user while running.".to_string(),
                            "Interrupted".to_string(),
                            true,
                            true,
                        ),
                        Err(e) => (e.to_string(), e.user_text(), true, true),
                    };
                    if !is_error {
                        crate::sync::lock(&engine.shared.work).saw(
                            &access,
                            read_only,
                            &ctx.project_root,
                        );
                    }
                    let content =
                        match client_hooks::post_tool_use(engine, &id, &name, &content, is_error)
                            .await
                        {
                            Some(extra) => format!("{content}\n\n{extra}"),
                            None => content,
                        };
                    engine.shared.emit(EngineEvent::ToolEnd {
                        id: id.clone(),
                        name,
                        display,
                        is_error,
                        failed,
                        parent_tool_use_id: parent,
                    });
                    if media.is_empty() {
                        ContentBlock::tool_result(id, content, is_error)
                    } else {
                        // The text first, then what the model is to see.
                        let mut blocks = vec![ContentBlock::text(content)];
                        blocks.extend(media);
                        ContentBlock::ToolResult {
                            tool_use_id: id,
                            content: catui_protocol::ToolResultContent::Blocks(blocks),
                            is_error,
                        }
                    }
                }
            }
        }
    });
    join_all(futures).await
}

/// How long a tool may take to stop on its own after an interrupt (Bash
/// kills its process group and reports) before the turn goes on without it.
const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Runs a tool call so that an interrupt always ends it: a tool that does
/// not stop within `grace` (blocked in a read, a system call that
/// ignores the token) is abandoned and answered as interrupted, so the turn
/// ends and every tool_use still gets its tool_result.
async fn call_interruptibly(
    call: impl std::future::Future<Output = Result<ToolOutput, ToolError>>,
    cancel: &CancellationToken,
    grace: std::time::Duration,
) -> Result<ToolOutput, ToolError> {
    tokio::pin!(call);
    tokio::select! {
        result = &mut call => return result,
        _ = cancel.cancelled() => {}
    }
    match tokio::time::timeout(grace, &mut call).await {
        Ok(result) => result,
        Err(_) => Err(ToolError::Cancelled),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::time::Duration;

    #[tokio::test]
    async fn a_tool_that_ignores_the_interrupt_is_abandoned() {
        let cancel = CancellationToken::new();
        let stuck = futures::future::pending::<Result<ToolOutput, ToolError>>();
        let trigger = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            trigger.cancel();
        });
        assert_eq!(
            call_interruptibly(stuck, &cancel, Duration::from_millis(50)).await,
            Err(ToolError::Cancelled)
        );
    }

    #[tokio::test]
    async fn a_tool_that_stops_on_its_own_keeps_its_answer() {
        let cancel = CancellationToken::new();
        cancel.cancel();
        let token = cancel.clone();
        let polite = async move {
            token.cancelled().await;
            tokio::time::sleep(Duration::from_millis(10)).await;
            Ok(ToolOutput::text("stopped; partial output"))
        };
        assert_eq!(
            call_interruptibly(polite, &cancel, Duration::from_secs(30))
                .await
                .unwrap()
                .content,
            "stopped; partial output"
        );
    }
}
