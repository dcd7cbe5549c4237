//! Helpers shared by the provider integration tests: configurations with
//! fast retries pointed at the mock server, a standard request, and a sink
//! that records every streamed event.
#![allow(dead_code, clippy::unwrap_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use catui_protocol::{Message, ModelEvent, ModelRequest, ToolChoice};
use catui_providers::{ProviderConfig, ProviderKind};
use catui_testkit::MockServer;

pub const KEY: &str = "sk-test-secret-key-123";

/// Every wire format.
pub const ALL_KINDS: [ProviderKind; 3] = [
    ProviderKind::Anthropic,
    ProviderKind::OpenAi,
    ProviderKind::OpenAiResponses,
];

/// A config for `kind` against `server`, with 1 ms base / 10 ms max retry delays.
pub fn config(kind: ProviderKind, server: &MockServer) -> ProviderConfig {
    let base = match kind {
        ProviderKind::Anthropic => server.url(),
        ProviderKind::OpenAi | ProviderKind::OpenAiResponses => server.openai_base_url(),
    };
    let mut c = ProviderConfig::new(kind, base, KEY);
    c.retry_base_delay = Duration::from_millis(1);
    c.retry_max_delay = Duration::from_millis(10);
    c.idle_timeout = Duration::from_secs(10);
    c
}

pub fn request(text: &str) -> ModelRequest {
    ModelRequest {
        model: "test-model".into(),
        system: "You are terse.".into(),
        messages: vec![Message::user_text(text)],
        tools: Vec::new(),
        tool_choice: ToolChoice::Auto,
        max_tokens: 1024,
        temperature: None,
        reasoning: Default::default(),
    }
}

/// Records streamed events.
#[derive(Clone, Default)]
pub struct Events(Arc<Mutex<Vec<ModelEvent>>>);

impl Events {
    pub fn sink(&self) -> impl Fn(ModelEvent) + Send + Sync + 'static {
        let events = self.0.clone();
        move |e| events.lock().unwrap().push(e)
    }

    pub fn all(&self) -> Vec<ModelEvent> {
        self.0.lock().unwrap().clone()
    }

    /// Text deltas streamed after the last `Retrying`, joined.
    pub fn text_since_last_retry(&self) -> String {
        let all = self.all();
        let start = all
            .iter()
            .rposition(|e| matches!(e, ModelEvent::Retrying { .. }))
            .map_or(0, |i| i + 1);
        all[start..]
            .iter()
            .filter_map(|e| match e {
                ModelEvent::TextDelta { text } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    pub fn text_deltas(&self) -> usize {
        self.all()
            .iter()
            .filter(|e| matches!(e, ModelEvent::TextDelta { .. }))
            .count()
    }

    /// (attempt, delay_ms) of each `Retrying` event.
    pub fn retries(&self) -> Vec<(u32, u64)> {
        self.all()
            .iter()
            .filter_map(|e| match e {
                ModelEvent::Retrying {
                    attempt, delay_ms, ..
                } => Some((*attempt, *delay_ms)),
                _ => None,
            })
            .collect()
    }
}
