//! Auto mode in the tool loop: a call the permission layer hands to the
//! classifier (`Decision::Classify`) is reviewed by the session's
//! [`AutoClassifier`](crate::permissions::auto::AutoClassifier); the
//! decision is shown (notification `auto-mode-decision`) and recorded (a
//! transcript `system` entry); allow runs the call, deny answers it with the
//! reason, anything else falls back to asking the user.

use super::{HeldCall, Question, Slot, ask_user, interrupted};
use crate::engine::{Engine, EngineEvent, Record};
use crate::permissions::auto::{
    AUTO_MODE_DECISION_KEY, AUTO_MODE_DECISION_SUBTYPE, AutoReview, ProposedAction, decision_text,
    denied_result,
};
use crate::permissions::{Decision, Grant};
use crate::tools::ToolContext;

pub(super) async fn classify(
    engine: &Engine,
    ctx: &ToolContext,
    held: HeldCall<'_>,
    reason: String,
    fallback: Decision,
) -> Slot {
    let Some(classifier) = engine.auto_classifier.clone() else {
        // No classifier configured (an engine built without one, e.g. in
        // tests or by an embedder): behave as outside auto mode.
        return fall_back(engine, ctx, held, fallback, None).await;
    };
    let cwd = ctx.cwd();
    let action = ProposedAction {
        tool_use_id: &held.id,
        tool_name: &held.name,
        input: held.input,
        reason: &reason,
        cwd: &cwd,
    };
    let review = classifier
        .review(&engine.messages, &action, &ctx.cancel)
        .await;
    if ctx.cancel.is_cancelled() || review == AutoReview::Interrupted {
        return interrupted(&held.name, &held.id);
    }
    let text = decision_text(&held.name, &review);
    engine.shared.emit(EngineEvent::Notification {
        key: AUTO_MODE_DECISION_KEY.to_string(),
        text: text.clone(),
    });
    engine.shared.recorder.record(Record::System {
        subtype: AUTO_MODE_DECISION_SUBTYPE.to_string(),
        text,
    });
    match review {
        AutoReview::Allow { .. } => Slot::Ready {
            id: held.id,
            name: held.name,
            call: held.call,
            grant: Grant::Explicit,
        },
        AutoReview::Deny { reason } => Slot::refused(
            &held.name,
            &held.id,
            denied_result(&reason),
            format!("Auto mode denied · {reason}"),
        ),
        AutoReview::AskUser { why } => fall_back(engine, ctx, held, fallback, Some(why)).await,
        AutoReview::Interrupted => interrupted(&held.name, &held.id),
    }
}

/// The decision the permission layer would have made outside auto mode:
/// ask the user, or (nobody to ask) deny.
async fn fall_back(
    engine: &Engine,
    ctx: &ToolContext,
    held: HeldCall<'_>,
    fallback: Decision,
    why: Option<String>,
) -> Slot {
    match fallback {
        Decision::Ask { reason, suggestion } => {
            let reason = match why {
                Some(why) => format!("{reason} (auto mode: {why})"),
                None => reason,
            };
            let question = Question {
                reason,
                suggestion: suggestion.map(|rule| rule.to_string()),
                declined: None,
            };
            ask_user(engine, ctx, held, question).await
        }
        Decision::Deny { message } => {
            let message = match why {
                Some(why) => format!("Auto mode could not approve this call: {why}. {message}"),
                None => message,
            };
            Slot::refused(&held.name, &held.id, message.clone(), message)
        }
        Decision::Allow(grant) => Slot::Ready {
            id: held.id,
            name: held.name,
            call: held.call,
            grant,
        },
        // The permission layer never nests these; treat one as "ask".
        Decision::Classify { reason, .. } => {
            let question = Question {
                reason,
                suggestion: None,
                declined: None,
            };
            ask_user(engine, ctx, held, question).await
        }
    }
}
