//! Teams (SPEC §9): a lead session and its teammates — long-lived agents
//! with their own conversations — talking through file mailboxes.
//!
//! - [`mailbox`]: the inbox files and their locking.

pub mod mailbox;

pub use mailbox::{MailMessage, MailboxError, Mailboxes};
