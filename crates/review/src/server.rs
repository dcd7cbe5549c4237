//! The review page's web server: `axum` on 127.0.0.1 and a random port,
//! for one plan and one decision. It is safe by construction:
//!
//! - a link to the page carries a random token (256 bits) that works
//!   once: its first load spends it and sets a cookie holding a session
//!   secret of its own (HttpOnly, SameSite=Strict, named for the port);
//!   every other request needs that cookie — a token loaded again (by
//!   another process that read it), wrong or missing: 403. Links are
//!   minted one at a time ([`ReviewLinks`]); the one handed to a browser
//!   travels in a hand-off file (0600, in a 0700 directory) whose path,
//!   not the token, is on the browser's command line, and which is
//!   removed when the link is spent or the review ends;
//! - every request's `Host` must name this server (127.0.0.1 or localhost
//!   with its port), so a DNS-rebound name cannot reach it; an `Origin`,
//!   when a request has one, must be this server, and a state change must
//!   have one;
//! - the decision (the one state change) also needs the page's CSRF token
//!   in `X-CSRF-Token`;
//! - every answer has a strict Content-Security-Policy (scripts and styles
//!   only from this server, no inline script, no frames, no form targets)
//!   and no caching; the page's assets are built into the binary;
//! - the server stops once the decision is made, or when the
//!   [`RunningReview`] is dropped (the prompt was answered elsewhere, the
//!   session ended).

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use catui_core::plan::approval::decision::ApprovalDecision;
use catui_protocol::sync::lock;
use serde_json::json;
use tokio::sync::oneshot;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::assets;
use crate::form::read_decision;
use crate::page::ReviewPage;

/// The policy every answer carries.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
/// The header the page sends its CSRF token in.
pub const CSRF_HEADER: &str = "x-csrf-token";

/// 32 random bytes as hex.
fn secret() -> String {
    use rand::RngCore;
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares secrets without stopping at the first difference.
fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

struct Shared {
    page: ReviewPage,
    port: u16,
    access: Mutex<Access>,
    csrf: String,
    decided: Mutex<Option<oneshot::Sender<ApprovalDecision>>>,
    stop: CancellationToken,
}

impl Shared {
    fn cookie_name(&self) -> String {
        format!("catui_review_{}", self.port)
    }

    /// Spends the link token `token`: a new session whose secret is
    /// returned (for the cookie), or `None` when no unspent link has it.
    fn spend(&self, token: &str) -> Option<String> {
        let mut access = lock(&self.access);
        let at = access
            .unspent
            .iter()
            .position(|(t, _)| same_secret(t, token))?;
        // Dropping the hand-off removes its file.
        access.unspent.remove(at);
        let session = secret();
        access.sessions.push(session.clone());
        Some(session)
    }

    fn has_session(&self, value: &str) -> bool {
        lock(&self.access)
            .sessions
            .iter()
            .any(|s| same_secret(s, value))
    }
}

/// Who may come in: links not opened yet (each with the hand-off file
/// that carries it, if any), and the sessions opened links started.
#[derive(Default)]
struct Access {
    unspent: Vec<(String, Option<Handoff>)>,
    sessions: Vec<String>,
}

/// A hand-off file: a page that sends the browser on to one link, in a
/// private directory of its own, removed with it.
struct Handoff {
    dir: PathBuf,
}

impl Handoff {
    /// Writes the page for `link` in a new directory under `parent`.
    fn write(parent: &std::path::Path, link: &str) -> std::io::Result<(Handoff, PathBuf)> {
        use std::io::Write;
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
        let dir = parent.join(format!("catui-review-{}", &secret()[..24]));
        // Fails if the name exists: nobody can have prepared it.
        std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
        let handoff = Handoff { dir };
        let file = handoff.dir.join("open.html");
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&file)?;
        write!(
            out,
            "<!doctype html>\n<meta charset=\"utf-8\">\n<meta name=\"referrer\" content=\"no-referrer\">\n<meta http-equiv=\"refresh\" content=\"0;url={link}\">\n<title>catui plan review</title>\n<p>Opening the plan review page… <a href=\"{link}\">continue</a></p>\n"
        )?;
        Ok((handoff, file))
    }
}

impl Drop for Handoff {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Mints the page's links: each works once (see the module
/// documentation). Cloned freely; the server stops with its
/// [`RunningReview`], not with these.
#[derive(Clone)]
pub struct ReviewLinks(Arc<Shared>);

impl std::fmt::Debug for ReviewLinks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ReviewLinks").field(&self.0.port).finish()
    }
}

impl ReviewLinks {
    /// A new link (with its token) that works for one load: to print
    /// where no browser can be started for the user.
    pub fn link(&self) -> String {
        let token = secret();
        let link = format!("http://127.0.0.1:{}/?token={token}", self.0.port);
        lock(&self.0.access).unspent.push((token, None));
        link
    }

    /// A new link written into a hand-off file (0600, in a new 0700
    /// directory under the temp dir); its path goes on the browser's
    /// command line. The file is removed once its link is opened, or
    /// when the review ends.
    pub fn handoff_file(&self) -> std::io::Result<PathBuf> {
        let token = secret();
        let link = format!("http://127.0.0.1:{}/?token={token}", self.0.port);
        let (handoff, file) = Handoff::write(&std::env::temp_dir(), &link)?;
        lock(&self.0.access).unspent.push((token, Some(handoff)));
        Ok(file)
    }

    /// The page's address without a token: a browser that opened a link
    /// gets back in with its cookie.
    pub fn address(&self) -> String {
        format!("http://127.0.0.1:{}/", self.0.port)
    }
}

/// A review page being served.
pub struct RunningReview {
    links: ReviewLinks,
    decision: oneshot::Receiver<ApprovalDecision>,
    _stop: DropGuard,
}

impl std::fmt::Debug for RunningReview {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunningReview").finish_non_exhaustive()
    }
}

impl RunningReview {
    /// Serves `page` until a decision is made or the value is dropped.
    /// Must be called inside a tokio runtime, which runs the server.
    pub fn start(page: ReviewPage) -> std::io::Result<RunningReview> {
        let listener = std::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))?;
        listener.set_nonblocking(true)?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let port = listener.local_addr()?.port();
        let (tx, decision) = oneshot::channel();
        let stop = CancellationToken::new();
        let shared = Arc::new(Shared {
            page,
            port,
            access: Mutex::new(Access::default()),
            csrf: secret(),
            decided: Mutex::new(Some(tx)),
            stop: stop.clone(),
        });
        let links = ReviewLinks(shared.clone());
        let app = axum::Router::new().fallback(handle).with_state(shared);
        let signal = stop.clone();
        tokio::spawn(async move {
            let served = axum::serve(listener, app)
                .with_graceful_shutdown(async move { signal.cancelled().await })
                .await;
            if let Err(e) = served {
                tracing::warn!("the plan review server stopped: {e}");
            }
        });
        Ok(RunningReview {
            links,
            decision,
            _stop: stop.drop_guard(),
        })
    }

    /// The page's links.
    pub fn links(&self) -> ReviewLinks {
        self.links.clone()
    }

    /// The user's decision; `None` if the server stopped without one.
    pub async fn decision(&mut self) -> Option<ApprovalDecision> {
        (&mut self.decision).await.ok()
    }
}

impl Drop for RunningReview {
    /// The review ends: links not opened yet stop working and their
    /// hand-off files go now, not when the server's last task lets go.
    fn drop(&mut self) {
        lock(&self.links.0.access).unspent.clear();
    }
}

/// Why a request was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    Host,
    Origin,
    Token,
    Csrf,
}

impl Refusal {
    fn response(self) -> Response {
        let text = match self {
            Refusal::Host => "This server only answers requests addressed to 127.0.0.1.",
            Refusal::Origin => "Requests from other sites are refused.",
            Refusal::Token => {
                "This browser has no access: a link to this page works once (it was opened already, or is not this page's). Ask catui for a new one."
            }
            Refusal::Csrf => "The page's token is missing from this request: reload the page.",
        };
        with_headers(
            StatusCode::FORBIDDEN,
            "text/plain; charset=utf-8",
            text.into(),
        )
    }
}

fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The checks every request passes: Host, Origin, then access (a link's
/// token on its first load, which spends it, the session cookie after).
/// Returns the new session's secret when a link was spent (the cookie is
/// to be set).
fn guard(
    shared: &Shared,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
) -> Result<Option<String>, Refusal> {
    let port = shared.port;
    let host_ok = header_str(headers, header::HOST)
        .is_some_and(|h| h == format!("127.0.0.1:{port}") || h == format!("localhost:{port}"));
    if !host_ok {
        return Err(Refusal::Host);
    }
    match header_str(headers, header::ORIGIN) {
        Some(origin)
            if origin == format!("http://127.0.0.1:{port}")
                || origin == format!("http://localhost:{port}") => {}
        Some(_) => return Err(Refusal::Origin),
        None if method != Method::GET && method != Method::HEAD => return Err(Refusal::Origin),
        None => {}
    }
    let from_query = uri.query().and_then(|q| {
        q.split('&')
            .find_map(|pair| pair.strip_prefix("token="))
            .map(str::to_string)
    });
    if let Some(token) = from_query {
        if method != Method::GET {
            return Err(Refusal::Token);
        }
        return shared.spend(&token).map(Some).ok_or(Refusal::Token);
    }
    let name = shared.cookie_name();
    let cookie_ok = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .any(|(k, v)| k == name && shared.has_session(v));
    if cookie_ok {
        Ok(None)
    } else {
        Err(Refusal::Token)
    }
}

/// A response with the security headers every answer carries.
fn with_headers(status: StatusCode, content_type: &'static str, body: Bytes) -> Response {
    let mut response = (status, body).into_response();
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        "cross-origin-resource-policy",
        HeaderValue::from_static("same-origin"),
    );
    response
}

fn json_response(status: StatusCode, value: &serde_json::Value) -> Response {
    with_headers(
        status,
        "application/json",
        Bytes::from(value.to_string().into_bytes()),
    )
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let new_session = match guard(&shared, &method, &uri, &headers) {
        Ok(session) => session,
        Err(refusal) => return refusal.response(),
    };
    if let Some(session) = new_session {
        // The spent token leaves the address bar (and history): the
        // cookie carries the session from now on.
        let mut response = with_headers(
            StatusCode::SEE_OTHER,
            "text/plain; charset=utf-8",
            Bytes::new(),
        );
        let cookie = format!(
            "{}={session}; HttpOnly; SameSite=Strict; Path=/",
            shared.cookie_name(),
        );
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            response.headers_mut().insert(header::SET_COOKIE, value);
        }
        response
            .headers_mut()
            .insert(header::LOCATION, HeaderValue::from_static("/"));
        return response;
    }
    match (method.as_str(), uri.path()) {
        ("GET", "/") => with_headers(
            StatusCode::OK,
            "text/html; charset=utf-8",
            Bytes::from(assets::index_html(&shared.csrf).into_bytes()),
        ),
        ("GET", "/app.js") => with_headers(
            StatusCode::OK,
            "text/javascript; charset=utf-8",
            Bytes::from_static(assets::APP_JS.as_bytes()),
        ),
        ("GET", "/app.css") => with_headers(
            StatusCode::OK,
            "text/css; charset=utf-8",
            Bytes::from(assets::app_css().into_bytes()),
        ),
        ("GET", "/api/plan") => json_response(StatusCode::OK, &shared.page.to_json()),
        ("POST", "/api/decision") => decide(&shared, &headers, &body),
        _ => with_headers(
            StatusCode::NOT_FOUND,
            "text/plain; charset=utf-8",
            Bytes::from_static(b"Not found."),
        ),
    }
}

/// `POST /api/decision`: the CSRF token, then the decision itself.
fn decide(shared: &Shared, headers: &HeaderMap, body: &[u8]) -> Response {
    let csrf_ok = headers
        .get(CSRF_HEADER)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| same_secret(t, &shared.csrf));
    if !csrf_ok {
        return Refusal::Csrf.response();
    }
    let decision = match read_decision(&shared.page, body) {
        Ok(d) => d,
        Err(error) => return json_response(StatusCode::BAD_REQUEST, &json!({ "error": error })),
    };
    let summary = decision.summary();
    let Some(sender) = lock(&shared.decided).take() else {
        return json_response(
            StatusCode::CONFLICT,
            &json!({ "error": "A decision was already made on this page." }),
        );
    };
    if sender.send(decision).is_err() {
        return json_response(
            StatusCode::GONE,
            &json!({ "error": "catui no longer waits for this decision (it was answered elsewhere)." }),
        );
    }
    // The answer still goes out: graceful shutdown finishes it.
    shared.stop.cancel();
    json_response(StatusCode::OK, &json!({ "summary": summary }))
}

#[cfg(test)]
#[path = "server_tests.rs"]
mod tests;
