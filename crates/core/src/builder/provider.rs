//! Choosing the model provider (a client of the `catui-providers` crate),
//! model names and credentials from the command line, settings and
//! environment, and making the session's one model client (metered, with
//! the fallback model when one is given). Not
//! `plan/engine_hooks/attachment_provider.rs`, which provides plan-mode
//! context.

use std::sync::Arc;
use std::time::Duration;

use catui_providers::{
    FallbackClient, MeteredClient, ModelCatalog, ModelClient, ProviderConfig, ProviderKind,
    UsageLedger,
};

/// Looks up environment variables: settings `env` first, then the process.
pub trait EnvLookup {
    fn get(&self, name: &str) -> Option<String>;
}

impl<F: Fn(&str) -> Option<String>> EnvLookup for F {
    fn get(&self, name: &str) -> Option<String> {
        self(name).filter(|v| !v.trim().is_empty())
    }
}

/// What the user asked for.
#[derive(Debug, Default, Clone)]
pub struct ProviderChoice {
    /// `--provider`: wins outright.
    pub provider: Option<String>,
    /// The `provider` setting: gives way to a model that OpenAI serves on
    /// the other wire (see [`resolve`]).
    pub provider_setting: Option<String>,
    pub model: Option<String>,
    pub small_model: Option<String>,
    pub idle_timeout_secs: Option<u64>,
}

/// Why no provider could be chosen; each message is one line telling the
/// user what to set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderSetupError {
    /// `--provider` or the `provider` setting names no known provider.
    #[error("{0}")]
    UnknownProvider(String),
    /// No key and no base URL in the environment.
    #[error(
        "no model provider configured: set ANTHROPIC_API_KEY (Anthropic) or OPENAI_API_KEY / OPENAI_BASE_URL (OpenAI-compatible servers such as Ollama or vLLM), or try `catui demo` offline"
    )]
    NothingConfigured,
    /// Anthropic was chosen without its key.
    #[error("the anthropic provider needs an API key: set ANTHROPIC_API_KEY")]
    NoAnthropicKey,
    /// An OpenAI wire was chosen without a key or a base URL.
    #[error(
        "the {0} provider needs OPENAI_API_KEY, or OPENAI_BASE_URL for a local server (e.g. http://localhost:11434/v1)"
    )]
    NoOpenAiKey(ProviderKind),
}

/// The resolved provider and models.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub config: ProviderConfig,
    pub model: String,
    pub small_model: String,
}

/// The client every request of the session goes through (sub-agents,
/// teammates, the classifier, compaction), so that `ledger` sees them all;
/// with `fallback`, requests for the main model move to it once the main
/// model stays overloaded ([`FallbackClient`]).
pub fn session_client(
    resolved: &Resolved,
    fallback: Option<&str>,
    ledger: Arc<UsageLedger>,
) -> Result<Arc<dyn ModelClient>, super::BuildError> {
    let mut wire = catui_providers::client_for(resolved.config.clone())?;
    if let Some(fallback) = fallback.map(str::trim).filter(|f| !f.is_empty()) {
        if fallback == resolved.model {
            return Err(super::BuildError::FallbackIsMain(fallback.to_string()));
        }
        wire = Arc::new(FallbackClient::new(wire, &resolved.model, fallback));
    }
    Ok(Arc::new(MeteredClient::new(wire, ledger)))
}

/// Resolves the provider. The error is one line telling the user what to set.
///
/// The provider is `--provider`, else the `provider` setting, else
/// whichever key is set. Within OpenAI's family (one key, one base URL)
/// the main model then picks the wire unless `--provider` named it: a
/// model served only by the Responses API (built-in table) or one whose
/// settings entry names a `provider` uses that one.
pub fn resolve(
    choice: &ProviderChoice,
    env: &dyn EnvLookup,
    catalog: &ModelCatalog,
) -> Result<Resolved, ProviderSetupError> {
    let explicit = choice.provider.is_some();
    let kind = match choice
        .provider
        .as_ref()
        .or(choice.provider_setting.as_ref())
    {
        Some(p) => p
            .parse::<ProviderKind>()
            .map_err(ProviderSetupError::UnknownProvider)?,
        None => {
            if env.get("ANTHROPIC_API_KEY").is_some() {
                ProviderKind::Anthropic
            } else if env.get("OPENAI_API_KEY").is_some() || env.get("OPENAI_BASE_URL").is_some() {
                ProviderKind::OpenAi
            } else {
                return Err(ProviderSetupError::NothingConfigured);
            }
        }
    };
    let model = choice
        .model
        .clone()
        .or_else(|| env.get("CATUI_MODEL"))
        .unwrap_or_else(|| default_model(kind).to_string());
    let kind = match catalog.lookup(&model).openai_wire {
        Some(wire) if kind.is_openai_family() && !explicit => wire,
        _ => kind,
    };
    let key = env.get(kind.key_var()).unwrap_or_default();
    let base_url = env.get(kind.base_url_var());
    match kind {
        ProviderKind::Anthropic if key.is_empty() => {
            return Err(ProviderSetupError::NoAnthropicKey);
        }
        ProviderKind::OpenAi | ProviderKind::OpenAiResponses
            if key.is_empty() && base_url.is_none() =>
        {
            return Err(ProviderSetupError::NoOpenAiKey(kind));
        }
        _ => {}
    }
    let base_url = base_url.unwrap_or_else(|| kind.default_base_url().to_string());
    let mut config = ProviderConfig::new(kind, base_url, key);
    if let Some(secs) = choice.idle_timeout_secs.or_else(|| {
        env.get("CATUI_IDLE_TIMEOUT_SECS")
            .and_then(|s| s.parse().ok())
    }) {
        config.idle_timeout = Duration::from_secs(secs.max(1));
    }
    if let Some(ms) = env
        .get("CATUI_RETRY_BASE_MS")
        .and_then(|s| s.parse::<u64>().ok())
    {
        config.retry_base_delay = Duration::from_millis(ms);
        config.retry_max_delay = Duration::from_millis(ms.saturating_mul(64).max(ms));
    }
    let small_model = choice
        .small_model
        .clone()
        .or_else(|| env.get("CATUI_SMALL_MODEL"))
        .unwrap_or_else(|| match kind {
            ProviderKind::Anthropic => "claude-haiku-4-5".to_string(),
            ProviderKind::OpenAi | ProviderKind::OpenAiResponses => model.clone(),
        });
    Ok(Resolved {
        config,
        model,
        small_model,
    })
}

fn default_model(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Anthropic => "claude-sonnet-4-5",
        ProviderKind::OpenAi => "gpt-4.1",
        ProviderKind::OpenAiResponses => "gpt-5-codex",
    }
}

/// The provider stage's result: the provider and models chosen, and the
/// model catalog the session's ledger prices requests with.
pub(super) struct ProviderStage {
    pub resolved: Resolved,
    pub catalog: catui_providers::ModelCatalog,
}

/// Provider: resolves provider, model and key from the command line,
/// settings and environment, and warns when a budget cannot be kept.
pub(super) fn provider_stage(
    config: &super::SessionConfig,
    settings: &crate::settings::Settings,
    env: &dyn EnvLookup,
    warn: &super::WarningSink,
) -> Result<ProviderStage, super::BuildError> {
    let choice = ProviderChoice {
        provider: config.provider.clone(),
        provider_setting: settings.provider.clone(),
        model: config.model.clone().or_else(|| settings.model.clone()),
        small_model: config
            .small_model
            .clone()
            .or_else(|| settings.small_model.clone()),
        idle_timeout_secs: settings.idle_timeout_secs,
    };
    let mut catalog = settings.model_catalog();
    let resolved = resolve(&choice, env, &catalog).map_err(super::BuildError::Provider)?;
    if !config.reasoning.is_default() {
        catalog.set_reasoning(&resolved.model, config.reasoning);
    }
    if config.max_budget_usd.is_some() && catalog.lookup(&resolved.model).pricing.is_none() {
        warn(&format!(
            "--max-budget-usd: no price is known for model {0}, so its requests count as free; set models.\"{0}\".pricing in settings",
            resolved.model
        ));
    }
    Ok(ProviderStage { resolved, catalog })
}

/// The session's one client (metered by a ledger with the session's
/// budget, with the fallback model) and the output limit of its requests
/// (`CATUI_MAX_TOKENS`, else the provider's default).
pub(super) fn client_stage(
    config: &super::SessionConfig,
    resolved: &Resolved,
    catalog: ModelCatalog,
    env: &dyn EnvLookup,
) -> Result<(Arc<dyn ModelClient>, u32), super::BuildError> {
    let max_tokens = env
        .get("CATUI_MAX_TOKENS")
        .and_then(|v| v.parse().ok())
        .unwrap_or(match resolved.config.kind {
            ProviderKind::Anthropic => 16_384,
            ProviderKind::OpenAi => 8_192,
            // Reasoning tokens count against the output limit.
            ProviderKind::OpenAiResponses => 32_768,
        });
    // Every request of the session (sub-agents, teammates, the
    // classifier, compaction) goes through this one client, so the
    // ledger sees them all.
    let ledger = Arc::new(UsageLedger::new(catalog).with_budget(config.max_budget_usd));
    let client = session_client(resolved, config.fallback_model.as_deref(), ledger)?;
    Ok((client, max_tokens))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k: &str| map.get(k).cloned()
    }

    #[test]
    fn nothing_configured_names_both_keys() {
        let err = resolve(&ProviderChoice::default(), &env(&[]), &ModelCatalog::new())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("ANTHROPIC_API_KEY") && err.contains("OPENAI_API_KEY"),
            "{err}"
        );
        assert!(!err.contains('\n'));
    }

    #[test]
    fn picks_whichever_key_is_set() {
        let r = resolve(
            &ProviderChoice::default(),
            &env(&[("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")]),
            &ModelCatalog::new(),
        )
        .unwrap();
        assert_eq!(r.config.kind, ProviderKind::OpenAi);
        assert_eq!(r.config.base_url, "http://127.0.0.1:1/v1");
        let r = resolve(
            &ProviderChoice::default(),
            &env(&[("ANTHROPIC_API_KEY", "k"), ("OPENAI_API_KEY", "o")]),
            &ModelCatalog::new(),
        )
        .unwrap();
        assert_eq!(r.config.kind, ProviderKind::Anthropic);
        assert_eq!(r.config.base_url, "https://api.anthropic.com");
    }

    #[test]
    fn explicit_provider_without_key_is_an_error() {
        let choice = ProviderChoice {
            provider: Some("anthropic".into()),
            ..Default::default()
        };
        let err = resolve(
            &choice,
            &env(&[("OPENAI_API_KEY", "o")]),
            &ModelCatalog::new(),
        )
        .unwrap_err();
        assert_eq!(err, ProviderSetupError::NoAnthropicKey);
        assert!(err.to_string().contains("ANTHROPIC_API_KEY"));
        let choice = ProviderChoice {
            provider: Some("gemini".into()),
            ..Default::default()
        };
        assert!(
            resolve(&choice, &env(&[]), &ModelCatalog::new())
                .unwrap_err()
                .to_string()
                .contains("unknown provider")
        );
    }

    #[test]
    fn the_model_picks_openai_s_wire_unless_the_flag_names_one() {
        let e = env(&[("OPENAI_API_KEY", "o")]);
        let with_model =
            |model: &str, provider: Option<&str>, setting: Option<&str>| ProviderChoice {
                model: Some(model.into()),
                provider: provider.map(str::to_string),
                provider_setting: setting.map(str::to_string),
                ..Default::default()
            };
        let kind = |choice: ProviderChoice, catalog: &ModelCatalog| {
            resolve(&choice, &e, catalog).unwrap().config.kind
        };
        let none = ModelCatalog::new();
        assert_eq!(
            kind(with_model("gpt-5-codex", None, None), &none),
            ProviderKind::OpenAiResponses
        );
        assert_eq!(
            kind(with_model("gpt-5-codex", None, Some("openai")), &none),
            ProviderKind::OpenAiResponses,
            "the setting names the family; the model the wire"
        );
        assert_eq!(
            kind(with_model("gpt-4.1", None, None), &none),
            ProviderKind::OpenAi
        );
        assert_eq!(
            kind(with_model("gpt-5-codex", Some("openai"), None), &none),
            ProviderKind::OpenAi,
            "the flag wins"
        );
        let mut catalog = ModelCatalog::new();
        catalog.set(
            "my-local",
            catui_providers::ModelOverride {
                provider: Some("openai-responses".into()),
                ..Default::default()
            },
        );
        assert_eq!(
            kind(with_model("my-local", None, None), &catalog),
            ProviderKind::OpenAiResponses
        );
        let r = resolve(
            &ProviderChoice {
                provider: Some("openai-responses".into()),
                ..Default::default()
            },
            &e,
            &none,
        )
        .unwrap();
        assert_eq!(r.model, "gpt-5-codex");
        assert_eq!(r.config.base_url, "https://api.openai.com/v1");
        let err = resolve(
            &ProviderChoice {
                provider: Some("openai-responses".into()),
                ..Default::default()
            },
            &env(&[]),
            &none,
        )
        .unwrap_err();
        assert_eq!(
            err,
            ProviderSetupError::NoOpenAiKey(ProviderKind::OpenAiResponses)
        );
        assert!(
            err.to_string()
                .contains("openai-responses provider needs OPENAI_API_KEY"),
            "{err}"
        );
        // Anthropic keeps its models whatever their names.
        let r = resolve(
            &with_model("gpt-5-codex", Some("anthropic"), None),
            &env(&[("ANTHROPIC_API_KEY", "k")]),
            &none,
        )
        .unwrap();
        assert_eq!(r.config.kind, ProviderKind::Anthropic);
    }

    #[test]
    fn model_precedence_flag_then_env_then_default() {
        let e = env(&[("ANTHROPIC_API_KEY", "k"), ("CATUI_MODEL", "from-env")]);
        assert_eq!(
            resolve(&ProviderChoice::default(), &e, &ModelCatalog::new())
                .unwrap()
                .model,
            "from-env"
        );
        let choice = ProviderChoice {
            model: Some("flag".into()),
            ..Default::default()
        };
        assert_eq!(
            resolve(&choice, &e, &ModelCatalog::new()).unwrap().model,
            "flag"
        );
    }
}
