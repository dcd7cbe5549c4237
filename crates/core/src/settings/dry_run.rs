//! The `dryRun` setting: whether plan mode runs commands that are not
//! read-only in a throwaway copy of the project (see
//! `permissions::dry_run`), and how large that copy's scratch area may
//! grow.
//!
//! ```json
//! "dryRun": false
//! "dryRun": {"enabled": true, "maxScratchMiB": 4096, "maxProcesses": 2048}
//! ```

use serde::Deserialize;

use crate::permissions::dry_run::{DEFAULT_MAX_PROCESSES, DEFAULT_MAX_SCRATCH_MIB};

/// `dryRun`, merged over the layers (a later layer's field wins).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DryRunSettings {
    enabled: Option<bool>,
    max_scratch_mib: Option<u64>,
    max_processes: Option<u64>,
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

    /// `maxProcesses` (default 1024): the most processes, threads
    /// included, a dry run may have at once.
    pub fn max_processes(&self) -> u64 {
        self.max_processes.unwrap_or(DEFAULT_MAX_PROCESSES)
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
                if o.max_processes.is_some() {
                    self.max_processes = o.max_processes;
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
    #[serde(rename = "maxProcesses")]
    max_processes: Option<u64>,
}

/// Whether a project's `dryRun` value only narrows: off, or a smaller
/// scratch area or process limit than the default.
pub(super) fn narrows(value: &serde_json::Value) -> bool {
    use serde_json::Value;
    match value {
        Value::Bool(on) => !on,
        Value::Object(map) => map.iter().all(|(k, v)| match k.as_str() {
            "enabled" => v == &Value::Bool(false),
            "maxScratchMiB" => v.as_u64().is_some_and(|n| n <= DEFAULT_MAX_SCRATCH_MIB),
            "maxProcesses" => v.as_u64().is_some_and(|n| n <= DEFAULT_MAX_PROCESSES),
            _ => false,
        }),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn limits_merge_and_only_smaller_ones_narrow() {
        let mut s = DryRunSettings::default();
        assert_eq!(s.max_processes(), DEFAULT_MAX_PROCESSES);
        s.merge(serde_json::from_value(json!({"maxProcesses": 64})).unwrap());
        s.merge(serde_json::from_value(json!({"maxScratchMiB": 10})).unwrap());
        assert_eq!((s.max_processes(), s.max_scratch_mib()), (64, 10));
        assert!(s.enabled());
        assert!(narrows(&json!({"maxProcesses": 64})));
        assert!(!narrows(&json!({"maxProcesses": 100_000})));
        assert!(!narrows(&json!({"maxProcesses": "many"})));
    }
}
