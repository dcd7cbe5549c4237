//! Whether telemetry is on and where it goes, from the environment:
//! `CATUI_ENABLE_TELEMETRY=1` turns it on; the standard OpenTelemetry
//! variables say where (`OTEL_EXPORTER_OTLP_ENDPOINT`, or the per-signal
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `_METRICS_ENDPOINT`), how
//! (`OTEL_EXPORTER_OTLP_PROTOCOL`: http/protobuf only), with which
//! headers (`OTEL_EXPORTER_OTLP_HEADERS`), within what time
//! (`OTEL_EXPORTER_OTLP_TIMEOUT`, ms), as whom (`OTEL_SERVICE_NAME`,
//! `OTEL_RESOURCE_ATTRIBUTES`), and whether the user's prompts go along
//! (`OTEL_LOG_USER_PROMPTS=1`).
//!
//! Header values often hold tokens: no message here ever shows one.

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use super::proto::Value;

/// Where the collector listens when nothing says (OTLP/HTTP's port).
const DEFAULT_ENDPOINT: &str = "http://localhost:4318";
/// The bound on each export and on the flush at the end.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(3);

/// How telemetry is to run.
pub struct Config {
    pub traces_url: String,
    pub metrics_url: String,
    pub headers: HeaderMap,
    pub timeout: Duration,
    pub log_prompts: bool,
    pub resource: Vec<(String, Value)>,
}

/// What the environment asks for.
pub enum Setup {
    Off,
    On(Config),
    /// Asked for but not possible: why (said once, at start).
    Refused(String),
}

fn is_on(value: Option<String>) -> bool {
    value.is_some_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "1" | "true" | "yes"))
}

/// Reads the setup through `var` (the process environment in the binary).
pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Setup {
    if !is_on(var("CATUI_ENABLE_TELEMETRY")) {
        return Setup::Off;
    }
    for name in [
        "OTEL_EXPORTER_OTLP_PROTOCOL",
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
        "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
    ] {
        if let Some(protocol) = var(name).filter(|p| p.trim() != "http/protobuf") {
            return Setup::Refused(format!(
                "telemetry is off: {name}={} is not supported; catui exports OTLP over \
                 http/protobuf only (set {name}=http/protobuf)",
                protocol.trim()
            ));
        }
    }
    let base = var("OTEL_EXPORTER_OTLP_ENDPOINT")
        .filter(|e| !e.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_ENDPOINT.to_string());
    let base = base.trim().trim_end_matches('/');
    // A per-signal endpoint is the whole URL; the base gets the signal's path.
    let url = |signal: &str, path: &str| {
        var(&format!("OTEL_EXPORTER_OTLP_{signal}_ENDPOINT"))
            .filter(|e| !e.trim().is_empty())
            .map_or_else(|| format!("{base}{path}"), |e| e.trim().to_string())
    };
    let traces_url = url("TRACES", "/v1/traces");
    let metrics_url = url("METRICS", "/v1/metrics");
    for u in [&traces_url, &metrics_url] {
        if !matches!(reqwest::Url::parse(u), Ok(p) if matches!(p.scheme(), "http" | "https")) {
            return Setup::Refused(format!(
                "telemetry is off: the OTLP endpoint is not an http(s) URL ({})",
                shown_origin(u)
            ));
        }
    }
    let headers = match headers(var("OTEL_EXPORTER_OTLP_HEADERS").as_deref().unwrap_or("")) {
        Ok(h) => h,
        Err(e) => return Setup::Refused(format!("telemetry is off: {e}")),
    };
    let timeout = var("OTEL_EXPORTER_OTLP_TIMEOUT")
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .filter(|ms| *ms > 0)
        .map_or(DEFAULT_TIMEOUT, Duration::from_millis)
        .min(DEFAULT_TIMEOUT * 10);
    Setup::On(Config {
        traces_url,
        metrics_url,
        headers,
        timeout,
        log_prompts: is_on(var("OTEL_LOG_USER_PROMPTS")),
        resource: resource(&var),
    })
}

fn percent_decode(text: &str) -> String {
    String::from_utf8_lossy(&catui_protocol::percent::decode(text)).into_owned()
}

/// `OTEL_EXPORTER_OTLP_HEADERS`: `name=value` pairs separated by commas,
/// values percent-encoded. An error names the header, never its value.
fn headers(spec: &str) -> Result<HeaderMap, String> {
    let mut map = HeaderMap::new();
    for pair in spec.split(',').filter(|p| !p.trim().is_empty()) {
        let Some((name, value)) = pair.split_once('=') else {
            return Err("OTEL_EXPORTER_OTLP_HEADERS has an entry without `=`".into());
        };
        let name = name.trim();
        let bad = || format!("OTEL_EXPORTER_OTLP_HEADERS: header `{name}` is not valid in HTTP");
        let header = HeaderName::from_bytes(name.as_bytes()).map_err(|_| bad())?;
        let value = HeaderValue::from_str(&percent_decode(value.trim())).map_err(|_| bad())?;
        map.insert(header, value);
    }
    Ok(map)
}

/// The resource: `service.name` (default `catui`), `service.version`, and
/// `OTEL_RESOURCE_ATTRIBUTES`' `key=value` pairs.
fn resource(var: &impl Fn(&str) -> Option<String>) -> Vec<(String, Value)> {
    let name = var("OTEL_SERVICE_NAME")
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| "catui".into());
    let mut attrs = vec![
        ("service.name".to_string(), Value::Str(name)),
        (
            "service.version".to_string(),
            Value::Str(env!("CARGO_PKG_VERSION").into()),
        ),
    ];
    let extra = var("OTEL_RESOURCE_ATTRIBUTES").unwrap_or_default();
    for (key, value) in extra.split(',').filter_map(|p| p.split_once('=')) {
        let key = key.trim();
        if key.is_empty() || key == "service.name" || key == "service.version" {
            continue;
        }
        attrs.push((key.to_string(), Value::Str(percent_decode(value.trim()))));
    }
    attrs
}

/// The scheme, host and port of `url`, for messages (never its path's
/// query or any credentials in it).
pub fn shown_origin(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(u) => format!(
            "{}://{}{}",
            u.scheme(),
            u.host_str().unwrap_or(""),
            u.port().map(|p| format!(":{p}")).unwrap_or_default()
        ),
        Err(_) => "unparsable".into(),
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
