//! One settings file: its JSON schema (every key optional, unknown keys
//! ignored), and the warnings a file can produce.
//!
//! A file is all or nothing: malformed JSON or a wrong type for a known key
//! rejects the whole file with a warning naming the path, line, column and
//! key; only a malformed permission rule is skipped on its own. Rejecting
//! never loosens permissions (see [`Fallback`]): a rejected file that is
//! valid JSON keeps its deny and ask rules, one that cannot be read or
//! parsed at all makes every tool call ask, and a malformed deny or ask
//! rule covers its whole tool.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use catui_protocol::PermissionMode;
use serde::{Deserialize, Deserializer};

use catui_providers::ModelOverride;

use super::PlanVariant;
use crate::permissions::{RuleBehavior, RuleParseError};

/// The most a settings file may hold; a larger one (or `/dev/zero`) is
/// refused instead of read.
const MAX_SETTINGS_BYTES: u64 = 4 * 1024 * 1024;

/// Something wrong with the settings; each displays as one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsWarning {
    /// The file is not valid JSON or a known key has the wrong type.
    #[error("ignored settings file {}: line {line}, column {column}: {message}{fallback}", path.display())]
    Invalid {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
        fallback: Fallback,
    },
    /// The file exists but cannot be read (or is not a regular file).
    #[error("ignored settings file {}: {message}{fallback}", path.display())]
    Unreadable {
        path: PathBuf,
        message: String,
        fallback: Fallback,
    },
    /// The file's `hooks` are malformed; none of them runs, the rest of
    /// the file applies.
    #[error("ignored the hooks in settings file {}: {message}", path.display())]
    MalformedHooks { path: PathBuf, message: String },
    /// One MCP server of the file is malformed; it is not started, the
    /// rest of the file applies.
    #[error("skipped an MCP server in settings file {}: {message}", path.display())]
    MalformedMcpServer { path: PathBuf, message: String },
    /// `--settings FILE` names a file that does not exist.
    #[error("settings file {} given with --settings does not exist", path.display())]
    MissingFlagFile { path: PathBuf },
    /// One permission rule is malformed; the rest of the file applies.
    #[error("skipped a permission rule in {}{}: {error}{fallback}", path.display(), line.map(|l| format!(" (line {l})")).unwrap_or_default())]
    MalformedRule {
        path: PathBuf,
        line: Option<usize>,
        error: RuleParseError,
        fallback: Fallback,
    },
}

impl SettingsWarning {
    /// The settings file the warning is about.
    pub fn path(&self) -> &Path {
        match self {
            SettingsWarning::Invalid { path, .. }
            | SettingsWarning::Unreadable { path, .. }
            | SettingsWarning::MissingFlagFile { path }
            | SettingsWarning::MalformedHooks { path, .. }
            | SettingsWarning::MalformedMcpServer { path, .. }
            | SettingsWarning::MalformedRule { path, .. } => path,
        }
    }
}

/// What stands in for the part of a settings file that was not applied,
/// so that a broken file never loosens permissions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fallback {
    /// Nothing restrictive was lost (no deny or ask rules; a malformed
    /// allow rule).
    Nothing,
    /// The file's deny and ask rules (this many) still apply.
    RulesKept(usize),
    /// The file's rules are unknown: every tool call asks first.
    AskEverything,
    /// A malformed deny or ask rule applies to its whole tool.
    WholeTool {
        behavior: RuleBehavior,
        tool: String,
    },
}

impl std::fmt::Display for Fallback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fallback::Nothing => Ok(()),
            Fallback::RulesKept(1) => f.write_str("; its 1 deny/ask rule still applies"),
            Fallback::RulesKept(n) => write!(f, "; its {n} deny/ask rules still apply"),
            Fallback::AskEverything => f.write_str(
                "; its deny rules are unknown, so every tool call asks first until it is fixed",
            ),
            Fallback::WholeTool {
                behavior: RuleBehavior::Deny,
                tool,
            } => write!(f, "; all of `{tool}` is denied instead"),
            Fallback::WholeTool { tool, .. } => {
                write!(f, "; every `{tool}` call asks first instead")
            }
        }
    }
}

/// The keys of one settings file, as written.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RawSettings {
    pub model: Option<String>,
    pub small_model: Option<String>,
    pub plan_model: Option<String>,
    pub plan_effort: Option<String>,
    pub completion_check: Option<String>,
    pub provider: Option<String>,
    pub permissions: Option<RawPermissions>,
    pub plans_directory: Option<String>,
    pub env: Option<BTreeMap<String, String>>,
    pub auto_mode: Option<RawAutoMode>,
    pub plan_variant: Option<PlanVariant>,
    pub plan_agents: Option<u32>,
    pub snapshot_plans: Option<bool>,
    pub file_checkpointing_enabled: Option<bool>,
    pub max_parallel_agents: Option<u32>,
    #[serde(default, deserialize_with = "super::sandbox::deserialize")]
    pub sandbox: Option<super::sandbox::RawSandbox>,
    pub idle_timeout_secs: Option<u64>,
    pub auto_compact_threshold: Option<f64>,
    pub plan_drift: Option<crate::contract::PlanDrift>,
    pub plan_goal: Option<bool>,
    pub plan_names: Option<crate::plan::files::topic::PlanNames>,
    pub teammate_plan_approver: Option<crate::plan::engine_hooks::TeammatePlanApprover>,
    pub dry_run: Option<super::dry_run::RawDryRun>,
    pub goal_max_continuations: Option<u32>,
    #[serde(default, deserialize_with = "model_entries")]
    pub models: Option<BTreeMap<String, ModelOverride>>,
    /// Read by [`crate::hooks::config`].
    pub hooks: Option<serde_json::Value>,
    /// Read by [`crate::mcp::config`].
    pub mcp_servers: Option<serde_json::Value>,
    pub enable_all_project_mcp_servers: Option<bool>,
    pub enabled_mcpjson_servers: Option<Vec<String>>,
    pub disabled_mcpjson_servers: Option<Vec<String>>,
    /// The user's own secret stores, added to the defaults.
    pub secret_paths: Option<Vec<String>>,
    /// The NATS broker (`nats://host:port`, `tls://…`).
    pub broker: Option<String>,
    /// A NATS credentials file for the broker.
    pub broker_credentials: Option<String>,
    /// Who answers prompts: `broker` sends them to the broker.
    pub approvals: Option<String>,
    pub teams: Option<RawTeams>,
    /// Variables of catui's environment passed to the children someone
    /// allowed (`NAME` or `PREFIX*`).
    pub pass_env: Option<Vec<String>>,
    /// `{"command": "…"}`: the terminal UI's status line from a command.
    pub status_line: Option<RawStatusLine>,
}

/// `statusLine`: `type` may say `command` (the form other agents write);
/// the command is what runs.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawStatusLine {
    /// Checked when read, not kept.
    #[serde(rename = "type")]
    pub _kind: Option<StatusLineKind>,
    pub command: String,
    /// Accepted for files written for other agents; catui draws its own
    /// margin.
    #[serde(rename = "padding")]
    pub _padding: Option<u32>,
}

/// The one kind of status line there is.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum StatusLineKind {
    Command,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RawTeams {
    /// Where mailboxes live: `file` (default) or `broker`.
    pub backend: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RawPermissions {
    pub allow: Option<Vec<String>>,
    pub ask: Option<Vec<String>>,
    pub deny: Option<Vec<String>>,
    pub additional_directories: Option<Vec<String>>,
    #[serde(default, deserialize_with = "mode_name")]
    pub default_mode: Option<PermissionMode>,
    #[serde(default, deserialize_with = "bypass_switch")]
    pub disable_bypass_permissions_mode: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RawAutoMode {
    pub enabled: Option<bool>,
    pub use_during_plan: Option<bool>,
    #[serde(default, deserialize_with = "positive_millis")]
    pub classifier_timeout_ms: Option<u64>,
}

/// The keys that hold objects of their own keys, and where those are
/// listed: `permissions.allow`, `autoMode.enabled`...
pub(super) const NESTED: &[&str] = &["permissions", "autoMode", "teams"];

/// Every key a settings file can set, as written (`model`,
/// `permissions.allow`, ...). Read from the schema above, so a key added
/// there is known here without a second list to keep in step.
pub(super) fn known_keys() -> Vec<String> {
    let mut keys = Vec::new();
    for &top in field_names::<RawSettings>() {
        let nested = match top {
            "permissions" => field_names::<RawPermissions>(),
            "autoMode" => field_names::<RawAutoMode>(),
            "teams" => field_names::<RawTeams>(),
            _ => {
                keys.push(top.to_string());
                continue;
            }
        };
        keys.extend(nested.iter().map(|k| format!("{top}.{k}")));
    }
    keys
}

/// The field names (as serde spells them) of a struct that derives
/// `Deserialize`, asked of the derived code itself.
fn field_names<T: serde::de::DeserializeOwned>() -> &'static [&'static str] {
    struct Fields(Option<&'static [&'static str]>);
    impl<'de> Deserializer<'de> for &mut Fields {
        type Error = serde::de::value::Error;
        fn deserialize_any<V: serde::de::Visitor<'de>>(
            self,
            _: V,
        ) -> Result<V::Value, Self::Error> {
            Err(serde::de::Error::custom("not a struct"))
        }
        fn deserialize_struct<V: serde::de::Visitor<'de>>(
            self,
            _name: &'static str,
            fields: &'static [&'static str],
            _visitor: V,
        ) -> Result<V::Value, Self::Error> {
            self.0 = Some(fields);
            Err(serde::de::Error::custom("only the field names were wanted"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct map enum identifier ignored_any
        }
    }
    let mut fields = Fields(None);
    let _ = T::deserialize(&mut fields);
    fields.0.unwrap_or(&[])
}

/// A duration in whole milliseconds that must be above zero: a zero
/// timeout would send every call to the user without asking the model,
/// which is never what someone writing the key means.
fn positive_millis<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let value: Option<serde_json::Value> = Option::deserialize(d)?;
    match value {
        None => Ok(None),
        Some(v) => match v.as_u64() {
            Some(ms) if ms > 0 => Ok(Some(ms)),
            _ => Err(serde::de::Error::custom(format!(
                "expected a positive whole number of milliseconds, got {v}"
            ))),
        },
    }
}

/// `models`: per-model overrides of the model catalog, each checked so a
/// bad price or provider name rejects the file with the entry named.
fn model_entries<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<BTreeMap<String, ModelOverride>>, D::Error> {
    let entries: Option<BTreeMap<String, ModelOverride>> = Option::deserialize(d)?;
    if let Some(entries) = &entries {
        for (name, entry) in entries {
            entry
                .validate()
                .map_err(|e| serde::de::Error::custom(format!("models.{name}: {e}")))?;
        }
    }
    Ok(entries)
}

/// `disableBypassPermissionsMode`: `"disable"` (as Claude Code writes it)
/// or `true` switch bypassPermissions off; `false` says nothing.
fn bypass_switch<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    let value: Option<serde_json::Value> = Option::deserialize(d)?;
    match value {
        None => Ok(None),
        Some(serde_json::Value::Bool(b)) => Ok(Some(b)),
        Some(serde_json::Value::String(s)) if s == "disable" => Ok(Some(true)),
        Some(v) => Err(serde::de::Error::custom(format!(
            "expected \"disable\" (or true), got {v}"
        ))),
    }
}

/// Mode names as on the command line (case-insensitive, with an error
/// that lists the valid names).
fn mode_name<'de, D: Deserializer<'de>>(d: D) -> Result<Option<PermissionMode>, D::Error> {
    let name: Option<String> = Option::deserialize(d)?;
    name.map(|n| {
        n.parse::<PermissionMode>()
            .map_err(serde::de::Error::custom)
    })
    .transpose()
}

/// Why a file was not applied.
pub(super) enum Rejected {
    /// It could not be read: its contents are unknown.
    Unreadable(String),
    /// It was read but is not valid settings.
    Invalid {
        line: usize,
        column: usize,
        message: String,
        text: String,
    },
}

/// Reads and parses one file. `Ok(None)`: the file does not exist.
pub(super) fn read(path: &Path) -> Result<Option<(RawSettings, String)>, Rejected> {
    let text = match crate::safe_fs::read_text_if_exists(path, MAX_SETTINGS_BYTES) {
        Ok(Some(t)) => t,
        Ok(None) => return Ok(None),
        Err(e) => return Err(Rejected::Unreadable(unreadable_message(&e))),
    };
    if text.trim().is_empty() {
        return Ok(Some((RawSettings::default(), text)));
    }
    match parse(&text) {
        Ok(raw) => Ok(Some((raw, text))),
        Err((line, column, message)) => Err(Rejected::Invalid {
            line,
            column,
            message,
            text,
        }),
    }
}

fn unreadable_message(e: &crate::safe_fs::SafeReadError) -> String {
    use crate::safe_fs::SafeReadError;
    match e {
        SafeReadError::Io { source, .. } => format!("cannot read it: {source}"),
        SafeReadError::NotRegular { kind, .. } => {
            format!("cannot read it: it is {kind}, not a regular file")
        }
        SafeReadError::TooLarge { size, limit, .. } => {
            format!("cannot read it: it is too large ({size} bytes; at most {limit})")
        }
    }
}

/// The deny and ask rules of a file that was rejected but is valid JSON,
/// as written; `None` when they cannot be told (not JSON, or
/// `permissions`, `deny` or `ask` of an unexpected shape).
pub(super) fn restrictive_rules(text: &str) -> Option<[(RuleBehavior, Vec<String>); 2]> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let root = value.as_object()?;
    let perms = match root.get("permissions") {
        None | Some(serde_json::Value::Null) => None,
        Some(p) => Some(p.as_object()?),
    };
    let list = |key: &str| -> Option<Vec<String>> {
        match perms.and_then(|p| p.get(key)) {
            None | Some(serde_json::Value::Null) => Some(Vec::new()),
            Some(v) => v
                .as_array()?
                .iter()
                .map(|r| r.as_str().map(str::to_string))
                .collect(),
        }
    };
    Some([
        (RuleBehavior::Deny, list("deny")?),
        (RuleBehavior::Ask, list("ask")?),
    ])
}

/// Parses settings text; the error is (line, column, message naming the
/// key when the problem is a value).
fn parse(text: &str) -> Result<RawSettings, (usize, usize, String)> {
    let mut de = serde_json::Deserializer::from_str(text);
    let result: Result<RawSettings, _> = serde_path_to_error::deserialize(&mut de);
    let raw = result.map_err(|e| {
        let key = e.path().to_string();
        let inner = e.into_inner();
        let (line, column) = (inner.line(), inner.column());
        let full = inner.to_string();
        let suffix = format!(" at line {line} column {column}");
        let message = full.strip_suffix(&suffix).unwrap_or(&full).to_string();
        let message = if key.is_empty() || key == "." || inner.is_syntax() || inner.is_eof() {
            message
        } else {
            format!("`{key}`: {message}")
        };
        (line, column, message)
    })?;
    de.end().map_err(|e| {
        (
            e.line(),
            e.column(),
            "trailing characters after the settings object".to_string(),
        )
    })?;
    Ok(raw)
}

/// The line on which `rule` is written in `text` (best effort, for
/// messages).
pub(super) fn line_of(text: &str, rule: &str) -> Option<usize> {
    let quoted = serde_json::to_string(rule).ok()?;
    let at = text.find(&quoted)?;
    Some(text[..at].lines().count().max(1) + usize::from(text[..at].ends_with('\n')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_ignored_and_known_keys_typed() {
        let raw = parse(r#"{"futureKey": {"x": 1}, "model": "m", "planVariant": "cap"}"#).unwrap();
        assert_eq!(raw.model.as_deref(), Some("m"));
        assert_eq!(raw.plan_variant, Some(PlanVariant::Cap));
    }

    #[test]
    fn type_errors_name_key_line_and_column() {
        let text = "{\n  \"permissions\": {\n    \"allow\": [\"Read\", 5]\n  }\n}";
        let (line, column, message) = parse(text).unwrap_err();
        assert_eq!(line, 3);
        assert!(column > 0);
        assert!(message.contains("`permissions.allow[1]`"), "{message}");
        assert!(message.contains("expected a string"), "{message}");
    }

    #[test]
    fn syntax_errors_have_positions() {
        let (line, _, message) = parse("{\n \"model\": \"m\",\n}").unwrap_err();
        assert_eq!(line, 3);
        assert!(message.contains("trailing comma"), "{message}");
        let (_, _, message) = parse("{} {}").unwrap_err();
        assert!(message.contains("trailing"), "{message}");
    }

    #[test]
    fn bad_mode_names_list_valid_ones() {
        let (_, _, message) = parse(r#"{"permissions": {"defaultMode": "yolo"}}"#).unwrap_err();
        assert!(
            message.contains("defaultMode") && message.contains("acceptEdits"),
            "{message}"
        );
        let raw = parse(r#"{"permissions": {"defaultMode": "acceptedits"}}"#).unwrap();
        assert_eq!(
            raw.permissions.unwrap().default_mode,
            Some(PermissionMode::AcceptEdits)
        );
    }

    #[test]
    fn classifier_timeouts_must_be_positive_whole_milliseconds() {
        let raw = parse(r#"{"autoMode": {"classifierTimeoutMs": 2500}}"#).unwrap();
        assert_eq!(raw.auto_mode.unwrap().classifier_timeout_ms, Some(2500));
        for bad in ["0", "-5", "1.5", "\"10s\"", "true"] {
            let text = format!(r#"{{"autoMode": {{"classifierTimeoutMs": {bad}}}}}"#);
            let (_, _, message) = parse(&text).unwrap_err();
            assert!(
                message.contains("`autoMode.classifierTimeoutMs`")
                    && message.contains("positive whole number of milliseconds"),
                "{bad}: {message}"
            );
        }
    }

    #[test]
    fn known_keys_come_from_the_schema() {
        let keys = known_keys();
        for key in [
            "model",
            "env",
            "hooks",
            "mcpServers",
            "permissions.allow",
            "permissions.defaultMode",
            "permissions.disableBypassPermissionsMode",
            "autoMode.classifierTimeoutMs",
        ] {
            assert!(keys.iter().any(|k| k == key), "{key} missing from {keys:?}");
        }
        assert!(!keys.iter().any(|k| k == "permissions"), "{keys:?}");
    }

    #[test]
    fn line_of_finds_rules() {
        let text = "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(x\"\n    ]\n  }\n}";
        assert_eq!(line_of(text, "Bash(x"), Some(4));
        assert_eq!(line_of(text, "absent"), None);
    }
}
