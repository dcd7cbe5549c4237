//! The HTTP side of the mock: an axum server on `127.0.0.1:0` that records
//! every request, picks the turn that answers it and streams that turn in
//! the request's wire format, with the turn's delays and faults.

use std::future::IntoFuture;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use catui_protocol::sync::lock;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::cache::PromptCache;
use crate::recorded::RecordedRequest;
use crate::render::{self, RenderCtx};
use crate::script::{Reply, Script, Turn};

/// A running mock model server. It stops when dropped.
///
/// Point an Anthropic client at [`url`](MockServer::url) and an OpenAI
/// client at [`openai_base_url`](MockServer::openai_base_url).
pub struct MockServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

struct Slot {
    turn: Turn,
    used: bool,
}

struct Shared {
    slots: Mutex<Vec<Slot>>,
    requests: Mutex<Vec<RecordedRequest>>,
    /// Whether [`MockServer::requests`] keeps what arrives (off for long
    /// benchmark sessions, whose request bodies add up to gigabytes).
    keep_requests: AtomicBool,
    serial: AtomicU64,
    shutdown: CancellationToken,
    prompt_cache: PromptCache,
    /// See [`Script::context_window`].
    context_window: Option<u64>,
}

/// Which wire format a request used.
#[derive(Clone, Copy)]
enum Format {
    Anthropic,
    OpenAi,
    Responses,
}

impl MockServer {
    /// Starts the server on the current tokio runtime.
    pub async fn start(script: Script) -> io::Result<MockServer> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let shared = Shared::new(script);
        tokio::spawn(serve(listener, shared.clone()));
        Ok(MockServer {
            addr,
            shared,
            thread: None,
        })
    }

    /// Starts the server on its own thread and runtime, for synchronous
    /// tests (e.g. ones that run the `catui` binary against it).
    pub fn start_blocking(script: Script) -> io::Result<MockServer> {
        MockServer::start_blocking_on(SocketAddr::from(([127, 0, 0, 1], 0)), script)
    }

    /// [`start_blocking`](MockServer::start_blocking) on a given address
    /// (port 0: any free port), e.g. for the `catui-mock` binary.
    pub fn start_blocking_on(addr: SocketAddr, script: Script) -> io::Result<MockServer> {
        let shared = Shared::new(script);
        let (tx, rx) = std::sync::mpsc::channel::<io::Result<SocketAddr>>();
        let thread_shared = shared.clone();
        let thread = std::thread::Builder::new()
            .name("catui-mock-server".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                };
                runtime.block_on(async move {
                    let listener = match TcpListener::bind(addr).await {
                        Ok(l) => l,
                        Err(e) => {
                            let _ = tx.send(Err(e));
                            return;
                        }
                    };
                    let _ = tx.send(listener.local_addr());
                    serve(listener, thread_shared).await;
                });
                runtime.shutdown_timeout(Duration::from_millis(200));
            })?;
        let addr = rx
            .recv()
            .map_err(|_| io::Error::other("the mock server thread stopped before it started"))??;
        Ok(MockServer {
            addr,
            shared,
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:PORT`: the Anthropic base URL.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://127.0.0.1:PORT/v1`: the OpenAI base URL (Chat Completions
    /// and Responses).
    pub fn openai_base_url(&self) -> String {
        format!("{}/v1", self.url())
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests).clone()
    }

    /// Stops (or resumes) keeping requests for [`requests`](Self::requests);
    /// they are still matched against the script.
    pub fn keep_requests(&self, keep: bool) {
        self.shared.keep_requests.store(keep, Ordering::Relaxed);
    }

    /// Adds a turn at the end of the script while the server runs.
    pub fn push(&self, turn: Turn) {
        lock(&self.shared.slots).push(Slot { turn, used: false });
    }

    /// How many turns have not answered a request yet.
    pub fn unused_turns(&self) -> usize {
        lock(&self.shared.slots).iter().filter(|s| !s.used).count()
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.shared.shutdown.cancel();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl std::fmt::Debug for MockServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MockServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl Shared {
    fn new(script: Script) -> Arc<Shared> {
        let context_window = script.context_window;
        Arc::new(Shared {
            context_window,
            slots: Mutex::new(
                script
                    .turns
                    .into_iter()
                    .map(|turn| Slot { turn, used: false })
                    .collect(),
            ),
            requests: Mutex::new(Vec::new()),
            keep_requests: AtomicBool::new(true),
            serial: AtomicU64::new(1),
            shutdown: CancellationToken::new(),
            prompt_cache: PromptCache::default(),
        })
    }

    /// Takes the first unused turn whose conditions match.
    fn take_turn(&self, request: &RecordedRequest) -> Option<Turn> {
        let mut slots = lock(&self.slots);
        let slot = slots
            .iter_mut()
            .find(|s| !s.used && s.turn.matches(request))?;
        slot.used = !slot.turn.reusable;
        Some(slot.turn.resolve(request))
    }
}

async fn serve(listener: TcpListener, shared: Arc<Shared>) {
    let token = shared.shutdown.clone();
    let app = Router::new()
        .route("/v1/messages", post(anthropic))
        .route("/v1/chat/completions", post(openai))
        .route("/chat/completions", post(openai))
        .route("/v1/responses", post(responses))
        .route("/responses", post(responses))
        .fallback(unknown_path)
        // Long-session benchmarks send whole conversations of many MiB.
        .layer(axum::extract::DefaultBodyLimit::max(1 << 30))
        .with_state(shared);
    tokio::select! {
        result = axum::serve(listener, app).into_future() => {
            if let Err(e) = result {
                tracing::warn!("mock model server stopped: {e}");
            }
        }
        _ = token.cancelled() => {}
    }
}

async fn anthropic(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    respond(shared, Format::Anthropic, uri, headers, body).await
}

async fn openai(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    respond(shared, Format::OpenAi, uri, headers, body).await
}

async fn responses(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    respond(shared, Format::Responses, uri, headers, body).await
}

async fn unknown_path(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri.path().to_string();
    record(&shared, &uri, &headers, &body);
    json_response(
        StatusCode::NOT_FOUND,
        json!({"error": format!("the mock model server has no route {path}: use POST /v1/messages, /v1/chat/completions or /v1/responses")}),
    )
}

fn record(shared: &Shared, uri: &Uri, headers: &HeaderMap, body: &Bytes) -> RecordedRequest {
    let request = RecordedRequest {
        path: uri.path().to_string(),
        headers: headers
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_ascii_lowercase(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body: serde_json::from_slice(body).unwrap_or(Value::Null),
        received_at: Instant::now(),
    };
    if shared.keep_requests.load(Ordering::Relaxed) {
        lock(&shared.requests).push(request.clone());
    }
    request
}

async fn respond(
    shared: Arc<Shared>,
    format: Format,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let request = record(&shared, &uri, &headers, &body);
    if request.body.is_null() {
        return json_response(
            StatusCode::BAD_REQUEST,
            json!({"error": "the mock model server expects a JSON request body"}),
        );
    }
    // What the real APIs refuse, the mock refuses too, without using a turn.
    let invalid = match format {
        Format::Anthropic => render::anthropic::validate(&request.body).err(),
        Format::Responses => render::responses::validate(&request.body).err(),
        Format::OpenAi => None,
    };
    let input_estimate = (body.len() as u64).div_ceil(4).max(1);
    let invalid = invalid.or_else(|| {
        let window = shared.context_window?;
        (input_estimate > window).then(|| too_long_message(format, input_estimate, window))
    });
    if let Some(message) = invalid {
        let body = match format {
            Format::Anthropic => render::anthropic::error_body(400, &message),
            Format::OpenAi | Format::Responses => render::openai::error_body(400, &message),
        };
        return json_response(StatusCode::BAD_REQUEST, body);
    }
    let Some(turn) = shared.take_turn(&request) else {
        return json_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            json!({"error": "mock script exhausted"}),
        );
    };

    if let Some(hold) = &turn.hold {
        tokio::select! {
            _ = hold.opened() => {}
            _ = shared.shutdown.cancelled() => {
                return json_response(StatusCode::SERVICE_UNAVAILABLE, json!({"error": "mock server shutting down"}));
            }
        }
    }
    if !turn.delay.is_zero() {
        tokio::select! {
            _ = tokio::time::sleep(turn.delay) => {}
            _ = shared.shutdown.cancelled() => {
                return json_response(StatusCode::SERVICE_UNAVAILABLE, json!({"error": "mock server shutting down"}));
            }
        }
    }

    if let Reply::ErrorStatus { status, message } = &turn.reply {
        let code = StatusCode::from_u16(*status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let body = match format {
            Format::Anthropic => render::anthropic::error_body(*status, message),
            Format::OpenAi | Format::Responses => render::openai::error_body(*status, message),
        };
        let mut response = json_response(code, body);
        if let Some(secs) = turn.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        return response;
    }

    if !request.is_streaming() {
        return json_response(
            StatusCode::BAD_REQUEST,
            json!({"error": "the mock model server only streams: send \"stream\": true"}),
        );
    }

    // The prompt cache sees every Anthropic request; its counts are
    // reported only for turns that set no usage of their own.
    let prompt_cache = match format {
        Format::Anthropic => Some(shared.prompt_cache.account(&request.body)),
        Format::OpenAi | Format::Responses => None,
    }
    .filter(|_| turn.usage.is_none() && turn.cache_usage.is_none());
    let ctx = RenderCtx {
        model: request.model().to_string(),
        serial: shared.serial.fetch_add(1, Ordering::Relaxed),
        input_estimate,
        include_usage: request
            .body
            .pointer("/stream_options/include_usage")
            .and_then(Value::as_bool)
            == Some(true),
        encrypted_reasoning: request
            .body
            .get("include")
            .and_then(Value::as_array)
            .is_some_and(|i| i.iter().any(|v| v == "reasoning.encrypted_content")),
        prompt_cache,
    };
    let frames = match format {
        Format::Anthropic => render::anthropic::frames(&turn, &ctx),
        Format::OpenAi => render::openai::frames(&turn, &ctx),
        Format::Responses => render::responses::frames(&turn, &ctx),
    };
    let frames = match turn.end_after {
        Some(n) => frames.into_iter().take(n).collect(),
        None => frames,
    };
    let body = stream_body(
        frames,
        turn.chunk_delay,
        turn.drop_after,
        shared.shutdown.clone(),
    );
    let mut response = Response::new(body);
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// The error text each API gives for a prompt over the context window.
fn too_long_message(format: Format, tokens: u64, window: u64) -> String {
    match format {
        Format::Anthropic => format!("prompt is too long: {tokens} tokens > {window} maximum"),
        Format::OpenAi => format!(
            "This model's maximum context length is {window} tokens. However, your messages \
             resulted in {tokens} tokens. Please reduce the length of the messages."
        ),
        Format::Responses => format!(
            "Your input exceeds the context window of this model ({tokens} tokens > {window})."
        ),
    }
}

fn json_response(status: StatusCode, body: Value) -> Response {
    (status, axum::Json(body)).into_response()
}

struct Feed {
    frames: std::vec::IntoIter<Bytes>,
    sent: usize,
    chunk_delay: Duration,
    drop_after: Option<usize>,
    shutdown: CancellationToken,
    done: bool,
}

/// Streams the frames, pausing between them; at `drop_after` the body
/// fails, which makes the HTTP layer abort the connection without the
/// final chunk, as a dropped connection would look to a client.
fn stream_body(
    frames: Vec<Bytes>,
    chunk_delay: Duration,
    drop_after: Option<usize>,
    shutdown: CancellationToken,
) -> Body {
    let feed = Feed {
        frames: frames.into_iter(),
        sent: 0,
        chunk_delay,
        drop_after,
        shutdown,
        done: false,
    };
    let stream = futures::stream::unfold(feed, |mut feed| async move {
        if feed.done {
            return None;
        }
        if feed.drop_after == Some(feed.sent) {
            feed.done = true;
            // Let the HTTP layer flush what was sent, so the client sees a
            // response that breaks mid-stream rather than no response.
            tokio::time::sleep(Duration::from_millis(20)).await;
            let err = io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "mock server dropped the stream",
            );
            return Some((Err(err), feed));
        }
        let frame = feed.frames.next()?;
        if feed.sent > 0 && !feed.chunk_delay.is_zero() {
            tokio::select! {
                _ = tokio::time::sleep(feed.chunk_delay) => {}
                _ = feed.shutdown.cancelled() => return None,
            }
        }
        feed.sent += 1;
        Some((Ok(frame), feed))
    });
    Body::from_stream(stream)
}
