//! Settings files that change while a session runs take effect without a
//! restart: permission rules, `additionalDirectories` and the auto-mode
//! opt-in (which, while planning, switches the classifier on or off:
//! [`crate::permissions::apply_reload`]). The files are looked at (one `stat`
//! each) as an input arrives and before each model request of the main
//! conversation; only a file whose size, time or identity changed is read
//! again, and a file that became unreadable or invalid fails closed exactly
//! as at start-up. What needs a restart (model, hooks, MCP servers, env...)
//! is named in a notice instead of being half-applied. The project's files
//! are read with the session's trust, so what a project adds that waits for
//! trust keeps waiting, and is named.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use crate::engine::{EngineExtension, Notice, Refresh};
use crate::permissions::apply_reload::{ReloadedPermissions, apply_reloaded_settings};
use crate::permissions::mode::PlanAutoModeChange;
use crate::permissions::{PermissionContext, RuleBehavior};
use crate::sync::lock;

use super::{ProjectScope, Settings, SettingsLayer};

/// The notice key of a reload (problems in the files keep the `settings`
/// key of start-up).
pub const SETTINGS_RELOADED_KEY: &str = "settings_reloaded";

/// What identifies one version of a file without reading it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    identity: (u64, u64),
}

fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let identity = {
        use std::os::unix::fs::MetadataExt;
        (meta.dev(), meta.ino())
    };
    #[cfg(not(unix))]
    let identity = (0, 0);
    Some(Stamp {
        len: meta.len(),
        modified: meta.modified().ok(),
        identity,
    })
}

struct Watched {
    stamps: Vec<Option<Stamp>>,
    settings: Settings,
}

/// Watches a session's settings files and applies their changes
/// ([`EngineExtension::refresh`]).
pub struct SettingsReload {
    config_dir: PathBuf,
    project_root: PathBuf,
    extra: Option<PathBuf>,
    scope: ProjectScope,
    files: Vec<(SettingsLayer, PathBuf)>,
    /// The project and `--add-dir`: never removed by a reload.
    kept_directories: Vec<PathBuf>,
    watched: Mutex<Watched>,
}

impl SettingsReload {
    /// Watches the files `settings` was loaded from (as
    /// [`Settings::load_with`] with the same arguments), as they are now.
    pub fn new(
        config_dir: &Path,
        project_root: &Path,
        extra: Option<&Path>,
        scope: ProjectScope,
        settings: Settings,
        kept_directories: Vec<PathBuf>,
    ) -> Self {
        let files = Settings::candidate_files(config_dir, project_root, extra);
        let stamps = files.iter().map(|(_, p)| stamp(p)).collect();
        SettingsReload {
            config_dir: config_dir.to_path_buf(),
            project_root: project_root.to_path_buf(),
            extra: extra.map(Path::to_path_buf),
            scope,
            files,
            kept_directories,
            watched: Mutex::new(Watched { stamps, settings }),
        }
    }

    /// The files that changed since they were last read, if any.
    fn changed_files(&self, watched: &mut Watched) -> Vec<PathBuf> {
        let now: Vec<Option<Stamp>> = self.files.iter().map(|(_, p)| stamp(p)).collect();
        let changed = self
            .files
            .iter()
            .zip(now.iter().zip(&watched.stamps))
            .filter(|(_, (new, old))| new != old)
            .map(|((_, path), _)| path.clone())
            .collect();
        watched.stamps = now;
        changed
    }

    fn shown(&self, path: &Path) -> String {
        match path.strip_prefix(&self.project_root) {
            Ok(rel) => rel.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }
}

impl EngineExtension for SettingsReload {
    fn refresh(&self, permissions: &mut PermissionContext) -> Refresh {
        let mut watched = lock(&self.watched);
        let changed = self.changed_files(&mut watched);
        if changed.is_empty() {
            return Refresh::default();
        }
        let (settings, warnings) = Settings::load_with(
            &self.config_dir,
            &self.project_root,
            self.extra.as_deref(),
            &self.scope,
        );
        let previous = std::mem::replace(&mut watched.settings, settings);
        let settings = &watched.settings;
        let reloaded = apply_reloaded_settings(
            permissions,
            ReloadedPermissions {
                rules: &settings.permissions.rules,
                directories: &settings.permissions.additional_directories,
                previous_directories: &previous.permissions.additional_directories,
                kept_directories: &self.kept_directories,
                auto_mode: settings.auto_mode,
                bypass_disabled: settings.permissions.bypass_disabled,
                secret_paths: &settings.secret_paths,
            },
        );
        let files = changed
            .iter()
            .map(|p| self.shown(p))
            .collect::<Vec<_>>()
            .join(", ");
        let mut notices: Vec<Notice> = warnings
            .iter()
            .map(|w| Notice {
                key: "settings".into(),
                text: w.to_string(),
                essential: true,
            })
            .collect();
        let mut said = Vec::new();
        if reloaded.rules_changed || reloaded.directories_changed {
            let count = |b| settings.permissions.rules.list(b).len();
            said.push(format!(
                "permissions reloaded ({} allow, {} ask, {} deny rules from settings; {} working directories)",
                count(RuleBehavior::Allow),
                count(RuleBehavior::Ask),
                count(RuleBehavior::Deny),
                permissions.working_dirs.len(),
            ));
        }
        match reloaded.plan_auto {
            Some(PlanAutoModeChange::Activate) => {
                said.push("auto mode now judges plan mode's calls (autoMode.useDuringPlan)".into())
            }
            Some(PlanAutoModeChange::Deactivate) => said.push(
                "auto mode no longer judges plan mode's calls: they are asked about again".into(),
            ),
            _ => {}
        }
        if let Some(change) = &reloaded.mode_change
            && change.changed()
        {
            said.push(format!(
                "auto mode ended because autoMode.enabled is off: now in {} mode",
                change.to
            ));
        }
        let newly_held: Vec<_> = settings
            .held_back
            .iter()
            .filter(|h| !previous.held_back.contains(h))
            .map(|h| &h.item)
            .collect();
        if !newly_held.is_empty() {
            said.push(format!(
                "not applied until you trust the project (`catui trust`): {}",
                super::project::names_by_group(newly_held)
            ));
        }
        let later = needs_restart(&previous, settings);
        if !later.is_empty() {
            said.push(format!(
                "{} changed and take{} effect when catui starts again",
                later.join(", "),
                if later.len() == 1 { "s" } else { "" }
            ));
        }
        if !said.is_empty() {
            notices.push(Notice {
                key: SETTINGS_RELOADED_KEY.into(),
                text: format!("Settings changed ({files}): {}.", said.join("; ")),
                essential: false,
            });
        }
        Refresh {
            notices,
            mode_change: reloaded.mode_change,
        }
    }
}

/// The settings that changed but only apply to a new session.
fn needs_restart(old: &Settings, new: &Settings) -> Vec<&'static str> {
    let mut out = Vec::new();
    let mut check = |differs: bool, name: &'static str| {
        if differs {
            out.push(name);
        }
    };
    check(old.model != new.model, "model");
    check(old.small_model != new.small_model, "smallModel");
    check(old.plan_model != new.plan_model, "planModel");
    check(old.provider != new.provider, "provider");
    check(old.models != new.models, "models");
    check(old.env != new.env, "env");
    check(old.hooks != new.hooks, "hooks");
    check(
        old.mcp_servers != new.mcp_servers || old.project_mcp != new.project_mcp,
        "mcpServers",
    );
    check(old.plans_directory != new.plans_directory, "plansDirectory");
    check(
        old.permissions.default_mode != new.permissions.default_mode,
        "permissions.defaultMode",
    );
    check(old.sandbox != new.sandbox, "sandbox");
    check(
        old.plan_variant != new.plan_variant || old.plan_agents != new.plan_agents,
        "plan mode settings",
    );
    check(
        old.auto_mode_classifier_timeout != new.auto_mode_classifier_timeout,
        "autoMode.classifierTimeoutMs",
    );
    check(old.snapshot_plans != new.snapshot_plans, "snapshotPlans");
    check(old.status_line != new.status_line, "statusLine");
    check(
        old.file_checkpointing_enabled != new.file_checkpointing_enabled,
        "fileCheckpointingEnabled",
    );
    check(
        old.max_parallel_agents != new.max_parallel_agents,
        "maxParallelAgents",
    );
    check(
        old.idle_timeout_secs != new.idle_timeout_secs,
        "idleTimeoutSecs",
    );
    check(
        old.auto_compact_threshold != new.auto_compact_threshold,
        "autoCompactThreshold",
    );
    check(old.broker != new.broker, "broker");
    check(
        old.plan_drift != new.plan_drift
            || old.plan_goal != new.plan_goal
            || old.goal_max_continuations != new.goal_max_continuations,
        "planDrift, planGoal, goalMaxContinuations",
    );
    out
}
