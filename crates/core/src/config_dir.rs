//! Where catui keeps its files: `$CATUI_CONFIG_DIR`, else `~/.catui`.

use std::path::PathBuf;

/// The configuration home. Falls back to `./.catui` when no home directory
/// can be found (containers without `HOME`).
pub fn config_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CATUI_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    match dirs::home_dir() {
        Some(home) => home.join(".catui"),
        None => PathBuf::from(".catui"),
    }
}
