//! The attachment hook: before each model request, providers of
//! context are asked what to inject; each attachment becomes
//! `<system-reminder>` user content, is emitted as an event and stored in
//! the transcript.

use std::sync::Arc;

use catui_protocol::{Attachment, Message, PermissionMode};

/// What attachment providers can see when deciding.
#[derive(Debug, Clone)]
pub struct AttachmentContext<'a> {
    pub mode: PermissionMode,
    pub messages: &'a [Message],
    /// True when this request starts the handling of a human input (not a
    /// tool-loop continuation).
    pub is_human_turn: bool,
    pub agent_id: Option<&'a str>,
    /// The names of the tools this conversation offers.
    pub tools: &'a [String],
}

/// Makes a fresh provider for each new conversation that should get the
/// same context (e.g. every teammate), each with its own state.
pub type AttachmentFactory = Arc<dyn Fn() -> Arc<dyn AttachmentProvider> + Send + Sync>;

/// A source of attachments.
pub trait AttachmentProvider: Send + Sync {
    fn attachments(&self, ctx: &AttachmentContext<'_>) -> Vec<Attachment>;
    /// The model-facing body of an attachment this provider produced
    /// (wrapped in `<system-reminder>` by the engine); `None` = generic.
    fn render(&self, _attachment: &Attachment, _agent_id: Option<&str>) -> Option<String> {
        None
    }
}

/// The model-facing text of an attachment without a dedicated renderer.
pub fn render_attachment(attachment: &Attachment) -> String {
    let body = match attachment {
        Attachment::Reminder { text } => text.clone(),
        other => serde_json::to_string(other).unwrap_or_default(),
    };
    wrap(&body)
}

/// Wraps an attachment body as `<system-reminder>` content.
pub fn wrap(body: &str) -> String {
    catui_protocol::attachment::wrap_system_reminder(body)
}
