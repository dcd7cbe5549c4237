//! catui beyond one machine, over NATS with JetStream (docs/SCALE.md):
//!
//! - [`connect`]: the connection (URL, credentials, bounded start,
//!   reconnection and the link state).
//! - [`names`]: every subject, stream and bucket name, namespaced by
//!   account and team.
//! - [`registry`]: the sessions' states in a key-value bucket with a
//!   heartbeat (`catui agents`).
//! - [`approvals`] and [`approver`]: permission requests and plan
//!   approvals answered from anywhere, exactly once (`--approvals broker`,
//!   `catui approvals`).
//! - [`mailbox`]: team mailboxes on a stream (`teams.backend: "broker"`).
//! - [`worker`]: teammates hosted on other machines (`catui worker`).
//!
//! Nothing here runs unless a broker is configured: a session without one
//! never connects and never loads this crate's state.

pub mod approvals;
pub mod approver;
pub mod connect;
mod error;
pub mod hosts;
pub mod mailbox;
pub mod names;
pub mod registry;
mod store;

pub use approvals::{ApprovalAnswer, ApprovalRequest, Approvals, RequestKind, Verdict};
pub use approver::{APPROVAL_TIMEOUT, Asker, BrokerApprover};
pub use connect::{Broker, BrokerConfig, Link, shown_url};
pub use error::BrokerError;
pub use hosts::BrokerHosts;
pub use mailbox::BrokerMailboxes;
pub use registry::{AgentState, Presence, Registry, SessionEntry};
