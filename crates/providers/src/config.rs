//! Provider configuration: which wire format, where, with which key.

use std::fmt;
use std::time::Duration;

/// The wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    Anthropic,
    /// OpenAI-compatible Chat Completions.
    OpenAi,
    /// The OpenAI Responses API (`/responses`): same key and base URL as
    /// [`ProviderKind::OpenAi`].
    OpenAiResponses,
}

impl ProviderKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::OpenAi => "openai",
            ProviderKind::OpenAiResponses => "openai-responses",
        }
    }

    /// The environment variable holding this provider's API key.
    pub fn key_var(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "ANTHROPIC_API_KEY",
            ProviderKind::OpenAi | ProviderKind::OpenAiResponses => "OPENAI_API_KEY",
        }
    }

    /// The environment variable holding this provider's base URL.
    pub fn base_url_var(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "ANTHROPIC_BASE_URL",
            ProviderKind::OpenAi | ProviderKind::OpenAiResponses => "OPENAI_BASE_URL",
        }
    }

    pub fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "https://api.anthropic.com",
            ProviderKind::OpenAi | ProviderKind::OpenAiResponses => "https://api.openai.com/v1",
        }
    }

    /// Whether this is one of OpenAI's wire formats (which share a key and
    /// a base URL).
    pub fn is_openai_family(self) -> bool {
        matches!(self, ProviderKind::OpenAi | ProviderKind::OpenAiResponses)
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for ProviderKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "anthropic" => Ok(ProviderKind::Anthropic),
            "openai" | "openai-compatible" | "openai-chat" => Ok(ProviderKind::OpenAi),
            "openai-responses" | "responses" => Ok(ProviderKind::OpenAiResponses),
            other => Err(format!(
                "unknown provider '{other}': expected anthropic, openai or openai-responses"
            )),
        }
    }
}

/// Everything a client needs. `Debug` never prints the key.
#[derive(Clone)]
pub struct ProviderConfig {
    pub kind: ProviderKind,
    /// Base URL without a trailing slash, e.g. `https://api.anthropic.com`
    /// or `http://localhost:11434/v1`.
    pub base_url: String,
    /// May be empty for local servers that need none (OpenAI-compatible only).
    pub api_key: String,
    /// A stream with no bytes for this long is treated as dropped.
    pub idle_timeout: Duration,
    /// Total attempts, first included (at most 8 by policy).
    pub max_attempts: u32,
    /// First retry delay; doubles each retry, with jitter.
    pub retry_base_delay: Duration,
    /// Upper bound on one retry delay.
    pub retry_max_delay: Duration,
}

impl ProviderConfig {
    pub fn new(
        kind: ProviderKind,
        base_url: impl Into<String>,
        api_key: impl Into<String>,
    ) -> Self {
        let base_url: String = base_url.into();
        Self {
            kind,
            base_url: base_url.trim_end_matches('/').to_string(),
            api_key: api_key.into(),
            idle_timeout: Duration::from_secs(300),
            max_attempts: 8,
            retry_base_delay: Duration::from_millis(500),
            retry_max_delay: Duration::from_secs(32),
        }
    }
}

impl ProviderConfig {
    /// The configuration of `kind` from the environment: its key variable
    /// (`ANTHROPIC_API_KEY` / `OPENAI_API_KEY`, empty when unset) and its
    /// base URL variable (the provider's default when unset or empty).
    pub fn from_env(kind: ProviderKind) -> Self {
        Self::from_lookup(kind, |name| std::env::var(name).ok())
    }

    /// Like [`from_env`](Self::from_env), reading variables through
    /// `lookup` (settings layers, tests).
    pub fn from_lookup(kind: ProviderKind, lookup: impl Fn(&str) -> Option<String>) -> Self {
        let get = |name: &str| {
            lookup(name)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let base_url =
            get(kind.base_url_var()).unwrap_or_else(|| kind.default_base_url().to_string());
        let api_key = get(kind.key_var()).unwrap_or_default();
        Self::new(kind, base_url, api_key)
    }
}

impl fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProviderConfig")
            .field("kind", &self.kind)
            .field("base_url", &self.base_url)
            .field(
                "api_key",
                &if self.api_key.is_empty() {
                    "<none>"
                } else {
                    "<redacted>"
                },
            )
            .field("idle_timeout", &self.idle_timeout)
            .field("max_attempts", &self.max_attempts)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_key() {
        let c = ProviderConfig::new(ProviderKind::Anthropic, "http://x/", "sk-secret-123");
        let s = format!("{c:?}");
        assert!(!s.contains("sk-secret"));
        assert_eq!(c.base_url, "http://x");
    }

    #[test]
    fn lookup_reads_key_and_base_url_with_defaults() {
        let c = ProviderConfig::from_lookup(ProviderKind::OpenAi, |name| match name {
            "OPENAI_BASE_URL" => Some("http://localhost:11434/v1/".into()),
            "OPENAI_API_KEY" => Some("  ".into()),
            _ => None,
        });
        assert_eq!(c.base_url, "http://localhost:11434/v1");
        assert_eq!(c.api_key, "");
        let c = ProviderConfig::from_lookup(ProviderKind::Anthropic, |name| {
            (name == "ANTHROPIC_API_KEY").then(|| "k".to_string())
        });
        assert_eq!(c.base_url, "https://api.anthropic.com");
        assert_eq!(c.api_key, "k");
    }
}
