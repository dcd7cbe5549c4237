//! Usage and cost of a session, and the client wrapper that fills them in.
//!
//! A session wraps its provider client once in a [`MeteredClient`]; the
//! main conversation, sub-agents, teammates, the auto-mode classifier and
//! compaction all share that client, so every request is counted in the
//! one [`UsageLedger`]: tokens and cost per model (priced by the
//! [`ModelCatalog`]), time spent waiting for the model, and the spending
//! limit (`--max-budget-usd`). The wrapper also gives each request its
//! model's reasoning options from the catalog.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use catui_protocol::{ModelRequest, ModelResponse, ModelUsage, Reasoning, Thinking, Usage};
use tokio_util::sync::CancellationToken;

use crate::catalog::{ModelCatalog, ModelInfo};
use crate::{EventSink, ModelClient, ProviderError, ProviderKind};

/// The spending limit was reached.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BudgetExceeded {
    pub spent_usd: f64,
    pub limit_usd: f64,
}

#[derive(Default)]
struct Tally {
    models: BTreeMap<String, ModelUsage>,
    api_time: Duration,
}

/// What a session's model requests have used and cost so far.
pub struct UsageLedger {
    catalog: ModelCatalog,
    budget_usd: Option<f64>,
    tally: Mutex<Tally>,
}

impl std::fmt::Debug for UsageLedger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UsageLedger")
            .field("budget_usd", &self.budget_usd)
            .field("total_cost_usd", &self.total_cost_usd())
            .finish_non_exhaustive()
    }
}

impl UsageLedger {
    pub fn new(catalog: ModelCatalog) -> UsageLedger {
        UsageLedger {
            catalog,
            budget_usd: None,
            tally: Mutex::new(Tally::default()),
        }
    }

    /// Sets the spending limit in US dollars.
    pub fn with_budget(mut self, usd: Option<f64>) -> UsageLedger {
        self.budget_usd = usd;
        self
    }

    pub fn catalog(&self) -> &ModelCatalog {
        &self.catalog
    }

    pub fn budget_usd(&self) -> Option<f64> {
        self.budget_usd
    }

    fn tally(&self) -> MutexGuard<'_, Tally> {
        // A poisoned lock only means a panic elsewhere mid-update of plain
        // counters; they are still the best figures there are.
        catui_protocol::sync::lock(&self.tally)
    }

    /// Counts one answered request for `model`.
    pub fn record(&self, model: &str, usage: &Usage, api_time: Duration) {
        let info = self.catalog.lookup(model);
        let cost = info.pricing.map(|p| p.cost(usage)).unwrap_or(0.0);
        let mut tally = self.tally();
        tally.api_time += api_time;
        let entry = tally.models.entry(model.to_string()).or_default();
        entry.input_tokens += usage.input_tokens;
        entry.output_tokens += usage.output_tokens;
        entry.cache_read_input_tokens += usage.cache_read_input_tokens;
        entry.cache_creation_input_tokens += usage.cache_creation_input_tokens;
        entry.cost_usd += cost;
        entry.context_window = info.context_window.unwrap_or(0);
        entry.requests += 1;
    }

    /// Counts time spent on a request that failed (it has no usage).
    pub fn record_failure(&self, api_time: Duration) {
        self.tally().api_time += api_time;
    }

    /// Usage and cost per model, by model name.
    pub fn models(&self) -> BTreeMap<String, ModelUsage> {
        self.tally().models.clone()
    }

    /// Tokens of every model together.
    pub fn total_usage(&self) -> Usage {
        let mut total = Usage::default();
        for m in self.tally().models.values() {
            total.add(&m.usage());
        }
        total
    }

    /// The session's cost in US dollars (models without a price count 0).
    pub fn total_cost_usd(&self) -> f64 {
        self.tally().models.values().map(|m| m.cost_usd).sum()
    }

    /// Time spent waiting for model answers, retries included.
    pub fn api_time(&self) -> Duration {
        self.tally().api_time
    }

    /// The models used that have no price (they count as free).
    pub fn unpriced_models(&self) -> Vec<String> {
        self.tally()
            .models
            .keys()
            .filter(|m| self.catalog.lookup(m).pricing.is_none())
            .cloned()
            .collect()
    }

    /// `Some` once the session has spent its limit.
    pub fn budget_exceeded(&self) -> Option<BudgetExceeded> {
        let limit_usd = self.budget_usd?;
        let spent_usd = self.total_cost_usd();
        (spent_usd >= limit_usd).then_some(BudgetExceeded {
            spent_usd,
            limit_usd,
        })
    }
}

/// A provider client whose requests are completed from the catalog and
/// counted in a ledger. See the module documentation.
pub struct MeteredClient {
    inner: Arc<dyn ModelClient>,
    ledger: Arc<UsageLedger>,
}

impl MeteredClient {
    pub fn new(inner: Arc<dyn ModelClient>, ledger: Arc<UsageLedger>) -> MeteredClient {
        MeteredClient { inner, ledger }
    }
}

/// `request` with its model's catalog options applied: reasoning options
/// the request leaves unset, reasoning summaries for reasoning models, and
/// room in `max_tokens` for a thinking budget (within the model's output
/// limit).
pub fn prepare(request: &ModelRequest, info: &ModelInfo) -> ModelRequest {
    let (reasoning, max_tokens) = prepared_options(request, info);
    ModelRequest {
        reasoning,
        max_tokens,
        ..request.clone()
    }
}

/// What [`prepare`] sets: the reasoning options and `max_tokens`.
fn prepared_options(request: &ModelRequest, info: &ModelInfo) -> (Reasoning, u32) {
    let mut reasoning = request.reasoning.or(info.reasoning);
    if info.reasons {
        reasoning.summaries = true;
    }
    let mut max_tokens = request.max_tokens;
    if let Some(Thinking::Enabled { budget_tokens }) = reasoning.thinking {
        // Room for the answer after the thinking.
        // Raised for the budget, never beyond what the model can answer,
        // never lowered.
        let wanted = budget_tokens.saturating_add(ANSWER_ROOM);
        let cap = info.max_output_tokens.unwrap_or(u32::MAX);
        max_tokens = max_tokens.max(wanted.min(cap));
    }
    (reasoning, max_tokens)
}

/// Output tokens kept for the answer when a thinking budget raises
/// `max_tokens`.
const ANSWER_ROOM: u32 = 4_096;

#[async_trait]
impl ModelClient for MeteredClient {
    fn kind(&self) -> ProviderKind {
        self.inner.kind()
    }

    async fn stream(
        &self,
        request: &ModelRequest,
        sink: EventSink<'_>,
        cancel: &CancellationToken,
    ) -> Result<ModelResponse, ProviderError> {
        // The conversation is copied only when an option has to change.
        let info = self.ledger.catalog.lookup(&request.model);
        let options = prepared_options(request, &info);
        let prepared =
            (options != (request.reasoning, request.max_tokens)).then(|| prepare(request, &info));
        let request = prepared.as_ref().unwrap_or(request);
        let started = Instant::now();
        let result = self.inner.stream(request, sink, cancel).await;
        match &result {
            Ok(response) => self
                .ledger
                .record(&request.model, &response.usage, started.elapsed()),
            Err(_) => self.ledger.record_failure(started.elapsed()),
        }
        result
    }

    fn ledger(&self) -> Option<&UsageLedger> {
        Some(&self.ledger)
    }

    fn model_info(&self, model: &str) -> ModelInfo {
        self.ledger.catalog.lookup(model)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{ModelOverride, PricingOverride};
    use catui_protocol::{Effort, Reasoning};

    fn request(model: &str, max_tokens: u32) -> ModelRequest {
        ModelRequest {
            model: model.into(),
            system: String::new(),
            messages: Vec::new(),
            tools: Vec::new(),
            tool_choice: Default::default(),
            max_tokens,
            temperature: None,
            reasoning: Reasoning::default(),
        }
    }

    #[test]
    fn the_ledger_prices_each_model_and_checks_the_budget() {
        let mut catalog = ModelCatalog::new();
        catalog.set(
            "local",
            ModelOverride {
                pricing: Some(PricingOverride {
                    input: Some(1.0),
                    output: Some(2.0),
                    ..Default::default()
                }),
                ..Default::default()
            },
        );
        let ledger = UsageLedger::new(catalog).with_budget(Some(3.0));
        let usage = Usage {
            input_tokens: 1_000_000,
            output_tokens: 500_000,
            ..Default::default()
        };
        ledger.record("local", &usage, Duration::from_millis(5));
        assert!(ledger.budget_exceeded().is_none());
        ledger.record("free-model", &usage, Duration::from_millis(5));
        assert_eq!(ledger.unpriced_models(), vec!["free-model".to_string()]);
        ledger.record("local", &usage, Duration::from_millis(5));
        let over = ledger.budget_exceeded().unwrap();
        assert!((over.spent_usd - 4.0).abs() < 1e-9);
        assert_eq!(over.limit_usd, 3.0);
        let models = ledger.models();
        assert_eq!(models["local"].requests, 2);
        assert_eq!(models["local"].input_tokens, 2_000_000);
        assert_eq!(models["free-model"].cost_usd, 0.0);
        assert_eq!(ledger.total_usage().output_tokens, 1_500_000);
        assert_eq!(ledger.api_time(), Duration::from_millis(15));
    }

    #[test]
    fn prepare_fills_reasoning_and_makes_room_for_thinking() {
        let mut catalog = ModelCatalog::new();
        catalog.set_reasoning(
            "claude-opus-4-1",
            Reasoning {
                thinking: Some(Thinking::Enabled {
                    budget_tokens: 31_999,
                }),
                ..Default::default()
            },
        );
        let info = catalog.lookup("claude-opus-4-1");
        let r = prepare(&request("claude-opus-4-1", 16_384), &info);
        // Opus 4.1 answers at most 32k tokens.
        assert_eq!(r.max_tokens, 32_000);
        let r = prepare(&request("claude-sonnet-4-5", 100), &catalog.lookup("x"));
        assert_eq!(r.max_tokens, 100);
        assert!(r.reasoning.is_default());

        // A reasoning model asks for summaries; a request's own effort wins.
        let mut req = request("gpt-5", 1000);
        req.reasoning.effort = Some(Effort::Minimal);
        catalog.set_reasoning(
            "gpt-5",
            Reasoning {
                effort: Some(Effort::High),
                ..Default::default()
            },
        );
        let r = prepare(&req, &catalog.lookup("gpt-5"));
        assert!(r.reasoning.summaries);
        assert_eq!(r.reasoning.effort, Some(Effort::Minimal));
    }
}
