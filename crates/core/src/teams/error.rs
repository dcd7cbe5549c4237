//! Why a team operation (create a team, start, message or stop a
//! teammate) was refused or failed. Each message is one line for the model
//! or the user that says what to do instead.

use std::path::PathBuf;

use catui_protocol::PermissionMode;

use super::TEAM_LEAD;
use super::mailbox::MailboxError;

#[derive(Debug, thiserror::Error)]
pub enum TeamError {
    #[error("'{0}' is not a valid team name: use letters, digits, '-' and '_'")]
    InvalidTeamName(String),
    #[error("cannot create the team directory {}: {source}", dir.display())]
    CreateDir {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "'{0}' is not a valid teammate name: use letters, digits, '-' and '_' (and not '{TEAM_LEAD}')"
    )]
    InvalidTeammateName(String),
    #[error(
        "a teammate named '{name}' is already running in team '{team}'; stop it first or pick another name"
    )]
    AlreadyRunning { name: String, team: String },
    #[error("the lead session is ending")]
    LeadEnding,
    #[error("cannot start {name} in {mode} mode: {source}")]
    Mode {
        name: String,
        mode: PermissionMode,
        #[source]
        source: crate::permissions::ModeError,
    },
    /// `members`: who can be written to (the lead first).
    #[error("no running teammate '{name}' in team '{team}' (members: {})", members.join(", "))]
    NoRecipient {
        name: String,
        team: String,
        members: Vec<String>,
    },
    #[error("no running teammate '{name}' in team '{team}'")]
    NotRunning { name: String, team: String },
    #[error(transparent)]
    Mailbox(#[from] MailboxError),
    #[error(
        "'{host}' names a worker, but this session has none: set teams.backend to \"broker\" (with a broker) and run catui worker --name {host} on that machine"
    )]
    NoHosts { host: String },
    #[error("worker '{host}' cannot start {name}: {detail}")]
    Host {
        host: String,
        name: String,
        detail: String,
    },
}
