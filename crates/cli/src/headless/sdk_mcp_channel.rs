//! The SDK application's in-process MCP servers (`"type": "sdk"`): each
//! JSON-RPC message goes out as an `mcp_message` control request and the
//! client's `mcp_response` comes back through [`Pending`]. This is only the
//! stream-json side of the channel; core's `catui_core::mcp::sdk_transport` makes an
//! MCP transport of it.

use std::sync::Arc;

use catui_protocol::stream_json::{ControlRequest, ControlResponse, OutputEvent};
use serde_json::Value;

use super::Pending;

/// The SDK application's in-process MCP servers, reached with
/// `mcp_message` control requests. No answer, or an error answer, is an
/// error for the one message (the MCP client turns it into a failed call).
pub struct SdkMcpChannel {
    /// Weak: the servers never keep the output open after the session.
    pub out: tokio::sync::mpsc::WeakUnboundedSender<OutputEvent>,
    pub pending: Arc<Pending>,
}

impl catui_core::mcp::SdkChannel for SdkMcpChannel {
    fn send(
        &self,
        server: &str,
        message: Value,
    ) -> futures::future::BoxFuture<'static, Result<Value, String>> {
        let (request_id, rx) = self.pending.register("mcp");
        let request = OutputEvent::ControlRequest {
            request_id: request_id.clone(),
            request: ControlRequest::McpMessage {
                server_name: server.to_string(),
                message,
            },
        };
        let sent = self
            .out
            .upgrade()
            .is_some_and(|out| out.send(request).is_ok());
        if !sent {
            self.pending.forget(&request_id);
        }
        Box::pin(async move {
            match rx.await {
                Ok(ControlResponse::Success { response, .. }) => response
                    .and_then(|mut body| body.get_mut("mcp_response").map(Value::take))
                    .ok_or_else(|| "the answer has no mcp_response".to_string()),
                Ok(ControlResponse::Error { error, .. }) => Err(error),
                Err(_) => Err("the SDK application went away".into()),
            }
        })
    }
}
