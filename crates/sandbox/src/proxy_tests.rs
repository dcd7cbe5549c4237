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
