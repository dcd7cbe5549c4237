//! Answer from anywhere: permission requests and plan approvals of runs
//! started with `--approvals broker` live in the account's `approvals`
//! bucket (one entry per request, its id the key) and their answers in the
//! `answers` bucket. An answer is written with compare-and-set on the
//! request's key — created only if there is none yet — so exactly one
//! answer applies, whichever machine sends it first; a later one is told
//! who answered first. The answer names the request id and the plan hash
//! it was given for, and the waiting run checks both. Both buckets are
//! file-backed: a broker restart loses neither a request nor an answer.

use std::time::Duration;

use async_nats::jetstream::kv;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::connect::Broker;
use crate::error::BrokerError;
use crate::registry::now;
use crate::store;

/// How long requests and answers are kept.
const KEEP: Duration = Duration::from_secs(7 * 24 * 3600);
/// How often a waiting run looks for its answer besides watching for it
/// (the watch may miss an answer written while the broker restarted).
const POLL: Duration = Duration::from_millis(250);

/// What is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestKind {
    /// A tool call needs permission.
    Permission,
    /// A plan waits for approval (ExitPlanMode).
    Plan,
}

/// One request, as published.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApprovalRequest {
    pub id: String,
    pub kind: RequestKind,
    pub session_id: String,
    pub host: String,
    pub user: String,
    pub project: String,
    pub tool: String,
    /// `Bash(cargo test)`, `approve plan ./plans/x.md`.
    pub summary: String,
    /// The tool call's input, secrets redacted.
    pub input: Value,
    pub reason: String,
    /// A plan approval's plan text (redacted), file and revision hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_hash: Option<String>,
    /// What an edit would change (Edit/Write), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// A sub-agent or teammate that asks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    pub created: String,
    /// After this the run refuses the request itself.
    pub expires: String,
}

/// How a request was answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Approve,
    Reject,
    /// Nobody answered in time; the run refused it.
    TimedOut,
}

/// The one answer to a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApprovalAnswer {
    pub request_id: String,
    /// The plan revision approved (the request's), for plans.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_hash: Option<String>,
    pub verdict: Verdict,
    /// Approve a plan: the mode to go on in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Approve a plan: step numbers left out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skip_steps: Vec<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<String>,
    /// `user@host` of whoever answered.
    pub by: String,
    pub at: String,
}

impl ApprovalAnswer {
    /// `approved by amy@laptop at …`, for "already answered".
    pub fn summary(&self) -> String {
        let what = match self.verdict {
            Verdict::Approve => "approved",
            Verdict::Reject => "rejected",
            Verdict::TimedOut => "refused after the approval timeout",
        };
        let mode = self
            .mode
            .as_deref()
            .map(|m| format!(" (mode {m})"))
            .unwrap_or_default();
        format!("{what}{mode} by {} at {}", self.by, self.at)
    }
}

/// A request with its answer, if any.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestStatus {
    #[serde(flatten)]
    pub request: ApprovalRequest,
    pub answer: Option<ApprovalAnswer>,
}

/// The account's approvals.
#[derive(Clone)]
pub struct Approvals {
    requests: kv::Store,
    answers: kv::Store,
}

impl Approvals {
    pub async fn open(broker: &Broker) -> Result<Approvals, BrokerError> {
        let names = broker.names();
        Ok(Approvals {
            requests: store::key_value(broker, &names.requests_bucket(), KEEP).await?,
            answers: store::key_value(broker, &names.answers_bucket(), KEEP).await?,
        })
    }

    /// Publishes a request.
    pub async fn publish(&self, request: &ApprovalRequest) -> Result<(), BrokerError> {
        let body = serde_json::to_vec(request).map_err(|e| BrokerError::op("encode", e))?;
        self.requests
            .put(&request.id, body.into())
            .await
            .map(|_| ())
            .map_err(|e| BrokerError::op("publish the approval request", e))
    }

    pub async fn request(&self, id: &str) -> Result<Option<ApprovalRequest>, BrokerError> {
        read(&self.requests, id, "approval request").await
    }

    pub async fn answer_of(&self, id: &str) -> Result<Option<ApprovalAnswer>, BrokerError> {
        read(&self.answers, id, "approval answer").await
    }

    /// Every request with its answer, oldest first; `all` = answered ones
    /// too.
    pub async fn list(&self, all: bool) -> Result<Vec<RequestStatus>, BrokerError> {
        let fail = |e: &dyn std::fmt::Display| BrokerError::op("list approval requests", e);
        let mut keys = self.requests.keys().await.map_err(|e| fail(&e))?;
        let mut out = Vec::new();
        while let Some(key) = keys.next().await {
            let key = key.map_err(|e| fail(&e))?;
            let Some(request) = self.request(&key).await? else {
                continue;
            };
            let answer = self.answer_of(&key).await?;
            if all || answer.is_none() {
                out.push(RequestStatus { request, answer });
            }
        }
        out.sort_by(|a, b| a.request.created.cmp(&b.request.created));
        Ok(out)
    }

    /// Records `answer` unless the request has one already (compare and
    /// set): `AlreadyAnswered` names the first answer.
    pub async fn answer(&self, answer: &ApprovalAnswer) -> Result<(), BrokerError> {
        let body = serde_json::to_vec(answer).map_err(|e| BrokerError::op("encode", e))?;
        match self.answers.create(&answer.request_id, body.into()).await {
            Ok(_) => Ok(()),
            Err(e) if e.kind() == kv::CreateErrorKind::AlreadyExists => {
                let first = self.answer_of(&answer.request_id).await?;
                Err(BrokerError::AlreadyAnswered {
                    id: answer.request_id.clone(),
                    summary: first.map_or_else(|| "by someone else".into(), |a| a.summary()),
                })
            }
            Err(e) => Err(BrokerError::op("record the answer", e)),
        }
    }

    /// Waits for the answer to `id` until `deadline`; `None` when none came
    /// in time. Broker errors (a restart) are waited out, not returned.
    pub async fn wait_answer(
        &self,
        id: &str,
        deadline: tokio::time::Instant,
    ) -> Option<ApprovalAnswer> {
        let mut watch = None;
        loop {
            if let Ok(Some(answer)) = self.answer_of(id).await {
                return Some(answer);
            }
            if watch.is_none() {
                watch = self.answers.watch(id).await.ok();
            }
            let next = async {
                match watch.as_mut() {
                    Some(w) => w.next().await.map(|e| e.is_ok()),
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = tokio::time::sleep_until(deadline) => return None,
                _ = tokio::time::sleep(POLL) => {}
                seen = next => {
                    if seen != Some(true) {
                        watch = None;
                    }
                }
            }
        }
    }

    /// Forgets a request and its answer (tests and clean-up).
    pub async fn remove(&self, id: &str) -> Result<(), BrokerError> {
        let fail = |e: &dyn std::fmt::Display| BrokerError::op("remove the approval request", e);
        self.requests.purge(id).await.map_err(|e| fail(&e))?;
        self.answers.purge(id).await.map_err(|e| fail(&e))
    }
}

async fn read<T: serde::de::DeserializeOwned>(
    store: &kv::Store,
    id: &str,
    what: &str,
) -> Result<Option<T>, BrokerError> {
    if !crate::names::is_valid_name(id) {
        return Ok(None);
    }
    let Some(bytes) = store
        .get(id)
        .await
        .map_err(|e| BrokerError::op(&format!("read the {what}"), e))?
    else {
        return Ok(None);
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| BrokerError::Malformed {
            what: what.to_string(),
            detail: e.to_string(),
        })
}

/// A fresh request id.
pub fn new_request_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// Who answers from this process: `user@host`.
pub fn answerer() -> String {
    format!(
        "{}@{}",
        std::env::var("USER").unwrap_or_else(|_| "someone".into()),
        crate::registry::host_name()
    )
}

/// The time `after` from now, as requests write it.
pub fn expires_after(after: Duration) -> String {
    let at = chrono::Utc::now()
        + chrono::Duration::from_std(after).unwrap_or_else(|_| chrono::Duration::days(365));
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Now, as answers write it.
pub fn stamp() -> String {
    now()
}
