//! What catui makes of the flags the Agent SDKs pass (docs/SDK.md):
//! inline `--settings` JSON, `--tools`, `--setting-sources`, the `dontAsk`
//! mode, the system prompt, `--agents` and `--json-schema`, and the flags
//! catui has no feature for, which are reported once as a notification
//! instead of being silently ignored.

use std::io::Write;
use std::path::PathBuf;

use crate::args::{Args, InputFormat};

/// `--settings` as a file: the path given, or inline JSON written to a
/// temporary file that lives as long as the returned guard.
pub fn settings_file(
    args: &Args,
) -> Result<(Option<PathBuf>, Option<tempfile::NamedTempFile>), String> {
    let Some(value) = args.settings.as_deref() else {
        return Ok((None, None));
    };
    let trimmed = value.trim();
    if !trimmed.starts_with('{') {
        return Ok((Some(PathBuf::from(value)), None));
    }
    serde_json::from_str::<serde_json::Value>(trimmed)
        .map_err(|e| format!("--settings: the inline JSON is not valid: {e}"))?;
    let mut file = tempfile::Builder::new()
        .prefix("catui-settings-")
        .suffix(".json")
        .tempfile()
        .map_err(|e| format!("--settings: cannot write the inline settings to a file: {e}"))?;
    file.write_all(trimmed.as_bytes())
        .map_err(|e| format!("--settings: cannot write the inline settings to a file: {e}"))?;
    Ok((Some(file.path().to_path_buf()), Some(file)))
}

/// `--tools`: `None` for all tools (flag absent or `default`), else the
/// names to offer ("" offers none but the plan-mode tools).
pub fn tool_list(args: &Args) -> Option<Vec<String>> {
    let tools = args.sdk.tools.as_deref()?.trim();
    if tools == "default" {
        return None;
    }
    Some(
        tools
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect(),
    )
}

/// `--setting-sources`: `None` when absent (every layer, the project's as
/// far as the user trusts it), else just the listed layers; an empty list
/// reads no settings file at all. Listing `project` or `local` trusts the
/// project for the run: the application chose its files.
pub fn setting_sources(
    args: &Args,
) -> Result<Option<catui_core::settings::SettingsSources>, String> {
    args.sdk
        .setting_sources
        .as_deref()
        .map(|list| catui_core::settings::SettingsSources::parse(list).map_err(|e| e.to_string()))
        .transpose()
}

/// `--system-prompt TEXT`, or the text of `--system-prompt-file`.
pub fn system_prompt(args: &Args) -> Result<Option<String>, String> {
    if let Some(path) = &args.sdk.system_prompt_file {
        return std::fs::read_to_string(path)
            .map(Some)
            .map_err(|e| format!("--system-prompt-file {}: {e}", path.display()));
    }
    Ok(args.sdk.system_prompt.clone())
}

/// The agent types of `--agents JSON`; a definition that cannot be used is
/// an error (the caller asked for it on this run).
pub fn agents(args: &Args) -> Result<Vec<catui_core::agents::AgentDefinition>, String> {
    let Some(json) = args.sdk.agents.as_deref() else {
        return Ok(Vec::new());
    };
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("--agents: not valid JSON: {e}"))?;
    let (agents, problems) = catui_core::agents::sdk::parse_sdk_agents(&value, "--agents");
    match problems.into_iter().next() {
        Some(problem) => Err(problem),
        None => Ok(agents),
    }
}

/// The schema of `--json-schema`.
pub fn output_schema(args: &Args) -> Result<Option<serde_json::Value>, String> {
    args.sdk
        .json_schema
        .as_deref()
        .map(|text| {
            serde_json::from_str(text).map_err(|e| format!("--json-schema: not valid JSON: {e}"))
        })
        .transpose()
}

/// `--permission-mode dontAsk`: the default mode, with every prompt
/// denied instead of asked.
pub fn is_dont_ask(args: &Args) -> bool {
    args.permission_mode.as_deref() == Some("dontAsk")
}

/// One line per flag that was given but has no effect in catui.
pub fn unsupported(args: &Args) -> Vec<String> {
    let sdk = &args.sdk;
    let mut out = Vec::new();
    let mut note = |given: bool, flag: &str, why: &str| {
        if given {
            out.push(format!(
                "{flag} is not supported by catui and was ignored: {why}"
            ));
        }
    };
    note(
        sdk.permission_prompt_tool
            .as_deref()
            .is_some_and(|t| t != "stdio"),
        "--permission-prompt-tool (other than stdio)",
        "permission prompts are can_use_tool control requests",
    );
    note(
        sdk.permission_prompt_tool.as_deref() == Some("stdio")
            && args.input_format != InputFormat::StreamJson,
        "--permission-prompt-tool stdio",
        "it needs --input-format stream-json",
    );
    note(
        sdk.include_hook_events,
        "--include-hook-events",
        "hooks run, but no hook_started/hook_response lines are printed",
    );
    note(
        sdk.task_budget.is_some(),
        "--task-budget",
        "use --max-budget-usd or --max-turns to bound a run",
    );
    note(sdk.betas.is_some(), "--betas", "no beta headers are sent");
    note(
        !sdk.plugin_dir.is_empty(),
        "--plugin-dir",
        "catui has no plugins",
    );
    note(
        sdk.resume_drops_turn.is_some(),
        "--resume-drops-turn",
        "a resumed session continues from its end, or from --resume-session-at",
    );
    note(
        sdk.session_mirror,
        "--session-mirror",
        "transcripts are written to catui's own session files only",
    );
    note(
        sdk.debug || sdk.debug_file.is_some(),
        "--debug/--debug-file",
        "catui logs with RUST_LOG to stderr",
    );
    note(
        sdk.agent.is_some(),
        "--agent",
        "the main conversation runs catui's own agent",
    );
    note(
        sdk.permission_prompts.is_some() || !sdk.channels.is_empty(),
        "--permission-prompts/--channels",
        "permission prompts are can_use_tool control requests",
    );
    note(
        sdk.project_config_root.is_some(),
        "--project-config-root",
        "project settings are read from the working directory's .catui/",
    );
    note(
        !sdk.plugin_dir_no_mcp.is_empty(),
        "--plugin-dir-no-mcp",
        "catui has no plugins",
    );
    note(
        sdk.initialize_fields.is_some()
            || sdk.managed_settings_in_initialize
            || sdk.managed_settings.is_some(),
        "--initialize-fields/--managed-settings",
        "settings come from catui's settings files and --settings",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn parse(argv: &[&str]) -> Args {
        Args::try_parse_from(std::iter::once("catui").chain(argv.iter().copied())).unwrap()
    }

    #[test]
    fn the_sdk_default_argv_parses_and_reports_nothing() {
        let args = parse(&[
            "--output-format",
            "stream-json",
            "--verbose",
            "--system-prompt",
            "",
            "--input-format",
            "stream-json",
        ]);
        assert!(unsupported(&args).is_empty());
    }

    #[test]
    fn unsupported_flags_are_reported_once_each() {
        let args = parse(&[
            "--plugin-dir",
            "p",
            "--task-budget",
            "15",
            "--betas",
            "b1",
            "--mcp-config",
            "{\"mcpServers\":{}}",
        ]);
        let notes = unsupported(&args);
        assert_eq!(notes.len(), 3, "{notes:?}");
        assert!(!notes.iter().any(|n| n.starts_with("--mcp-config")));
    }

    #[test]
    fn inline_settings_become_a_file() {
        let args = parse(&["--settings", "{\"permissions\":{\"deny\":[\"Bash\"]}}"]);
        let (path, guard) = settings_file(&args).unwrap();
        let text = std::fs::read_to_string(path.unwrap()).unwrap();
        assert!(text.contains("deny"));
        assert!(guard.is_some());
        let bad = parse(&["--settings", "{nope"]);
        assert!(settings_file(&bad).is_err());
    }

    #[test]
    fn setting_sources_as_the_sdks_send_them() {
        assert_eq!(setting_sources(&parse(&[])).unwrap(), None);
        let none = setting_sources(&parse(&["--setting-sources="]))
            .unwrap()
            .unwrap();
        assert!(!none.user && !none.project && !none.local);
        assert!(!none.trust_the_project());
        let some = setting_sources(&parse(&["--setting-sources=user,project"]))
            .unwrap()
            .unwrap();
        assert!(some.user && some.project && !some.local);
        assert!(some.trust_the_project());
        let user = setting_sources(&parse(&["--setting-sources", "user"]))
            .unwrap()
            .unwrap();
        assert!(user.user && !user.trust_the_project());
        let err = setting_sources(&parse(&["--setting-sources=user,policy"])).unwrap_err();
        assert!(err.contains("`policy`"), "{err}");
        assert!(unsupported(&parse(&["--setting-sources="])).is_empty());
    }

    #[test]
    fn tools_lists() {
        assert_eq!(tool_list(&parse(&["--tools", "default"])), None);
        assert_eq!(tool_list(&parse(&["--tools", ""])), Some(vec![]));
        assert_eq!(
            tool_list(&parse(&["--tools", "Read,Grep"])),
            Some(vec!["Read".to_string(), "Grep".to_string()])
        );
    }
}
