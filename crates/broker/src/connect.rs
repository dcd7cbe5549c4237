//! Connecting to the broker: the URL and credentials, a bounded first
//! connection (an unreachable broker is an error at start, never a hang),
//! reconnection in the background, and the link state the session reports
//! ("broker unreachable, working locally" / "reconnected").
//!
//! Credentials (a password in the URL, a credentials file) go to the NATS
//! client only: every URL catui shows or logs is [`shown_url`], without them.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream;
use tokio::sync::watch;

use crate::error::BrokerError;
use crate::names::Names;

/// How long the first connection may take before catui gives up.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest wait between two reconnection attempts: short, so a session
/// notices a restarted broker within a couple of seconds.
const MAX_RECONNECT_DELAY: Duration = Duration::from_secs(2);

/// Where the broker is and how to log in.
#[derive(Debug, Clone)]
pub struct BrokerConfig {
    /// `nats://host:port` or `tls://host:port`, optionally with
    /// `user:password@`.
    pub url: String,
    /// A NATS credentials file (`.creds`: a user JWT and its nkey seed).
    pub credentials: Option<PathBuf>,
    /// The namespace of every subject and bucket (`catui.<account>.…`).
    pub account: String,
    pub connect_timeout: Duration,
}

impl BrokerConfig {
    /// A broker at `url`, in the account named by `CATUI_BROKER_ACCOUNT`
    /// (default `default`).
    pub fn new(url: impl Into<String>) -> Self {
        BrokerConfig {
            url: url.into(),
            credentials: None,
            account: std::env::var("CATUI_BROKER_ACCOUNT")
                .ok()
                .filter(|a| !a.trim().is_empty())
                .unwrap_or_else(|| "default".into()),
            connect_timeout: CONNECT_TIMEOUT,
        }
    }
}

/// The connection's state as the session last saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    Up,
    /// Lost; the client reconnects in the background.
    Down,
}

/// A connection to the broker with JetStream, shared by everything of one
/// process (registry, approvals, mailboxes, worker).
#[derive(Clone)]
pub struct Broker {
    inner: Arc<Inner>,
}

struct Inner {
    client: async_nats::Client,
    js: jetstream::Context,
    names: Names,
    shown_url: String,
    link: watch::Receiver<Link>,
}

impl std::fmt::Debug for Broker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Broker({})", self.inner.shown_url)
    }
}

impl Broker {
    /// Connects, within `config.connect_timeout`, and checks that the
    /// server has JetStream.
    pub async fn connect(config: &BrokerConfig) -> Result<Broker, BrokerError> {
        let shown = shown_url(&config.url);
        if !(config.url.starts_with("nats://") || config.url.starts_with("tls://"))
            || config.url.split("://").nth(1).is_none_or(str::is_empty)
        {
            return Err(BrokerError::BadUrl(shown));
        }
        let names = Names::new(&config.account)?;
        let (link_tx, link_rx) = watch::channel(Link::Up);
        let link_tx = Arc::new(link_tx);
        let mut options = async_nats::ConnectOptions::new()
            .name("catui")
            .connection_timeout(config.connect_timeout)
            .request_timeout(Some(config.connect_timeout))
            .reconnect_delay_callback(|attempts| {
                Duration::from_millis(100 * attempts.min(20) as u64).min(MAX_RECONNECT_DELAY)
            })
            .event_callback(move |event| {
                let link_tx = link_tx.clone();
                async move {
                    match event {
                        async_nats::Event::Connected => {
                            let _ = link_tx.send(Link::Up);
                        }
                        async_nats::Event::Disconnected => {
                            let _ = link_tx.send(Link::Down);
                        }
                        _ => {}
                    }
                }
            });
        if let Some(path) = &config.credentials {
            options =
                options
                    .credentials_file(path)
                    .await
                    .map_err(|e| BrokerError::Credentials {
                        path: path.display().to_string(),
                        detail: e.to_string(),
                    })?;
        }
        let unreachable = |detail: String| BrokerError::Unreachable {
            url: shown.clone(),
            secs: config.connect_timeout.as_secs().max(1),
            detail,
        };
        // The client bounds each attempt; this bounds the whole start
        // (name resolution included).
        let client =
            tokio::time::timeout(config.connect_timeout, options.connect(config.url.as_str()))
                .await
                .map_err(|_| unreachable("no answer".into()))?
                .map_err(|e| unreachable(scrub(&e.to_string(), &config.url)))?;
        let js = jetstream::new(client.clone());
        check_jetstream(&client)
            .await
            .map_err(|detail| BrokerError::NoJetStream {
                url: shown.clone(),
                detail: scrub(&detail, &config.url),
            })?;
        Ok(Broker {
            inner: Arc::new(Inner {
                client,
                js,
                names,
                shown_url: shown,
                link: link_rx,
            }),
        })
    }

    pub fn names(&self) -> &Names {
        &self.inner.names
    }

    pub fn jetstream(&self) -> &jetstream::Context {
        &self.inner.js
    }

    pub fn client(&self) -> &async_nats::Client {
        &self.inner.client
    }

    /// The URL without credentials, for messages.
    pub fn shown_url(&self) -> &str {
        &self.inner.shown_url
    }

    /// The link state, updated as the client loses and regains the server.
    pub fn link(&self) -> watch::Receiver<Link> {
        self.inner.link.clone()
    }

    /// Sends what is buffered (before a short-lived command exits).
    pub async fn flush(&self) {
        let _ = self.inner.client.flush().await;
    }
}

/// Asks the server for the account's JetStream details (read raw: the
/// client's typed answer expects fields nats-server 2.9 does not send).
async fn check_jetstream(client: &async_nats::Client) -> Result<(), String> {
    let reply = client
        .request("$JS.API.INFO", bytes::Bytes::new())
        .await
        .map_err(|e| e.to_string())?;
    let body: serde_json::Value =
        serde_json::from_slice(&reply.payload).map_err(|e| e.to_string())?;
    match body.get("error") {
        Some(error) => Err(error["description"]
            .as_str()
            .unwrap_or("JetStream is not enabled")
            .to_string()),
        None => Ok(()),
    }
}

/// `url` without a password (`nats://amy:***@host:4222`), for anything
/// shown or logged.
pub fn shown_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split(':').next().unwrap_or_default();
            format!("{scheme}://{user}:***@{host}{path}")
        }
        None => url.to_string(),
    }
}

/// An error text of the client with any copy of the URL's credentials
/// taken out.
fn scrub(text: &str, url: &str) -> String {
    let mut text = text.replace(url, &shown_url(url));
    if let Some((_, rest)) = url.split_once("://")
        && let Some((userinfo, _)) = rest.split('/').next().unwrap_or_default().rsplit_once('@')
        && let Some((_, password)) = userinfo.split_once(':')
        && !password.is_empty()
    {
        text = text.replace(password, "***");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_urls_hide_the_password() {
        assert_eq!(
            shown_url("nats://amy:s3cret@h:4222"),
            "nats://amy:***@h:4222"
        );
        assert_eq!(shown_url("tls://h:4222"), "tls://h:4222");
        assert_eq!(shown_url("nats://tok@h:1/x"), "nats://tok:***@h:1/x");
        assert!(
            !scrub(
                "failed nats://amy:s3cret@h:4222 s3cret",
                "nats://amy:s3cret@h:4222"
            )
            .contains("s3cret")
        );
    }
}
