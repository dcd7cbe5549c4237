//! Opening the broker's buckets and streams: each is created on first use
//! with file storage (so a broker restart loses nothing) and opened as it
//! is afterwards.

use std::time::Duration;

use async_nats::jetstream::{kv, stream};

use crate::connect::Broker;
use crate::error::BrokerError;

/// Opens the key-value bucket `name`, creating it (file storage, one value
/// per key, entries kept for `max_age`) when it does not exist.
pub(crate) async fn key_value(
    broker: &Broker,
    name: &str,
    max_age: Duration,
) -> Result<kv::Store, BrokerError> {
    let js = broker.jetstream();
    if let Ok(store) = js.get_key_value(name).await {
        return Ok(store);
    }
    // The bucket's stream is made here rather than by the client's
    // `create_key_value`, which first reads the account's details in a
    // shape nats-server 2.9 does not send. The configuration is the one
    // key-value buckets have (the client opens it as such).
    let created = js
        .create_stream(stream::Config {
            name: format!("KV_{name}"),
            subjects: vec![format!("$KV.{name}.>")],
            max_messages_per_subject: 1,
            max_age,
            storage: stream::StorageType::File,
            allow_rollup: true,
            deny_delete: true,
            allow_direct: true,
            discard: stream::DiscardPolicy::New,
            num_replicas: 1,
            ..Default::default()
        })
        .await;
    match js.get_key_value(name).await {
        Ok(store) => Ok(store),
        Err(e) => Err(match created {
            Err(create) => BrokerError::op(&format!("create bucket {name}"), create),
            Ok(_) => BrokerError::op(&format!("open bucket {name}"), e),
        }),
    }
}

/// Opens the stream `name` over `subjects`, creating it (file storage,
/// duplicates within `dedup` dropped by message id) when it does not exist.
pub(crate) async fn stream(
    broker: &Broker,
    name: &str,
    subjects: &str,
    max_age: Duration,
    dedup: Duration,
) -> Result<stream::Stream, BrokerError> {
    broker
        .jetstream()
        .get_or_create_stream(stream::Config {
            name: name.to_string(),
            subjects: vec![subjects.to_string()],
            storage: stream::StorageType::File,
            max_age,
            duplicate_window: dedup,
            ..Default::default()
        })
        .await
        .map_err(|e| BrokerError::op(&format!("open stream {name}"), e))
}

/// Publishes `body` on `subject` with message id `id` (the stream drops a
/// second copy within its duplicate window), waiting for the stream's ack.
pub(crate) async fn publish(
    broker: &Broker,
    subject: String,
    id: &str,
    body: Vec<u8>,
) -> Result<(), BrokerError> {
    let publish = async_nats::jetstream::message::PublishMessage::build()
        .message_id(id)
        .payload(body.into());
    broker
        .jetstream()
        .send_publish(subject, publish)
        .await
        .map_err(|e| BrokerError::op("publish", e))?
        .await
        .map(|_| ())
        .map_err(|e| BrokerError::op("publish (no ack)", e))
}
