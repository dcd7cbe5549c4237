//! What the three provider clients share: their configuration, HTTP client
//! and the one URL they post to ([`Endpoint`]), the streamed request each
//! attempt starts from, and the call into the stream-and-retry loop of
//! [`crate::streaming`]. A client adds only its own headers, its body and
//! its wire format's reader.

use catui_protocol::ModelResponse;
use tokio_util::sync::CancellationToken;

use crate::http;
use crate::streaming::{self, RequestFactory, WireStream};
use crate::{EventSink, ProviderConfig, ProviderError};

/// A client's configuration, HTTP client and endpoint URL.
pub(crate) struct Endpoint {
    pub(crate) config: ProviderConfig,
    http: reqwest::Client,
    url: String,
}

impl Endpoint {
    /// For `path` below the configured base URL, which must be an http(s)
    /// URL (checked here, before any request is made).
    pub(crate) fn new(config: ProviderConfig, path: &str) -> Result<Self, ProviderError> {
        http::validate_base_url(&config)?;
        Ok(Self {
            url: http::endpoint(&config, path),
            http: http::build_client()?,
            config,
        })
    }

    /// A POST to the endpoint asking for an event stream.
    pub(crate) fn post(&self) -> reqwest::RequestBuilder {
        self.http
            .post(&self.url)
            .header("accept", "text/event-stream")
    }

    /// [`Endpoint::post`] with the key as a bearer token, when there is one
    /// (local OpenAI-compatible servers need none).
    pub(crate) fn post_with_bearer(&self) -> reqwest::RequestBuilder {
        let builder = self.post();
        if self.config.api_key.is_empty() {
            builder
        } else {
            builder.bearer_auth(&self.config.api_key)
        }
    }

    /// Streams one answer, building a fresh request with `build` for each
    /// attempt and reading it with the wire reader `W`.
    pub(crate) async fn stream<'a, W: WireStream<'a>>(
        &self,
        build: RequestFactory<'_>,
        sink: EventSink<'a>,
        cancel: &CancellationToken,
    ) -> Result<ModelResponse, ProviderError> {
        streaming::stream_with_retries::<W>(&self.config, &self.url, build, sink, cancel).await
    }
}
