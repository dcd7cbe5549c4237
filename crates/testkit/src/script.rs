//! What the mock server answers: a [`Script`] of [`Turn`]s, each one
//! response to one request, built from content [`Block`]s or a fault
//! (error status, dropped stream, malformed SSE, stream error event).
//!
//! A turn describes the answer once; the server renders it in whichever
//! wire format the request used, so one script serves both clients.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::recorded::RecordedRequest;

/// One piece of an assistant answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Text(String),
    /// Extended thinking with its signature (Chat Completions: sent as
    /// `reasoning_content`, the signature is dropped; Responses: a
    /// reasoning item whose summary is the thinking and whose encrypted
    /// content is the signature).
    Thinking {
        thinking: String,
        signature: String,
    },
    RedactedThinking {
        data: String,
    },
    /// A tool call whose input is streamed as the JSON text of `input`.
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
    /// A tool call whose input text is sent verbatim (may be invalid JSON).
    ToolUseRaw {
        id: String,
        name: String,
        raw: String,
    },
}

impl Block {
    pub fn text(text: impl Into<String>) -> Block {
        Block::Text(text.into())
    }

    pub fn thinking(thinking: impl Into<String>, signature: impl Into<String>) -> Block {
        Block::Thinking {
            thinking: thinking.into(),
            signature: signature.into(),
        }
    }

    pub fn tool_use(id: impl Into<String>, name: impl Into<String>, input: Value) -> Block {
        Block::ToolUse {
            id: id.into(),
            name: name.into(),
            input,
        }
    }

    pub(crate) fn is_tool_use(&self) -> bool {
        matches!(self, Block::ToolUse { .. } | Block::ToolUseRaw { .. })
    }

    /// The characters this block streams, for default output token counts.
    pub(crate) fn streamed_len(&self) -> usize {
        match self {
            Block::Text(t) => t.len(),
            Block::Thinking { thinking, .. } => thinking.len(),
            Block::RedactedThinking { data } => data.len(),
            Block::ToolUse { input, .. } => input.to_string().len(),
            Block::ToolUseRaw { raw, .. } => raw.len(),
        }
    }
}

/// What kind of answer a turn gives.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Reply {
    Content(Vec<Block>),
    ErrorStatus { status: u16, message: String },
    MalformedSse,
    StreamError { kind: String, message: String },
}

/// Decides whether a turn may answer a request.
pub type Predicate = Arc<dyn Fn(&RecordedRequest) -> bool + Send + Sync>;

/// One scripted response to one request.
///
/// ```
/// use catui_testkit::Turn;
/// use serde_json::json;
/// let t = Turn::tool_use("toolu_1", "Read", json!({"file_path": "src/main.rs"}))
///     .usage(120, 30)
///     .when_model("claude-small");
/// # let _ = t;
/// ```
#[derive(Clone)]
pub struct Turn {
    pub(crate) reply: Reply,
    pub(crate) retry_after: Option<u64>,
    pub(crate) drop_after: Option<usize>,
    pub(crate) end_after: Option<usize>,
    pub(crate) delay: Duration,
    /// Answers only once the test opens it (see [`Turn::held`]).
    pub(crate) hold: Option<Hold>,
    pub(crate) chunk_delay: Duration,
    pub(crate) usage: Option<(u64, u64)>,
    pub(crate) cache_usage: Option<(u64, u64)>,
    pub(crate) stop_reason: Option<String>,
    predicates: Vec<Predicate>,
    /// Answers any number of requests instead of one (see [`Turn::forever`]).
    pub(crate) reusable: bool,
    /// Computes the real reply from the request (see [`Turn::respond`]).
    responder: Option<Responder>,
}

type Responder = std::sync::Arc<dyn Fn(&RecordedRequest) -> Turn + Send + Sync>;

impl Turn {
    fn new(reply: Reply) -> Turn {
        Turn {
            reply,
            retry_after: None,
            drop_after: None,
            end_after: None,
            delay: Duration::ZERO,
            hold: None,
            chunk_delay: Duration::ZERO,
            usage: None,
            cache_usage: None,
            stop_reason: None,
            predicates: Vec::new(),
            reusable: false,
            responder: None,
        }
    }

    /// A turn whose reply is computed from the request it answers: for
    /// scripts that need something only known at run time (a plan file's
    /// path, an id). Conditions set on the returned turn are ignored; set
    /// them on this one.
    pub fn respond(f: impl Fn(&RecordedRequest) -> Turn + Send + Sync + 'static) -> Turn {
        let mut turn = Turn::text("");
        turn.responder = Some(std::sync::Arc::new(f));
        turn
    }

    /// The reply for `request`: this turn, or what its responder computes.
    pub(crate) fn resolve(&self, request: &RecordedRequest) -> Turn {
        match &self.responder {
            Some(f) => f(request),
            None => self.clone(),
        }
    }

    /// A plain text answer (streamed in several deltas), stop reason `end_turn`.
    ///
    /// On the Responses wire, thinking blocks of a turn become reasoning
    /// items (summary = the thinking, encrypted content = the signature).
    pub fn text(text: impl Into<String>) -> Turn {
        Turn::blocks(vec![Block::Text(text.into())])
    }

    /// A single tool call, stop reason `tool_use`.
    pub fn tool_use(id: impl Into<String>, name: impl Into<String>, input: Value) -> Turn {
        Turn::blocks(vec![Block::tool_use(id, name, input)])
    }

    /// A single tool call whose input text is sent as given, valid JSON or not.
    pub fn tool_use_raw(
        id: impl Into<String>,
        name: impl Into<String>,
        raw_json_text: impl Into<String>,
    ) -> Turn {
        Turn::blocks(vec![Block::ToolUseRaw {
            id: id.into(),
            name: name.into(),
            raw: raw_json_text.into(),
        }])
    }

    /// Any sequence of blocks; the stop reason is `tool_use` when one of
    /// them is a tool call, else `end_turn`.
    pub fn blocks(blocks: Vec<Block>) -> Turn {
        Turn::new(Reply::Content(blocks))
    }

    /// An HTTP error with the provider's JSON error body, e.g. 529
    /// (overloaded), 429 (rate limit), 401 (bad key), 400 (bad request).
    pub fn error_status(status: u16, message: impl Into<String>) -> Turn {
        Turn::new(Reply::ErrorStatus {
            status,
            message: message.into(),
        })
    }

    /// A stream whose event data is not JSON.
    pub fn malformed_sse() -> Turn {
        Turn::new(Reply::MalformedSse)
    }

    /// An error reported inside the stream after it started: an Anthropic
    /// `error` event (kind e.g. `overloaded_error`), or an OpenAI chunk
    /// carrying `{"error": {...}}`.
    pub fn stream_error(kind: impl Into<String>, message: impl Into<String>) -> Turn {
        Turn::new(Reply::StreamError {
            kind: kind.into(),
            message: message.into(),
        })
    }

    /// Adds a `retry-after: SECS` header (error statuses only).
    pub fn retry_after(mut self, secs: u64) -> Turn {
        self.retry_after = Some(secs);
        self
    }

    /// Breaks the connection after `n` SSE events, without the final event.
    pub fn drop_after_events(mut self, n: usize) -> Turn {
        self.drop_after = Some(n);
        self
    }

    /// Ends the response cleanly after `n` SSE events, without the final
    /// event (a stream that stops early rather than breaking).
    pub fn end_after_events(mut self, n: usize) -> Turn {
        self.end_after = Some(n);
        self
    }

    /// This turn is never used up: it answers every matching request (a
    /// server for benchmarks that repeat the same exchange).
    pub fn forever(mut self) -> Turn {
        self.reusable = true;
        self
    }

    /// Waits this long before answering at all (latency, concurrency tests).
    pub fn delay(mut self, delay: Duration) -> Turn {
        self.delay = delay;
        self
    }

    /// Waits until `hold` is [released](Hold::release) before answering:
    /// a turn that stays in flight exactly as long as the test needs,
    /// whatever the machine's load (a fixed [`delay`](Turn::delay) can end
    /// before a slow test has looked).
    pub fn held(mut self, hold: &Hold) -> Turn {
        self.hold = Some(hold.clone());
        self
    }

    /// Waits this long between two SSE events.
    pub fn chunk_delay(mut self, delay: Duration) -> Turn {
        self.chunk_delay = delay;
        self
    }

    /// The token counts reported. Without it, input is estimated from the
    /// request size and output from the answer size (about 4 bytes a token).
    pub fn usage(mut self, input_tokens: u64, output_tokens: u64) -> Turn {
        self.usage = Some((input_tokens, output_tokens));
        self
    }

    /// Prompt-cache token counts reported (Anthropic read and creation;
    /// OpenAI reports only `cached_tokens` = `read`). Without it (and
    /// without [`usage`](Turn::usage)), Anthropic requests get the counts
    /// of the mock's own prompt cache (see the crate documentation).
    pub fn cache_usage(mut self, read: u64, creation: u64) -> Turn {
        self.cache_usage = Some((read, creation));
        self
    }

    /// Overrides the stop reason, as an Anthropic `stop_reason` value
    /// (`max_tokens`, `end_turn`, ...); OpenAI gets the matching `finish_reason`.
    pub fn stop_reason(mut self, reason: impl Into<String>) -> Turn {
        self.stop_reason = Some(reason.into());
        self
    }

    /// This turn answers only requests for which `pred` holds. Several
    /// conditions on one turn must all hold.
    pub fn when(mut self, pred: impl Fn(&RecordedRequest) -> bool + Send + Sync + 'static) -> Turn {
        self.predicates.push(Arc::new(pred));
        self
    }

    /// Only requests for this model.
    pub fn when_model(self, model: impl Into<String>) -> Turn {
        let model = model.into();
        self.when(move |r| r.model() == model)
    }

    /// Only requests whose system prompt or messages contain `needle`.
    pub fn when_contains(self, needle: impl Into<String>) -> Turn {
        let needle = needle.into();
        self.when(move |r| r.contains_text(&needle))
    }

    pub(crate) fn matches(&self, request: &RecordedRequest) -> bool {
        self.predicates.iter().all(|p| p(request))
    }

    pub(crate) fn has_tool_use(&self) -> bool {
        matches!(&self.reply, Reply::Content(blocks) if blocks.iter().any(Block::is_tool_use))
    }
}

impl fmt::Debug for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Turn")
            .field("reply", &self.reply)
            .field("retry_after", &self.retry_after)
            .field("drop_after", &self.drop_after)
            .field("end_after", &self.end_after)
            .field("delay", &self.delay)
            .field("chunk_delay", &self.chunk_delay)
            .field("usage", &self.usage)
            .field("conditions", &self.predicates.len())
            .finish()
    }
}

/// A latch for [`Turn::held`]: closed until the test releases it, then
/// open for good (every turn held by it answers).
#[derive(Clone)]
pub struct Hold(Arc<tokio::sync::Semaphore>);

impl Hold {
    pub fn new() -> Hold {
        Hold(Arc::new(tokio::sync::Semaphore::new(0)))
    }

    /// Lets every turn held by this answer, now and later.
    pub fn release(&self) {
        self.0.close();
    }

    /// Returns once [`release`](Hold::release) was called: acquiring from
    /// a closed semaphore fails at once, and no permit is ever added.
    pub(crate) async fn opened(&self) {
        let _ = self.0.acquire().await;
    }
}

impl Default for Hold {
    fn default() -> Hold {
        Hold::new()
    }
}

impl fmt::Debug for Hold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hold")
            .field("released", &self.0.is_closed())
            .finish()
    }
}

/// An ordered list of turns. Each request takes the first unused turn
/// whose conditions match it.
#[derive(Debug, Clone, Default)]
pub struct Script {
    pub(crate) turns: Vec<Turn>,
    pub(crate) context_window: Option<u64>,
}

impl Script {
    pub fn new() -> Script {
        Script::default()
    }

    /// Gives the mock model a context window of `tokens`: like the real
    /// APIs, it refuses (HTTP 400, "prompt is too long", without using a
    /// turn) every request whose prompt is larger, counting about 4 bytes
    /// of request body a token.
    pub fn context_window(mut self, tokens: u64) -> Script {
        self.context_window = Some(tokens);
        self
    }

    /// Appends a turn.
    pub fn turn(mut self, turn: Turn) -> Script {
        self.turns.push(turn);
        self
    }

    pub fn len(&self) -> usize {
        self.turns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.turns.is_empty()
    }
}

impl IntoIterator for Script {
    type Item = Turn;
    type IntoIter = std::vec::IntoIter<Turn>;

    /// The turns in order, e.g. to [`push`](crate::MockServer::push) them
    /// into a server started before the script could be written.
    fn into_iter(self) -> Self::IntoIter {
        self.turns.into_iter()
    }
}

impl From<Vec<Turn>> for Script {
    fn from(turns: Vec<Turn>) -> Script {
        Script {
            turns,
            context_window: None,
        }
    }
}

impl FromIterator<Turn> for Script {
    fn from_iter<I: IntoIterator<Item = Turn>>(iter: I) -> Script {
        Script {
            turns: iter.into_iter().collect(),
            context_window: None,
        }
    }
}
