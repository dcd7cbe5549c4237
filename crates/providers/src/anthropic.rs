//! Anthropic Messages API client (placeholder until implemented).
use async_trait::async_trait;
use catui_protocol::{ModelRequest, ModelResponse};
use tokio_util::sync::CancellationToken;

use crate::{EventSink, ModelClient, ProviderConfig, ProviderError, ProviderKind};

pub struct AnthropicClient {
    #[allow(dead_code)]
    config: ProviderConfig,
}

impl AnthropicClient {
    pub fn new(config: ProviderConfig) -> Result<Self, ProviderError> {
        Ok(Self { config })
    }
}

#[async_trait]
impl ModelClient for AnthropicClient {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Anthropic
    }
    async fn stream(
        &self,
        _r: &ModelRequest,
        _s: EventSink<'_>,
        _c: &CancellationToken,
    ) -> Result<ModelResponse, ProviderError> {
        Err(ProviderError::Config("not implemented".into()))
    }
}
