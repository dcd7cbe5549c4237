//! The HTTP exchange both clients share: building the reqwest client,
//! sending a request under cancellation and the idle timeout, and turning
//! error statuses into [`ProviderError`]s with the server's own message.

use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::{ProviderConfig, ProviderError};

/// One failed attempt: the error, and how long the server asked us to wait
/// before trying again (`retry-after`), when it said so.
#[derive(Debug)]
pub(crate) struct Failure {
    pub error: ProviderError,
    pub retry_after: Option<Duration>,
}

impl From<ProviderError> for Failure {
    fn from(error: ProviderError) -> Failure {
        Failure {
            error,
            retry_after: None,
        }
    }
}

/// Longest error body we read and show: enough for any real API message.
const MAX_ERROR_BODY: usize = 2000;

pub(crate) fn build_client() -> Result<reqwest::Client, ProviderError> {
    reqwest::Client::builder()
        .user_agent(concat!("catui/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| ProviderError::Config(format!("could not set up the HTTP client: {e}")))
}

/// Checks that the base URL is an http(s) URL before any request is made.
pub(crate) fn validate_base_url(config: &ProviderConfig) -> Result<(), ProviderError> {
    let url = reqwest::Url::parse(&config.base_url).map_err(|e| {
        ProviderError::Config(format!(
            "{} '{}' is not a valid URL ({e}); expected something like {}",
            config.kind.base_url_var(),
            config.base_url,
            config.kind.default_base_url()
        ))
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ProviderError::Config(format!(
            "{} '{}' must start with http:// or https://",
            config.kind.base_url_var(),
            config.base_url
        )));
    }
    Ok(())
}

/// Sends the request and returns the response once its status is a
/// success. Waiting for the response head counts against the idle timeout.
pub(crate) async fn send(
    config: &ProviderConfig,
    builder: reqwest::RequestBuilder,
    url: &str,
    cancel: &CancellationToken,
) -> Result<reqwest::Response, Failure> {
    let response = tokio::select! {
        biased;
        _ = cancel.cancelled() => return Err(ProviderError::Cancelled.into()),
        r = tokio::time::timeout(config.idle_timeout, builder.send()) => match r {
            Err(_) => return Err(ProviderError::IdleTimeout { after: config.idle_timeout }.into()),
            Ok(Err(e)) => return Err(request_error(config, url, &e).into()),
            Ok(Ok(resp)) => resp,
        },
    };
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let retry_after = retry_after(response.headers());
    let body = tokio::select! {
        biased;
        _ = cancel.cancelled() => return Err(ProviderError::Cancelled.into()),
        r = tokio::time::timeout(config.idle_timeout, response.text()) => match r {
            Ok(Ok(text)) => text,
            // The status alone is still worth reporting.
            Ok(Err(_)) | Err(_) => String::new(),
        },
    };
    let message = redact(&error_message(&body, status), &config.api_key);
    let provider = config.kind.as_str();
    let error = match status.as_u16() {
        code @ (401 | 403) => ProviderError::Auth {
            provider,
            status: code,
            message,
            key_var: config.kind.key_var(),
        },
        code => ProviderError::Http {
            provider,
            status: code,
            message,
        },
    };
    Err(Failure { error, retry_after })
}

/// A transport error while sending: a connection problem (retryable) unless
/// the request itself could not be built.
fn request_error(config: &ProviderConfig, url: &str, e: &reqwest::Error) -> ProviderError {
    let message = redact(&error_chain(e), &config.api_key);
    if e.is_builder() {
        return ProviderError::Config(format!("could not build the request to {url}: {message}"));
    }
    ProviderError::Connection {
        url: url.to_string(),
        message,
    }
}

/// The error and its sources, e.g. "error sending request: connection refused".
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}

/// `retry-after-ms` (milliseconds) or `retry-after` (seconds, possibly
/// fractional). HTTP dates are ignored: our own backoff applies then.
fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let get = |name: &str| headers.get(name)?.to_str().ok()?.trim().parse::<f64>().ok();
    let secs = get("retry-after-ms")
        .map(|ms| ms / 1000.0)
        .or_else(|| get("retry-after"))?;
    if secs.is_finite() && secs >= 0.0 {
        Some(Duration::from_secs_f64(secs.min(24.0 * 3600.0)))
    } else {
        None
    }
}

/// The server's own error message: `{"error":{"message"}}` (both APIs),
/// `{"error":"text"}`, `{"message"}`, or the body text itself.
pub(crate) fn error_message(body: &str, status: reqwest::StatusCode) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        let err = v.get("error");
        err.and_then(|e| e.get("message"))
            .or(err.filter(|e| e.is_string()))
            .or_else(|| v.get("message"))
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    let text = from_json.unwrap_or_else(|| body.trim().to_string());
    if text.is_empty() {
        return status
            .canonical_reason()
            .unwrap_or("no error message")
            .to_string();
    }
    truncate(&text, MAX_ERROR_BODY)
}

fn truncate(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// Removes the API key from text that may echo it (some proxies do).
pub(crate) fn redact(text: &str, key: &str) -> String {
    if key.len() < 4 {
        return text.to_string();
    }
    text.replace(key, "<redacted>")
}

/// Joins the base URL and an endpoint path.
pub(crate) fn endpoint(config: &ProviderConfig, path: &str) -> String {
    format!("{}{path}", config.base_url.trim_end_matches('/'))
}

/// The start of a bad payload, for error messages.
pub(crate) fn snippet(text: &str) -> String {
    let mut end = text.len().min(120);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::StatusCode;
    use reqwest::header::{HeaderMap, HeaderValue};

    #[test]
    fn error_messages_come_from_either_body_shape() {
        let anthropic = r#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too large"}}"#;
        assert_eq!(
            error_message(anthropic, StatusCode::BAD_REQUEST),
            "max_tokens: too large"
        );
        let openai = r#"{"error":{"message":"model not found","type":"invalid_request_error"}}"#;
        assert_eq!(
            error_message(openai, StatusCode::NOT_FOUND),
            "model not found"
        );
        assert_eq!(
            error_message(
                r#"{"error":"mock script exhausted"}"#,
                StatusCode::INTERNAL_SERVER_ERROR
            ),
            "mock script exhausted"
        );
        assert_eq!(
            error_message("upstream timeout\n", StatusCode::GATEWAY_TIMEOUT),
            "upstream timeout"
        );
        assert_eq!(
            error_message("", StatusCode::TOO_MANY_REQUESTS),
            "Too Many Requests"
        );
    }

    #[test]
    fn retry_after_reads_seconds_and_milliseconds() {
        let mut h = HeaderMap::new();
        assert_eq!(retry_after(&h), None);
        h.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", HeaderValue::from_static("1500"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(1500)));
        let mut h = HeaderMap::new();
        h.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&h), None);
    }

    #[test]
    fn keys_are_redacted_and_long_bodies_cut() {
        assert_eq!(
            redact("bad key sk-abc123 given", "sk-abc123"),
            "bad key <redacted> given"
        );
        let long = "é".repeat(3000);
        let cut = truncate(&long, 2001);
        assert!(cut.len() <= 2001 + '…'.len_utf8());
        assert!(cut.ends_with('…'));
    }
}
