//! OpenAI Responses API client (`POST {base}/responses`, streamed): the
//! wire of OpenAI's reasoning and coding models (some, such as the Codex
//! models, are served only here).
//!
//! The conversation is sent whole with every request and nothing is
//! stored on the server (`store: false`), so the reasoning items a model
//! produced come back encrypted (`include: reasoning.encrypted_content`)
//! and are sent back, in place, on later requests: the API needs them to
//! continue a reasoning model's tool calls. [`body`] builds the request,
//! [`stream`] reads the typed SSE events.

mod body;
mod stream;

use async_trait::async_trait;
use catui_protocol::{ModelRequest, ModelResponse};
use tokio_util::sync::CancellationToken;

pub(crate) use body::effort_value;
pub use body::request_body;

use crate::endpoint::Endpoint;
use crate::{EventSink, ModelClient, ProviderConfig, ProviderError, ProviderKind};

/// Client for the OpenAI Responses API (or a compatible server).
pub struct ResponsesClient {
    endpoint: Endpoint,
}

impl ResponsesClient {
    /// The key may be empty (local servers need none); the base URL must
    /// be an http(s) URL.
    pub fn new(config: ProviderConfig) -> Result<Self, ProviderError> {
        Ok(Self {
            endpoint: Endpoint::new(config, "/responses")?,
        })
    }
}

#[async_trait]
impl ModelClient for ResponsesClient {
    fn kind(&self) -> ProviderKind {
        ProviderKind::OpenAiResponses
    }

    async fn stream(
        &self,
        request: &ModelRequest,
        sink: EventSink<'_>,
        cancel: &CancellationToken,
    ) -> Result<ModelResponse, ProviderError> {
        let body = request_body(request);
        let build = || self.endpoint.post_with_bearer().json(&body);
        self.endpoint
            .stream::<stream::StreamState<'_>>(&build, sink, cancel)
            .await
    }
}
