//! Model clients for catui.
//!
//! One trait, [`ModelClient`], with three implementations: the Anthropic
//! Messages API ([`anthropic`]), OpenAI-compatible Chat Completions
//! ([`openai`], which also covers Ollama, vLLM, llama.cpp and LM Studio)
//! and the OpenAI Responses API ([`responses`]). All stream over SSE
//! ([`sse`]) and share the retry policy of [`retry`]. Messages and tools
//! come in as `catui-protocol` types and are converted to each wire format
//! here, so the engine never sees a wire format.
//!
//! What catui knows about models (context windows, prices, reasoning
//! options) is the [`catalog`]; a session counts its usage and cost in a
//! [`ledger`] by wrapping its client in a [`MeteredClient`].

pub mod anthropic;
mod assemble;
pub mod catalog;
pub mod config;
mod endpoint;
pub mod error;
pub mod fallback;
mod http;
pub mod ledger;
pub mod openai;
pub mod responses;
pub mod retry;
pub mod sse;
mod streaming;

use async_trait::async_trait;
use catui_protocol::{ModelEvent, ModelRequest, ModelResponse};
use tokio_util::sync::CancellationToken;

pub use catalog::{ModelCatalog, ModelInfo, ModelOverride, Pricing};
pub use config::{ProviderConfig, ProviderKind};
pub use error::ProviderError;
pub use fallback::FallbackClient;
pub use ledger::{BudgetExceeded, MeteredClient, UsageLedger};

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

    /// The session's usage ledger, when this client keeps one (a
    /// [`MeteredClient`]).
    fn ledger(&self) -> Option<&UsageLedger> {
        None
    }

    /// What is known about `model` (context window, prices): the built-in
    /// table, or the session's catalog with its settings for a
    /// [`MeteredClient`].
    fn model_info(&self, model: &str) -> ModelInfo {
        catalog::builtin(model)
    }
}

/// Builds the client for a configuration.
pub fn client_for(
    config: ProviderConfig,
) -> Result<std::sync::Arc<dyn ModelClient>, ProviderError> {
    Ok(match config.kind {
        ProviderKind::Anthropic => std::sync::Arc::new(anthropic::AnthropicClient::new(config)?),
        ProviderKind::OpenAi => std::sync::Arc::new(openai::OpenAiClient::new(config)?),
        ProviderKind::OpenAiResponses => {
            std::sync::Arc::new(responses::ResponsesClient::new(config)?)
        }
    })
}
