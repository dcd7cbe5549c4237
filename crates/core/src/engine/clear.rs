//! Starting a conversation over inside one session: `/clear`, and the
//! fresh start a tool may ask for (approve-and-start-clean). Both drop the
//! messages and mark the point in the transcript, so a resume continues
//! the new conversation.

use catui_protocol::Message;

use super::{CONVERSATION_CLEARED, Engine, EngineEvent, Record};

impl Engine {
    /// `/clear`: a new conversation in the same session. The messages, the
    /// todo list and what the model has read are forgotten, the transcript
    /// marks the point (a resume starts after it), and each extension
    /// resets its own state (plan mode: a new plan slug and plan file). The
    /// permission mode stays.
    pub fn clear_conversation(&mut self) {
        self.messages.clear();
        self.tool_ctx.set_todos(Vec::new());
        crate::sync::lock(&self.tool_ctx.read_files).clear();
        self.shared.recorder.record(Record::System {
            subtype: CONVERSATION_CLEARED.to_string(),
            text: "The conversation was cleared (/clear).".to_string(),
        });
        for extension in &self.shared.extensions {
            if let Some(plan_file) = extension.conversation_cleared(self.shared.recorder.as_ref()) {
                self.shared.permissions().plan_file = Some(plan_file);
            }
        }
    }

    /// When a tool asked for a fresh start (approve-and-start-clean), drops
    /// the conversation so far and continues from the tool's prompt alone.
    /// Returns whether it did.
    pub(super) fn start_fresh_if_asked(&mut self) -> bool {
        let Some(prompt) = self.shared.take_fresh_start() else {
            return false;
        };
        self.messages.clear();
        self.shared.recorder.record(Record::System {
            subtype: CONVERSATION_CLEARED.to_string(),
            text: "The conversation was cleared to implement the approved plan.".into(),
        });
        let user = Message::user_text(prompt);
        let uuid = self.shared.recorder.record(Record::User {
            message: user.clone(),
            is_meta: false,
        });
        self.shared.emit(EngineEvent::User {
            message: user.clone(),
            uuid: uuid.unwrap_or_else(super::new_message_uuid),
            parent_tool_use_id: self.config.parent_tool_use_id.clone(),
        });
        self.messages.push(user);
        true
    }
}
