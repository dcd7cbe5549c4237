//! Provider errors. Messages say what happened and what to do; they never
//! contain the API key.

use std::time::Duration;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum ProviderError {
    /// The server answered with an HTTP error status.
    #[error("{provider} API error {status}: {message}")]
    Http {
        provider: &'static str,
        status: u16,
        message: String,
    },

    /// 401/403: the key is missing, wrong or lacks access.
    #[error("{provider} API rejected the credentials ({status}): {message}. Check {key_var}.")]
    Auth {
        provider: &'static str,
        status: u16,
        message: String,
        key_var: &'static str,
    },

    /// The server reported an error inside the stream (Anthropic `error`
    /// event, or an OpenAI chunk carrying `error`).
    #[error("{provider} stream error ({kind}): {message}")]
    StreamError {
        provider: &'static str,
        kind: String,
        message: String,
    },

    #[error("could not reach {url}: {message}")]
    Connection { url: String, message: String },

    #[error("the response stream ended before the final event")]
    StreamEnded,

    #[error("no data from the model for {after:?}; the stream was abandoned")]
    IdleTimeout { after: Duration },

    #[error("the server sent data catui could not understand: {0}")]
    Malformed(String),

    #[error("the request was cancelled")]
    Cancelled,

    #[error("{last} (gave up after {attempts} attempts)")]
    RetriesExhausted {
        attempts: u32,
        last: Box<ProviderError>,
    },

    #[error("provider configuration error: {0}")]
    Config(String),
}

impl ProviderError {
    /// Whether the server refused the request because the prompt does not
    /// fit the model's context window (Anthropic "prompt is too long",
    /// OpenAI `context_length_exceeded` and its wordings). The caller can
    /// shorten the conversation and try again.
    pub fn is_context_overflow(&self) -> bool {
        match self {
            ProviderError::Http {
                status: 400 | 413,
                message,
                ..
            } => mentions_context_overflow(message),
            ProviderError::StreamError { kind, message, .. } => {
                kind == "context_length_exceeded" || mentions_context_overflow(message)
            }
            ProviderError::RetriesExhausted { last, .. } => last.is_context_overflow(),
            _ => false,
        }
    }

    /// Whether the model is overloaded or unavailable (529, 503, an
    /// `overloaded_error` in the stream), also after every retry: the case
    /// for another model (`--fallback-model`).
    pub fn is_overloaded(&self) -> bool {
        match self {
            ProviderError::Http { status, .. } => matches!(status, 503 | 529),
            ProviderError::StreamError { kind, .. } => {
                matches!(kind.as_str(), "overloaded_error" | "server_is_overloaded")
            }
            ProviderError::RetriesExhausted { last, .. } => last.is_overloaded(),
            _ => false,
        }
    }

    /// Whether another attempt may succeed: rate limits, overload, server
    /// errors, connection problems and streams that ended early.
    pub fn is_retryable(&self) -> bool {
        match self {
            ProviderError::Http { status, .. } => {
                matches!(status, 408 | 409 | 429 | 500 | 502 | 503 | 504 | 529)
            }
            ProviderError::StreamError { kind, .. } => {
                matches!(
                    kind.as_str(),
                    "overloaded_error"
                        | "api_error"
                        | "rate_limit_error"
                        | "server_error"
                        | "server_is_overloaded"
                        | "rate_limit_exceeded"
                )
            }
            ProviderError::Connection { .. }
            | ProviderError::StreamEnded
            | ProviderError::IdleTimeout { .. } => true,
            ProviderError::Auth { .. }
            | ProviderError::Malformed(_)
            | ProviderError::Cancelled
            | ProviderError::RetriesExhausted { .. }
            | ProviderError::Config(_) => false,
        }
    }
}

/// Whether an API's error text says the prompt is over the context window.
fn mentions_context_overflow(message: &str) -> bool {
    let message = message.to_ascii_lowercase();
    [
        "prompt is too long",
        "context_length_exceeded",
        "maximum context length",
        "context window",
        "too many tokens",
        "input is too long",
    ]
    .iter()
    .any(|needle| message.contains(needle))
}

#[cfg(test)]
mod tests {
    use super::ProviderError;

    fn http(status: u16, message: &str) -> ProviderError {
        ProviderError::Http {
            provider: "test",
            status,
            message: message.into(),
        }
    }

    #[test]
    fn context_overflow_is_told_apart_from_other_bad_requests() {
        assert!(
            http(400, "prompt is too long: 250000 tokens > 200000 maximum").is_context_overflow()
        );
        assert!(
            http(400, "This model's maximum context length is 128000 tokens.")
                .is_context_overflow()
        );
        assert!(
            !http(400, "messages: text content blocks must be non-empty").is_context_overflow()
        );
        assert!(!http(500, "prompt is too long").is_context_overflow());
        let wrapped = ProviderError::RetriesExhausted {
            attempts: 1,
            last: Box::new(http(
                413,
                "Your input exceeds the context window of this model.",
            )),
        };
        assert!(wrapped.is_context_overflow());
    }

    #[test]
    fn overload_is_seen_through_retries() {
        assert!(http(529, "Overloaded").is_overloaded());
        assert!(http(503, "unavailable").is_overloaded());
        assert!(!http(500, "oops").is_overloaded());
        assert!(!http(429, "slow down").is_overloaded());
        let wrapped = ProviderError::RetriesExhausted {
            attempts: 8,
            last: Box::new(ProviderError::StreamError {
                provider: "test",
                kind: "overloaded_error".into(),
                message: "Overloaded".into(),
            }),
        };
        assert!(wrapped.is_overloaded());
    }
}
