//! Team mailboxes on the broker (`teams.backend: "broker"`): one stream per
//! account (`catui_<account>_mail`, subjects `catui.<account>.<team>.mail.<member>`,
//! file-backed), one durable consumer per inbox, so that what was sent
//! while a reader was away — or while the broker restarted — is delivered
//! when it is back. Each message carries an id (`Nats-Msg-Id`): the stream
//! drops a copy published twice, and a reader hands out a redelivered one
//! once.
//!
//! What goes on the broker passes the transcripts' secret redaction first
//! (a teammate's plan or message quoting an API key leaves the machine as
//! `[REDACTED]`).
//!
//! The team manager's calls do not wait for the network: a message is
//! queued and published in order by a background task that retries until
//! the broker takes it; an inbox is read by a background task that
//! buffers what arrives and pokes the reader.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_nats::jetstream::consumer::{AckPolicy, pull};
use async_nats::jetstream::stream::Stream;
use catui_core::session::redact::Redactor;
use catui_core::teams::{MailMessage, MailboxBackend, MailboxError};
use catui_protocol::sync::lock;
use futures::StreamExt;
use tokio::sync::Notify;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

use crate::connect::Broker;
use crate::error::BrokerError;
use crate::store;

/// How long messages stay in the stream.
const KEEP: Duration = Duration::from_secs(7 * 24 * 3600);
/// Within this window a message published twice is stored once.
const DEDUP: Duration = Duration::from_secs(120);
/// How many message ids a reader remembers to hand out a redelivery once.
const SEEN: usize = 4096;

/// The account's team mailboxes.
pub struct BrokerMailboxes {
    broker: Broker,
    redactor: Redactor,
    stream: Stream,
    outbox: UnboundedSender<(String, String, Vec<u8>)>,
    inboxes: Mutex<HashMap<(String, String), Arc<Inbox>>>,
}

/// One inbox being read: what arrived and was not taken yet.
#[derive(Default)]
struct Inbox {
    arrived: Mutex<Vec<(MailMessage, async_nats::jetstream::Message)>>,
    seen: Mutex<(HashSet<String>, VecDeque<String>)>,
    wake: Arc<Notify>,
}

impl Inbox {
    /// Whether `id` is new (and remembers it).
    fn first_time(&self, id: &str) -> bool {
        let mut seen = lock(&self.seen);
        if seen.0.contains(id) {
            return false;
        }
        seen.0.insert(id.to_string());
        seen.1.push_back(id.to_string());
        if seen.1.len() > SEEN
            && let Some(old) = seen.1.pop_front()
        {
            seen.0.remove(&old);
        }
        true
    }
}

impl BrokerMailboxes {
    /// The account's mailboxes; what is sent is redacted of this
    /// process's API keys.
    pub async fn open(broker: &Broker) -> Result<Arc<BrokerMailboxes>, BrokerError> {
        Self::open_redacting(broker, Redactor::from_env()).await
    }

    /// [`Self::open`] with the secrets of `redactor`.
    pub async fn open_redacting(
        broker: &Broker,
        redactor: Redactor,
    ) -> Result<Arc<BrokerMailboxes>, BrokerError> {
        let names = broker.names();
        let stream = store::stream(
            broker,
            &names.mail_stream(),
            &names.mail_subjects(),
            KEEP,
            DEDUP,
        )
        .await?;
        let (outbox, mut queue) = unbounded_channel::<(String, String, Vec<u8>)>();
        let publisher = broker.clone();
        // In order, each retried until the broker takes it (a restart
        // only delays what was sent meanwhile).
        tokio::spawn(async move {
            while let Some((subject, id, body)) = queue.recv().await {
                while let Err(e) =
                    store::publish(&publisher, subject.clone(), &id, body.clone()).await
                {
                    tracing::debug!("mailbox publish: {e}; retrying");
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
            }
        });
        Ok(Arc::new(BrokerMailboxes {
            broker: broker.clone(),
            redactor,
            stream,
            outbox,
            inboxes: Mutex::new(HashMap::new()),
        }))
    }

    /// The inbox of `name` in `team`, read from now on.
    fn inbox(&self, team: &str, name: &str) -> Result<Arc<Inbox>, MailboxError> {
        check(team)?;
        check(name)?;
        let key = (team.to_string(), name.to_string());
        let mut inboxes = lock(&self.inboxes);
        if let Some(inbox) = inboxes.get(&key) {
            return Ok(inbox.clone());
        }
        let inbox = Arc::new(Inbox::default());
        inboxes.insert(key, inbox.clone());
        tokio::spawn(read_inbox(
            self.broker.clone(),
            self.stream.clone(),
            team.to_string(),
            name.to_string(),
            inbox.clone(),
        ));
        Ok(inbox)
    }
}

fn check(name: &str) -> Result<(), MailboxError> {
    if crate::names::is_valid_name(name) {
        Ok(())
    } else {
        Err(MailboxError::InvalidName(name.to_string()))
    }
}

/// Pulls the inbox's messages into `inbox` until the process ends,
/// starting again after a lost connection.
async fn read_inbox(broker: Broker, stream: Stream, team: String, name: String, inbox: Arc<Inbox>) {
    let names = broker.names().clone();
    loop {
        let consumer = stream
            .get_or_create_consumer(
                &names.inbox_consumer(&team, &name),
                pull::Config {
                    durable_name: Some(names.inbox_consumer(&team, &name)),
                    filter_subject: names.inbox(&team, &name),
                    ack_policy: AckPolicy::Explicit,
                    ..Default::default()
                },
            )
            .await;
        let messages = match consumer {
            Ok(c) => c.messages().await,
            Err(e) => {
                tracing::debug!("inbox {name}@{team}: {e}");
                tokio::time::sleep(Duration::from_millis(500)).await;
                continue;
            }
        };
        let Ok(mut messages) = messages else {
            tokio::time::sleep(Duration::from_millis(500)).await;
            continue;
        };
        while let Some(message) = messages.next().await {
            let Ok(message) = message else { break };
            let id = message
                .headers
                .as_ref()
                .and_then(|h| h.get(async_nats::header::NATS_MESSAGE_ID))
                .map(|v| v.as_str().to_string())
                .unwrap_or_default();
            let parsed: Option<MailMessage> = serde_json::from_slice(&message.payload).ok();
            match parsed {
                Some(mail) if id.is_empty() || inbox.first_time(&id) => {
                    lock(&inbox.arrived).push((mail, message));
                    inbox.wake.notify_one();
                }
                // A copy already handed out, or not a message: done with it.
                _ => {
                    let _ = message.ack().await;
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

impl MailboxBackend for BrokerMailboxes {
    fn append(&self, team: &str, name: &str, message: MailMessage) -> Result<(), MailboxError> {
        check(team)?;
        check(name)?;
        let message = MailMessage {
            text: self.redactor.redact(&message.text),
            ..message
        };
        let body = serde_json::to_vec(&message).map_err(|e| MailboxError::Io {
            path: self.broker.names().inbox(team, name).into(),
            source: std::io::Error::other(e),
        })?;
        let id = uuid::Uuid::new_v4().simple().to_string();
        self.outbox
            .send((self.broker.names().inbox(team, name), id, body))
            .map_err(|_| MailboxError::Io {
                path: self.broker.names().inbox(team, name).into(),
                source: std::io::Error::other("the broker's publisher has stopped"),
            })
    }

    fn take_unread(&self, team: &str, name: &str) -> Result<Vec<MailMessage>, MailboxError> {
        let inbox = self.inbox(team, name)?;
        let taken: Vec<_> = std::mem::take(&mut *lock(&inbox.arrived));
        let mut out = Vec::with_capacity(taken.len());
        for (mail, message) in taken {
            // Acknowledged once handed over: not delivered again.
            tokio::spawn(async move {
                let _ = message.ack().await;
            });
            out.push(mail);
        }
        Ok(out)
    }

    fn arrivals(&self, team: &str, name: &str) -> Option<Arc<Notify>> {
        self.inbox(team, name).ok().map(|i| i.wake.clone())
    }

    fn location(&self, team: &str) -> String {
        format!(
            "broker {}, subjects {}",
            self.broker.shown_url(),
            self.broker.names().inbox(team, "*")
        )
    }

    fn create_team(&self, team: &str) -> Result<(), MailboxError> {
        check(team)
    }
}
