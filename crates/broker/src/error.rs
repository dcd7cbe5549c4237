//! The broker's errors: what went wrong, said so that a user can act on it.
//! A broker URL is always shown without its password (see
//! [`crate::connect::shown_url`]).

/// Something the broker could not do.
#[derive(Debug, thiserror::Error)]
pub enum BrokerError {
    #[error(
        "broker URL '{0}' is not valid: use nats://host:port or tls://host:port (user:password@ is allowed)"
    )]
    BadUrl(String),
    #[error(
        "cannot reach the broker at {url} within {secs} s: {detail}; check that nats-server runs there with JetStream (-js), or unset the broker (--broker, CATUI_BROKER, setting \"broker\")"
    )]
    Unreachable {
        url: String,
        secs: u64,
        detail: String,
    },
    #[error("cannot read the broker credentials file {path}: {detail}")]
    Credentials { path: String, detail: String },
    #[error(
        "the broker at {url} has no JetStream ({detail}); start nats-server with -js and a store directory (-sd DIR)"
    )]
    NoJetStream { url: String, detail: String },
    #[error("the broker failed to {what}: {detail}")]
    Operation { what: String, detail: String },
    #[error("'{0}' is not a valid name here: use letters, digits, '-' and '_' (at most 64)")]
    InvalidName(String),
    #[error("no approval request {0} is known to the broker (see catui approvals)")]
    UnknownRequest(String),
    #[error("approval request {id} was already answered: {summary}")]
    AlreadyAnswered { id: String, summary: String },
    #[error("unreadable {what} from the broker: {detail}")]
    Malformed { what: String, detail: String },
}

impl BrokerError {
    /// A failed broker operation, with the client's error text.
    pub(crate) fn op(what: &str, error: impl std::fmt::Display) -> Self {
        BrokerError::Operation {
            what: what.to_string(),
            detail: error.to_string(),
        }
    }
}
