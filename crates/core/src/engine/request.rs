//! One model request of a conversation: the messages lent to the request
//! rather than copied, streamed deltas reported as events, and sending the
//! model back to work when its turn may not end yet.

use catui_protocol::{Message, ModelRequest, ToolChoice};
use catui_providers::ProviderError;
use tokio_util::sync::CancellationToken;

use super::{Engine, EngineEvent, Record};

impl Engine {
    /// Sends the model back to work with `text` after it ended its turn.
    pub(super) fn send_back(&mut self, text: String) {
        let feedback = Message::user_text(text);
        self.shared.recorder.record(Record::User {
            message: feedback.clone(),
            is_meta: true,
        });
        self.messages.push(feedback);
    }

    pub(super) async fn request(
        &mut self,
        cancel: &CancellationToken,
    ) -> Result<catui_protocol::ModelResponse, ProviderError> {
        let tools = self.tools.specs();
        let model = self.request_model();
        let mode = self.permission_mode();
        let effort = self
            .shared
            .extensions
            .iter()
            .find_map(|e| e.request_effort(self.config.agent_id.as_deref(), mode));
        // The conversation is lent to the request rather than copied (a long
        // session's copy would cost more than sending it); the guard puts it
        // back however the request ends, cancelled included.
        let lent = LentConversation::new(
            &mut self.messages,
            ModelRequest {
                model,
                system: self.config.system_prompt.clone(),
                messages: Vec::new(),
                tools,
                tool_choice: ToolChoice::Auto,
                max_tokens: self.config.max_tokens,
                temperature: None,
                // The session's client fills in each model's reasoning
                // options; an effort for this phase wins over its own.
                reasoning: catui_protocol::Reasoning {
                    effort,
                    ..Default::default()
                },
            },
        );
        let shared = self.shared.clone();
        let agent_id = self.config.agent_id.clone();
        let sink = move |event| {
            shared.emit(EngineEvent::Delta {
                agent_id: agent_id.clone(),
                event,
            })
        };
        self.client.stream(&lent.request, &sink, cancel).await
    }
}

/// A uuid for a message no transcript entry stands for (nothing is
/// recorded, or the write failed).
pub(super) fn new_message_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// A request holding the engine's conversation for as long as it lives;
/// dropping it gives the conversation back.
struct LentConversation<'a> {
    home: &'a mut Vec<Message>,
    request: ModelRequest,
}

impl<'a> LentConversation<'a> {
    fn new(home: &'a mut Vec<Message>, mut request: ModelRequest) -> Self {
        request.messages = std::mem::take(home);
        LentConversation { home, request }
    }
}

impl Drop for LentConversation<'_> {
    fn drop(&mut self) {
        *self.home = std::mem::take(&mut self.request.messages);
    }
}
