//! Plan mode: plan files, transitions, EnterPlanMode/ExitPlanMode, attachments, workflow prompts.
//!
//! Everything here is pure or takes its inputs explicitly (paths, settings
//! values, env lookups), so each rule is unit-tested on its own; the engine
//! and the permission layer call into it.
//!
//! - [`files`] (with `files::slug`): where the plans directory is, the
//!   per-session slug and the plan file path.
//! - [`state`]: the session's one-shot plan-mode flags and the decision
//!   table for entering plan mode; `state::plan_session` is one plan's
//!   state (approved plan, revisions), `state::auto_exit` leaving plan mode
//!   on its own.
//! - [`tools`]: EnterPlanMode, ExitPlanMode and ExitPlanMode's pure rules
//!   (`tools::exit_rules`: validation, mode restoration, results).
//! - [`approval`]: carrying out the user's answer to a presented plan;
//!   `approval::decision` is that answer as one type every front end
//!   produces, with `review` (line comments), `fresh` (start with a clean
//!   context) and `progress` (the plan's step checkboxes).
//! - [`engine_hooks`]: how plan mode plugs into the engine (the extension,
//!   the route a teammate's plan takes to its lead), the attachments it
//!   injects before a model request and their provider.
//! - [`prompts`]: the workflow prompts, reminders and tool descriptions
//!   ([`contract`]: the short protocol strings).
//! - [`export`]: what `/plan export` and `catui plans export` share (the
//!   exporter a session is given, the errors).
//! - `/plan` is [`slash_command`]; `/plan use SLUG` (and `--plan SLUG`)
//!   takes up a plan of the library ([`pick_up`]).
//! - [`verification`]: the commands of a plan's verification section, run
//!   by catui once the work is done.

pub mod approval;
pub mod contract;
pub mod engine_hooks;
pub mod export;
pub mod files;
pub mod pick_up;
pub mod prompts;
pub mod slash_command;
pub mod state;
pub mod tools;
pub mod verification;

pub use approval::carry_out_recorded;
pub use engine_hooks::attachment_provider::PlanAttachmentProvider;
pub use engine_hooks::attachments::{
    FULL_REMINDER_EVERY_N_ATTACHMENTS, PlanAttachmentInput, TURNS_BETWEEN_ATTACHMENTS,
    plan_attachments, render_attachment,
};
pub use engine_hooks::{PlanApprovalRoute, PlanExtension, PlanRoute};
pub use files::slug::PlanSlugs;
pub use files::{PlanFiles, get_plan, plan_file_path, plans_directory};
pub use prompts::{PlanModeConfig, PlanVariant, PromptOptions};
pub use state::plan_session::{ApprovedPlan, PlanSession, RevisionChange, Staleness, plan_hash};
pub use state::{
    PlanAutoModeChange, PlanEntryEffects, PlanState, plan_auto_mode_change, plan_entry_effects,
};
pub use tools::amend::AmendPlanTool;
pub use tools::enter::EnterPlanModeTool;
pub use tools::exit::ExitPlanModeTool;
pub use tools::exit_rules::{plan_diff, restore_mode};
