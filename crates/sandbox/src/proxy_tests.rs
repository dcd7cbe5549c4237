//! Unit tests of the proxy: host matching, request parsing, and a real
//! proxy on a unix socket in front of a loopback server.

use super::*;

#[test]
fn hosts_match_exactly_or_as_subdomains_of_a_wildcard() {
    let list = vec!["crates.io".to_string(), "*.github.com".to_string()];
    assert!(host_allowed("crates.io", &list));
    assert!(host_allowed("CRATES.IO.", &list));
    assert!(!host_allowed("static.crates.io", &list));
    assert!(host_allowed("api.github.com", &list));
    assert!(!host_allowed("github.com", &list));
    assert!(!host_allowed("evilgithub.com", &list));
    assert!(!host_allowed("crates.io.evil.com", &list));
    assert!(!host_allowed("127.0.0.1", &list));
    assert!(!host_allowed("", &list));
    assert!(!host_allowed("anything", &[]));
}

#[test]
fn request_lines_give_the_target() {
    let t = parse_request_line("CONNECT crates.io:443 HTTP/1.1").unwrap();
    assert_eq!(
        (t.host.as_str(), t.port, t.tunnel),
        ("crates.io", 443, true)
    );
    let t = parse_request_line("GET http://user@example.com:8080/a?b HTTP/1.1").unwrap();
    assert_eq!(
        (t.host.as_str(), t.port, t.tunnel),
        ("example.com", 8080, false)
    );
    assert_eq!(t.request_line, "GET /a?b HTTP/1.1");
    let t = parse_request_line("GET http://[::1]/ HTTP/1.0").unwrap();
    assert_eq!((t.host.as_str(), t.port), ("::1", 80));
    assert!(parse_request_line("GET /relative HTTP/1.1").is_err());
    assert!(parse_request_line("CONNECT nohost HTTP/1.1").is_err());
    assert!(parse_request_line("garbage").is_err());
}

async fn ask(socket: &Path, request: &str) -> String {
    let mut s = UnixStream::connect(socket).await.unwrap();
    s.write_all(request.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn allowed_hosts_are_reached_and_others_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let upstream = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = upstream.local_addr().unwrap().port();
    let server = tokio::spawn(async move {
        let mut seen = Vec::new();
        for _ in 0..2 {
            let (mut s, _) = upstream.accept().await.unwrap();
            let mut buf = vec![0u8; 4096];
            let n = s.read(&mut buf).await.unwrap();
            seen.push(String::from_utf8_lossy(&buf[..n]).into_owned());
            s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                .await
                .unwrap();
        }
        seen
    });
    let socket = tmp.path().join("proxy.sock");
    let proxy = Proxy::start(socket.clone(), vec!["localhost".into()]).unwrap();
    let plain = ask(
        &socket,
        &format!("GET http://localhost:{port}/x HTTP/1.1\r\nHost: localhost\r\nProxy-Connection: keep-alive\r\n\r\n"),
    )
    .await;
    assert!(plain.ends_with("ok"), "{plain}");
    let tunnel = ask(
        &socket,
        &format!("CONNECT localhost:{port} HTTP/1.1\r\n\r\nPING"),
    )
    .await;
    assert!(
        tunnel.starts_with("HTTP/1.1 200 Connection Established"),
        "{tunnel}"
    );
    let denied = ask(
        &socket,
        &format!("GET http://127.0.0.1:{port}/ HTTP/1.1\r\n\r\n"),
    )
    .await;
    assert!(denied.starts_with("HTTP/1.1 403"), "{denied}");
    assert!(denied.contains("127.0.0.1 is not on the list"), "{denied}");
    let seen = server.await.unwrap();
    assert!(seen[0].starts_with("GET /x HTTP/1.1\r\n"), "{}", seen[0]);
    assert!(seen[0].contains("Connection: close") && !seen[0].contains("Proxy-Connection"));
    assert_eq!(seen[1], "PING");
    drop(proxy);
    assert!(!socket.exists(), "the socket goes with the proxy");
}

/// An upstream that counts the connections it gets (none, for a refused
/// head), and a proxy in front of it allowing `localhost`.
struct Refusing {
    _tmp: tempfile::TempDir,
    socket: PathBuf,
    port: u16,
    upstream: tokio::net::TcpListener,
    _proxy: Proxy,
}

impl Refusing {
    async fn new() -> Refusing {
        let tmp = tempfile::tempdir().unwrap();
        let upstream = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = upstream.local_addr().unwrap().port();
        let socket = tmp.path().join("proxy.sock");
        let proxy = Proxy::start(socket.clone(), vec!["localhost".into()]).unwrap();
        Refusing {
            _tmp: tmp,
            socket,
            port,
            upstream,
            _proxy: proxy,
        }
    }

    /// Sends `head`, closes the sending half, and returns the answer;
    /// fails the test if the upstream was reached.
    async fn refused(&self, head: &[u8], status: &str, why: &str) {
        let mut s = UnixStream::connect(&self.socket).await.unwrap();
        s.write_all(head).await.unwrap();
        s.shutdown().await.unwrap();
        let mut out = Vec::new();
        s.read_to_end(&mut out).await.unwrap();
        let out = String::from_utf8_lossy(&out);
        let shown = String::from_utf8_lossy(&head[..head.len().min(80)]);
        assert!(
            out.starts_with(&format!("HTTP/1.1 {status}")),
            "{shown:?} got {out}"
        );
        assert!(out.contains(why), "{shown:?} got {out}");
        // The proxy answered and closed: had it connected, the connection
        // would be waiting in the listener's queue by now.
        let waiting = std::future::poll_fn(|cx| match self.upstream.poll_accept(cx) {
            std::task::Poll::Ready(r) => std::task::Poll::Ready(r.is_ok()),
            std::task::Poll::Pending => std::task::Poll::Ready(false),
        })
        .await;
        assert!(!waiting, "{shown:?} reached the upstream");
    }
}

#[tokio::test]
async fn malformed_request_heads_are_refused_before_any_connection() {
    let r = Refusing::new().await;
    let port = r.port;
    let cases: Vec<(Vec<u8>, &str, &str)> = vec![
        (
            format!("GET http://localhost:{port}/ HTTP/1.1\nHost: localhost\n\n").into_bytes(),
            "400",
            "CRLF",
        ),
        (
            format!("GET http://localhost:{port}/ HTTP/1.1\r\nHost: localhost\n\r\n").into_bytes(),
            "400",
            "",
        ),
        (
            format!("G(T http://localhost:{port}/ HTTP/1.1\r\n\r\n").into_bytes(),
            "400",
            "malformed request head",
        ),
        (
            format!("GET http://localhost:{port}/ HTTP/2.0\r\n\r\n").into_bytes(),
            "400",
            "malformed request head",
        ),
        (
            format!("GET  http://localhost:{port}/ HTTP/1.1\r\n\r\n").into_bytes(),
            "400",
            "malformed request head",
        ),
        (
            format!("GET http://localhost:{port}/\0x HTTP/1.1\r\n\r\n").into_bytes(),
            "400",
            "malformed request head",
        ),
        (
            format!("GET http://localhost:{port}/ HTTP/1.1\r\nHost : localhost\r\n\r\n")
                .into_bytes(),
            "400",
            "malformed request head",
        ),
        (
            format!("GET http://localhost:{port}/ HTTP/1.1\r\nX-A: a\r\n folded\r\n\r\n")
                .into_bytes(),
            "400",
            "malformed request head",
        ),
        (
            b"CONNECT localhost HTTP/1.1\r\nHost: localhost\r\n\r\n".to_vec(),
            "400",
            "no port",
        ),
        (
            format!("CONNECT http://localhost:{port}/ HTTP/1.1\r\n\r\n").into_bytes(),
            "400",
            "bad port",
        ),
        (
            format!("GET /x HTTP/1.1\r\nHost: localhost:{port}\r\n\r\n").into_bytes(),
            "400",
            "only absolute http://",
        ),
        (
            format!("GET http://:{port}/ HTTP/1.1\r\n\r\n").into_bytes(),
            "400",
            "no host",
        ),
        (
            format!("GET http://localhost:{port}/ HTTP/1.1\r\nHost: localhost").into_bytes(),
            "400",
            "ended inside the request head",
        ),
    ];
    for (head, status, why) in cases {
        r.refused(&head, status, why).await;
    }
}

#[tokio::test]
async fn oversized_request_heads_are_refused() {
    let r = Refusing::new().await;
    let port = r.port;
    // One endless header field: more than MAX_HEAD bytes, no end in sight
    // (one byte more, so the proxy has read it all when it answers; unread
    // bytes would make its close a reset).
    let mut huge = format!("GET http://localhost:{port}/ HTTP/1.1\r\nX-Big: ").into_bytes();
    huge.resize(MAX_HEAD + 1, b'a');
    r.refused(&huge, "431", "request head too large").await;
    // Many small fields: more than the parser takes, though the head is small.
    let mut many = format!("GET http://localhost:{port}/ HTTP/1.1\r\n");
    for i in 0..=MAX_HEADERS {
        many.push_str(&format!("X-{i}: v\r\n"));
    }
    many.push_str("\r\n");
    r.refused(many.as_bytes(), "431", "too many header fields")
        .await;
}

#[tokio::test]
async fn a_plain_request_carries_the_host_of_its_target_not_the_clients() {
    let tmp = tempfile::tempdir().unwrap();
    let upstream = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = upstream.local_addr().unwrap().port();
    let server = tokio::spawn(async move {
        let (mut s, _) = upstream.accept().await.unwrap();
        let mut buf = vec![0u8; 4096];
        let n = s.read(&mut buf).await.unwrap();
        s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            .await
            .unwrap();
        String::from_utf8_lossy(&buf[..n]).into_owned()
    });
    let socket = tmp.path().join("proxy.sock");
    let _proxy = Proxy::start(socket.clone(), vec!["localhost".into()]).unwrap();
    let answer = ask(
        &socket,
        &format!(
            "POST http://localhost:{port}/p HTTP/1.1\r\nHost: evil.example\r\nHost: other.example\r\nContent-Length: 4\r\n\r\nbody"
        ),
    )
    .await;
    assert!(answer.ends_with("ok"), "{answer}");
    let seen = server.await.unwrap();
    assert!(seen.starts_with("POST /p HTTP/1.1\r\n"), "{seen}");
    assert!(
        seen.contains(&format!("Host: localhost:{port}\r\n")),
        "{seen}"
    );
    assert!(
        !seen.contains("example"),
        "the client's Host went through: {seen}"
    );
    assert!(seen.contains("Content-Length: 4\r\n"), "{seen}");
    assert!(seen.ends_with("\r\n\r\nbody"), "{seen}");
}
