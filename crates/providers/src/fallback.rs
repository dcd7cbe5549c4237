//! `--fallback-model` (the SDKs' `fallback_model`): when the session's main
//! model stays overloaded or unavailable after every retry of a request
//! ([`ProviderError::is_overloaded`]), the request is sent to the fallback
//! model instead, announced with [`ModelEvent::FellBack`], and the session's
//! later requests for the main model go to the fallback straight away (an
//! overload rarely clears within a run, and each failed try costs the whole
//! retry schedule). Requests for other models (the small model of Explore
//! agents, the classifier) are left alone.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use async_trait::async_trait;
use catui_protocol::{ModelEvent, ModelRequest, ModelResponse};
use tokio_util::sync::CancellationToken;

use crate::{EventSink, ModelClient, ModelInfo, ProviderError, ProviderKind, UsageLedger};

/// A client that falls back from `main` to `fallback` on overload.
pub struct FallbackClient {
    inner: Arc<dyn ModelClient>,
    main: String,
    fallback: String,
    fell_back: AtomicBool,
}

impl FallbackClient {
    pub fn new(inner: Arc<dyn ModelClient>, main: &str, fallback: &str) -> Self {
        FallbackClient {
            inner,
            main: main.to_string(),
            fallback: fallback.to_string(),
            fell_back: AtomicBool::new(false),
        }
    }

    /// Whether the session has moved to the fallback model.
    pub fn fell_back(&self) -> bool {
        self.fell_back.load(Ordering::Relaxed)
    }

    fn on_fallback(&self, request: &ModelRequest) -> ModelRequest {
        ModelRequest {
            model: self.fallback.clone(),
            ..request.clone()
        }
    }
}

#[async_trait]
impl ModelClient for FallbackClient {
    fn kind(&self) -> ProviderKind {
        self.inner.kind()
    }

    async fn stream(
        &self,
        request: &ModelRequest,
        sink: EventSink<'_>,
        cancel: &CancellationToken,
    ) -> Result<ModelResponse, ProviderError> {
        if request.model != self.main {
            return self.inner.stream(request, sink, cancel).await;
        }
        if self.fell_back() {
            return self
                .inner
                .stream(&self.on_fallback(request), sink, cancel)
                .await;
        }
        match self.inner.stream(request, sink, cancel).await {
            Err(error) if error.is_overloaded() => {
                self.fell_back.store(true, Ordering::Relaxed);
                tracing::warn!("{}: {error}; falling back to {}", self.main, self.fallback);
                sink(ModelEvent::FellBack {
                    model: self.main.clone(),
                    fallback: self.fallback.clone(),
                    reason: error.to_string(),
                });
                self.inner
                    .stream(&self.on_fallback(request), sink, cancel)
                    .await
            }
            other => other,
        }
    }

    fn ledger(&self) -> Option<&UsageLedger> {
        self.inner.ledger()
    }

    fn model_info(&self, model: &str) -> ModelInfo {
        self.inner.model_info(model)
    }
}
