//! Permissions: the main conversation's [`PermissionContext`] — the
//! settings' rules, `--add-dir`, the secret stores, the command line's
//! allow and deny lists, and the starting mode entered through the one
//! transition function — and the watcher that applies later settings
//! changes to it.

use std::sync::Arc;

use super::base::Base;
use super::{BuildError, project, resume};
use crate::permissions::PermissionContext;
use crate::permissions::rules::RuleBehavior;
use crate::session::ResumedSession;
use crate::settings::ProjectScope;
use crate::settings::reload::SettingsReload;

/// Permissions: the context the main conversation starts with, and the
/// settings reload that keeps it current.
pub(super) fn permissions_stage(
    b: &Base,
    scope: ProjectScope,
    resumed: Option<&ResumedSession>,
) -> Result<(PermissionContext, Arc<SettingsReload>), BuildError> {
    let cwd = b.cwd();
    let mut permissions = PermissionContext::new(cwd.clone());
    b.settings.apply_to(&mut permissions);
    let mut kept_dirs = vec![cwd.clone()];
    for dir in &b.config.add_dirs {
        let dir = std::fs::canonicalize(dir).map_err(|source| BuildError::AddDir {
            path: dir.clone(),
            source,
        })?;
        kept_dirs.push(dir.clone());
        if !permissions.working_dirs.contains(&dir) {
            permissions.working_dirs.push(dir);
        }
    }
    // The user's secret stores (the list, the environment's, catui's
    // own directory, `secretPaths`).
    permissions.secrets = project::secret_stores(
        &b.config,
        b.home.as_deref(),
        &b.settings.secret_paths,
        &permissions.working_dirs,
        &b.output_dir,
    );
    // Settings files that change later take effect in this session.
    let settings_reload = Arc::new(SettingsReload::new(
        b.config_dir(),
        cwd,
        b.config.settings_file.as_deref(),
        scope,
        b.settings.clone(),
        kept_dirs,
    ));
    for (behavior, list) in [
        (RuleBehavior::Allow, &b.config.allowed_tools),
        (RuleBehavior::Deny, &b.config.disallowed_tools),
    ] {
        for item in list {
            if let Some(e) = permissions
                .rules
                .add_cli_list(behavior, item, cwd)
                .into_iter()
                .next()
            {
                return Err(BuildError::PermissionRule(e.to_string()));
            }
        }
    }
    permissions.interactive = b.interactive;
    // Enter the starting mode through the one transition function so that
    // prePlanMode is recorded however plan mode is entered. A resumed session
    // comes back in its own mode unless the configuration says otherwise.
    let modes = match (resumed, b.config.permission_mode) {
        (Some(r), None) => resume::modes(r),
        (_, Some(m)) => vec![m],
        (None, None) => vec![b.settings.permissions.default_mode.unwrap_or_default()],
    };
    for m in &modes {
        crate::permissions::transition_permission_mode(&mut permissions, *m)
            .map_err(|source| BuildError::StartingMode { mode: *m, source })?;
    }
    Ok((permissions, settings_reload))
}
