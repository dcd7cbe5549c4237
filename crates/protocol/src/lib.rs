//! catui's shared vocabulary: plain data types with no IO.
//!
//! Everything that crosses a crate boundary lives here: conversation
//! messages and their content blocks ([`message`]), the model request and
//! streaming events that providers produce ([`model`]), permission modes
//! ([`mode`]), attachments injected before model requests ([`attachment`]),
//! the headless stream-json wire format ([`stream_json`], [`control`]), the
//! transcript line format ([`transcript`]), checkpoints and the plan
//! compliance report ([`checkpoint`]); the plan as a contract while it
//! runs: verification, goal checks, the end report ([`contract`]);
//! background tasks ([`task`]); the names of catui's own tools
//! ([`tool_names`]) and of MCP servers' tools ([`mcp_name`]); the one
//! terminal sanitiser for every byte printed that came from outside
//! ([`terminal`]); and the one lock helper every crate
//! uses ([`sync::lock`]).

pub mod attachment;
pub mod checkpoint;
pub mod contract;
pub mod control;
pub mod mcp_name;
pub mod message;
pub mod mode;
pub mod model;
pub mod percent;
pub mod stream_json;
pub mod sync;
pub mod task;
pub mod terminal;
pub mod tool_names;
pub mod transcript;

pub use attachment::Attachment;
pub use message::{ContentBlock, Message, Role, ToolResultContent};
pub use mode::PermissionMode;
pub use model::{
    Effort, ModelEvent, ModelRequest, ModelResponse, ModelUsage, Reasoning, StopReason, Thinking,
    ThinkingDisplay, ToolChoice, ToolSpec, Usage,
};
