//! A scriptable mock model server for catui's tests and the offline demo.
//!
//! [`MockServer`] listens on `127.0.0.1:0` and speaks three wire formats
//! from the same [`Script`]: Anthropic Messages (`POST /v1/messages`),
//! OpenAI Chat Completions (`POST /v1/chat/completions`) and the OpenAI
//! Responses API (`POST /v1/responses`), always streamed over SSE. Each
//! request is recorded ([`RecordedRequest`]) and answered by the first
//! unused [`Turn`] whose conditions match it; when none is left the server
//! answers HTTP 500 `{"error":"mock script exhausted"}`.
//!
//! Like the real APIs, the mock refuses (HTTP 400, with the API's error
//! text) requests those would refuse: on the Responses wire, function calls
//! without outputs and reasoning items it cannot resolve; on the Anthropic
//! wire, broken extended-thinking rules. Anthropic requests also go
//! through a prompt cache that remembers the prefixes marked with
//! `cache_control`, so usage reports the tokens a real server would serve
//! from its cache (unless a turn sets its own usage).
//!
//! ```no_run
//! use catui_testkit::{MockServer, Script, Turn};
//! # async fn demo() -> std::io::Result<()> {
//! let server = MockServer::start(
//!     Script::new()
//!         .turn(Turn::error_status(529, "Overloaded"))
//!         .turn(Turn::text("Hello there")),
//! )
//! .await?;
//! // Anthropic base URL: server.url(); OpenAI base URL: server.openai_base_url()
//! # let _ = server.requests();
//! # Ok(()) }
//! ```

mod cache;
pub mod exfiltration;
pub mod nats;
mod recorded;
mod render;
mod script;
mod server;
pub mod shell_corpus;

pub use recorded::{RecordedRequest, SeenToolResult};
pub use script::{Block, Hold, Predicate, Script, Turn};
pub use server::MockServer;
