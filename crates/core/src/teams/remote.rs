//! Teammates on other machines: a `TeamCreate` member with `"host": NAME`
//! is started by the worker of that name (`catui worker`, crate
//! catui-broker) rather than in this process. The lead keeps its state like
//! any teammate's (messages go through the shared mailbox backend) and
//! follows it through [`TeammateHosts::status`]; a worker that stops
//! answering is reported failed to the lead.

use async_trait::async_trait;

use super::TeammateSpec;
use super::error::TeamError;

/// How a hosted teammate stands, as its worker last said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemoteStatus {
    Working,
    Idle,
    AwaitingApproval,
    /// It ended (stopped, or its worker ended it).
    Stopped,
    /// Its worker died or lost the broker: why.
    Failed(String),
    /// Nothing is known yet (the worker has not picked it up).
    Unknown,
}

/// The workers a lead can start teammates on.
#[async_trait]
pub trait TeammateHosts: Send + Sync {
    /// Asks worker `host` to start `spec` for the lead session `lead`.
    async fn start(&self, host: &str, spec: &TeammateSpec, lead: &str) -> Result<(), TeamError>;

    /// Asks worker `host` to stop `name` of `team`.
    async fn stop(&self, host: &str, team: &str, name: &str);

    /// Where the teammate stands now.
    async fn status(&self, host: &str, team: &str, name: &str) -> RemoteStatus;

    /// How often [`Self::status`] is worth asking.
    fn heartbeat(&self) -> std::time::Duration;
}
