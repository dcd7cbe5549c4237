//! In-process MCP servers of an SDK application (`"type": "sdk"`): the
//! server lives inside the program that drives catui, so every JSON-RPC
//! message travels over that program's control channel (`mcp_message`
//! control requests, answered with `mcp_response`). The front end that
//! owns the channel implements [`SdkChannel`] (headless stream-json does,
//! in `crates/cli/src/headless/sdk_mcp_channel.rs`); this module turns it into
//! an rmcp transport, so the rest of the client is the same as for stdio
//! and HTTP servers.

use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::model::{ClientJsonRpcMessage, JsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::RoleClient;
use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

/// The control channel to the SDK application.
pub trait SdkChannel: Send + Sync {
    /// Sends one JSON-RPC message to the application's server `server`;
    /// resolves to the application's answer (its `mcp_response`), or why
    /// there is none.
    fn send(&self, server: &str, message: Value) -> BoxFuture<'static, Result<Value, String>>;
}

/// An rmcp transport over an [`SdkChannel`].
pub(super) struct SdkTransport {
    server: String,
    channel: Arc<dyn SdkChannel>,
    replies: UnboundedSender<ServerJsonRpcMessage>,
    incoming: UnboundedReceiver<ServerJsonRpcMessage>,
}

impl SdkTransport {
    pub(super) fn new(server: &str, channel: Arc<dyn SdkChannel>) -> Self {
        let (replies, incoming) = unbounded_channel();
        SdkTransport {
            server: server.to_string(),
            channel,
            replies,
            incoming,
        }
    }
}

/// The reply to a request: the application's answer, or a JSON-RPC error
/// carrying the request's id when the application could not answer, so the
/// caller gets an error instead of waiting forever.
fn reply(id: Option<Value>, answer: Result<Value, String>) -> Option<ServerJsonRpcMessage> {
    let id = id?;
    let value = match answer {
        Ok(value) => value,
        Err(why) => json!({"jsonrpc": "2.0", "id": id,
            "error": {"code": -32603, "message": format!("the SDK application did not answer: {why}")}}),
    };
    serde_json::from_value(value.clone()).ok().or_else(|| {
        serde_json::from_value(json!({"jsonrpc": "2.0", "id": id,
            "error": {"code": -32603, "message": format!("the SDK application's answer is not a JSON-RPC message: {value}")}}))
        .ok()
    })
}

impl rmcp::transport::Transport<RoleClient> for SdkTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let channel = self.channel.clone();
        let server = self.server.clone();
        let replies = self.replies.clone();
        async move {
            let message = serde_json::to_value(&item).map_err(std::io::Error::other)?;
            // Only requests get an answer worth reading; notifications and
            // our own responses are acknowledged by the SDK and dropped.
            let id = matches!(item, JsonRpcMessage::Request(_))
                .then(|| message.get("id").cloned())
                .flatten();
            let answer = channel.send(&server, message).await;
            if let Some(reply) = reply(id, answer) {
                let _ = replies.send(reply);
            }
            Ok(())
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ServerJsonRpcMessage>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.incoming.close();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_missing_answer_becomes_an_error_for_the_caller() {
        let r = reply(Some(json!(3)), Err("gone".into())).unwrap();
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["id"], 3);
        assert!(v["error"]["message"].as_str().unwrap().contains("gone"));
        let r = reply(Some(json!(4)), Ok(json!({"nonsense": true}))).unwrap();
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["id"], 4);
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .contains("not a JSON-RPC")
        );
        assert!(reply(None, Ok(json!({}))).is_none());
        let ok = reply(
            Some(json!(5)),
            Ok(json!({"jsonrpc": "2.0", "id": 5, "result": {}})),
        )
        .unwrap();
        assert_eq!(serde_json::to_value(&ok).unwrap()["result"], json!({}));
    }
}
