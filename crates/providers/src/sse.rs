//! The one SSE layer both clients read through: `eventsource-stream` over
//! the response bytes, with an idle timeout on the bytes themselves (no
//! bytes for [`ProviderConfig::idle_timeout`](crate::ProviderConfig) means
//! the stream is dead) and cancellation at every wait.

use std::pin::Pin;
use std::time::Duration;

use bytes::Bytes;
use eventsource_stream::{EventStreamError, Eventsource};
use futures::{Stream, StreamExt};
use tokio_util::sync::CancellationToken;

use crate::ProviderError;
use crate::http::error_chain;

/// One server-sent event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` name (`message` when the server sent none).
    pub event: String,
    pub data: String,
}

/// Why the byte stream under the SSE parser stopped.
#[derive(Debug)]
enum ByteError {
    Transport(reqwest::Error),
    Idle,
}

type Events = Pin<
    Box<dyn Stream<Item = Result<eventsource_stream::Event, EventStreamError<ByteError>>> + Send>,
>;

/// Server-sent events of one response.
pub struct SseStream {
    events: Events,
    idle: Duration,
}

impl SseStream {
    pub fn new(response: reqwest::Response, idle: Duration) -> SseStream {
        SseStream::from_bytes(response.bytes_stream(), idle)
    }

    fn from_bytes(
        bytes: impl Stream<Item = Result<Bytes, reqwest::Error>> + Send + 'static,
        idle: Duration,
    ) -> SseStream {
        let guarded =
            futures::stream::unfold((Box::pin(bytes), false), move |(mut s, done)| async move {
                if done {
                    return None;
                }
                match tokio::time::timeout(idle, s.next()).await {
                    Ok(Some(Ok(b))) => Some((Ok(b), (s, false))),
                    Ok(Some(Err(e))) => Some((Err(ByteError::Transport(e)), (s, true))),
                    Ok(None) => None,
                    Err(_) => Some((Err(ByteError::Idle), (s, true))),
                }
            });
        SseStream {
            events: Box::pin(guarded.eventsource()),
            idle,
        }
    }

    /// The next event; `Ok(None)` when the server closed the stream cleanly.
    pub async fn next(
        &mut self,
        cancel: &CancellationToken,
    ) -> Result<Option<SseEvent>, ProviderError> {
        let item = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(ProviderError::Cancelled),
            item = self.events.next() => item,
        };
        match item {
            None => Ok(None),
            Some(Ok(ev)) => Ok(Some(SseEvent {
                event: ev.event,
                data: ev.data,
            })),
            Some(Err(EventStreamError::Transport(ByteError::Idle))) => {
                Err(ProviderError::IdleTimeout { after: self.idle })
            }
            Some(Err(EventStreamError::Transport(ByteError::Transport(e)))) => {
                Err(ProviderError::Connection {
                    url: e.url().map(|u| u.to_string()).unwrap_or_default(),
                    message: format!("the connection broke mid-stream: {}", error_chain(&e)),
                })
            }
            Some(Err(EventStreamError::Utf8(e))) => Err(ProviderError::Malformed(format!(
                "the event stream is not valid UTF-8: {e}"
            ))),
            Some(Err(EventStreamError::Parser(e))) => Err(ProviderError::Malformed(format!(
                "the event stream is not valid SSE: {e}"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(
        parts: Vec<&'static str>,
    ) -> impl Stream<Item = Result<Bytes, reqwest::Error>> + Send + 'static {
        futures::stream::iter(
            parts
                .into_iter()
                .map(|p| Ok(Bytes::from_static(p.as_bytes()))),
        )
    }

    #[tokio::test]
    async fn events_split_across_chunks_are_reassembled() {
        let mut s = SseStream::from_bytes(
            chunks(vec![
                "event: ping\nda",
                "ta: {\"a\":1}\n\n",
                "data: [DONE]\n\n",
            ]),
            Duration::from_secs(5),
        );
        let cancel = CancellationToken::new();
        assert_eq!(
            s.next(&cancel).await.unwrap(),
            Some(SseEvent {
                event: "ping".into(),
                data: "{\"a\":1}".into()
            })
        );
        let done = s.next(&cancel).await.unwrap().unwrap();
        assert_eq!(
            (done.event.as_str(), done.data.as_str()),
            ("message", "[DONE]")
        );
        assert_eq!(s.next(&cancel).await.unwrap(), None);
    }

    #[tokio::test]
    async fn silence_longer_than_the_idle_timeout_is_an_error() {
        let stalled = chunks(vec!["data: 1\n\n"]).chain(futures::stream::pending());
        let mut s = SseStream::from_bytes(stalled, Duration::from_millis(20));
        let cancel = CancellationToken::new();
        assert!(s.next(&cancel).await.unwrap().is_some());
        let err = s.next(&cancel).await.unwrap_err();
        assert!(
            matches!(err, ProviderError::IdleTimeout { after } if after == Duration::from_millis(20))
        );
    }

    #[tokio::test]
    async fn cancellation_wins_over_a_stalled_stream() {
        let mut s = SseStream::from_bytes(futures::stream::pending(), Duration::from_secs(60));
        let cancel = CancellationToken::new();
        cancel.cancel();
        assert!(matches!(
            s.next(&cancel).await,
            Err(ProviderError::Cancelled)
        ));
    }
}
