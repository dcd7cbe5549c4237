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

use crate::http;
use crate::streaming;
use crate::{EventSink, ModelClient, ProviderConfig, ProviderError, ProviderKind};

/// Client for the OpenAI Responses API (or a compatible server).
pub struct ResponsesClient {
    config: ProviderConfig,
    http: reqwest::Client,
    url: String,
}

impl ResponsesClient {
    /// The key may be empty (local servers need none); the base URL must
    /// be an http(s) URL.
    pub fn new(config: ProviderConfig) -> Result<Self, ProviderError> {
        http::validate_base_url(&config)?;
        Ok(Self {
            url: http::endpoint(&config, "/responses"),
            http: http::build_client()?,
            config,
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
        let build = || {
            let builder = self
                .http
                .post(&self.url)
                .header("accept", "text/event-stream")
                .json(&body);
            if self.config.api_key.is_empty() {
                builder
            } else {
                builder.bearer_auth(&self.config.api_key)
            }
        };
        streaming::stream_with_retries::<stream::StreamState<'_>>(
            &self.config,
            &self.url,
            &build,
            sink,
            cancel,
        )
        .await
    }
}
