//! The project's own configuration in a session: the settings layers read
//! with the session's [`ProjectScope`] (the `--setting-sources` choice and
//! the user's trust), the project's agents as far as the trust covers
//! them, the one notice naming everything that waits (docs/SECURITY.md,
//! "Trust"), and the session's secret stores.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::SessionConfig;
use crate::agents::AgentDefinition;
use crate::agents::loader::{AgentSources, LoadedAgents, load_agents};
use crate::file_gate::FileGate;
use crate::permissions::secrets::SecretStores;
use crate::prompt;
use crate::settings::{Held, HeldBack, ProjectScope, Settings, SettingsWarning, project};
use crate::trust::TrustView;

/// The scope of the session `config` asks for. A project trusted before
/// catui remembered what was trusted gets what it configures now recorded
/// as trusted, so that later changes are noticed.
pub(super) fn scope(config: &SessionConfig) -> ProjectScope {
    let scope = ProjectScope::resolve(
        &config.config_dir,
        &config.cwd,
        config.setting_sources,
        config.trust_project,
    );
    if let TrustView::Remembered(trust) = &scope.trust
        && trust.is_unbound()
    {
        let items = project::inventory(&config.config_dir, &config.cwd).items;
        let recorded = crate::trust::update(&config.config_dir, &config.cwd, |t| {
            if t.is_unbound() {
                t.accept_all(&items);
            }
        });
        if let Err(e) = recorded {
            tracing::warn!("{e}");
        }
    }
    scope
}

/// The settings of the session.
pub(super) fn settings(
    config: &SessionConfig,
    scope: &ProjectScope,
) -> (Settings, Vec<SettingsWarning>) {
    Settings::load_with(
        &config.config_dir,
        &config.cwd,
        config.settings_file.as_deref(),
        scope,
    )
}

/// The session's agents: the user's (when their settings are read), the
/// project's (when its files are read) as far as the trust covers them.
pub(super) fn agents(
    cwd: &Path,
    config_dir: &Path,
    scope: &ProjectScope,
    gate: FileGate,
) -> LoadedAgents {
    let user_dir = config_dir.join("agents");
    let project_dir = cwd.join(".catui").join("agents");
    // In the home directory the project's agents are the user's own.
    let project_dir = (scope.sources.project && !project::same_dir(&project_dir, &user_dir))
        .then_some(project_dir);
    let accept = |path: &Path, text: &str, def: &AgentDefinition| {
        scope
            .trust
            .accepts(&project::agent_item(cwd, path, text, def))
    };
    load_agents(&AgentSources {
        user_dir: scope.sources.user.then_some(user_dir),
        project_dir,
        accept_project: &accept,
        gate,
    })
}

/// The session's secret stores: the list under `home` and the environment
/// catui started with, the user's `secretPaths`, and catui's own directory
/// but for what the model reads there (`output_dir`: this session's
/// command output).
pub(super) fn secret_stores(
    config: &SessionConfig,
    home: Option<&Path>,
    secret_paths: &[String],
    project_dirs: &[PathBuf],
    output_dir: &Path,
) -> SecretStores {
    let started_env = |name: &str| match &config.vars {
        Some(vars) => vars.get(name).cloned(),
        None => std::env::var(name).ok(),
    };
    SecretStores::new(home, secret_paths, project_dirs)
        .with_environment(&started_env)
        .with_catui_dir(&config.config_dir, &[output_dir.to_path_buf()])
}

/// Everything of the project's configuration that waits: the settings'
/// pieces, the agents and the MCP servers.
pub(super) fn held_back(
    cwd: &Path,
    settings: &Settings,
    agents: &[(AgentDefinition, String)],
    servers: Vec<Held>,
    scope: &ProjectScope,
) -> HeldBack {
    let mut items = settings.held_back.clone();
    for (def, text) in agents {
        let item = project::agent_item(cwd, Path::new(&def.source), text, def);
        let verdict = scope.trust.verdict(&item);
        items.push(Held { item, verdict });
    }
    items.extend(servers);
    HeldBack { items }
}

/// The settings stage's result: the project scope, the settings read
/// through it, and what is wrong with them (one line each).
pub(super) struct SettingsStage {
    pub scope: ProjectScope,
    pub settings: Settings,
    pub warnings: Vec<String>,
}

/// Settings: reads them (the project's as far as it is trusted) and says
/// what is wrong with them through `warn`; a missing `--settings` file
/// stops the start.
pub(super) fn settings_stage(
    config: &SessionConfig,
    warn: &super::WarningSink,
) -> Result<SettingsStage, super::BuildError> {
    let scope = scope(config);
    let (settings, warnings) = settings(config, &scope);
    let mut settings_warnings = Vec::new();
    for w in &warnings {
        if let SettingsWarning::MissingFlagFile { path } = w {
            return Err(super::BuildError::MissingSettingsFile(path.clone()));
        }
        warn(&w.to_string());
        settings_warnings.push(w.to_string());
    }
    // A rejected plansDirectory is a settings problem like any other:
    // every front end says so, not only the debug log.
    if let Some(setting) = settings
        .plans_directory
        .as_deref()
        .filter(|s| !s.trim().is_empty())
        && let Err(e) = crate::plan::files::resolve_plans_directory(&config.cwd, setting)
    {
        let text = format!(
            "{e}; plan files go to {} instead",
            config.config_dir.join("plans").display()
        );
        warn(&text);
        settings_warnings.push(text);
    }
    Ok(SettingsStage {
        scope,
        settings,
        warnings: settings_warnings,
    })
}

/// What the session learns about the repository and the machine in the
/// background.
pub(super) struct BackgroundFacts {
    pub git: Option<Arc<prompt::GitSnapshot>>,
    pub machine: Arc<prompt::MachineFacts>,
}

/// Starts learning the project's git state and the machine's facts.
/// git status/log run in the background; start-up does not wait for them
/// (the first model request does, see prompt::git). With someone at the
/// other end they start now, while the first prompt is typed; a one-shot
/// run starts them with its first request.
pub(super) fn background_facts(config: &SessionConfig, interactive: bool) -> BackgroundFacts {
    let cwd = &config.cwd;
    let git = if interactive {
        prompt::GitSnapshot::start(cwd)
    } else {
        prompt::GitSnapshot::deferred(cwd)
    }
    .map(Arc::new);
    // The machine's facts likewise (versions remembered per project).
    let machine = Arc::new(prompt::MachineFacts::new(
        cwd,
        Some(crate::session::project_dir(&config.config_dir, cwd)),
        interactive,
    ));
    BackgroundFacts { git, machine }
}
