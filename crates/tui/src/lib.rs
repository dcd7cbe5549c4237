//! catui's interactive terminal interface (ratatui + crossterm) over the
//! core engine's event stream.
//!
//! The transcript goes into the terminal's own scrollback as entries
//! become final; only a small live area is redrawn (see `inline`).
//! The front end only translates: engine events become screen state
//! ([`AppState`]), keys become actions (send input, interrupt, change the
//! permission mode through the engine's one transition function, answer a
//! prompt). Rendering is a pure function of the state ([`render`]), which is
//! what the snapshot tests exercise.
//!
//! Wiring, for the binary:
//! ```ignore
//! let (approver, approvals) = catui_tui::approver();
//! // build the Engine with `Arc::new(approver)` and an event channel `(tx, rx)`
//! let ending = catui_tui::run(engine, rx, approvals, opts, None).await?;
//! ```

mod approver;
mod attach;
pub mod bashes;
pub mod broker_view;
mod browser_review;
mod contract_view;
pub mod dialogs;
mod diff;
mod file_picker;
pub mod help;
mod highlight;
mod inline;
mod input;
pub mod keymap;
mod markdown;
mod palette;
mod picker;
mod plans_panel;
mod plans_runner;
mod render;
pub mod rewind;
mod runtime;
mod state;
mod status_command;
mod table;
mod term_input;
mod terminal;
pub mod theme;
mod tool_entry;
mod tool_view;
mod transcript;
mod trust_dialog;
mod wrap;

pub use approver::{
    ApprovalReceiver, PendingApproval, PendingReview, ReviewReceiver, TuiApprover, TuiPlanReviewer,
    approver, plan_reviewer,
};
pub use broker_view::{AgentListing, AgentsView, BrokerCommands, BrokerLink};
pub use picker::{
    PickerItem, PickerOutcome, PickerState, pick_session, relative_age, render_picker,
};
pub use render::{live_height, render, render_live, render_pager, render_status};
pub use runtime::{Ending, TuiOptions, run};
pub use state::{Action, AppState, Pager, RetryNote, SessionInfo, TeammateRow};
pub use terminal::restore_terminal;
pub use trust_dialog::{
    TrustAnswer, TrustDialogState, TrustPrompt, ask_trust, render_trust_dialog,
};
