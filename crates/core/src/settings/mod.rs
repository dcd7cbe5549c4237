//! Layered settings (SPEC §6): user `$CATUI_CONFIG_DIR/settings.json`,
//! project `.catui/settings.json`, local `.catui/settings.local.json`, then
//! `--settings FILE`. Later layers win for scalars; rule lists merge.

use std::collections::BTreeMap;

use serde::Deserialize;

/// `permissions` in settings.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionSettings {
    #[serde(default)]
    pub allow: Vec<String>,
    #[serde(default)]
    pub ask: Vec<String>,
    #[serde(default)]
    pub deny: Vec<String>,
    #[serde(default)]
    pub additional_directories: Vec<String>,
    #[serde(default)]
    pub default_mode: Option<String>,
}

/// The merged settings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    pub model: Option<String>,
    pub small_model: Option<String>,
    pub provider: Option<String>,
    pub permissions: PermissionSettings,
    pub plans_directory: Option<String>,
    pub env: BTreeMap<String, String>,
}
