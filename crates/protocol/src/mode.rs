//! Permission modes and their wire names.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// How tool calls are approved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PermissionMode {
    /// Reads run; writes and non-read-only shell commands ask.
    #[default]
    Default,
    /// File edits inside the working directories run without asking.
    AcceptEdits,
    /// Read-only planning: only the plan file may be written.
    Plan,
    /// Everything runs except what deny rules forbid.
    BypassPermissions,
    /// A classifier decides instead of asking (opt-in).
    Auto,
}

impl PermissionMode {
    pub const ALL: [PermissionMode; 5] = [
        PermissionMode::Default,
        PermissionMode::AcceptEdits,
        PermissionMode::Plan,
        PermissionMode::BypassPermissions,
        PermissionMode::Auto,
    ];

    /// The wire name (`default`, `acceptEdits`, `plan`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionMode::Default => "default",
            PermissionMode::AcceptEdits => "acceptEdits",
            PermissionMode::Plan => "plan",
            PermissionMode::BypassPermissions => "bypassPermissions",
            PermissionMode::Auto => "auto",
        }
    }

    /// The next mode in the Shift+Tab cycle: default → acceptEdits → plan →
    /// (auto when enabled) → default. bypassPermissions leaves the cycle.
    pub fn next_in_cycle(self, auto_enabled: bool) -> PermissionMode {
        match self {
            PermissionMode::Default => PermissionMode::AcceptEdits,
            PermissionMode::AcceptEdits => PermissionMode::Plan,
            PermissionMode::Plan if auto_enabled => PermissionMode::Auto,
            PermissionMode::Plan | PermissionMode::Auto | PermissionMode::BypassPermissions => {
                PermissionMode::Default
            }
        }
    }
}

impl fmt::Display for PermissionMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error for an unknown mode name; lists the valid names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownMode(pub String);

impl fmt::Display for UnknownMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown permission mode '{}': expected one of default, acceptEdits, plan, bypassPermissions, auto",
            self.0
        )
    }
}

impl std::error::Error for UnknownMode {}

impl FromStr for PermissionMode {
    type Err = UnknownMode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PermissionMode::ALL
            .into_iter()
            .find(|m| m.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownMode(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for m in PermissionMode::ALL {
            assert_eq!(m.as_str().parse::<PermissionMode>().unwrap(), m);
            assert_eq!(
                serde_json::to_value(m).unwrap(),
                serde_json::json!(m.as_str())
            );
        }
        assert!(
            "planning"
                .parse::<PermissionMode>()
                .unwrap_err()
                .to_string()
                .contains("acceptEdits")
        );
    }

    #[test]
    fn cycle_skips_auto_unless_enabled() {
        let mut m = PermissionMode::Default;
        let mut seen = vec![];
        for _ in 0..4 {
            seen.push(m);
            m = m.next_in_cycle(false);
        }
        assert_eq!(
            seen,
            [
                PermissionMode::Default,
                PermissionMode::AcceptEdits,
                PermissionMode::Plan,
                PermissionMode::Default
            ]
        );
        assert_eq!(
            PermissionMode::Plan.next_in_cycle(true),
            PermissionMode::Auto
        );
        assert_eq!(
            PermissionMode::Auto.next_in_cycle(true),
            PermissionMode::Default
        );
    }
}
