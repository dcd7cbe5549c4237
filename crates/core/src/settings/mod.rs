//! Layered settings: user `$CATUI_CONFIG_DIR/settings.json`,
//! project `.catui/settings.json`, local `.catui/settings.local.json`, then
//! `--settings FILE`.
//!
//! Later layers win for scalars; permission rule lists and
//! `additionalDirectories` merge (deduplicated, in order); `env` merges key
//! by key. A file that is not valid JSON, or gives a known key the wrong
//! type, is ignored as a whole with a warning ([`SettingsWarning`]) — never
//! fatal, never silently half-applied — and never loosens permissions: its
//! deny and ask rules still apply, or, when they cannot be told, every
//! tool call asks ([`Fallback`]). Each rule remembers its file
//! ([`crate::permissions::RuleOrigin`]).
//!
//! The project's own layers apply in part until the user trusts the
//! project: what narrows applies, what widens, runs code or redirects data
//! waits ([`classify`], [`project`]; docs/SECURITY.md, "Trust").

pub mod classify;
pub mod dry_run;
mod file;
mod merge;
pub mod project;
pub mod reload;
pub mod sandbox;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use catui_protocol::PermissionMode;

pub use dry_run::DryRunSettings;
pub use file::{Fallback, SettingsWarning};
pub use project::{Held, HeldBack, ProjectScope, SettingsSources};
pub use sandbox::SandboxSettings;

use crate::permissions::{
    AutoModeConfig, PermissionContext, RuleBehavior, RuleSet, RuleSourceKind,
};

/// The plan-mode prompt variant (`planVariant`), owned by plan mode.
pub use crate::plan::PlanVariant;

/// Which settings file a value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SettingsLayer {
    /// `$CATUI_CONFIG_DIR/settings.json`.
    User,
    /// `<project>/.catui/settings.json`.
    Project,
    /// `<project>/.catui/settings.local.json`.
    Local,
    /// `--settings FILE`.
    Flag,
}

impl SettingsLayer {
    /// A file of the project itself, which applies in full only once the
    /// project is trusted.
    pub fn is_project(self) -> bool {
        matches!(self, SettingsLayer::Project | SettingsLayer::Local)
    }

    fn rule_source(self) -> RuleSourceKind {
        match self {
            SettingsLayer::User => RuleSourceKind::UserSettings,
            SettingsLayer::Project => RuleSourceKind::ProjectSettings,
            SettingsLayer::Local => RuleSourceKind::LocalSettings,
            SettingsLayer::Flag => RuleSourceKind::FlagSettings,
        }
    }
}

/// `permissions` in settings, merged.
/// The broker settings (`broker`, `brokerCredentials`, `approvals`,
/// `teams.backend`), read by the binary before a session is built.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BrokerSettings {
    pub url: Option<String>,
    pub credentials: Option<PathBuf>,
    pub approvals: Option<String>,
    pub teams_backend: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct PermissionSettings {
    /// allow/ask/deny rules, each with the file it came from.
    pub rules: RuleSet,
    /// Absolute directories (relative entries resolved against the project
    /// root, `~/` against home).
    pub additional_directories: Vec<PathBuf>,
    pub default_mode: Option<PermissionMode>,
    /// `disableBypassPermissionsMode` in any layer: bypassPermissions
    /// cannot be entered.
    pub bypass_disabled: bool,
}

/// The user's settings-level answers about a project's MCP servers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectMcpAnswers {
    pub enable_all: bool,
    pub enabled: Vec<String>,
    pub disabled: Vec<String>,
}

impl ProjectMcpAnswers {
    /// The answer for the project's server `name`, if the settings give one.
    pub fn answer(&self, name: &str) -> Option<bool> {
        if self.disabled.iter().any(|n| n == name) {
            Some(false)
        } else if self.enable_all || self.enabled.iter().any(|n| n == name) {
            Some(true)
        } else {
            None
        }
    }
}

/// The merged settings. `None` means "not set in any file".
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    pub model: Option<String>,
    pub small_model: Option<String>,
    /// The model for requests made in plan mode and by the Plan agent
    /// (`planModel`); unset: the session's model.
    pub plan_model: Option<String>,
    /// The reasoning effort in plan mode and for the completion gate's
    /// turn (`planEffort`), as written (checked when the session starts).
    pub plan_effort: Option<String>,
    /// When the completion gate asks (`completionCheck`: auto, always,
    /// off), as written.
    pub completion_check: Option<String>,
    pub provider: Option<String>,
    pub permissions: PermissionSettings,
    /// As written; the plan module resolves it against the project root.
    pub plans_directory: Option<String>,
    pub env: BTreeMap<String, String>,
    pub auto_mode: AutoModeConfig,
    /// `autoMode.classifierTimeoutMs`: how long the auto-mode classifier
    /// may take before the user is asked instead (`None`: its default).
    pub auto_mode_classifier_timeout: Option<Duration>,
    pub plan_variant: PlanVariant,
    pub plan_agents: Option<u32>,
    pub snapshot_plans: bool,
    /// `fileCheckpointingEnabled`: checkpoints of the project's files
    /// (`None`: on where someone is at the keyboard, see
    /// `crate::checkpoints::enabled`).
    pub file_checkpointing_enabled: Option<bool>,
    pub max_parallel_agents: Option<u32>,
    /// `sandbox`: approved commands confined to the working directories,
    /// and their network (see [`sandbox`]).
    pub sandbox: Option<SandboxSettings>,
    /// `dryRun`: plan mode's throwaway copy (see [`dry_run`]).
    pub dry_run: DryRunSettings,
    pub idle_timeout_secs: Option<u64>,
    /// `autoCompactThreshold`: the share of the context window at which
    /// the conversation is compacted (see `session::compact`).
    pub auto_compact_threshold: Option<f64>,
    /// `planDrift`: what a change outside an approved plan does (`None`:
    /// the front end's default, see [`crate::contract::PlanDrift`]).
    pub plan_drift: Option<crate::contract::PlanDrift>,
    /// `planGoal`: an approved plan's goal keeps the work going (`None`:
    /// on).
    pub plan_goal: Option<bool>,
    /// `planNames`: how new plan files are named.
    pub plan_names: crate::plan::files::topic::PlanNames,
    /// `teammatePlanApprover`: who approves a teammate's plan.
    pub teammate_plan_approver: crate::plan::engine_hooks::TeammatePlanApprover,
    /// `goalMaxContinuations`: continuations per input the goal loop may
    /// make by itself (`None`: 8).
    pub goal_max_continuations: Option<u32>,
    /// `models`: overrides of the model catalog (context window, prices,
    /// OpenAI wire, reasoning options), keyed by model name or by a prefix
    /// ending in `*`, in layer order (a later layer's field wins).
    pub models: Vec<(String, catui_providers::ModelOverride)>,
    /// Command hooks of every layer, in layer order.
    pub hooks: Vec<crate::hooks::CommandHook>,
    /// `mcpServers` of every layer, in layer order (a project layer's
    /// servers need the user's approval).
    pub mcp_servers: Vec<crate::mcp::config::ServerSpec>,
    /// The user's own answers about the project's MCP servers, from the
    /// user layer and `--settings` only (a project cannot approve its own
    /// servers): `enableAllProjectMcpServers`, `enabledMcpjsonServers`,
    /// `disabledMcpjsonServers`.
    pub project_mcp: ProjectMcpAnswers,
    /// `secretPaths` of every layer (`~/x` or absolute): secret stores
    /// added to the defaults of [`crate::permissions::secrets`]. Every
    /// layer may add; none can remove one.
    pub secret_paths: Vec<String>,
    /// Sessions, approvals and teams across machines (docs/SCALE.md).
    pub broker: BrokerSettings,
    /// `passEnv` of every layer: names (`NAME`, `PREFIX*`) of catui's
    /// environment that the children someone allowed (asked commands,
    /// hooks, MCP servers) may see.
    pub pass_env: Vec<String>,
    /// `statusLine.command`: the terminal UI's status line comes from this
    /// command (`crate::status_line`).
    pub status_line: Option<String>,
    /// The files that were applied, in layer order.
    pub files: Vec<(SettingsLayer, PathBuf)>,
    /// What the project's settings files configure that did not apply: it
    /// waits for the user's trust.
    pub held_back: Vec<Held>,
    /// The project's own MCP servers from its settings files, in layer
    /// order: `None` when the user's trust covers the server, else what
    /// waits (it starts only once approved by name).
    pub project_servers: Vec<(String, Option<Held>)>,
}

impl Settings {
    /// What these settings add to the environment of the children the
    /// session starts (`env`, `passEnv`; see `catui_sandbox::child_env`).
    pub fn child_env(&self) -> catui_sandbox::child_env::EnvPolicy {
        let mut set: Vec<(String, String)> = self
            .env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        set.sort();
        catui_sandbox::child_env::EnvPolicy {
            set,
            pass: self.pass_env.clone(),
        }
    }

    /// Loads every layer for `project_root`, the user layer from
    /// [`crate::config_dir::config_dir`], and `extra` (`--settings FILE`)
    /// last, believing the project as far as the user trusts it. Missing
    /// files are skipped silently, except a missing `extra`.
    pub fn load(project_root: &Path, extra: Option<&Path>) -> (Settings, Vec<SettingsWarning>) {
        Self::load_from(&crate::config_dir::config_dir(), project_root, extra)
    }

    /// Every file [`Settings::load_from`] reads, in layer order, whether it
    /// exists or not: the user, project and local layers and `extra`.
    pub fn candidate_files(
        config_dir: &Path,
        project_root: &Path,
        extra: Option<&Path>,
    ) -> Vec<(SettingsLayer, PathBuf)> {
        let mut layers = vec![
            (SettingsLayer::User, config_dir.join("settings.json")),
            (
                SettingsLayer::Project,
                project_root.join(".catui").join("settings.json"),
            ),
            (
                SettingsLayer::Local,
                project_root.join(".catui").join("settings.local.json"),
            ),
        ];
        if let Some(extra) = extra {
            let extra = if extra.is_absolute() {
                extra.to_path_buf()
            } else {
                project_root.join(extra)
            };
            layers.push((SettingsLayer::Flag, extra));
        }
        layers
    }

    /// [`Settings::load`] with the configuration directory given.
    pub fn load_from(
        config_dir: &Path,
        project_root: &Path,
        extra: Option<&Path>,
    ) -> (Settings, Vec<SettingsWarning>) {
        let scope = ProjectScope::remembered(config_dir, project_root);
        Self::load_with(config_dir, project_root, extra, &scope)
    }

    /// The layers `scope` says to read, the project's as far as it trusts
    /// the project.
    pub fn load_with(
        config_dir: &Path,
        project_root: &Path,
        extra: Option<&Path>,
        scope: &ProjectScope,
    ) -> (Settings, Vec<SettingsWarning>) {
        let mut warnings = Vec::new();
        let project_files =
            project::project_settings_files(config_dir, project_root, scope.sources);
        let layers = Self::candidate_files(config_dir, project_root, extra)
            .into_iter()
            .filter(|(layer, path)| match layer {
                SettingsLayer::User => scope.sources.user,
                SettingsLayer::Project | SettingsLayer::Local => {
                    project_files.iter().any(|(_, p)| p == path)
                }
                SettingsLayer::Flag => {
                    let missing = !path.exists();
                    if missing {
                        warnings.push(SettingsWarning::MissingFlagFile { path: path.clone() });
                    }
                    !missing
                }
            })
            .collect::<Vec<_>>();
        let mut settings = Settings::default();
        for (layer, path) in layers {
            match file::read(&path) {
                Ok(Some((_, text))) if layer.is_project() => {
                    settings.apply_project(layer, &path, project_root, &text, scope, &mut warnings);
                }
                Ok(Some((raw, text))) => {
                    settings.apply(layer, &path, project_root, raw, &text, false, &mut warnings);
                }
                Ok(None) => {}
                Err(file::Rejected::Unreadable(message)) => {
                    settings.ask_everything(&path, project_root);
                    warnings.push(SettingsWarning::Unreadable {
                        path,
                        message,
                        fallback: Fallback::AskEverything,
                    });
                }
                Err(file::Rejected::Invalid {
                    line,
                    column,
                    message,
                    text,
                }) => {
                    // The rules' own warnings follow the file's.
                    let at = warnings.len();
                    let fallback = settings.keep_restrictive_rules(
                        layer,
                        &path,
                        project_root,
                        &text,
                        &mut warnings,
                    );
                    warnings.insert(
                        at,
                        SettingsWarning::Invalid {
                            path,
                            line,
                            column,
                            message,
                            fallback,
                        },
                    );
                }
            }
        }
        (settings, warnings)
    }

    /// The model catalog with the settings' `models` overrides applied.
    pub fn model_catalog(&self) -> catui_providers::ModelCatalog {
        let mut catalog = catui_providers::ModelCatalog::new();
        for (name, entry) in &self.models {
            catalog.set(name, entry.clone());
        }
        catalog
    }

    /// Adds the settings' rules, additional directories, secret stores,
    /// auto-mode opt-in and bypassPermissions switch to a permission
    /// context.
    pub fn apply_to(&self, ctx: &mut PermissionContext) {
        for behavior in [RuleBehavior::Allow, RuleBehavior::Ask, RuleBehavior::Deny] {
            for rule in self.permissions.rules.list(behavior) {
                ctx.rules.push(behavior, rule.clone());
            }
        }
        for dir in &self.permissions.additional_directories {
            if !ctx.working_dirs.contains(dir) {
                ctx.working_dirs.push(dir.clone());
            }
        }
        ctx.auto_mode = self.auto_mode;
        ctx.bypass_disabled = self.permissions.bypass_disabled;
        ctx.secrets = ctx.secrets.rebuilt(&self.secret_paths, &ctx.working_dirs);
    }
}

#[cfg(test)]
#[path = "settings_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "secret_paths_tests.rs"]
mod secret_paths_tests;
