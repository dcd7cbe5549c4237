//! Merging one settings file over the layers read before it: scalars
//! overwrite, lists and maps extend, permission rules are parsed with their
//! origin, and a file that cannot be applied keeps its restrictive rules or
//! makes every tool call ask ([`Fallback`]). Reading and choosing the
//! layers is [`Settings::load_with`]'s, in `mod.rs`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{Fallback, Settings, SettingsLayer, SettingsWarning, file, sandbox};
use crate::permissions::{Rule, RuleBehavior, RuleOrigin, RuleSourceKind, SourcedRule};

impl Settings {
    /// Stands in for a file whose rules are unknown: every tool call asks.
    pub(super) fn ask_everything(&mut self, path: &Path, project_root: &Path) {
        let origin = RuleOrigin {
            kind: RuleSourceKind::UnappliedSettings,
            file: Some(path.to_path_buf()),
            root: project_root.to_path_buf(),
        };
        self.permissions.rules.push(
            RuleBehavior::Ask,
            SourcedRule {
                rule: Rule::any_tool(),
                origin,
            },
        );
    }

    /// A rejected file that is valid JSON keeps its deny and ask rules;
    /// when they cannot be told, every tool call asks.
    pub(super) fn keep_restrictive_rules(
        &mut self,
        layer: SettingsLayer,
        path: &Path,
        project_root: &Path,
        text: &str,
        warnings: &mut Vec<SettingsWarning>,
    ) -> Fallback {
        let Some(lists) = file::restrictive_rules(text) else {
            self.ask_everything(path, project_root);
            return Fallback::AskEverything;
        };
        let origin = layer_origin(layer, path, project_root);
        let mut kept = 0;
        for (behavior, list) in lists {
            kept += list.len();
            self.add_rules(behavior, list, &origin, text, warnings);
        }
        if kept == 0 {
            Fallback::Nothing
        } else {
            Fallback::RulesKept(kept)
        }
    }

    /// Adds one list of rules. A malformed rule is reported; a malformed
    /// deny or ask rule covers its whole tool instead (or, when not even
    /// its tool can be told, every tool call asks).
    fn add_rules(
        &mut self,
        behavior: RuleBehavior,
        list: Vec<String>,
        origin: &RuleOrigin,
        text: &str,
        warnings: &mut Vec<SettingsWarning>,
    ) {
        let path = origin.file.clone().unwrap_or_default();
        for text_rule in list {
            let error = match Rule::parse(&text_rule) {
                Ok(rule) => {
                    self.permissions.rules.push(
                        behavior,
                        SourcedRule {
                            rule,
                            origin: origin.clone(),
                        },
                    );
                    continue;
                }
                Err(error) => error,
            };
            let fallback = match (behavior, Rule::whole_tool_of(&text_rule)) {
                (RuleBehavior::Allow, _) => Fallback::Nothing,
                (_, Some(rule)) => {
                    let tool = rule.to_string();
                    self.permissions.rules.push(
                        behavior,
                        SourcedRule {
                            rule,
                            origin: origin.clone(),
                        },
                    );
                    Fallback::WholeTool { behavior, tool }
                }
                (_, None) => {
                    self.ask_everything(&path, &origin.root);
                    Fallback::AskEverything
                }
            };
            warnings.push(SettingsWarning::MalformedRule {
                line: file::line_of(text, &text_rule),
                path: path.clone(),
                error,
                fallback,
            });
        }
    }

    /// Merges one parsed file over what the earlier layers set. With
    /// `narrowing_only` (an untrusted project's file), a default mode
    /// applies only when it is stricter than the one set so far.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn apply(
        &mut self,
        layer: SettingsLayer,
        path: &Path,
        project_root: &Path,
        mut raw: file::RawSettings,
        text: &str,
        narrowing_only: bool,
        warnings: &mut Vec<SettingsWarning>,
    ) {
        // First, while `raw` is whole; it sets fields nothing else here reads.
        self.apply_hooks_and_mcp(layer, path, &mut raw, warnings);
        set(&mut self.model, raw.model);
        set(&mut self.small_model, raw.small_model);
        set(&mut self.plan_model, raw.plan_model);
        set(&mut self.plan_effort, raw.plan_effort);
        set(&mut self.completion_check, raw.completion_check);
        set(&mut self.provider, raw.provider);
        set(&mut self.plans_directory, raw.plans_directory);
        set(&mut self.plan_agents, raw.plan_agents);
        set(&mut self.max_parallel_agents, raw.max_parallel_agents);
        if let Some(sandbox) = raw.sandbox {
            let narrow_only = matches!(layer, SettingsLayer::Project | SettingsLayer::Local);
            self.sandbox = Some(sandbox::merge(self.sandbox.take(), sandbox, narrow_only));
        }
        set(
            &mut self.file_checkpointing_enabled,
            raw.file_checkpointing_enabled,
        );
        set(&mut self.idle_timeout_secs, raw.idle_timeout_secs);
        set(&mut self.broker.url, raw.broker);
        if let Some(creds) = raw.broker_credentials {
            // Relative to the settings file's folder, like other paths.
            let base = path.parent().unwrap_or(project_root);
            self.broker.credentials = Some(base.join(creds));
        }
        set(&mut self.broker.approvals, raw.approvals);
        set(
            &mut self.broker.teams_backend,
            raw.teams.and_then(|t| t.backend),
        );
        set(&mut self.auto_compact_threshold, raw.auto_compact_threshold);
        set(&mut self.plan_drift, raw.plan_drift);
        set(&mut self.plan_goal, raw.plan_goal);
        if let Some(v) = raw.plan_names {
            self.plan_names = v;
        }
        if let Some(v) = raw.teammate_plan_approver {
            self.teammate_plan_approver = v;
        }
        if let Some(d) = raw.dry_run {
            self.dry_run.merge(d);
        }
        set(&mut self.goal_max_continuations, raw.goal_max_continuations);
        if let Some(v) = raw.plan_variant {
            self.plan_variant = v;
        }
        if let Some(v) = raw.snapshot_plans {
            self.snapshot_plans = v;
        }
        if let Some(line) = raw.status_line {
            self.status_line = Some(line.command);
        }
        if let Some(auto) = raw.auto_mode {
            if let Some(v) = auto.enabled {
                self.auto_mode.enabled = v;
            }
            if let Some(v) = auto.use_during_plan {
                self.auto_mode.use_during_plan = v;
            }
            if let Some(ms) = auto.classifier_timeout_ms {
                self.auto_mode_classifier_timeout = Some(Duration::from_millis(ms));
            }
        }
        self.env.extend(raw.env.unwrap_or_default());
        for path in raw.secret_paths.unwrap_or_default() {
            if !self.secret_paths.contains(&path) {
                self.secret_paths.push(path);
            }
        }
        for name in raw.pass_env.unwrap_or_default() {
            if !self.pass_env.contains(&name) {
                self.pass_env.push(name);
            }
        }
        self.models.extend(raw.models.unwrap_or_default());
        if let Some(perms) = raw.permissions {
            self.apply_permissions(
                layer,
                path,
                project_root,
                perms,
                text,
                narrowing_only,
                warnings,
            );
        }
        self.files.push((layer, path.to_path_buf()));
    }

    /// The hooks and MCP servers one file declares (a project file's MCP
    /// servers are marked as the project's; only the user's files switch
    /// project servers on or off).
    fn apply_hooks_and_mcp(
        &mut self,
        layer: SettingsLayer,
        path: &Path,
        raw: &mut file::RawSettings,
        warnings: &mut Vec<SettingsWarning>,
    ) {
        if let Some(hooks) = &raw.hooks {
            match crate::hooks::config::parse(hooks, path) {
                Ok(parsed) => self.hooks.extend(parsed),
                Err(e) => warnings.push(SettingsWarning::MalformedHooks {
                    path: path.to_path_buf(),
                    message: e.0,
                }),
            }
        }
        let from_project = layer.is_project();
        if let Some(servers) = &raw.mcp_servers {
            let source = if from_project {
                crate::mcp::config::Source::Project(path.to_path_buf())
            } else {
                crate::mcp::config::Source::User
            };
            let origin = path.display().to_string();
            let (parsed, errors) = crate::mcp::config::parse_servers(servers, &source, &origin);
            self.mcp_servers.extend(parsed);
            for error in errors {
                let crate::mcp::config::ConfigError::Invalid { message, .. } = error;
                warnings.push(SettingsWarning::MalformedMcpServer {
                    path: path.to_path_buf(),
                    message,
                });
            }
        }
        if !from_project {
            if let Some(all) = raw.enable_all_project_mcp_servers {
                self.project_mcp.enable_all = all;
            }
            self.project_mcp
                .enabled
                .extend(raw.enabled_mcpjson_servers.take().unwrap_or_default());
            self.project_mcp
                .disabled
                .extend(raw.disabled_mcpjson_servers.take().unwrap_or_default());
        }
    }

    /// One file's `permissions` block: the default mode (only a stricter
    /// one with `narrowing_only`), the bypass switch, rules and extra
    /// directories.
    #[allow(clippy::too_many_arguments)]
    fn apply_permissions(
        &mut self,
        layer: SettingsLayer,
        path: &Path,
        project_root: &Path,
        perms: file::RawPermissions,
        text: &str,
        narrowing_only: bool,
        warnings: &mut Vec<SettingsWarning>,
    ) {
        match (perms.default_mode, self.permissions.default_mode) {
            (Some(mode), Some(current))
                if narrowing_only
                    && crate::permissions::mode::strictness(mode)
                        <= crate::permissions::mode::strictness(current) => {}
            (mode, _) => set(&mut self.permissions.default_mode, mode),
        }
        if perms.disable_bypass_permissions_mode == Some(true) {
            self.permissions.bypass_disabled = true;
        }
        let origin = layer_origin(layer, path, project_root);
        for (behavior, list) in [
            (RuleBehavior::Allow, perms.allow),
            (RuleBehavior::Ask, perms.ask),
            (RuleBehavior::Deny, perms.deny),
        ] {
            self.add_rules(behavior, list.unwrap_or_default(), &origin, text, warnings);
        }
        for dir in perms.additional_directories.unwrap_or_default() {
            let resolved = resolve_dir(&dir, project_root);
            if !self.permissions.additional_directories.contains(&resolved) {
                self.permissions.additional_directories.push(resolved);
            }
        }
    }
}

/// Where the rules of `path` come from. `/x` rule patterns are relative to
/// the project the settings belong to; for the user layer, the project
/// being worked on.
fn layer_origin(layer: SettingsLayer, path: &Path, project_root: &Path) -> RuleOrigin {
    RuleOrigin {
        kind: layer.rule_source(),
        file: Some(path.to_path_buf()),
        root: project_root.to_path_buf(),
    }
}

/// Overwrites a setting only where this layer sets it.
fn set<T>(slot: &mut Option<T>, value: Option<T>) {
    if value.is_some() {
        *slot = value;
    }
}

fn resolve_dir(dir: &str, project_root: &Path) -> PathBuf {
    let expanded = match (dir.strip_prefix("~/"), dirs::home_dir()) {
        (Some(rest), Some(home)) => home.join(rest),
        _ if dir == "~" => dirs::home_dir().unwrap_or_else(|| PathBuf::from(dir)),
        _ => PathBuf::from(dir),
    };
    crate::permissions::paths::normalize_lexically(&expanded, project_root)
}
