//! Plan mode: plan files, transitions, EnterPlanMode/ExitPlanMode, attachments, workflow prompts.
//!
//! Everything here is pure or takes its inputs explicitly (paths, settings
//! values, env lookups), so each rule is unit-tested on its own; the engine
//! and the permission layer call into it.
//!
//! - [`files`] / [`slug`]: where the plans directory is, the per-session slug
//!   and the plan file path.
//! - [`state`]: the session's one-shot plan-mode flags and the decision
//!   table for entering plan mode.
//! - [`attachments`]: which plan-mode attachments to inject before a model
//!   request, and their text.
//! - [`prompts`]: the workflow prompts, reminders and tool descriptions
//!   ([`contract`]: the short protocol strings).
//! - [`exit`]: ExitPlanMode's validation, mode restoration and results.
//! - [`decision`]: the user's answer to a presented plan, as one type that
//!   every front end produces; `approval` carries it out.
//! - [`provider`]: the attachment provider that injects and renders them.
//! - [`extension`]: how plan mode plugs into the engine, and the route a
//!   teammate's plan takes to its lead.

mod approval;
pub mod attachments;
pub mod auto_exit;
pub mod command;
pub mod contract;
pub mod decision;
pub mod enter_tool;
pub mod exit;
pub mod exit_tool;
pub mod extension;
pub mod files;
pub mod fresh;
pub mod progress;
pub mod prompts;
pub mod provider;
pub mod review;
pub mod session;
pub mod slug;
mod slug_words;
pub mod state;

#[cfg(test)]
mod auto_exit_tests;
#[cfg(test)]
mod prompt_tests;

pub use approval::carry_out_recorded;
pub use attachments::{
    FULL_REMINDER_EVERY_N_ATTACHMENTS, PlanAttachmentInput, TURNS_BETWEEN_ATTACHMENTS,
    plan_attachments, render_attachment,
};
pub use enter_tool::EnterPlanModeTool;
pub use exit::{plan_diff, restore_mode};
pub use exit_tool::ExitPlanModeTool;
pub use extension::{PlanApprovalRoute, PlanExtension, PlanRoute};
pub use files::{PlanFiles, get_plan, plan_file_path, plans_directory};
pub use prompts::{PlanModeConfig, PlanVariant, PromptOptions};
pub use provider::PlanAttachmentProvider;
pub use session::{ApprovedPlan, PlanSession, RevisionChange, Staleness, plan_hash};
pub use slug::PlanSlugs;
pub use state::{
    PlanAutoModeChange, PlanEntryEffects, PlanState, plan_auto_mode_change, plan_entry_effects,
};
