//! catui's interactive terminal interface.
mod approval;
mod dialogs;
mod diff;
mod input;
mod markdown;
mod palette;
mod render;
mod state;
mod tool_view;
mod transcript;
mod wrap;
pub use approval::{ApprovalReceiver, PendingApproval, TuiApprover, approver};
pub use render::render;
pub use state::AppState;
