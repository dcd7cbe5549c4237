//! The retry decisions of the one stream-and-retry loop every client runs
//! ([`crate::streaming`]): which failures are
//! retried (see [`ProviderError::is_retryable`]), how long to wait
//! (exponential backoff with jitter, or the server's `retry-after`, both
//! capped), announcing each retry to the front end, and giving up.

use std::time::Duration;

use catui_protocol::ModelEvent;
use rand::Rng;
use tokio_util::sync::CancellationToken;

use crate::http::Failure;
use crate::{EventSink, ProviderConfig, ProviderError};

/// The retry state of one model request, driven by
/// [`crate::streaming::stream_with_retries`]:
///
/// ```text
/// let mut retries = Retries::new(&config, sink, cancel);
/// loop {
///     match attempt().await {
///         Ok(response) => return Ok(response),
///         Err(failure) => retries.after_failure(failure).await?,
///     }
/// }
/// ```
pub(crate) struct Retries<'a> {
    config: &'a ProviderConfig,
    sink: EventSink<'a>,
    cancel: &'a CancellationToken,
    /// Number of the attempt that is running (1-based).
    attempt: u32,
}

impl<'a> Retries<'a> {
    pub fn new(
        config: &'a ProviderConfig,
        sink: EventSink<'a>,
        cancel: &'a CancellationToken,
    ) -> Retries<'a> {
        Retries {
            config,
            sink,
            cancel,
            attempt: 1,
        }
    }

    /// Decides what follows a failed attempt. `Ok(())` after waiting out
    /// the backoff: run the next attempt. `Err`: give up with this error.
    ///
    /// Before the wait the sink gets [`ModelEvent::Retrying`] whose
    /// `attempt` is the number of the attempt about to start (2 for the
    /// first retry), so front ends can drop what the failed attempt
    /// streamed. When every attempt failed the error is
    /// [`ProviderError::RetriesExhausted`] wrapping the last failure (with a
    /// single allowed attempt, the failure itself).
    pub async fn after_failure(&mut self, failure: Failure) -> Result<(), ProviderError> {
        let max_attempts = self.config.max_attempts.max(1);
        let error = failure.error;
        if matches!(error, ProviderError::Cancelled) || !error.is_retryable() {
            return Err(error);
        }
        if self.cancel.is_cancelled() {
            return Err(ProviderError::Cancelled);
        }
        if self.attempt >= max_attempts {
            if max_attempts == 1 {
                return Err(error);
            }
            return Err(ProviderError::RetriesExhausted {
                attempts: self.attempt,
                last: Box::new(error),
            });
        }
        let jitter = rand::rng().random_range(0.0..=1.0);
        let delay = backoff_delay(self.config, self.attempt, failure.retry_after, jitter);
        let reason = error.to_string();
        tracing::warn!(
            provider = self.config.kind.as_str(),
            attempt = self.attempt,
            delay_ms = delay.as_millis() as u64,
            "model request failed, retrying: {reason}"
        );
        (self.sink)(ModelEvent::Retrying {
            attempt: self.attempt + 1,
            delay_ms: delay.as_millis() as u64,
            reason,
        });
        tokio::select! {
            biased;
            _ = self.cancel.cancelled() => return Err(ProviderError::Cancelled),
            _ = tokio::time::sleep(delay) => {}
        }
        self.attempt += 1;
        Ok(())
    }
}

/// The wait after failed attempt number `failed` (1-based).
///
/// Without `retry_after`: `retry_base_delay * 2^(failed-1)`, capped at
/// `retry_max_delay`, then reduced by up to a quarter by `jitter` (0..=1) so
/// that many clients do not retry in lockstep. With `retry_after`: that
/// wait, capped at `retry_max_delay`.
pub(crate) fn backoff_delay(
    config: &ProviderConfig,
    failed: u32,
    retry_after: Option<Duration>,
    jitter: f64,
) -> Duration {
    let cap = config.retry_max_delay;
    if let Some(wait) = retry_after {
        return wait.min(cap);
    }
    let exponent = failed.saturating_sub(1).min(30);
    let raw = config
        .retry_base_delay
        .saturating_mul(1u32 << exponent)
        .min(cap);
    raw.mul_f64(1.0 - 0.25 * jitter.clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ProviderKind;

    fn config() -> ProviderConfig {
        let mut c = ProviderConfig::new(ProviderKind::Anthropic, "http://x", "k");
        c.retry_base_delay = Duration::from_millis(100);
        c.retry_max_delay = Duration::from_millis(1000);
        c
    }

    #[test]
    fn backoff_doubles_until_the_cap() {
        let c = config();
        let ms = |n| backoff_delay(&c, n, None, 0.0).as_millis();
        assert_eq!(
            [ms(1), ms(2), ms(3), ms(4), ms(5), ms(40)],
            [100, 200, 400, 800, 1000, 1000]
        );
    }

    #[test]
    fn jitter_only_shortens_by_up_to_a_quarter() {
        let c = config();
        assert_eq!(backoff_delay(&c, 2, None, 1.0), Duration::from_millis(150));
        assert_eq!(backoff_delay(&c, 2, None, 0.5), Duration::from_millis(175));
    }

    #[test]
    fn retry_after_is_honoured_but_capped() {
        let c = config();
        assert_eq!(
            backoff_delay(&c, 1, Some(Duration::from_millis(700)), 0.9),
            Duration::from_millis(700)
        );
        assert_eq!(
            backoff_delay(&c, 1, Some(Duration::from_secs(60)), 0.0),
            Duration::from_millis(1000)
        );
    }
}
