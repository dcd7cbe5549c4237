//! What catui knows about models: context window, output limit, prices,
//! which OpenAI wire format serves them, whether they reason, and the
//! reasoning options to send them.
//!
//! Built-in defaults cover well-known Anthropic and OpenAI models (prices
//! in US dollars per million tokens, as published by the vendors in 2025);
//! settings override any field per model (`models` in settings.json, see
//! `docs/PROVIDERS.md`). A name is looked up without its provider prefix
//! (`openai/gpt-5` is `gpt-5`) and case; the longest matching built-in
//! prefix wins, so dated ids (`claude-sonnet-4-5-20250929`) find their
//! family.

use std::collections::BTreeMap;

use catui_protocol::{Effort, Reasoning, Thinking, ThinkingDisplay, Usage};
use serde::Deserialize;

use crate::ProviderKind;

/// Prices in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pricing {
    /// Fresh (uncached) input.
    pub input: f64,
    pub output: f64,
    /// Input read from the prompt cache.
    pub cache_read: f64,
    /// Input written to the prompt cache.
    pub cache_write: f64,
}

impl Pricing {
    /// The cost of `usage` in US dollars.
    pub fn cost(&self, usage: &Usage) -> f64 {
        let per_token = |count: u64, per_million: f64| count as f64 * per_million / 1_000_000.0;
        per_token(usage.input_tokens, self.input)
            + per_token(usage.output_tokens, self.output)
            + per_token(usage.cache_read_input_tokens, self.cache_read)
            + per_token(usage.cache_creation_input_tokens, self.cache_write)
    }
}

/// Everything known about one model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelInfo {
    /// Prompt plus answer, in tokens.
    pub context_window: Option<u64>,
    /// The most tokens one answer may have.
    pub max_output_tokens: Option<u32>,
    pub pricing: Option<Pricing>,
    /// The wire format that serves the model when the provider is
    /// OpenAI's: some models exist only on the Responses API.
    pub openai_wire: Option<ProviderKind>,
    /// An OpenAI reasoning model: its reasoning summaries are requested.
    pub reasons: bool,
    /// Reasoning options sent with every request for this model unless the
    /// request sets its own (settings, or the command line for the main
    /// model).
    pub reasoning: Reasoning,
    /// The model takes no images (settings `vision: false`): an image for
    /// it is refused with a clear error rather than sent and dropped.
    pub text_only: bool,
}

/// One row of the built-in table.
struct Builtin {
    prefix: &'static str,
    context_window: u64,
    max_output_tokens: u32,
    /// input, output, cache read, cache write ($ per million tokens).
    prices: Option<(f64, f64, f64, f64)>,
    responses_only: bool,
    reasons: bool,
}

const fn anthropic(
    prefix: &'static str,
    max_output_tokens: u32,
    input: f64,
    output: f64,
) -> Builtin {
    // Anthropic: cache reads cost a tenth of input, 5-minute cache writes
    // a quarter more than input.
    Builtin {
        prefix,
        context_window: 200_000,
        max_output_tokens,
        prices: Some((input, output, input / 10.0, input * 1.25)),
        responses_only: false,
        reasons: false,
    }
}

/// A family whose window is known but whose newer members' prices are not.
const fn family(prefix: &'static str, context_window: u64, max_output_tokens: u32) -> Builtin {
    Builtin {
        prefix,
        context_window,
        max_output_tokens,
        prices: None,
        responses_only: false,
        reasons: false,
    }
}

#[allow(clippy::too_many_arguments)]
const fn openai(
    prefix: &'static str,
    context_window: u64,
    max_output_tokens: u32,
    input: f64,
    cached: f64,
    output: f64,
    responses_only: bool,
    reasons: bool,
) -> Builtin {
    // OpenAI bills cache writes as ordinary input.
    Builtin {
        prefix,
        context_window,
        max_output_tokens,
        prices: Some((input, output, cached, input)),
        responses_only,
        reasons,
    }
}

/// The built-in table. Order does not matter: the longest prefix wins.
const BUILTIN: &[Builtin] = &[
    family("claude", 200_000, 8_192),
    anthropic("claude-opus-4-5", 64_000, 5.0, 25.0),
    anthropic("claude-opus-4-6", 128_000, 5.0, 25.0),
    anthropic("claude-opus-4-1", 32_000, 15.0, 75.0),
    anthropic("claude-opus-4-0", 32_000, 15.0, 75.0),
    anthropic("claude-opus-4-2025", 32_000, 15.0, 75.0),
    anthropic("claude-opus-4", 64_000, 5.0, 25.0),
    anthropic("claude-sonnet-4", 64_000, 3.0, 15.0),
    anthropic("claude-3-7-sonnet", 64_000, 3.0, 15.0),
    anthropic("claude-3-5-sonnet", 8_192, 3.0, 15.0),
    anthropic("claude-haiku-4", 64_000, 1.0, 5.0),
    anthropic("claude-3-5-haiku", 8_192, 0.8, 4.0),
    anthropic("claude-3-haiku", 4_096, 0.25, 1.25),
    anthropic("claude-3-opus", 4_096, 15.0, 75.0),
    openai(
        "gpt-5-codex",
        400_000,
        128_000,
        1.25,
        0.125,
        10.0,
        true,
        true,
    ),
    openai(
        "gpt-5.1-codex-mini",
        400_000,
        128_000,
        0.25,
        0.025,
        2.0,
        true,
        true,
    ),
    openai(
        "gpt-5.1-codex",
        400_000,
        128_000,
        1.25,
        0.125,
        10.0,
        true,
        true,
    ),
    openai("gpt-5-pro", 400_000, 272_000, 15.0, 15.0, 120.0, true, true),
    openai(
        "gpt-5-mini",
        400_000,
        128_000,
        0.25,
        0.025,
        2.0,
        false,
        true,
    ),
    openai(
        "gpt-5-nano",
        400_000,
        128_000,
        0.05,
        0.005,
        0.4,
        false,
        true,
    ),
    openai("gpt-5", 400_000, 128_000, 1.25, 0.125, 10.0, false, true),
    openai("codex-mini", 200_000, 100_000, 1.5, 0.375, 6.0, true, true),
    openai(
        "gpt-4.1-mini",
        1_047_576,
        32_768,
        0.4,
        0.1,
        1.6,
        false,
        false,
    ),
    openai(
        "gpt-4.1-nano",
        1_047_576,
        32_768,
        0.1,
        0.025,
        0.4,
        false,
        false,
    ),
    openai("gpt-4.1", 1_047_576, 32_768, 2.0, 0.5, 8.0, false, false),
    openai(
        "gpt-4o-mini",
        128_000,
        16_384,
        0.15,
        0.075,
        0.6,
        false,
        false,
    ),
    openai("gpt-4o", 128_000, 16_384, 2.5, 1.25, 10.0, false, false),
    openai("o1-pro", 200_000, 100_000, 150.0, 150.0, 600.0, true, true),
    openai("o1", 200_000, 100_000, 15.0, 7.5, 60.0, false, true),
    openai("o3-pro", 200_000, 100_000, 20.0, 20.0, 80.0, true, true),
    openai("o3-mini", 200_000, 100_000, 1.1, 0.55, 4.4, false, true),
    openai("o3", 200_000, 100_000, 2.0, 0.5, 8.0, false, true),
    openai("o4-mini", 200_000, 100_000, 1.1, 0.275, 4.4, false, true),
];

/// The model aliases a conversation may name instead of an id (the Agent
/// tool's `model`): the words models trained elsewhere send.
pub const MODEL_ALIASES: &[&str] = &["sonnet", "opus", "haiku"];

/// The real model id behind `alias` on a provider: `None` when `alias` is
/// not one of [`MODEL_ALIASES`].
pub fn alias_model(kind: ProviderKind, alias: &str) -> Option<&'static str> {
    let anthropic = matches!(kind, ProviderKind::Anthropic);
    Some(match alias {
        "opus" if anthropic => "claude-opus-4-5",
        "sonnet" if anthropic => "claude-sonnet-4-5",
        "haiku" if anthropic => "claude-haiku-4-5",
        "opus" | "sonnet" => "gpt-5",
        "haiku" => "gpt-5-mini",
        _ => return None,
    })
}

/// The name as looked up: without a provider prefix, lowercase.
fn normalize(model: &str) -> String {
    model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .trim()
        .to_ascii_lowercase()
}

/// The built-in knowledge of `model` (empty when it is not in the table).
pub fn builtin(model: &str) -> ModelInfo {
    let name = normalize(model);
    let Some(row) = BUILTIN
        .iter()
        .filter(|row| name.starts_with(row.prefix))
        .max_by_key(|row| row.prefix.len())
    else {
        return ModelInfo::default();
    };
    ModelInfo {
        context_window: Some(row.context_window),
        max_output_tokens: Some(row.max_output_tokens),
        pricing: row
            .prices
            .map(|(input, output, cache_read, cache_write)| Pricing {
                input,
                output,
                cache_read,
                cache_write,
            }),
        openai_wire: Some(if row.responses_only {
            ProviderKind::OpenAiResponses
        } else {
            ProviderKind::OpenAi
        })
        .filter(|_| !row.prefix.starts_with("claude")),
        reasons: row.reasons,
        reasoning: Reasoning::default(),
        text_only: false,
    }
}

/// Prices in a settings override; a missing cache price falls back to the
/// built-in one, else to the input price (no discount assumed).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PricingOverride {
    pub input: Option<f64>,
    pub output: Option<f64>,
    pub cache_read: Option<f64>,
    pub cache_write: Option<f64>,
}

/// One model's entry in settings `models`. Every field is optional and
/// replaces only what it names.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelOverride {
    pub context_window: Option<u64>,
    pub max_output_tokens: Option<u32>,
    pub pricing: Option<PricingOverride>,
    /// `openai` or `openai-responses`: which OpenAI wire format serves it.
    pub provider: Option<String>,
    pub effort: Option<Effort>,
    /// `adaptive`, `enabled` or `disabled`.
    pub thinking: Option<String>,
    pub max_thinking_tokens: Option<u32>,
    pub thinking_display: Option<ThinkingDisplay>,
    /// Whether the model takes images (default: yes). `false` for a
    /// text-only model behind an OpenAI-compatible server.
    pub vision: Option<bool>,
}

/// Extended thinking as chosen on the command line or in settings: the
/// mode (`adaptive|enabled|disabled`) and a token budget. A budget alone
/// means `enabled`; `enabled` alone uses [`DEFAULT_THINKING_BUDGET`].
pub fn thinking_from(mode: Option<&str>, budget: Option<u32>) -> Result<Option<Thinking>, String> {
    let mode = mode.map(|m| m.trim().to_ascii_lowercase());
    Ok(match (mode.as_deref(), budget) {
        (None, None) => None,
        (Some("disabled"), _) | (None, Some(0)) => Some(Thinking::Disabled),
        (Some("adaptive"), _) => Some(Thinking::Adaptive),
        (Some("enabled") | None, budget) => Some(Thinking::Enabled {
            budget_tokens: budget.unwrap_or(DEFAULT_THINKING_BUDGET),
        }),
        (Some(other), _) => {
            return Err(format!(
                "unknown thinking mode '{other}': expected adaptive, enabled or disabled"
            ));
        }
    })
}

/// The thinking budget of `--thinking enabled` without a token count.
pub const DEFAULT_THINKING_BUDGET: u32 = 31_999;

impl ModelOverride {
    /// Checks the values a type cannot: known provider and thinking names,
    /// prices and sizes that make sense. The error names the field.
    pub fn validate(&self) -> Result<(), String> {
        if let Some(p) = &self.provider {
            let kind: ProviderKind = p.parse()?;
            if !kind.is_openai_family() {
                return Err(format!(
                    "provider '{p}': a model entry may only choose openai or openai-responses"
                ));
            }
        }
        thinking_from(self.thinking.as_deref(), self.max_thinking_tokens)?;
        if let Some(pricing) = &self.pricing {
            for (name, v) in [
                ("input", pricing.input),
                ("output", pricing.output),
                ("cacheRead", pricing.cache_read),
                ("cacheWrite", pricing.cache_write),
            ] {
                if let Some(v) = v
                    && !(v.is_finite() && v >= 0.0)
                {
                    return Err(format!(
                        "pricing.{name} must be a price in dollars per million tokens, not {v}"
                    ));
                }
            }
        }
        if self.context_window == Some(0) {
            return Err("contextWindow must be more than 0".into());
        }
        Ok(())
    }

    fn apply(&self, info: &mut ModelInfo) {
        if let Some(v) = self.context_window {
            info.context_window = Some(v);
        }
        if let Some(v) = self.max_output_tokens {
            info.max_output_tokens = Some(v);
        }
        if let Some(p) = &self.pricing {
            let base = info.pricing;
            let input = p.input.or(base.map(|b| b.input));
            let output = p.output.or(base.map(|b| b.output));
            if let (Some(input), Some(output)) = (input, output) {
                info.pricing = Some(Pricing {
                    input,
                    output,
                    cache_read: p.cache_read.or(base.map(|b| b.cache_read)).unwrap_or(input),
                    cache_write: p
                        .cache_write
                        .or(base.map(|b| b.cache_write))
                        .unwrap_or(input),
                });
            }
        }
        if let Some(kind) = self.provider.as_deref().and_then(|p| p.parse().ok()) {
            info.openai_wire = Some(kind);
        }
        if let Some(vision) = self.vision {
            info.text_only = !vision;
        }
        let thinking = thinking_from(self.thinking.as_deref(), self.max_thinking_tokens)
            .ok()
            .flatten();
        info.reasoning = Reasoning {
            effort: self.effort,
            thinking,
            display: self.thinking_display,
            summaries: false,
        }
        .or(info.reasoning);
    }
}

/// The built-in table plus overrides.
#[derive(Debug, Clone, Default)]
pub struct ModelCatalog {
    /// Keys as written, lowercased: an exact model name, or a prefix
    /// ending in `*`.
    overrides: BTreeMap<String, ModelOverride>,
}

impl ModelCatalog {
    pub fn new() -> ModelCatalog {
        ModelCatalog::default()
    }

    /// Adds (or merges into) the override for `key`: a model name, or a
    /// prefix ending in `*`. Later fields win.
    pub fn set(&mut self, key: &str, entry: ModelOverride) {
        let slot = self.overrides.entry(normalize(key)).or_default();
        macro_rules! take {
            ($($field:ident),*) => {$(
                if entry.$field.is_some() {
                    slot.$field = entry.$field.clone();
                }
            )*};
        }
        take!(
            context_window,
            max_output_tokens,
            pricing,
            provider,
            effort,
            thinking,
            max_thinking_tokens,
            thinking_display,
            vision
        );
    }

    /// Sets the reasoning options sent with every request for `model`
    /// (the command line's `--effort` / `--thinking` for the main model).
    pub fn set_reasoning(&mut self, model: &str, reasoning: Reasoning) {
        let (thinking, budget) = match reasoning.thinking {
            None => (None, None),
            Some(Thinking::Disabled) => (Some("disabled".to_string()), None),
            Some(Thinking::Adaptive) => (Some("adaptive".to_string()), None),
            Some(Thinking::Enabled { budget_tokens }) => {
                (Some("enabled".to_string()), Some(budget_tokens))
            }
        };
        self.set(
            model,
            ModelOverride {
                effort: reasoning.effort,
                thinking,
                max_thinking_tokens: budget,
                thinking_display: reasoning.display,
                ..Default::default()
            },
        );
    }

    /// What is known about `model`: the built-in row, then the matching
    /// prefix overrides (shortest first), then the exact override.
    pub fn lookup(&self, model: &str) -> ModelInfo {
        let name = normalize(model);
        let mut info = builtin(&name);
        let mut prefixes: Vec<(&String, &ModelOverride)> = self
            .overrides
            .iter()
            .filter(|(key, _)| {
                key.strip_suffix('*')
                    .is_some_and(|prefix| name.starts_with(prefix))
            })
            .collect();
        prefixes.sort_by_key(|(key, _)| key.len());
        for (_, entry) in prefixes {
            entry.apply(&mut info);
        }
        if let Some(entry) = self.overrides.get(&name) {
            entry.apply(&mut info);
        }
        info
    }
}

#[cfg(test)]
#[path = "catalog_tests.rs"]
mod tests;
