//! Running the tool calls of one assistant message (SPEC §4): every call
//! is parsed, validated and passed through the permission layer; runs of
//! consecutive concurrency-safe calls execute together, everything else in
//! order; results come back in call order, and every tool_use gets exactly
//! one tool_result — also on error and on interrupt.

use catui_protocol::{ContentBlock, Message};
use futures::future::join_all;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::approver::{PermissionAnswer, PermissionRequest};
use super::{Engine, EngineEvent};
use crate::permissions::{self, Decision};
use crate::tools::{ParsedCall, ToolContext, ToolError, ToolOutput};

/// A call after parsing and permission, ready to run or already answered.
enum Slot {
    Ready {
        id: String,
        name: String,
        call: ParsedCall,
        safe: bool,
    },
    Answered(ContentBlock),
}

pub(super) async fn run_tool_calls(
    engine: &Engine,
    assistant: &Message,
    cancel: &CancellationToken,
) -> Vec<ContentBlock> {
    let calls: Vec<(String, String, Value)> = assistant
        .tool_uses()
        .map(|(id, name, input)| (id.to_string(), name.to_string(), input.clone()))
        .collect();
    let mut ctx = engine.tool_ctx.clone();
    ctx.cancel = cancel.clone();

    let mut results: Vec<Option<ContentBlock>> = vec![None; calls.len()];
    let mut index = 0;
    while index < calls.len() {
        // Gather the next batch: a run of concurrency-safe calls, or one call.
        let mut batch: Vec<(usize, Slot)> = Vec::new();
        while index < calls.len() {
            let (id, name, input) = &calls[index];
            if cancel.is_cancelled() {
                batch.push((index, Slot::Answered(interrupted(id))));
                index += 1;
                continue;
            }
            let slot = prepare(engine, &ctx, id, name, input).await;
            let safe = matches!(&slot, Slot::Ready { safe: true, .. });
            let first_in_batch = batch.is_empty();
            if !safe
                && !first_in_batch
                && batch.iter().any(|(_, s)| matches!(s, Slot::Ready { .. }))
            {
                // Run what we have before this unsafe call; prepare it again
                // next round (preparing is idempotent: parse + decide).
                break;
            }
            batch.push((index, slot));
            index += 1;
            if !safe {
                break;
            }
        }
        for (i, block) in run_batch(engine, &ctx, batch).await {
            results[i] = Some(block);
        }
    }
    results
        .into_iter()
        .zip(calls.iter())
        .map(|(r, (id, _, _))| r.unwrap_or_else(|| interrupted(id)))
        .collect()
}

fn interrupted(id: &str) -> ContentBlock {
    ContentBlock::tool_result(
        id,
        "Interrupted by the user: this tool call was not run.",
        true,
    )
}

/// Parses, validates and decides one call.
async fn prepare(engine: &Engine, ctx: &ToolContext, id: &str, name: &str, input: &Value) -> Slot {
    let Some(tool) = engine.tools.get(name) else {
        let available = engine.tools.names().join(", ");
        return Slot::Answered(ContentBlock::tool_result(
            id,
            format!("No tool named '{name}' exists. Available tools: {available}."),
            true,
        ));
    };
    let call = match tool.parse(input) {
        Ok(c) => c,
        Err(e) => return Slot::Answered(ContentBlock::tool_result(id, e.to_string(), true)),
    };
    if let Err(e) = call.validate(ctx).await {
        return Slot::Answered(ContentBlock::tool_result(id, e.to_string(), true));
    }
    let access = call.access(ctx);
    let read_only = call.is_read_only();
    let decision = {
        let perms = engine.shared.permissions();
        let info = permissions::CallInfo {
            tool_name: name.to_string(),
            access,
            read_only,
            cwd: ctx.cwd(),
        };
        permissions::decide(&perms, &info)
    };
    let call = match decision {
        Decision::Allow => call,
        Decision::Deny { message } => {
            return Slot::Answered(ContentBlock::tool_result(id, message, true));
        }
        Decision::Ask { reason, .. } => {
            let request = PermissionRequest {
                tool_use_id: id.to_string(),
                tool_name: name.to_string(),
                input: input.clone(),
                reason,
                agent_id: engine.config.agent_id.clone(),
            };
            let answer = tokio::select! {
                a = engine.approver.ask(request) => a,
                _ = ctx.cancel.cancelled() => PermissionAnswer::Deny { message: "interrupted".into() },
            };
            match answer {
                PermissionAnswer::Allow {
                    updated_input: Some(updated),
                    ..
                } if &updated != input => match tool.parse(&updated) {
                    Ok(c) => c,
                    Err(e) => {
                        return Slot::Answered(ContentBlock::tool_result(id, e.to_string(), true));
                    }
                },
                PermissionAnswer::Allow { .. } => call,
                PermissionAnswer::Deny { message } => {
                    if ctx.cancel.is_cancelled() {
                        return Slot::Answered(interrupted(id));
                    }
                    let text = if message.trim().is_empty() {
                        format!(
                            "The user declined to run {name}. Do not retry the same call; ask or adapt."
                        )
                    } else {
                        format!("The user declined to run {name}: {message}")
                    };
                    return Slot::Answered(ContentBlock::tool_result(id, text, true));
                }
            }
        }
    };
    let safe = call.is_concurrency_safe();
    Slot::Ready {
        id: id.to_string(),
        name: name.to_string(),
        call,
        safe,
    }
}

async fn run_batch(
    engine: &Engine,
    ctx: &ToolContext,
    batch: Vec<(usize, Slot)>,
) -> Vec<(usize, ContentBlock)> {
    let parent = engine.config.parent_tool_use_id.clone();
    let futures = batch.into_iter().map(|(i, slot)| {
        let parent = parent.clone();
        async move {
            match slot {
                Slot::Answered(block) => (i, block),
                Slot::Ready { id, name, call, .. } => {
                    engine.shared.emit(EngineEvent::ToolStart {
                        id: id.clone(),
                        name: name.clone(),
                        summary: call.summary(),
                        parent_tool_use_id: parent.clone(),
                    });
                    let result = call.call(ctx).await;
                    let (content, display, is_error) = match result {
                        Ok(ToolOutput {
                            content,
                            display,
                            is_error,
                        }) => {
                            let display = display.unwrap_or_else(|| content.clone());
                            (content, display, is_error)
                        }
                        Err(ToolError::Cancelled) => {
                            let msg = "Interrupted by the user while running.".to_string();
                            (msg.clone(), msg, true)
                        }
                        Err(e) => (e.to_string(), e.to_string(), true),
                    };
                    engine.shared.emit(EngineEvent::ToolEnd {
                        id: id.clone(),
                        name,
                        display,
                        is_error,
                        parent_tool_use_id: parent,
                    });
                    (i, ContentBlock::tool_result(id, content, is_error))
                }
            }
        }
    });
    join_all(futures).await
}
