//! Auto mode: instead of asking the user, a classifier request to
//! the small model judges each call that would ask, and repeated denials or
//! an unusable answer hand the call back to the user.
//!
//! - [`classifier`]: the request, the timeout and the denial count.
//! - [`prompt`]: what the classifier sees and must answer.
//!
//! Leaving plan mode with auto mode in play is plan mode's business
//! (`crate::plan::state::auto_exit`).
//!
//! Which calls reach the classifier is decided by
//! [`super::decide`] (`Decision::Classify`: calls that would ask by the
//! mode's default while [`super::is_auto_mode_active`]); the dangerous-rule
//! stripping and the opt-in gate live in [`super::mode`]. The engine glue
//! (running the review, recording it, falling back to the approver) is in
//! `engine/tool_runner`.

pub mod classifier;
pub mod prompt;

pub use classifier::{
    AutoClassifier, AutoReview, ClassifierConfig, DEFAULT_MAX_CONSECUTIVE_DENIALS, DEFAULT_TIMEOUT,
};
pub use prompt::ProposedAction;

/// Notification key of every classifier decision.
pub const AUTO_MODE_DECISION_KEY: &str = "auto-mode-decision";
/// Transcript `system` entry subtype of every classifier decision.
pub const AUTO_MODE_DECISION_SUBTYPE: &str = "auto_mode_decision";

/// The tool_result text of a denied call (reaches the model).
pub fn denied_result(reason: &str) -> String {
    let reason = reason.trim();
    let stop = if reason.ends_with(['.', '!', '?']) {
        ""
    } else {
        "."
    };
    format!(
        "Auto mode denied this action: {reason}{stop} The call was not run. Choose a different approach that fits what the user asked for, or ask the user (AskUserQuestion) if this step is really needed."
    )
}

/// The user-facing line recorded for a review of `tool_name`.
pub fn decision_text(tool_name: &str, review: &AutoReview) -> String {
    match review {
        AutoReview::Allow { reason } => format!("auto mode allowed {tool_name}: {reason}"),
        AutoReview::Deny { reason } => format!("auto mode denied {tool_name}: {reason}"),
        AutoReview::AskUser { why } => {
            format!("auto mode could not decide on {tool_name} ({why}); falling back to asking")
        }
        AutoReview::Interrupted => format!("auto mode review of {tool_name} was interrupted"),
    }
}
