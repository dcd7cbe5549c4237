//! The review page's web server: `axum` on 127.0.0.1 and a random port,
//! for one plan and one decision. It is safe by construction:
//!
//! - the address printed carries a random token (256 bits); the first
//!   load with it sets a cookie (HttpOnly, SameSite=Strict, named for the
//!   port) and every other request needs that cookie — wrong or missing:
//!   403;
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
    token: String,
    csrf: String,
    decided: Mutex<Option<oneshot::Sender<ApprovalDecision>>>,
    stop: CancellationToken,
}

impl Shared {
    fn cookie_name(&self) -> String {
        format!("catui_review_{}", self.port)
    }
}

/// A review page being served.
pub struct RunningReview {
    url: String,
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
            token: secret(),
            csrf: secret(),
            decided: Mutex::new(Some(tx)),
            stop: stop.clone(),
        });
        let url = format!("http://127.0.0.1:{port}/?token={}", shared.token);
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
            url,
            decision,
            _stop: stop.drop_guard(),
        })
    }

    /// The address to open (with the token).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The user's decision; `None` if the server stopped without one.
    pub async fn decision(&mut self) -> Option<ApprovalDecision> {
        (&mut self.decision).await.ok()
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
                "Open the address catui printed (it carries the page's token); this browser has no access."
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

/// The checks every request passes: Host, Origin, then the token (query
/// on the first load, cookie after). Returns whether the token came in
/// the address (the cookie is to be set).
fn guard(
    shared: &Shared,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
) -> Result<bool, Refusal> {
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
        return if method == Method::GET && same_secret(&token, &shared.token) {
            Ok(true)
        } else {
            Err(Refusal::Token)
        };
    }
    let name = shared.cookie_name();
    let cookie_ok = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .any(|(k, v)| k == name && same_secret(v, &shared.token));
    if cookie_ok {
        Ok(false)
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
    let first_load = match guard(&shared, &method, &uri, &headers) {
        Ok(first) => first,
        Err(refusal) => return refusal.response(),
    };
    if first_load {
        // The token leaves the address bar (and history): the cookie
        // carries it from now on.
        let mut response = with_headers(
            StatusCode::SEE_OTHER,
            "text/plain; charset=utf-8",
            Bytes::new(),
        );
        let cookie = format!(
            "{}={}; HttpOnly; SameSite=Strict; Path=/",
            shared.cookie_name(),
            shared.token
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
