//! The `sandbox` setting: whether commands the user approved run confined
//! to the working directories, and what network they may reach.
//!
//! ```json
//! "sandbox": true
//! "sandbox": {"enabled": true, "network": "off"}
//! "sandbox": {"network": {"allowedDomains": ["crates.io", "*.crates.io"]}}
//! ```
//!
//! An object means enabled unless it says `"enabled": false`; the network
//! is `off` unless domains are listed. A project's own files (project and
//! local layers) may only narrow what the earlier layers set: switch the
//! sandbox on, cut the network, or shorten the domain list — never switch
//! it off or add a domain.

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

use crate::permissions::sandbox::SandboxNetwork;

/// `sandbox`, merged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxSettings {
    pub enabled: bool,
    pub network: SandboxNetwork,
}

/// `sandbox` as one file writes it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct RawSandbox {
    pub enabled: Option<bool>,
    pub network: Option<SandboxNetwork>,
}

const EXPECTED: &str = "a boolean or an object like {\"enabled\": true, \"network\": \"off\"} \
     (network: \"off\" or {\"allowedDomains\": [\"crates.io\"]})";

/// Reads `sandbox` (for `#[serde(deserialize_with)]`); a bad value is an
/// error at its own line.
pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<RawSandbox>, D::Error> {
    Option::<RawSandbox>::deserialize(d)
}

impl<'de> Deserialize<'de> for RawSandbox {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SandboxVisitor)
    }
}

struct SandboxVisitor;

impl<'de> Visitor<'de> for SandboxVisitor {
    type Value = RawSandbox;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(EXPECTED)
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<RawSandbox, E> {
        Ok(RawSandbox {
            enabled: Some(b),
            network: None,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawSandbox, A::Error> {
        // An object means enabled unless it says otherwise.
        let mut out = RawSandbox {
            enabled: Some(true),
            network: None,
        };
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "enabled" => out.enabled = Some(map.next_value()?),
                "network" => out.network = Some(map.next_value::<RawNetwork>()?.0),
                _ => {
                    return Err(de::Error::custom(format!(
                        "unexpected `{key}`; expected {EXPECTED}"
                    )));
                }
            }
        }
        Ok(out)
    }
}

/// `sandbox.network` as written.
struct RawNetwork(SandboxNetwork);

impl<'de> Deserialize<'de> for RawNetwork {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NetworkVisitor)
    }
}

struct NetworkVisitor;

impl<'de> Visitor<'de> for NetworkVisitor {
    type Value = RawNetwork;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("\"off\" or {\"allowedDomains\": [\"crates.io\", ...]}")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<RawNetwork, E> {
        match s {
            "off" => Ok(RawNetwork(SandboxNetwork::Off)),
            _ => Err(E::invalid_value(de::Unexpected::Str(s), &self)),
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawNetwork, A::Error> {
        let mut domains = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if key != "allowedDomains" {
                return Err(de::Error::custom(format!(
                    "unexpected `network.{key}`; expected {EXPECTED}"
                )));
            }
            for d in map.next_value::<Vec<String>>()? {
                let d = d.trim();
                if d.is_empty() {
                    return Err(de::Error::custom("an empty name in `allowedDomains`"));
                }
                domains.push(d.to_string());
            }
        }
        Ok(RawNetwork(SandboxNetwork::AllowedDomains(domains)))
    }
}

/// `raw` over what the earlier layers set; `narrow_only` for a project's
/// own files.
pub(super) fn merge(
    earlier: Option<SandboxSettings>,
    raw: RawSandbox,
    narrow_only: bool,
) -> SandboxSettings {
    let before = earlier.unwrap_or_default();
    if !narrow_only {
        return SandboxSettings {
            enabled: raw.enabled.unwrap_or(before.enabled),
            network: raw.network.unwrap_or(before.network),
        };
    }
    let enabled = before.enabled || raw.enabled == Some(true);
    let network = match (before.enabled, before.network, raw.network) {
        // Unconfined before: any confinement narrows it.
        (false, before, raw) => raw.unwrap_or(before),
        (true, before, None) => before,
        (true, SandboxNetwork::Off, Some(_)) | (true, _, Some(SandboxNetwork::Off)) => {
            SandboxNetwork::Off
        }
        (
            true,
            SandboxNetwork::AllowedDomains(had),
            Some(SandboxNetwork::AllowedDomains(asked)),
        ) => {
            SandboxNetwork::AllowedDomains(had.into_iter().filter(|d| asked.contains(d)).collect())
        }
    };
    SandboxSettings { enabled, network }
}

#[cfg(test)]
#[path = "sandbox_tests.rs"]
mod tests;
