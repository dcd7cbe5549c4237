//! The one stream-and-retry loop every client runs: send the request,
//! read its SSE events into the wire format's reader until the final event,
//! and on a retryable failure wait (see [`crate::retry`]) and start again.
//! Each client only says how to build its HTTP request and how its wire's
//! events become a [`ModelResponse`] (a [`WireStream`]).

use catui_protocol::ModelResponse;
use tokio_util::sync::CancellationToken;

use crate::http::{self, Failure};
use crate::retry::Retries;
use crate::sse::{SseEvent, SseStream};
use crate::{EventSink, ProviderConfig, ProviderError};

/// A wire format's reader of one streamed answer.
pub(crate) trait WireStream<'a>: Send {
    /// A reader that reports what it assembles to `sink`.
    fn start(sink: EventSink<'a>) -> Self
    where
        Self: Sized;

    /// Takes one event; `true` when it was the answer's final event.
    fn handle(&mut self, event: &SseEvent) -> Result<bool, ProviderError>;

    /// Whether a stream that closed before its final event still holds a
    /// whole answer (some servers close without OpenAI's `[DONE]`).
    fn complete_at_close(&self) -> bool {
        false
    }

    /// The assembled answer.
    fn finish(self) -> ModelResponse;
}

/// Builds a fresh HTTP request for each attempt.
pub(crate) type RequestFactory<'r> = &'r (dyn Fn() -> reqwest::RequestBuilder + Send + Sync);

/// Streams one answer from `url`, retrying as `config` allows.
pub(crate) async fn stream_with_retries<'a, W: WireStream<'a>>(
    config: &ProviderConfig,
    url: &str,
    request: RequestFactory<'_>,
    sink: EventSink<'a>,
    cancel: &CancellationToken,
) -> Result<ModelResponse, ProviderError> {
    let mut retries = Retries::new(config, sink, cancel);
    loop {
        match attempt::<W>(config, url, request(), sink, cancel).await {
            Ok(response) => return Ok(response),
            Err(failure) => retries.after_failure(failure).await?,
        }
    }
}

/// One attempt: the request, then its events until the final one.
async fn attempt<'a, W: WireStream<'a>>(
    config: &ProviderConfig,
    url: &str,
    builder: reqwest::RequestBuilder,
    sink: EventSink<'a>,
    cancel: &CancellationToken,
) -> Result<ModelResponse, Failure> {
    let response = http::send(config, builder, url, cancel).await?;
    let mut events = SseStream::new(response, config.idle_timeout);
    let mut state = W::start(sink);
    while let Some(event) = events.next(cancel).await? {
        if state.handle(&event)? {
            return Ok(state.finish());
        }
    }
    if state.complete_at_close() {
        return Ok(state.finish());
    }
    Err(ProviderError::StreamEnded.into())
}
