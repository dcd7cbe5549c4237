//! A manual smoke run of the full-screen interface over a real engine with
//! an offline echo model: `cargo run -p catui-tui --example smoke`.

use std::sync::Arc;

use async_trait::async_trait;
use catui_core::engine::{Conversation, Models, SessionServices};
use catui_core::permissions::PermissionContext;
use catui_core::tools::{ToolContext, ToolRegistry};
use catui_protocol::{Message, ModelEvent, ModelRequest, ModelResponse, StopReason, Usage};
use catui_providers::{EventSink, ModelClient, ProviderError, ProviderKind};
use tokio_util::sync::CancellationToken;

struct Echo;

#[async_trait]
impl ModelClient for Echo {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Anthropic
    }

    async fn stream(
        &self,
        request: &ModelRequest,
        sink: EventSink<'_>,
        cancel: &CancellationToken,
    ) -> Result<ModelResponse, ProviderError> {
        let asked = request
            .messages
            .last()
            .map(|m| m.text())
            .unwrap_or_default();
        let answer = format!("You said **{asked}**.\n\n```text\n{asked}\n```\n");
        for word in answer.split_inclusive(' ') {
            if cancel.is_cancelled() {
                return Err(ProviderError::Cancelled);
            }
            sink(ModelEvent::TextDelta {
                text: word.to_string(),
            });
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        Ok(ModelResponse {
            message: Message::assistant_text(answer),
            stop_reason: StopReason::EndTurn,
            usage: Usage {
                input_tokens: 10,
                output_tokens: 20,
                ..Usage::default()
            },
            model: None,
        })
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let (approver, approvals) = catui_tui::approver();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let cwd = std::env::current_dir()?;
    let mut services = SessionServices::new(
        "smoke",
        Arc::new(Echo),
        ToolRegistry::new(),
        Models {
            main: "echo".into(),
            small: "echo".into(),
            plan: None,
        },
        tx,
    );
    services.approver = Arc::new(approver);
    let engine = services.conversation(Conversation::new(
        String::new(),
        PermissionContext::default(),
        ToolContext::new(cwd.clone()),
    ));
    let opts = catui_tui::TuiOptions {
        model: "echo".into(),
        cwd: cwd.display().to_string(),
        session_id: "smoke".into(),
        first_prompt: std::env::args().nth(1),
        sessions_dir: None,
        auto_mode_enabled: false,
        commands: Vec::new(),
        ..Default::default()
    };
    let ending = catui_tui::run(engine, rx, approvals, opts, None, None).await?;
    std::process::exit(i32::from(ending != catui_tui::Ending::Quit));
}
