//! Where teammates' mailboxes live, behind one interface: the JSON files of
//! [`super::Mailboxes`] (the default), or a broker's stream
//! (`teams.backend: "broker"`, crate catui-broker) so that a lead and its
//! teammates may run on different machines. The team manager and the
//! teammates' loops only see a [`MailboxBackend`].

use std::sync::Arc;

use tokio::sync::Notify;

use super::mailbox::{MailMessage, MailboxError, Mailboxes};

/// A store of team inboxes. Calls do not block on the network: a backend
/// that needs one queues and buffers (see the broker's).
pub trait MailboxBackend: Send + Sync {
    /// Appends `message` to the inbox of `name` in `team`.
    fn append(&self, team: &str, name: &str, message: MailMessage) -> Result<(), MailboxError>;

    /// The messages not taken yet, each handed out once.
    fn take_unread(&self, team: &str, name: &str) -> Result<Vec<MailMessage>, MailboxError>;

    /// Poked when something arrives for `name` in `team` from elsewhere
    /// (another process or machine); `None`: the reader polls.
    fn arrivals(&self, _team: &str, _name: &str) -> Option<Arc<Notify>> {
        None
    }

    /// Where `team`'s mailboxes are, for people (`/team`, TeamCreate).
    fn location(&self, team: &str) -> String;

    /// Prepares `team` (its folder, for files).
    fn create_team(&self, team: &str) -> Result<(), MailboxError>;
}

impl MailboxBackend for Mailboxes {
    fn append(&self, team: &str, name: &str, message: MailMessage) -> Result<(), MailboxError> {
        Mailboxes::append(self, team, name, message)
    }

    fn take_unread(&self, team: &str, name: &str) -> Result<Vec<MailMessage>, MailboxError> {
        self.read_unread_and_mark(team, name)
    }

    fn location(&self, team: &str) -> String {
        self.team_dir(team).display().to_string()
    }

    fn create_team(&self, team: &str) -> Result<(), MailboxError> {
        let dir = self.team_dir(team).join("inboxes");
        std::fs::create_dir_all(&dir).map_err(|source| MailboxError::Io { path: dir, source })
    }
}
