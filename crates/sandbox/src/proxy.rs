//! The network allow-list: an HTTP proxy, run by catui on a unix socket,
//! that is a sandboxed command's only way out (its network namespace
//! holds nothing else; see [`crate::bwrap`] and the forwarder the inner
//! stage starts).
//!
//! It understands `CONNECT host:port` (HTTPS and any other TCP protocol)
//! and plain HTTP requests in absolute form (`GET http://host/path`), and
//! connects only to hosts the list allows: `example.com` allows exactly
//! that name, `*.example.com` its subdomains. Anything else is answered
//! `403 Forbidden` with a line saying why. Names are resolved here, by
//! catui, never inside the sandbox.
//!
//! Request heads are parsed by `httparse`, strictly: anything that is not
//! a well-formed HTTP/1.x head with CRLF line ends is answered `400` (or
//! `431` when too large) and nothing is connected.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UnixListener, UnixStream};

/// The largest request head read before giving up on a client.
const MAX_HEAD: usize = 64 * 1024;

/// A running proxy; it stops (and removes its socket) when dropped.
#[derive(Debug)]
pub struct Proxy {
    socket: PathBuf,
    task: tokio::task::JoinHandle<()>,
}

impl Proxy {
    /// Listens on `socket` (replacing a stale file there) and lets through
    /// connections to the hosts `allowed` names. Needs a tokio runtime.
    pub fn start(socket: PathBuf, allowed: Vec<String>) -> std::io::Result<Proxy> {
        let _ = std::fs::remove_file(&socket);
        let listener = UnixListener::bind(&socket)?;
        let allowed = Arc::new(allowed);
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let allowed = allowed.clone();
                tokio::spawn(async move {
                    if let Err(e) = handle(client, &allowed).await {
                        tracing::debug!("sandbox proxy: {e}");
                    }
                });
            }
        });
        Ok(Proxy { socket, task })
    }

    /// Where it listens.
    pub fn socket(&self) -> &Path {
        &self.socket
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// Whether `host` is allowed by `allowed` (see the module docs).
pub fn host_allowed(host: &str, allowed: &[String]) -> bool {
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase();
    !host.is_empty()
        && allowed.iter().any(|entry| {
            let entry = entry.trim().to_ascii_lowercase();
            match entry.strip_prefix("*.") {
                Some(parent) => host
                    .strip_suffix(parent)
                    .is_some_and(|rest| rest.len() > 1 && rest.ends_with('.')),
                None => host == entry,
            }
        })
}

/// What the client asked for.
#[derive(Debug, PartialEq, Eq)]
pub struct Target {
    pub host: String,
    pub port: u16,
    /// `CONNECT`: a tunnel; otherwise a plain HTTP request to forward.
    pub tunnel: bool,
    /// For plain HTTP: the request line in origin form.
    pub request_line: String,
    /// For plain HTTP: the `Host` value sent on, taken from the request
    /// target (a proxy ignores the client's own `Host`, RFC 9112 §3.2.2, so
    /// a request let through for one host cannot name another behind it).
    pub host_header: String,
}

/// A complete request head, parsed.
#[derive(Debug)]
pub struct Head {
    pub target: Target,
    /// The header fields as sent (name, raw value), in order.
    pub headers: Vec<(String, Vec<u8>)>,
    /// How many bytes of the buffer the head took; what follows is body
    /// or tunnel data, passed on untouched.
    pub len: usize,
}

/// Why a request head is refused: the status line to answer and a line
/// saying why.
#[derive(Debug, PartialEq, Eq)]
pub struct Refusal {
    pub status: &'static str,
    pub why: String,
}

impl Refusal {
    fn bad(why: impl Into<String>) -> Refusal {
        Refusal {
            status: "400 Bad Request",
            why: why.into(),
        }
    }

    fn too_large(why: &str) -> Refusal {
        Refusal {
            status: "431 Request Header Fields Too Large",
            why: why.to_string(),
        }
    }
}

/// The most header fields a head may carry (well above what any client
/// sends; more is answered 431 like an over-long head).
const MAX_HEADERS: usize = 256;

/// Parses the request head at the start of `buf` with `httparse`:
/// `Ok(None)` while it is incomplete, a [`Refusal`] for anything that is
/// not a well-formed HTTP/1.x head (bad method token, bad version, bare LF
/// line ends, malformed or folded header fields, too many fields) or not
/// something this proxy forwards (see [`parse_request_line`]).
pub fn parse_head(buf: &[u8]) -> Result<Option<Head>, Refusal> {
    let mut fields = vec![httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut fields);
    let len = match request.parse(buf) {
        Ok(httparse::Status::Complete(len)) => len,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(httparse::Error::TooManyHeaders) => {
            return Err(Refusal::too_large("too many header fields"));
        }
        Err(e) => return Err(Refusal::bad(format!("malformed request head: {e}"))),
    };
    // httparse also accepts bare LF line ends; the head is sent on
    // rebuilt, but a tunnel's upstream and this proxy must never read the
    // same bytes two ways, so only CRLF is taken.
    if buf[..len]
        .iter()
        .enumerate()
        .any(|(i, &b)| b == b'\n' && (i == 0 || buf[i - 1] != b'\r'))
    {
        return Err(Refusal::bad("request head lines must end in CRLF"));
    }
    let (Some(method), Some(path), Some(version)) = (request.method, request.path, request.version)
    else {
        return Err(Refusal::bad("incomplete request line"));
    };
    let target = target_of(method, path, version).map_err(Refusal::bad)?;
    let headers = request
        .headers
        .iter()
        .map(|h| (h.name.to_string(), h.value.to_vec()))
        .collect();
    Ok(Some(Head {
        target,
        headers,
        len,
    }))
}

/// Reads one request line (`METHOD TARGET VERSION`, without its line end)
/// the way [`parse_head`] reads a head's first line.
pub fn parse_request_line(line: &str) -> Result<Target, String> {
    match parse_head(format!("{line}\r\n\r\n").as_bytes()) {
        Ok(Some(head)) => Ok(head.target),
        Ok(None) => Err(format!("not an HTTP request line: {line:?}")),
        Err(refusal) => Err(refusal.why),
    }
}

/// The target of a parsed request line: `CONNECT host:port`, or a plain
/// request in absolute `http://` form.
fn target_of(method: &str, target: &str, version: u8) -> Result<Target, String> {
    if method.eq_ignore_ascii_case("CONNECT") {
        let (host, port) = split_host_port(target, None)?;
        return Ok(Target {
            host,
            port,
            tunnel: true,
            request_line: String::new(),
            host_header: String::new(),
        });
    }
    let rest = target.strip_prefix("http://").ok_or_else(|| {
        format!("only absolute http:// requests and CONNECT are proxied, not {target:?}")
    })?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    let (host, port) = split_host_port(authority, Some(80))?;
    Ok(Target {
        host,
        port,
        tunnel: false,
        request_line: format!("{method} {path} HTTP/1.{version}"),
        host_header: authority.to_string(),
    })
}

fn split_host_port(authority: &str, default: Option<u16>) -> Result<(String, u16), String> {
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest
            .split_once(']')
            .ok_or_else(|| format!("bad address {authority:?}"))?;
        (host, after.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    let port = match (port, default) {
        (Some(p), _) => p
            .parse()
            .map_err(|_| format!("bad port in {authority:?}"))?,
        (None, Some(d)) => d,
        (None, None) => return Err(format!("no port in {authority:?}")),
    };
    if host.is_empty() {
        return Err(format!("no host in {authority:?}"));
    }
    Ok((host.to_string(), port))
}

/// Reads from `client` until a whole head has arrived: `Ok(None)` if the
/// client left without sending anything.
async fn read_head(
    client: &mut UnixStream,
    buf: &mut Vec<u8>,
) -> std::io::Result<Option<Result<Head, Refusal>>> {
    let mut chunk = [0u8; 4096];
    loop {
        let n = client.read(&mut chunk).await?;
        if n == 0 {
            return Ok((!buf.is_empty())
                .then(|| Err(Refusal::bad("the connection ended inside the request head"))));
        }
        buf.extend_from_slice(&chunk[..n]);
        match parse_head(buf) {
            Ok(Some(head)) => return Ok(Some(Ok(head))),
            Ok(None) if buf.len() > MAX_HEAD => {
                return Ok(Some(Err(Refusal::too_large("request head too large"))));
            }
            Ok(None) => {}
            Err(refusal) => return Ok(Some(Err(refusal))),
        }
    }
}

/// Header fields never passed on: hop-by-hop ones, the proxy's own
/// credentials, and `Host` (rewritten from the request target).
const DROPPED_HEADERS: &[&str] = &[
    "proxy-connection",
    "proxy-authorization",
    "connection",
    "keep-alive",
    "host",
];

async fn handle(mut client: UnixStream, allowed: &[String]) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let head = match read_head(&mut client, &mut buf).await? {
        None => return Ok(()),
        Some(Ok(head)) => head,
        Some(Err(refusal)) => return reply(&mut client, refusal.status, &refusal.why).await,
    };
    let target = &head.target;
    if !host_allowed(&target.host, allowed) {
        let why = format!(
            "catui's sandbox allows network access only to {}; {} is not on the list (setting `sandbox.network.allowedDomains`)",
            if allowed.is_empty() {
                "no host".to_string()
            } else {
                allowed.join(", ")
            },
            target.host
        );
        return reply(&mut client, "403 Forbidden", &why).await;
    }
    let mut upstream = match TcpStream::connect((target.host.as_str(), target.port)).await {
        Ok(s) => s,
        Err(e) => {
            let why = format!("cannot reach {}:{}: {e}", target.host, target.port);
            return reply(&mut client, "502 Bad Gateway", &why).await;
        }
    };
    let rest = &buf[head.len..];
    if target.tunnel {
        client
            .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            .await?;
    } else {
        // The request again in origin form, one request per connection.
        let mut out = format!(
            "{}\r\nHost: {}\r\n",
            target.request_line, target.host_header
        )
        .into_bytes();
        for (name, value) in &head.headers {
            if !DROPPED_HEADERS.iter().any(|h| name.eq_ignore_ascii_case(h)) {
                out.extend_from_slice(name.as_bytes());
                out.extend_from_slice(b": ");
                out.extend_from_slice(value);
                out.extend_from_slice(b"\r\n");
            }
        }
        out.extend_from_slice(b"Connection: close\r\n\r\n");
        upstream.write_all(&out).await?;
    }
    upstream.write_all(rest).await?;
    tokio::io::copy_bidirectional(&mut client, &mut upstream).await?;
    Ok(())
}

async fn reply(client: &mut UnixStream, status: &str, why: &str) -> std::io::Result<()> {
    let body = format!("{why}\n");
    let text = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    client.write_all(text.as_bytes()).await?;
    client.shutdown().await
}

#[cfg(test)]
#[path = "proxy_tests.rs"]
mod tests;
