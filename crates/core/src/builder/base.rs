//! What every stage of building a session reads once the settings, the
//! provider and the session id are settled: the request, who is at the
//! other end, the settings and the environment they see, and the places
//! the session keeps its files. Made once by [`Base::new`], then lent to
//! each stage.

use std::collections::HashMap;
use std::path::PathBuf;

use super::provider::Resolved;
use super::{FrontEnd, SessionConfig, WarningSink};
use crate::settings::Settings;

/// Environment variables as the session sees them: the settings' `env`
/// first, then the variables catui was given (or its own).
pub(super) type SessionEnv = Box<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// The environment the settings' `env` and `config.vars` make.
pub(super) fn session_env(config: &SessionConfig, settings: &Settings) -> SessionEnv {
    let settings_env = settings.env.clone();
    let vars = config.vars.clone();
    Box::new(move |name: &str| {
        settings_env.get(name).cloned().or_else(|| match &vars {
            Some(vars) => vars.get(name).cloned(),
            None => std::env::var(name).ok(),
        })
    })
}

/// The settled facts every later stage reads.
pub(super) struct Base {
    pub config: SessionConfig,
    pub warn: WarningSink,
    pub settings: Settings,
    pub env: SessionEnv,
    pub resolved: Resolved,
    pub session_id: String,
    /// Someone answers prompts and the session keeps listening (teams,
    /// EnterPlanMode).
    pub interactive: bool,
    /// Nobody will answer a question (texts and tools say so).
    pub nobody_here: bool,
    /// `~` of the secret stores: the home of the environment catui was
    /// given, never one a settings `env` names.
    pub home: Option<PathBuf>,
    /// Each session's command output apart: the model may read its own
    /// session's, never an earlier one's (catui's directory is a store).
    pub output_dir: PathBuf,
}

impl Base {
    pub(super) fn new(
        config: SessionConfig,
        front_end: &FrontEnd,
        settings: Settings,
        env: SessionEnv,
        resolved: Resolved,
        session_id: String,
    ) -> Self {
        let home = config
            .vars
            .as_ref()
            .and_then(|v| v.get("HOME").map(PathBuf::from))
            .or_else(dirs::home_dir);
        let output_dir = config.config_dir.join("tool-output").join(&session_id);
        Base {
            warn: front_end.warnings.clone(),
            interactive: front_end.is_interactive(),
            nobody_here: front_end.nobody_here(),
            config,
            settings,
            env,
            resolved,
            session_id,
            home,
            output_dir,
        }
    }

    pub(super) fn cwd(&self) -> &PathBuf {
        &self.config.cwd
    }

    pub(super) fn config_dir(&self) -> &PathBuf {
        &self.config.config_dir
    }

    /// The variables MCP servers start with: catui's own (or those it was
    /// given) and the settings' `env`.
    pub(super) fn mcp_env(&self) -> HashMap<String, String> {
        let mut env: HashMap<String, String> = match &self.config.vars {
            Some(vars) => vars.clone(),
            None => std::env::vars().collect(),
        };
        env.extend(self.settings.env.clone());
        env
    }
}
