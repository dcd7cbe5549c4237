//! The `/plans` picker's reach into the plan library: `catui plans list
//! --json`, `plans export SLUG` and `plans abandon SLUG`, run as this very
//! binary in the session's folder, so the library is read and changed the
//! one way the shell does it (its settings, plans directory and marks).

use std::process::{Command, Stdio};

use crate::plans_panel::PlanRow;

/// `catui plans ARGS` in `cwd`: what it said, or why it failed.
pub fn run(cwd: &str, args: &[String]) -> Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| format!("catui cannot find itself: {e}"))?;
    let output = Command::new(exe)
        .arg("plans")
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("could not run `catui plans`: {e}"))?;
    let said = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes).trim().to_string();
        text.strip_prefix("catui: ").unwrap_or(&text).to_string()
    };
    if output.status.success() {
        Ok(said(&output.stdout))
    } else {
        Err(said(&output.stderr))
    }
}

/// The project's plans, newest first as the library lists them.
pub fn list(cwd: &str) -> Result<Vec<PlanRow>, String> {
    let text = run(cwd, &["list".into(), "--json".into()])?;
    let rows: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("`catui plans list --json` said something else than a list: {e}"))?;
    Ok(rows
        .as_array()
        .map(|a| a.iter().filter_map(PlanRow::from_json).collect())
        .unwrap_or_default())
}
