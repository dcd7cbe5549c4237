//! Which MCP servers a session connects to, read from the places users put
//! them: the project's `.mcp.json`, `mcpServers` in each settings layer,
//! and `--mcp-config FILE|JSON` (repeatable; with `--strict-mcp-config`
//! only those).
//!
//! Every source has the same shape:
//!
//! ```json
//! {"mcpServers": {
//!   "fs":  {"command": "npx", "args": ["-y", "some-server"], "env": {"KEY": "${KEY}"}},
//!   "api": {"type": "http", "url": "https://example.com/mcp",
//!           "headers": {"Authorization": "Bearer ${API_TOKEN}"}}
//! }}
//! ```
//!
//! `${VAR}` and `${VAR:-default}` in commands, arguments, environment
//! values, URLs and headers are expanded from the environment when the
//! server starts, so tokens stay in the environment and never need to be
//! written to a file. A server may also say `"readOnly": {"tool": true}` to
//! override what it claims about its tools (see [`ServerSpec::read_only`]),
//! `"timeoutMs"` for its tool calls and `"startupTimeoutMs"` for its start
//! (the handshake and the first listing of its tools; the session's default
//! comes from `CATUI_MCP_TIMEOUT` or `MCP_TIMEOUT`, in milliseconds, else
//! [`DEFAULT_STARTUP_TIMEOUT`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use catui_protocol::mcp_name;
use serde_json::Value;

/// Tool calls that take longer than this fail (per server: `timeoutMs`).
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(120);

/// A server that has not finished starting after this long fails (per
/// server: `startupTimeoutMs`; per session: `CATUI_MCP_TIMEOUT` or
/// `MCP_TIMEOUT`). A run's first model request waits at most this long for
/// it.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

/// The environment variables that set the session's startup timeout in
/// milliseconds, the first set one winning (`MCP_TIMEOUT` is the name other
/// agents read, so one setting serves both).
pub const STARTUP_TIMEOUT_VARS: [&str; 2] = ["CATUI_MCP_TIMEOUT", "MCP_TIMEOUT"];

/// The session's startup timeout from the environment (`lookup`), else
/// [`DEFAULT_STARTUP_TIMEOUT`]; a value that is not a positive number of
/// milliseconds is ignored.
pub fn startup_timeout_from(lookup: &dyn Fn(&str) -> Option<String>) -> Duration {
    STARTUP_TIMEOUT_VARS
        .iter()
        .find_map(|name| lookup(name))
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|ms| *ms > 0)
        .map_or(DEFAULT_STARTUP_TIMEOUT, Duration::from_millis)
}

/// Where a server's configuration came from, which decides whether it
/// needs the user's approval before it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The user's own settings: starts without asking.
    User,
    /// A project file (`.mcp.json`, `.catui/settings*.json`): starts only
    /// once the user approved it for this project.
    Project(PathBuf),
    /// `--mcp-config`: the user asked for it on this run.
    Flag,
    /// Given by the client over the protocol (ACP `mcpServers`).
    Client,
}

impl Source {
    pub fn needs_approval(&self) -> bool {
        matches!(self, Source::Project(_))
    }

    /// A short name for status views (`project`, `user`...).
    pub fn label(&self) -> &'static str {
        match self {
            Source::User => "user",
            Source::Project(_) => "project",
            Source::Flag => "flag",
            Source::Client => "client",
        }
    }
}

/// How to reach a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A command started by catui, speaking MCP on its stdin/stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
    },
    /// Streamable HTTP.
    Http {
        url: String,
        headers: BTreeMap<String, String>,
    },
    /// A server inside the SDK application, reached over the control
    /// channel (`mcp_message`).
    Sdk,
}

/// One configured server.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerSpec {
    pub name: String,
    pub transport: Transport,
    pub source: Source,
    /// The user's word on which tools only read, over the server's own
    /// `readOnlyHint`s.
    pub read_only: BTreeMap<String, bool>,
    pub call_timeout: Duration,
    /// How long it may take to start; `None`: the session's default.
    pub startup_timeout: Option<Duration>,
}

impl ServerSpec {
    /// What an approval of this server binds: SHA-256 over what it runs
    /// (command, args and env, or URL and headers, as configured, before
    /// `${VAR}` expansion) and the project files its command line names,
    /// as they are now ([`crate::trust::files`]). Another command under
    /// the same name, or a changed script, is another server.
    pub fn approval_digest(&self, project_root: &Path) -> String {
        use sha2::{Digest, Sha256};
        let value = match &self.transport {
            Transport::Stdio { command, args, env } => {
                serde_json::json!({"command": command, "args": args, "env": env})
            }
            Transport::Http { url, headers } => serde_json::json!({"url": url, "headers": headers}),
            Transport::Sdk => serde_json::json!({"sdk": self.name}),
        };
        let mut hasher = Sha256::new();
        hasher.update(value.to_string().as_bytes());
        if let Some(files) = crate::trust::files::files_digest(project_root, "mcpServers", &value) {
            hasher.update([0]);
            hasher.update(files.as_bytes());
        }
        hasher
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// An in-process server of the SDK application named `name` (None for
    /// a name that cannot be part of tool names).
    pub fn sdk(name: &str) -> Option<ServerSpec> {
        valid_name(name).then(|| ServerSpec {
            name: name.to_string(),
            transport: Transport::Sdk,
            source: Source::Client,
            read_only: BTreeMap::new(),
            call_timeout: DEFAULT_CALL_TIMEOUT,
            startup_timeout: None,
        })
    }
}

/// A configuration that could not be used, said plainly.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("{origin}: {message}")]
    Invalid { origin: String, message: String },
}

/// Why a configuration file or value could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    #[error("{0}")]
    Unreadable(String),
    #[error("not valid JSON: {0}")]
    Json(String),
    #[error("{0} does not exist")]
    Missing(String),
    /// `${NAME}` with nothing set and no default (the value is never shown).
    #[error("the environment variable {0} is not set")]
    Unset(String),
    #[error(
        "`${{{0}}}` is catui's provider key, which reaches only catui's own model client, never an MCP server; give the server its key under another variable name"
    )]
    ProviderKey(String),
}

/// Server names become part of tool names (see [`mcp_name`]), which could
/// not be taken apart if a server's name held the separator.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !name.contains(mcp_name::SEPARATOR)
}

/// Reads the servers of one source: either `{"mcpServers": {...}}` or the
/// bare map. Each bad server is an error of its own; the others are kept.
pub fn parse_servers(
    value: &Value,
    source: &Source,
    origin: &str,
) -> (Vec<ServerSpec>, Vec<ConfigError>) {
    let bad = |message: String| ConfigError::Invalid {
        origin: origin.to_string(),
        message,
    };
    let Value::Object(map) = value.get("mcpServers").unwrap_or(value) else {
        return (
            Vec::new(),
            vec![bad("`mcpServers` must be an object".into())],
        );
    };
    let mut servers = Vec::new();
    let mut errors = Vec::new();
    for (name, entry) in map {
        match parse_server(name, entry, source) {
            Ok(spec) => servers.push(spec),
            Err(message) => errors.push(bad(format!("server `{name}`: {message}"))),
        }
    }
    (servers, errors)
}

/// Reads servers given as a list of named entries, the shape of ACP's
/// `session/new` (`[{"name", "command", "args", "env": [{"name", "value"}]}
/// | {"type": "http", "name", "url", "headers": [{"name", "value"}]}]`).
pub fn parse_list(
    list: &[Value],
    source: &Source,
    origin: &str,
) -> (Vec<ServerSpec>, Vec<ConfigError>) {
    let mut map = serde_json::Map::new();
    let mut errors = Vec::new();
    for entry in list {
        let Some(name) = entry.get("name").and_then(Value::as_str) else {
            errors.push(ConfigError::Invalid {
                origin: origin.to_string(),
                message: "a server has no `name`".into(),
            });
            continue;
        };
        let mut entry = entry.clone();
        if let Value::Object(fields) = &mut entry {
            fields.remove("name");
            for key in ["env", "headers"] {
                if let Some(Value::Array(pairs)) = fields.get(key) {
                    let object: serde_json::Map<String, Value> = pairs
                        .iter()
                        .filter_map(|p| {
                            Some((
                                p.get("name")?.as_str()?.to_string(),
                                p.get("value")?.clone(),
                            ))
                        })
                        .collect();
                    fields.insert(key.to_string(), Value::Object(object));
                }
            }
        }
        map.insert(name.to_string(), entry);
    }
    let (servers, more) = parse_servers(&Value::Object(map), source, origin);
    errors.extend(more);
    (servers, errors)
}

fn strings(value: Option<&Value>, what: &str) -> Result<Vec<String>, String> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(String::from)
                    .ok_or_else(|| format!("`{what}` must be a list of strings"))
            })
            .collect(),
        Some(_) => Err(format!("`{what}` must be a list of strings")),
    }
}

fn string_map(value: Option<&Value>, what: &str) -> Result<BTreeMap<String, String>, String> {
    match value {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                _ => Err(format!("`{what}.{k}` must be a string")),
            })
            .collect(),
        Some(_) => Err(format!("`{what}` must be an object of strings")),
    }
}

fn parse_server(name: &str, entry: &Value, source: &Source) -> Result<ServerSpec, String> {
    if !valid_name(name) {
        return Err(
            "names may use letters, digits, `-` and `_` (no `__`), up to 64 characters".into(),
        );
    }
    let Value::Object(fields) = entry else {
        return Err("must be an object".into());
    };
    let kind = fields.get("type").and_then(Value::as_str);
    let transport = match kind {
        Some("http" | "streamable-http" | "streamableHttp") => Transport::Http {
            url: fields
                .get("url")
                .and_then(Value::as_str)
                .filter(|u| !u.trim().is_empty())
                .ok_or("an http server needs a `url`")?
                .to_string(),
            headers: string_map(fields.get("headers"), "headers")?,
        },
        Some("sse") => {
            return Err("the old SSE transport is not supported; use `\"type\": \"http\"` (streamable HTTP)".into());
        }
        Some("sdk") => Transport::Sdk,
        None | Some("stdio") => Transport::Stdio {
            command: fields
                .get("command")
                .and_then(Value::as_str)
                .filter(|c| !c.trim().is_empty())
                .ok_or("a stdio server needs a `command`")?
                .to_string(),
            args: strings(fields.get("args"), "args")?,
            env: string_map(fields.get("env"), "env")?,
        },
        Some(other) => return Err(format!("unknown `type` \"{other}\" (use stdio or http)")),
    };
    let read_only = match fields.get("readOnly") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(tool, v)| {
                v.as_bool()
                    .map(|b| (tool.clone(), b))
                    .ok_or_else(|| format!("`readOnly.{tool}` must be true or false"))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("`readOnly` must be an object of tool names to true/false".into()),
    };
    let millis = |key: &str| -> Result<Option<Duration>, String> {
        match fields.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .filter(|ms| *ms > 0)
                .map(|ms| Some(Duration::from_millis(ms)))
                .ok_or_else(|| format!("`{key}` must be a positive number of milliseconds")),
        }
    };
    let call_timeout = millis("timeoutMs")?.unwrap_or(DEFAULT_CALL_TIMEOUT);
    let startup_timeout = millis("startupTimeoutMs")?;
    Ok(ServerSpec {
        name: name.to_string(),
        transport,
        source: source.clone(),
        read_only,
        call_timeout,
        startup_timeout,
    })
}

/// The most a configuration file may hold.
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// Reads a configuration file (`.mcp.json`, `--mcp-config FILE`), refusing
/// anything that is not a regular file of sane size.
pub fn read_file(path: &Path) -> Result<Option<Value>, ReadError> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ReadError::Unreadable(e.to_string())),
    };
    if !meta.is_file() {
        return Err(ReadError::Unreadable("not a regular file".into()));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(ReadError::Unreadable(format!(
            "larger than {MAX_FILE_BYTES} bytes"
        )));
    }
    let text = std::fs::read_to_string(path).map_err(|e| ReadError::Unreadable(e.to_string()))?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| ReadError::Json(e.to_string()))
}

/// What the user gave to `--mcp-config`: inline JSON, or a file.
pub fn read_flag(arg: &str, cwd: &Path) -> Result<Value, ReadError> {
    let trimmed = arg.trim_start();
    if trimmed.starts_with('{') {
        return serde_json::from_str(trimmed).map_err(|e| ReadError::Json(e.to_string()));
    }
    let path = cwd.join(arg);
    read_file(&path)?.ok_or_else(|| ReadError::Missing(path.display().to_string()))
}

/// Expands `${VAR}` and `${VAR:-default}` from `lookup`. A variable that is
/// not set and has no default is an error naming it (the value itself is
/// never shown).
pub fn expand(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, ReadError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((n, d)) => (n, Some(d)),
            None => (inner, None),
        };
        // catui's provider key reaches only catui's own model client.
        if catui_sandbox::child_env::is_provider_key(name) {
            return Err(ReadError::ProviderKey(name.to_string()));
        }
        match lookup(name).or_else(|| default.map(String::from)) {
            Some(value) => out.push_str(&value),
            None => return Err(ReadError::Unset(name.to_string())),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
