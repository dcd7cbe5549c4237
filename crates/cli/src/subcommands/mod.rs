//! The subcommands that do not start a conversation: `catui sessions`,
//! `catui plans`, `catui mcp` and `catui trust`. Each reads the project's files and prints
//! to stdout; errors go to stderr with an exit code (2 for usage errors).
//! Slash commands typed in a session are not here: they are
//! `catui_core::engine::slash_commands`.

mod format;
pub mod mcp;
pub mod plan_review;
pub mod plans;
mod plans_dispatch;
mod plans_move;
pub mod sessions;
pub mod trust;

use std::path::{Path, PathBuf};

use catui_core::settings::{Settings, SettingsWarning};

use crate::args::{Args, Command};

/// Runs a subcommand other than `demo` and returns the exit code.
pub async fn run(command: &Command, args: &Args) -> u8 {
    let project = match Project::detect(args.settings.as_deref().map(Path::new)) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("catui: {e}");
            return 2;
        }
    };
    if let Command::Plans {
        action: Some(crate::args::PlansAction::Review { slug: Some(slug) }),
    } = command
    {
        // Serves a page until the user decides: not with stdout locked.
        return finish(plan_review::review(&project, slug, &mut crate::output::stdout()).await);
    }
    let mut out = crate::output::stdout();
    let result = match command {
        Command::Sessions => sessions::run(&project, &mut out),
        Command::Plans { action } => plans::run(&project, action.as_ref(), &mut out),
        Command::Mcp { action } => mcp::run(&project, action.as_ref(), &mut out),
        Command::Trust { revoke, show } => trust::run(&project, *revoke, *show, &mut out),
        Command::Demo { .. }
        | Command::Acp
        | Command::Agents { .. }
        | Command::Approvals { .. }
        | Command::Worker { .. } => Err(CommandError::Usage(
            "`catui demo`, `acp` and the broker's subcommands are not handled here".to_string(),
        )),
    };
    finish(result)
}

/// A plan name given on the command line, checked (no paths).
fn plan_name(slug: &str) -> Result<&str, CommandError> {
    let name = slug.trim().trim_end_matches(".md");
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid {
        return Err(CommandError::Usage(format!(
            "'{slug}' is not a plan name: use the slug shown by `catui plans list` (for example brisk-cedar-otter)"
        )));
    }
    Ok(name)
}

/// The exit code of a subcommand's result (its error printed).
fn finish(result: Result<(), CommandError>) -> u8 {
    match result {
        Ok(()) => 0,
        // A closed pipe (`catui sessions | head`) is not an error.
        Err(CommandError::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            eprintln!("catui: {e}");
            e.exit_code()
        }
    }
}

/// What the subcommands need to know about where they run.
pub struct Project {
    /// The working directory (canonical), which names the project.
    pub cwd: PathBuf,
    pub config_dir: PathBuf,
    pub settings: Settings,
}

impl Project {
    fn detect(settings_file: Option<&Path>) -> Result<Project, String> {
        let cwd = std::env::current_dir()
            .map_err(|e| format!("cannot read the working directory: {e}"))?;
        let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
        let (settings, warnings) = Settings::load(&cwd, settings_file);
        for w in &warnings {
            if let SettingsWarning::MissingFlagFile { path } = w {
                return Err(format!("--settings {}: no such file", path.display()));
            }
            eprintln!("catui: {w}");
        }
        Ok(Project {
            cwd,
            config_dir: catui_core::config_dir::config_dir(),
            settings,
        })
    }

    /// The plans directory (setting `plansDirectory`, else the config home's).
    pub fn plans_dir(&self) -> PathBuf {
        catui_core::plan::plans_directory(
            &self.cwd,
            self.settings.plans_directory.as_deref(),
            &self.config_dir,
        )
    }

    /// The folder holding this project's transcripts.
    pub fn sessions_dir(&self) -> PathBuf {
        catui_core::session::project_dir(&self.config_dir, &self.cwd)
    }
}

/// Why a subcommand failed.
#[derive(Debug)]
pub enum CommandError {
    /// The user asked for something that does not exist (exit 2).
    Usage(String),
    /// Writing the output failed (exit 1).
    Io(std::io::Error),
    /// Something the command needed failed (exit 1).
    Failed(String),
    /// The user stopped it (Ctrl+C; exit 130).
    Interrupted(String),
}

impl CommandError {
    fn exit_code(&self) -> u8 {
        match self {
            CommandError::Usage(_) => 2,
            CommandError::Io(_) | CommandError::Failed(_) => 1,
            CommandError::Interrupted(_) => 130,
        }
    }
}

impl std::fmt::Display for CommandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CommandError::Usage(msg)
            | CommandError::Failed(msg)
            | CommandError::Interrupted(msg) => f.write_str(msg),
            CommandError::Io(e) => write!(f, "could not write the output: {e}"),
        }
    }
}

impl From<std::io::Error> for CommandError {
    fn from(e: std::io::Error) -> Self {
        CommandError::Io(e)
    }
}
