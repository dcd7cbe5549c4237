//! The attachment hook: before each model request, providers of
//! context are asked what to inject; each attachment becomes
//! `<system-reminder>` user content, is emitted as an event and stored in
//! the transcript.

use std::sync::Arc;

use catui_protocol::{Attachment, ContentBlock, Message, PermissionMode, Role};

use super::{Engine, EngineEvent, Record};

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
    /// Whether plan mode runs commands that are not read-only as dry runs
    /// in this session (the permission state's `dry_run`).
    pub dry_run: bool,
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

impl Engine {
    /// Asks the attachment providers what to inject and appends it to the
    /// last (user) message as `<system-reminder>` text.
    pub(super) fn inject_attachments(&mut self, is_human_turn: bool) {
        if self.attachment_providers.is_empty() {
            return;
        }
        let mode = self.permission_mode();
        let tools = self.tools.names();
        let ctx = AttachmentContext {
            mode,
            messages: &self.messages,
            is_human_turn,
            agent_id: self.config.agent_id.as_deref(),
            tools: &tools,
            dry_run: self.shared.permissions().dry_run,
        };
        let agent_id = self.config.agent_id.as_deref();
        let found: Vec<(Attachment, String)> = self
            .attachment_providers
            .iter()
            .flat_map(|p| {
                p.attachments(&ctx).into_iter().map(move |a| {
                    let text = p.render(&a, agent_id).map(|body| wrap(&body));
                    let text = text.unwrap_or_else(|| render_attachment(&a));
                    (a, text)
                })
            })
            .collect();
        for (attachment, text) in found {
            self.shared.recorder.record(Record::Attachment {
                attachment: attachment.clone(),
            });
            self.shared.emit(EngineEvent::Attachment(attachment));
            match self.messages.last_mut() {
                Some(last) if last.role == Role::User => {
                    last.content.push(ContentBlock::text(text))
                }
                _ => self.messages.push(Message::user_text(text)),
            }
        }
    }
}
