//! The `dryRun` setting: whether plan mode runs commands that are not
//! read-only in a throwaway copy of the project (see
//! `permissions::dry_run`), and how large that copy's scratch area may
//! grow.
//!
//! ```json
//! "dryRun": false
//! "dryRun": {"enabled": true, "maxScratchMiB": 4096}
//! ```

use serde::Deserialize;

use crate::permissions::dry_run::DEFAULT_MAX_SCRATCH_MIB;

/// `dryRun`, merged over the layers (a later layer's field wins).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DryRunSettings {
    enabled: Option<bool>,
    max_scratch_mib: Option<u64>,
}

impl DryRunSettings {
    /// Whether dry runs are on (the default).
    pub fn enabled(&self) -> bool {
        self.enabled.unwrap_or(true)
    }

    /// `maxScratchMiB` (default 2048).
    pub fn max_scratch_mib(&self) -> u64 {
        self.max_scratch_mib.unwrap_or(DEFAULT_MAX_SCRATCH_MIB)
    }

    /// Lays one file's value over what the earlier layers said.
    pub(super) fn merge(&mut self, raw: RawDryRun) {
        match raw {
            RawDryRun::On(on) => self.enabled = Some(on),
            RawDryRun::Options(o) => {
                if o.enabled.is_some() {
                    self.enabled = o.enabled;
                }
                if o.max_scratch_mib.is_some() {
                    self.max_scratch_mib = o.max_scratch_mib;
                }
            }
        }
    }
}

/// `dryRun` as one file writes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(
    untagged,
    expecting = "a boolean or an object like {\"enabled\": true, \"maxScratchMiB\": 2048}"
)]
pub(super) enum RawDryRun {
    On(bool),
    Options(RawDryRunOptions),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDryRunOptions {
    enabled: Option<bool>,
    #[serde(rename = "maxScratchMiB")]
    max_scratch_mib: Option<u64>,
}

/// Whether a project's `dryRun` value only narrows: off, or a smaller
/// scratch area than the default.
pub(super) fn narrows(value: &serde_json::Value) -> bool {
    use serde_json::Value;
    match value {
        Value::Bool(on) => !on,
        Value::Object(map) => map.iter().all(|(k, v)| match k.as_str() {
            "enabled" => v == &Value::Bool(false),
            "maxScratchMiB" => v.as_u64().is_some_and(|n| n <= DEFAULT_MAX_SCRATCH_MIB),
            _ => false,
        }),
        _ => false,
    }
}
