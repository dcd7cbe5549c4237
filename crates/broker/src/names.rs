//! Every subject and bucket name catui uses on the broker, in one place.
//! All of them are namespaced by the account (`catui.<account>.…` for
//! subjects, `catui_<account>_…` for streams and buckets), and a team's
//! subjects by the team (`catui.<account>.<team>.…`), so that one broker
//! can serve several accounts whose permissions the server separates by
//! subject (docs/SCALE.md, "Security").

use crate::error::BrokerError;

/// Whether `name` may be part of a subject or a bucket name: letters,
/// digits, `-` and `_` (no dots or wildcards that would widen a subject).
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

pub(crate) fn check(name: &str) -> Result<(), BrokerError> {
    if is_valid_name(name) {
        Ok(())
    } else {
        Err(BrokerError::InvalidName(name.to_string()))
    }
}

/// The names of one account.
#[derive(Debug, Clone)]
pub struct Names {
    account: String,
}

impl Names {
    pub fn new(account: &str) -> Result<Self, BrokerError> {
        check(account)?;
        Ok(Names {
            account: account.to_string(),
        })
    }

    pub fn account(&self) -> &str {
        &self.account
    }

    fn bucket(&self, what: &str) -> String {
        format!("catui_{}_{what}", self.account)
    }

    /// The key-value bucket of session states.
    pub fn sessions_bucket(&self) -> String {
        self.bucket("sessions")
    }

    /// The key-value bucket of approval requests.
    pub fn requests_bucket(&self) -> String {
        self.bucket("approvals")
    }

    /// The key-value bucket of answers (one per request, first one wins).
    pub fn answers_bucket(&self) -> String {
        self.bucket("answers")
    }

    /// The stream of every team mailbox of the account.
    pub fn mail_stream(&self) -> String {
        self.bucket("mail")
    }

    /// Subjects of [`Self::mail_stream`].
    pub fn mail_subjects(&self) -> String {
        format!("catui.{}.*.mail.*", self.account)
    }

    /// The inbox subject of `member` in `team`.
    pub fn inbox(&self, team: &str, member: &str) -> String {
        format!("catui.{}.{team}.mail.{member}", self.account)
    }

    /// The durable consumer that reads `member`'s inbox in `team`.
    pub fn inbox_consumer(&self, team: &str, member: &str) -> String {
        format!("inbox_{team}_{member}")
    }

    /// The stream of requests to workers (start or stop a teammate).
    pub fn host_stream(&self) -> String {
        self.bucket("hosts")
    }

    /// Subjects of [`Self::host_stream`].
    pub fn host_subjects(&self) -> String {
        format!("catui.{}.*.host.*", self.account)
    }

    /// Where a lead in `team` asks worker `host` to do something.
    pub fn host_subject(&self, team: &str, host: &str) -> String {
        format!("catui.{}.{team}.host.{host}", self.account)
    }

    /// What worker `host` reads: its requests from every team.
    pub fn host_filter(&self, host: &str) -> String {
        format!("catui.{}.*.host.{host}", self.account)
    }

    /// The durable consumer of worker `host`.
    pub fn host_consumer(&self, host: &str) -> String {
        format!("worker_{host}")
    }
}
