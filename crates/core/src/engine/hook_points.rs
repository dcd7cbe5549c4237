//! Where the conversation calls hooks (see [`crate::hooks`]): each event's
//! input, and what the engine does with the merged answer. A hook that
//! fails refuses the call it guards (`PreToolUse`, fail closed); for the
//! other events it is reported and the conversation goes on.

use serde_json::{Value, json};

use super::{Engine, EngineEvent};
use crate::hooks::{HookCall, HookDecision, HookVerdict};

/// How often Stop hooks may send the model back to work for one input.
const MAX_STOP_BLOCKS: u32 = 8;

/// Runs every hook of `call`'s event: the settings' commands and the
/// client's callbacks, merged.
pub(super) async fn run(engine: &Engine, mut call: HookCall) -> HookVerdict {
    let event = call.event;
    let hooks = engine.hooks.clone();
    let input = hooks.input(&call);
    let commands = hooks.run_commands(&call, &input).await;
    call.input = input;
    let client = engine.approver.run_hooks(call).await;
    let mut outputs = commands.outputs;
    let mut failures = commands.failures;
    match client {
        Ok(o) => outputs.extend(o),
        Err(e) => failures.push(e.0),
    }
    for problem in commands.problems {
        notify_user(engine, format!("A {event} hook: {problem}"));
    }
    let mut verdict = HookVerdict::merge(&outputs);
    for message in std::mem::take(&mut verdict.system_messages) {
        notify_user(engine, message);
    }
    if !failures.is_empty() {
        let failure = failures.join("; ");
        if event == "PreToolUse" {
            verdict.decision = Some(HookDecision::Deny);
            verdict
                .reasons
                .insert(0, format!("the hook failed ({failure})"));
        } else {
            notify_user(engine, format!("A {event} hook failed: {failure}"));
        }
    }
    verdict
}

fn notify_user(engine: &Engine, text: String) {
    engine.shared.emit(EngineEvent::Notification {
        key: "hook".into(),
        text,
    });
}

fn mode(engine: &Engine) -> catui_protocol::PermissionMode {
    engine.shared.permissions().mode
}

pub(super) async fn pre_tool_use(
    engine: &Engine,
    id: &str,
    name: &str,
    input: &Value,
) -> HookVerdict {
    let verdict = run(
        engine,
        HookCall {
            event: "PreToolUse",
            tool_name: Some(name.to_string()),
            tool_use_id: Some(id.to_string()),
            input: json!({"hook_event_name": "PreToolUse", "tool_name": name,
                "tool_input": input, "tool_use_id": id, "permission_mode": mode(engine)}),
        },
    )
    .await;
    if let Some(stop) = &verdict.stop {
        engine.shared.set_run_end(super::RunEnd::new(
            catui_protocol::stream_json::ResultSubtype::Success,
            stop.clone(),
        ));
    }
    verdict
}

/// Runs `PostToolUse` hooks; returns the text to add to the tool result.
pub(super) async fn post_tool_use(
    engine: &Engine,
    id: &str,
    name: &str,
    content: &str,
    is_error: bool,
) -> Option<String> {
    let input = engine
        .messages
        .last()
        .and_then(|m| m.tool_uses().find(|(use_id, _, _)| *use_id == id))
        .map(|(_, _, input)| input.clone())
        .unwrap_or(Value::Null);
    let verdict = run(
        engine,
        HookCall {
            event: "PostToolUse",
            tool_name: Some(name.to_string()),
            tool_use_id: Some(id.to_string()),
            input: json!({"hook_event_name": "PostToolUse", "tool_name": name,
                "tool_input": input, "tool_response": content, "is_error": is_error,
                "tool_use_id": id, "permission_mode": mode(engine)}),
        },
    )
    .await;
    if let Some(stop) = &verdict.stop {
        engine.shared.set_run_end(super::RunEnd::new(
            catui_protocol::stream_json::ResultSubtype::Success,
            stop.clone(),
        ));
    }
    let mut extra: Vec<String> = verdict.block.into_iter().collect();
    extra.extend(verdict.additional_context);
    (!extra.is_empty()).then(|| extra.join("\n"))
}

/// What to do with a prompt the user submitted.
pub(super) enum PromptGate {
    /// Send it, with this context for the model.
    Send(Vec<String>),
    /// Do not send it; the text says why.
    Refused(String),
}

/// `SessionStart` (before the first input) and `UserPromptSubmit`.
pub(super) async fn before_prompt(engine: &mut Engine, prompt: &str) -> PromptGate {
    let mut context = Vec::new();
    if !engine.session_started {
        engine.session_started = true;
        let source = if engine.messages.is_empty() {
            "startup"
        } else {
            "resume"
        };
        let verdict = run(
            engine,
            HookCall {
                event: "SessionStart",
                tool_name: Some(source.into()),
                tool_use_id: None,
                input: json!({"hook_event_name": "SessionStart", "source": source,
                    "permission_mode": mode(engine)}),
            },
        )
        .await;
        context.extend(verdict.additional_context);
    }
    let verdict = run(
        engine,
        HookCall {
            event: "UserPromptSubmit",
            tool_name: None,
            tool_use_id: None,
            input: json!({"hook_event_name": "UserPromptSubmit", "prompt": prompt,
                "permission_mode": mode(engine)}),
        },
    )
    .await;
    if let Some(refusal) = verdict.refusal("UserPromptSubmit") {
        return PromptGate::Refused(format!("The prompt was not sent. {refusal}"));
    }
    if let Some(stop) = verdict.stop {
        return PromptGate::Refused(stop);
    }
    context.extend(verdict.additional_context);
    PromptGate::Send(context)
}

/// `Stop` (main conversation) or `SubagentStop` when the model ends its
/// turn. `Some(reason)`: a hook blocks the stop; the reason goes to the
/// model, which carries on.
pub(super) async fn stop(engine: &Engine, blocks_so_far: u32) -> Option<String> {
    let event = if engine.config.agent_id.is_some() {
        "SubagentStop"
    } else {
        "Stop"
    };
    let mut input = json!({"hook_event_name": event, "stop_hook_active": blocks_so_far > 0,
        "permission_mode": mode(engine)});
    if let Some(agent) = &engine.config.agent_id {
        input["agent_id"] = json!(agent);
    }
    let verdict = run(
        engine,
        HookCall {
            event,
            tool_name: None,
            tool_use_id: None,
            input,
        },
    )
    .await;
    let reason = verdict.block?;
    if verdict.stop.is_some() {
        return None;
    }
    if blocks_so_far >= MAX_STOP_BLOCKS {
        notify_user(
            engine,
            format!(
                "{event} hooks blocked the end of the turn {MAX_STOP_BLOCKS} times; it ends now."
            ),
        );
        return None;
    }
    Some(reason)
}

/// `PreCompact`, before the conversation is summarised (`manual` or `auto`).
pub(super) async fn pre_compact(engine: &Engine, trigger: &str, instructions: Option<&str>) {
    let verdict = run(
        engine,
        HookCall {
            event: "PreCompact",
            tool_name: Some(trigger.into()),
            tool_use_id: None,
            input: json!({"hook_event_name": "PreCompact", "trigger": trigger,
                "custom_instructions": instructions.unwrap_or_default()}),
        },
    )
    .await;
    if let Some(reason) = verdict.block {
        notify_user(engine, format!("A PreCompact hook objected: {reason}"));
    }
}

/// `SessionEnd`, when the front end ends the session.
pub(super) async fn session_end(engine: &Engine, reason: &str) {
    run(
        engine,
        HookCall {
            event: "SessionEnd",
            tool_name: Some(reason.into()),
            tool_use_id: None,
            input: json!({"hook_event_name": "SessionEnd", "reason": reason}),
        },
    )
    .await;
}

/// `Notification`, when the user is about to be asked for permission.
pub(super) async fn permission_notification(engine: &Engine, tool_name: &str) {
    let message = format!("catui needs your permission to use {tool_name}");
    run(
        engine,
        HookCall {
            event: "Notification",
            tool_name: Some("permission_prompt".into()),
            tool_use_id: None,
            input: json!({"hook_event_name": "Notification", "message": message,
                "notification_type": "permission_prompt"}),
        },
    )
    .await;
}
