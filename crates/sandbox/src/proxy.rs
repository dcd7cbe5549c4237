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
}

/// Reads the request line of `head` (`METHOD TARGET VERSION`).
pub fn parse_request_line(line: &str) -> Result<Target, String> {
    let mut parts = line.split_whitespace();
    let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(format!("not an HTTP request line: {line:?}"));
    };
    if method.eq_ignore_ascii_case("CONNECT") {
        let (host, port) = split_host_port(target, None)?;
        return Ok(Target {
            host,
            port,
            tunnel: true,
            request_line: String::new(),
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
        request_line: format!("{method} {path} {version}"),
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

async fn handle(mut client: UnixStream, allowed: &[String]) -> std::io::Result<()> {
    let mut head = Vec::new();
    let mut chunk = [0u8; 4096];
    let end = loop {
        let n = client.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        head.extend_from_slice(&chunk[..n]);
        if let Some(i) = head.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        if head.len() > MAX_HEAD {
            return reply(
                &mut client,
                "431 Request Header Fields Too Large",
                "request head too large",
            )
            .await;
        }
    };
    let text = String::from_utf8_lossy(&head[..end]).into_owned();
    let mut lines = text.split("\r\n");
    let target = match parse_request_line(lines.next().unwrap_or_default()) {
        Ok(t) => t,
        Err(e) => return reply(&mut client, "400 Bad Request", &e).await,
    };
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
    let rest = &head[end..];
    if target.tunnel {
        client
            .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            .await?;
    } else {
        // The request again in origin form, one request per connection.
        let mut out = format!("{}\r\n", target.request_line);
        for line in lines.filter(|l| !l.is_empty()) {
            let name = line.split(':').next().unwrap_or_default().trim();
            if ![
                "proxy-connection",
                "proxy-authorization",
                "connection",
                "keep-alive",
            ]
            .iter()
            .any(|h| name.eq_ignore_ascii_case(h))
            {
                out.push_str(line);
                out.push_str("\r\n");
            }
        }
        out.push_str("Connection: close\r\n\r\n");
        upstream.write_all(out.as_bytes()).await?;
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
