//! Teammates on other machines, the lead's side: [`BrokerHosts`] asks a
//! worker (`catui worker --name HOST`) to start or stop a teammate by a
//! message on the account's `hosts` stream (file-backed, one durable
//! consumer per worker, so a request sent while the worker or the broker
//! restarts still arrives), and reads the teammate's state from the session
//! registry, where the worker keeps it fresh. A worker that stops writing
//! (killed, or cut off from the broker) turns its teammates `failed`
//! within the registry's TTL.

use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::consumer::{AckPolicy, pull};
use async_trait::async_trait;
use catui_core::teams::{RemoteStatus, TeamError, TeammateHosts, TeammateSpec};
use catui_protocol::PermissionMode;
use futures::StreamExt;
use serde::{Deserialize, Serialize};

use crate::connect::Broker;
use crate::error::BrokerError;
use crate::registry::{AgentState, Registry};
use crate::store;

const KEEP: Duration = Duration::from_secs(24 * 3600);
const DEDUP: Duration = Duration::from_secs(120);

/// What a lead asks of a worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HostRequest {
    Start {
        team: String,
        name: String,
        prompt: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
        mode: String,
        plan_mode_required: bool,
        /// The lead's session id.
        lead: String,
    },
    Stop {
        team: String,
        name: String,
    },
}

impl HostRequest {
    /// The spec of a `Start` (to run here: no host).
    pub fn spec(&self) -> Option<TeammateSpec> {
        match self {
            HostRequest::Start {
                team,
                name,
                prompt,
                model,
                mode,
                plan_mode_required,
                ..
            } => Some(TeammateSpec {
                name: name.clone(),
                team: team.clone(),
                prompt: prompt.clone(),
                model: model.clone(),
                permission_mode: mode.parse().unwrap_or(PermissionMode::Default),
                plan_mode_required: *plan_mode_required,
                host: None,
            }),
            HostRequest::Stop { .. } => None,
        }
    }
}

/// The registry key of worker `name`.
pub fn worker_key(name: &str) -> String {
    format!("worker.{name}")
}

/// The registry key of teammate `name` of `team`.
pub fn teammate_key(team: &str, name: &str) -> String {
    format!("teammate.{team}.{name}")
}

async fn hosts_stream(
    broker: &Broker,
) -> Result<async_nats::jetstream::stream::Stream, BrokerError> {
    let names = broker.names();
    store::stream(
        broker,
        &names.host_stream(),
        &names.host_subjects(),
        KEEP,
        DEDUP,
    )
    .await
}

/// The lead's way to its workers.
pub struct BrokerHosts {
    broker: Broker,
    registry: Registry,
}

impl BrokerHosts {
    pub async fn open(broker: &Broker) -> Result<Arc<BrokerHosts>, BrokerError> {
        hosts_stream(broker).await?;
        Ok(Arc::new(BrokerHosts {
            broker: broker.clone(),
            registry: Registry::open(broker).await?,
        }))
    }

    async fn send(&self, team: &str, host: &str, request: &HostRequest) -> Result<(), BrokerError> {
        crate::names::check(host)?;
        crate::names::check(team)?;
        let body = serde_json::to_vec(request).map_err(|e| BrokerError::op("encode", e))?;
        let id = uuid::Uuid::new_v4().simple().to_string();
        store::publish(
            &self.broker,
            self.broker.names().host_subject(team, host),
            &id,
            body,
        )
        .await
    }
}

#[async_trait]
impl TeammateHosts for BrokerHosts {
    async fn start(&self, host: &str, spec: &TeammateSpec, lead: &str) -> Result<(), TeamError> {
        let fail = |detail: String| TeamError::Host {
            host: host.to_string(),
            name: spec.name.clone(),
            detail,
        };
        let worker = self
            .registry
            .get(&worker_key(host))
            .await
            .map_err(|e| fail(e.to_string()))?;
        match worker {
            Some(w) if w.state.is_live() => {}
            Some(w) => {
                return Err(fail(format!(
                    "the worker is {} ({})",
                    w.state.as_str(),
                    w.detail.unwrap_or_default()
                )));
            }
            None => {
                return Err(fail(format!(
                    "no worker named '{host}' is connected to the broker (start one with catui worker --name {host})"
                )));
            }
        }
        let request = HostRequest::Start {
            team: spec.team.clone(),
            name: spec.name.clone(),
            prompt: spec.prompt.clone(),
            model: spec.model.clone(),
            mode: spec.permission_mode.to_string(),
            plan_mode_required: spec.plan_mode_required,
            lead: lead.to_string(),
        };
        self.send(&spec.team, host, &request)
            .await
            .map_err(|e| fail(e.to_string()))
    }

    async fn stop(&self, host: &str, team: &str, name: &str) {
        let request = HostRequest::Stop {
            team: team.to_string(),
            name: name.to_string(),
        };
        if let Err(e) = self.send(team, host, &request).await {
            tracing::debug!("stop {name}@{team} on {host}: {e}");
        }
    }

    async fn status(&self, host: &str, team: &str, name: &str) -> RemoteStatus {
        // The broker is away: nothing new is known.
        let Ok(entry) = self.registry.get(&teammate_key(team, name)).await else {
            return RemoteStatus::Unknown;
        };
        let Some(entry) = entry else {
            // Not picked up yet, unless its worker is gone.
            return match self.registry.get(&worker_key(host)).await {
                Ok(Some(w)) if !w.state.is_live() => RemoteStatus::Failed(format!(
                    "worker {host} stopped before starting it ({})",
                    w.detail.unwrap_or_else(|| w.state.as_str().to_string())
                )),
                _ => RemoteStatus::Unknown,
            };
        };
        match entry.state {
            AgentState::Working => RemoteStatus::Working,
            AgentState::Idle => RemoteStatus::Idle,
            AgentState::WaitingForYou => RemoteStatus::AwaitingApproval,
            AgentState::Done => RemoteStatus::Stopped,
            AgentState::Failed => RemoteStatus::Failed(format!(
                "its worker stopped answering ({})",
                entry.detail.unwrap_or_default()
            )),
        }
    }

    fn heartbeat(&self) -> Duration {
        crate::registry::heartbeat()
    }
}

/// A worker's requests, in order, from its durable consumer: each is
/// acknowledged once taken (a worker that dies before taking it gets it
/// again when it is back).
pub async fn worker_requests(
    broker: &Broker,
    worker: &str,
) -> Result<impl futures::Stream<Item = HostRequest> + Send + use<>, BrokerError> {
    crate::names::check(worker)?;
    let stream = hosts_stream(broker).await?;
    let names = broker.names();
    let consumer = stream
        .get_or_create_consumer(
            &names.host_consumer(worker),
            pull::Config {
                durable_name: Some(names.host_consumer(worker)),
                filter_subject: names.host_filter(worker),
                ack_policy: AckPolicy::Explicit,
                ..Default::default()
            },
        )
        .await
        .map_err(|e| BrokerError::op("read the worker's requests", e))?;
    let messages = consumer
        .messages()
        .await
        .map_err(|e| BrokerError::op("read the worker's requests", e))?;
    Ok(messages.filter_map(|message| async move {
        let message = message.ok()?;
        let _ = message.ack().await;
        serde_json::from_slice::<HostRequest>(&message.payload).ok()
    }))
}
