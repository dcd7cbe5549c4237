//! Model clients for catui.
//!
//! One trait, [`ModelClient`], with two implementations: the Anthropic
//! Messages API ([`anthropic`]) and OpenAI-compatible Chat Completions
//! ([`openai`], which also covers Ollama, vLLM, llama.cpp and LM Studio).
//! Both stream over SSE ([`sse`]) and share the retry policy of [`retry`].
//! Messages and tools come in as `catui-protocol` types and are converted
//! to each wire format here, so the engine never sees a wire format.

pub mod anthropic;
mod assemble;
pub mod config;
pub mod error;
mod http;
pub mod openai;
pub mod retry;
pub mod sse;

use async_trait::async_trait;
use catui_protocol::{ModelEvent, ModelRequest, ModelResponse};
use tokio_util::sync::CancellationToken;

pub use config::{ProviderConfig, ProviderKind};
pub use error::ProviderError;

/// Receives streaming events while a response is produced.
pub type EventSink<'a> = &'a (dyn Fn(ModelEvent) + Send + Sync);

/// A language model that can stream a response.
#[async_trait]
pub trait ModelClient: Send + Sync {
    /// Which wire format this client speaks.
    fn kind(&self) -> ProviderKind;

    /// Sends `request` and streams the answer: deltas go to `sink` as they
    /// arrive, the assembled response is returned. Retryable failures are
    /// retried inside (each retry announced with [`ModelEvent::Retrying`]);
    /// `cancel` aborts promptly with [`ProviderError::Cancelled`].
    async fn stream(
        &self,
        request: &ModelRequest,
        sink: EventSink<'_>,
        cancel: &CancellationToken,
    ) -> Result<ModelResponse, ProviderError>;
}

/// Builds the client for a configuration.
pub fn client_for(
    config: ProviderConfig,
) -> Result<std::sync::Arc<dyn ModelClient>, ProviderError> {
    Ok(match config.kind {
        ProviderKind::Anthropic => std::sync::Arc::new(anthropic::AnthropicClient::new(config)?),
        ProviderKind::OpenAi => std::sync::Arc::new(openai::OpenAiClient::new(config)?),
    })
}
