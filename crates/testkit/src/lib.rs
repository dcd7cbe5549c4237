//! A scriptable mock model server for catui's tests and the offline demo.
//!
//! [`MockServer`] listens on `127.0.0.1:0` and speaks both wire formats
//! from the same [`Script`]: Anthropic Messages (`POST /v1/messages`) and
//! OpenAI Chat Completions (`POST /v1/chat/completions`), always streamed
//! over SSE. Each request is recorded ([`RecordedRequest`]) and answered by
//! the first unused [`Turn`] whose conditions match it; when none is left
//! the server answers HTTP 500 `{"error":"mock script exhausted"}`.
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

mod recorded;
mod render;
mod script;
mod server;
pub mod shell_corpus;

pub use recorded::{RecordedRequest, SeenToolResult};
pub use script::{Block, Predicate, Script, Turn};
pub use server::MockServer;
