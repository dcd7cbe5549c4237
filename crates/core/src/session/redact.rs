//! Keeps API keys out of transcripts: the writer passes every serialised
//! line through a [`Redactor`] that replaces known secret values with
//! `[REDACTED]`, wherever they appear (a pasted key, a tool output that
//! printed the environment, ...).

/// The text that replaces a secret.
pub const REDACTED: &str = "[REDACTED]";

/// The environment variables whose values are secrets.
pub const SECRET_ENV_VARS: [&str; 2] = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY"];

/// Values shorter than this are not treated as secrets: replacing a short
/// value like `test` everywhere would mangle ordinary text.
pub const MIN_SECRET_LEN: usize = 8;

/// Replaces secret values in text.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// Each secret as it can appear in a JSON line: raw, and JSON-escaped
    /// when escaping changes it. Longest first, so a secret that contains
    /// another is replaced whole.
    needles: Vec<String>,
}

impl Redactor {
    /// A redactor for the given secret values; values shorter than
    /// [`MIN_SECRET_LEN`] are ignored.
    pub fn new<I, S>(secrets: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut needles = Vec::new();
        for secret in secrets {
            let secret = secret.as_ref().trim();
            if secret.len() < MIN_SECRET_LEN {
                continue;
            }
            needles.push(secret.to_string());
            if let Ok(quoted) = serde_json::to_string(secret) {
                let escaped = quoted.trim_matches('"');
                if escaped != secret {
                    needles.push(escaped.to_string());
                }
            }
        }
        needles.sort_by_key(|n| std::cmp::Reverse(n.len()));
        needles.dedup();
        Self { needles }
    }

    /// A redactor for the values of [`SECRET_ENV_VARS`] as returned by
    /// `lookup` (tests pass a fake environment).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        Self::new(SECRET_ENV_VARS.iter().filter_map(|name| lookup(name)))
    }

    /// A redactor for the values of [`SECRET_ENV_VARS`] in this process's
    /// environment.
    pub fn from_env() -> Self {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// True when there is nothing to redact.
    pub fn is_empty(&self) -> bool {
        self.needles.is_empty()
    }

    /// `text` with every secret replaced by [`REDACTED`].
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        for needle in &self.needles {
            if out.contains(needle.as_str()) {
                out = out.replace(needle.as_str(), REDACTED);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_every_occurrence() {
        let r = Redactor::new(["sk-ant-0123456789"]);
        assert_eq!(
            r.redact("a sk-ant-0123456789 b sk-ant-0123456789"),
            "a [REDACTED] b [REDACTED]"
        );
    }

    #[test]
    fn short_values_are_not_secrets() {
        let r = Redactor::new(["abc", "", "1234567"]);
        assert!(r.is_empty());
        assert_eq!(r.redact("abc 1234567"), "abc 1234567");
    }

    #[test]
    fn json_escaped_form_is_redacted_too() {
        let secret = r#"key"with\quote"#;
        let r = Redactor::new([secret]);
        let line = serde_json::to_string(&serde_json::json!({ "t": secret })).unwrap();
        assert!(!r.redact(&line).contains("with"));
    }

    #[test]
    fn reads_only_the_known_variables() {
        let r = Redactor::from_lookup(|name| match name {
            "ANTHROPIC_API_KEY" => Some("anthropic-secret-1".into()),
            "OPENAI_API_KEY" => Some("short".into()),
            _ => Some("other-variable-value".into()),
        });
        assert_eq!(
            r.redact("anthropic-secret-1 short other-variable-value"),
            "[REDACTED] short other-variable-value"
        );
    }
}
