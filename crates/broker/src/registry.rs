//! Every session is visible: each session (and each worker) keeps one
//! entry in the account's `sessions` key-value bucket — who and where it
//! is, what it does (`working`, `waiting_for_you`, `idle`, `done`,
//! `failed`), its plan's progress, what it waits for and since when — and
//! writes it again every heartbeat. An entry not refreshed within its TTL
//! (three heartbeats) belongs to a session that died or lost the broker:
//! it is shown `failed`. The bucket forgets entries after a day.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_nats::jetstream::kv;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::connect::Broker;
use crate::error::BrokerError;
use crate::store;

/// How often a session writes its entry unless `CATUI_BROKER_HEARTBEAT_MS`
/// says otherwise.
pub const HEARTBEAT: Duration = Duration::from_secs(5);
/// How many heartbeats may be missed before an entry counts as failed.
pub const TTL_HEARTBEATS: u32 = 3;
/// How long the bucket keeps an entry that is no longer written.
const KEEP: Duration = Duration::from_secs(24 * 3600);

/// What a session is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentState {
    Working,
    /// A permission or plan approval waits for a person.
    WaitingForYou,
    Idle,
    Done,
    Failed,
}

impl AgentState {
    pub fn as_str(self) -> &'static str {
        match self {
            AgentState::Working => "working",
            AgentState::WaitingForYou => "waiting_for_you",
            AgentState::Idle => "idle",
            AgentState::Done => "done",
            AgentState::Failed => "failed",
        }
    }

    /// Still running (so its heartbeat is expected).
    pub fn is_live(self) -> bool {
        matches!(
            self,
            AgentState::Working | AgentState::WaitingForYou | AgentState::Idle
        )
    }
}

/// A plan's progress as shown in the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanProgress {
    pub slug: String,
    pub done: u32,
    pub total: u32,
}

/// One session's entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionEntry {
    pub session_id: String,
    /// `tui`, `headless`, `sdk`, `acp`, `teammate`, `worker`.
    pub kind: String,
    pub host: String,
    pub user: String,
    pub project: String,
    pub state: AgentState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<PlanProgress>,
    /// What a person is asked (`approve plan …`, `Bash(cargo test)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting_for: Option<String>,
    /// When it entered `state` (RFC 3339).
    pub since: String,
    /// When it last wrote this entry.
    pub updated: String,
    /// How long the entry counts as current after `updated`.
    pub ttl_ms: u64,
    /// A teammate's team and name, a worker's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The worker hosting a teammate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker: Option<String>,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    pub pid: u32,
}

impl SessionEntry {
    /// A new entry for this process, `working` from now.
    pub fn new(session_id: &str, kind: &str, project: &str, heartbeat: Duration) -> Self {
        let now = now();
        SessionEntry {
            session_id: session_id.to_string(),
            kind: kind.to_string(),
            host: host_name(),
            user: std::env::var("USER").unwrap_or_default(),
            project: project.to_string(),
            state: AgentState::Working,
            plan: None,
            waiting_for: None,
            since: now.clone(),
            updated: now,
            ttl_ms: (heartbeat * TTL_HEARTBEATS).as_millis() as u64,
            team: None,
            name: None,
            worker: None,
            detail: None,
            pid: std::process::id(),
        }
    }

    /// The entry as it stands at `now`: a live one not refreshed within
    /// its TTL is `failed` (its session died or lost the broker).
    pub fn as_of(mut self, now: chrono::DateTime<chrono::Utc>) -> Self {
        let stale = chrono::DateTime::parse_from_rfc3339(&self.updated)
            .is_ok_and(|t| now.signed_duration_since(t).num_milliseconds() > self.ttl_ms as i64);
        if self.state.is_live() && stale {
            self.state = AgentState::Failed;
            self.detail = Some(format!("no heartbeat since {}", self.updated));
        }
        self
    }

    /// The key of this entry.
    pub fn key(&self) -> String {
        self.session_id.clone()
    }
}

/// The current time as entries write it.
pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// This machine's name: `CATUI_HOST`, else the kernel's host name.
pub fn host_name() -> String {
    std::env::var("CATUI_HOST")
        .ok()
        .filter(|h| !h.trim().is_empty())
        .or_else(|| {
            std::fs::read_to_string("/proc/sys/kernel/hostname")
                .ok()
                .map(|h| h.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// The heartbeat: `CATUI_BROKER_HEARTBEAT_MS`, else [`HEARTBEAT`].
pub fn heartbeat() -> Duration {
    std::env::var("CATUI_BROKER_HEARTBEAT_MS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|ms| *ms >= 50)
        .map_or(HEARTBEAT, Duration::from_millis)
}

/// The account's session entries.
#[derive(Clone)]
pub struct Registry {
    kv: kv::Store,
}

impl Registry {
    pub async fn open(broker: &Broker) -> Result<Registry, BrokerError> {
        let kv = store::key_value(broker, &broker.names().sessions_bucket(), KEEP).await?;
        Ok(Registry { kv })
    }

    pub async fn put(&self, entry: &SessionEntry) -> Result<(), BrokerError> {
        let body = serde_json::to_vec(entry).map_err(|e| BrokerError::op("encode", e))?;
        self.kv
            .put(entry.key(), body.into())
            .await
            .map(|_| ())
            .map_err(|e| BrokerError::op("publish the session state", e))
    }

    pub async fn get(&self, session_id: &str) -> Result<Option<SessionEntry>, BrokerError> {
        let Some(bytes) = self
            .kv
            .get(session_id)
            .await
            .map_err(|e| BrokerError::op("read the session registry", e))?
        else {
            return Ok(None);
        };
        Ok(decode(&bytes).map(|e| e.as_of(chrono::Utc::now())))
    }

    /// Every entry, as of now, oldest `since` first.
    pub async fn list(&self) -> Result<Vec<SessionEntry>, BrokerError> {
        let read = |e: &dyn std::fmt::Display| BrokerError::op("read the session registry", e);
        let mut keys = self.kv.keys().await.map_err(|e| read(&e))?;
        let mut entries = Vec::new();
        while let Some(key) = keys.next().await {
            let key = key.map_err(|e| read(&e))?;
            if let Some(bytes) = self.kv.get(key).await.map_err(|e| read(&e))?
                && let Some(entry) = decode(&bytes)
            {
                entries.push(entry.as_of(chrono::Utc::now()));
            }
        }
        entries.sort_by(|a, b| a.since.cmp(&b.since));
        Ok(entries)
    }

    /// Every change from now on (after the current entries).
    pub async fn watch(
        &self,
    ) -> Result<impl futures::Stream<Item = SessionEntry> + Send + use<>, BrokerError> {
        let watch = self
            .kv
            .watch_all()
            .await
            .map_err(|e| BrokerError::op("watch the session registry", e))?;
        Ok(watch.filter_map(|entry| async move {
            let entry = entry.ok()?;
            matches!(entry.operation, kv::Operation::Put)
                .then(|| decode(&entry.value))
                .flatten()
        }))
    }
}

fn decode(bytes: &[u8]) -> Option<SessionEntry> {
    serde_json::from_slice(bytes).ok()
}

/// One session's presence in the registry: its entry, written at once on
/// each change and again every heartbeat until the session ends. A write
/// that fails (broker gone) is retried at the next beat; the session does
/// not wait for it.
pub struct Presence {
    entry: Mutex<SessionEntry>,
    registry: Registry,
    changed: Notify,
    stop: CancellationToken,
    heartbeat: Duration,
}

impl Presence {
    /// Publishes `entry` and keeps it fresh.
    pub fn start(registry: Registry, entry: SessionEntry, heartbeat: Duration) -> Arc<Presence> {
        let presence = Arc::new(Presence {
            entry: Mutex::new(entry),
            registry,
            changed: Notify::new(),
            stop: CancellationToken::new(),
            heartbeat,
        });
        let beat = presence.clone();
        tokio::spawn(async move { beat.run().await });
        presence
    }

    async fn run(&self) {
        loop {
            let entry = {
                let mut entry = catui_protocol::sync::lock(&self.entry);
                entry.updated = now();
                entry.clone()
            };
            if let Err(e) = self.registry.put(&entry).await {
                tracing::debug!("session registry: {e}");
            }
            tokio::select! {
                _ = tokio::time::sleep(self.heartbeat) => {}
                _ = self.changed.notified() => {}
                _ = self.stop.cancelled() => break,
            }
        }
    }

    /// The entry as last set.
    pub fn entry(&self) -> SessionEntry {
        catui_protocol::sync::lock(&self.entry).clone()
    }

    /// Changes the entry and publishes it now.
    pub fn update(&self, f: impl FnOnce(&mut SessionEntry)) {
        {
            let mut entry = catui_protocol::sync::lock(&self.entry);
            let before = entry.state;
            f(&mut entry);
            if entry.state != before {
                entry.since = now();
            }
        }
        self.changed.notify_one();
    }

    /// Sets the state (and what it waits for).
    pub fn set_state(&self, state: AgentState, waiting_for: Option<String>) {
        self.update(|e| {
            e.state = state;
            e.waiting_for = waiting_for;
        });
    }

    /// The session ended: its last entry says how, and the heartbeat stops.
    pub async fn finish(&self, state: AgentState, detail: Option<String>) {
        self.stop.cancel();
        let entry = {
            let mut entry = catui_protocol::sync::lock(&self.entry);
            if entry.state != state {
                entry.since = now();
            }
            entry.state = state;
            entry.waiting_for = None;
            entry.detail = detail;
            entry.updated = now();
            entry.clone()
        };
        // Bounded: a session whose broker is gone still ends promptly.
        let _ = tokio::time::timeout(
            self.heartbeat.max(Duration::from_secs(1)),
            self.registry.put(&entry),
        )
        .await;
    }
}

impl Drop for Presence {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}
