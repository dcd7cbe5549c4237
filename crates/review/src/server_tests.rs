//! The server over real HTTP on loopback: every refusal the page's
//! safety rests on, and that a refused request decides nothing.

use super::*;
use crate::page::{Decisions, ReviewPage};
use catui_core::plan::approval::decision::ApprovalVerdict;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const PLAN: &str = "# Plan <script>alert(1)</script>\n\n1. Parse --json\n2. Serialise\n\n<script>document.title='pwned'</script>\n";

struct Reply {
    status: u16,
    head: String,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim().to_string())
        })
    }
}

/// One HTTP/1.1 request with exactly these headers.
async fn send(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, String)],
    body: &str,
) -> Reply {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    stream.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .unwrap_or("0")
        .parse()
        .unwrap();
    Reply {
        status,
        head: head.to_string(),
        body: body.to_string(),
    }
}

struct Fixture {
    review: RunningReview,
    port: u16,
    /// The session secret the first link's load set in the cookie.
    session: String,
}

/// The port and token of a link.
fn parts(link: &str) -> (u16, String) {
    let rest = link.strip_prefix("http://127.0.0.1:").unwrap();
    let (port, query) = rest.split_once('/').unwrap();
    let token = query.strip_prefix("?token=").unwrap().to_string();
    assert!(token.len() >= 32, "at least 128 bits: {token}");
    (port.parse().unwrap(), token)
}

/// The value a reply's `Set-Cookie` sets.
fn cookie_value(reply: &Reply) -> String {
    let cookie = reply.header("set-cookie").unwrap();
    let pair = cookie.split(';').next().unwrap();
    pair.split_once('=').unwrap().1.to_string()
}

impl Fixture {
    /// Inside the test's runtime, which serves the page; a browser has
    /// opened one link.
    async fn start() -> Fixture {
        let page = ReviewPage::new(PLAN, "/plans/brisk-cedar-otter.md", Decisions::All, None);
        let review = RunningReview::start(page).unwrap();
        let (port, token) = parts(&review.links().link());
        let host = ("Host", format!("127.0.0.1:{port}"));
        let first = send(port, "GET", &format!("/?token={token}"), &[host], "").await;
        assert_eq!(first.status, 303, "{}", first.body);
        Fixture {
            review,
            port,
            session: cookie_value(&first),
        }
    }

    fn host(&self) -> (&'static str, String) {
        ("Host", format!("127.0.0.1:{}", self.port))
    }

    fn origin(&self) -> (&'static str, String) {
        ("Origin", format!("http://127.0.0.1:{}", self.port))
    }

    fn cookie(&self) -> (&'static str, String) {
        (
            "Cookie",
            format!("catui_review_{}={}", self.port, self.session),
        )
    }

    async fn get(&self, path: &str, extra: &[(&str, String)]) -> Reply {
        let mut headers = vec![self.host(), self.cookie()];
        headers.extend(extra.iter().cloned());
        send(self.port, "GET", path, &headers, "").await
    }

    async fn csrf(&self) -> String {
        let page = self.get("/", &[]).await;
        assert_eq!(page.status, 200, "{}", page.body);
        let at = page.body.find("name=\"csrf-token\" content=\"").unwrap() + 27;
        page.body[at..at + 64].to_string()
    }

    fn undecided(&mut self) -> bool {
        matches!(
            self.review.decision.try_recv(),
            Err(oneshot::error::TryRecvError::Empty)
        )
    }
}

#[tokio::test]
async fn a_link_works_once_and_its_cookie_carries_a_session_of_its_own() {
    let f = Fixture::start().await;
    let (_, token) = parts(&f.review.links().link());
    let path = format!("/?token={token}");
    let host = [f.host()];
    let load = || send(f.port, "GET", &path, &host, "");
    let first = load().await;
    assert_eq!(first.status, 303);
    assert_eq!(first.header("location").as_deref(), Some("/"));
    let cookie = first.header("set-cookie").unwrap();
    assert!(
        cookie.starts_with(&format!("catui_review_{}=", f.port)),
        "{cookie}"
    );
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    let session = cookie_value(&first);
    assert_ne!(session, token, "the cookie is not the link's token");
    assert_ne!(
        session, f.session,
        "each opened link is a session of its own"
    );
    // Loaded again (another process that read the link): refused, and no
    // cookie is set.
    let again = load().await;
    assert_eq!(again.status, 403, "{}", again.body);
    assert!(again.header("set-cookie").is_none());
    assert!(!again.body.contains("Parse --json"));
    // The token is no cookie either.
    let as_cookie = ("Cookie", format!("catui_review_{}={token}", f.port));
    let r = send(f.port, "GET", "/api/plan", &[f.host(), as_cookie], "").await;
    assert_eq!(r.status, 403);
    // The session the first load started gets in.
    let cookie = ("Cookie", format!("catui_review_{}={session}", f.port));
    let r = send(f.port, "GET", "/api/plan", &[f.host(), cookie], "").await;
    assert_eq!(r.status, 200);
    for path in ["/", "/app.js", "/app.css", "/api/plan"] {
        let r = f.get(path, &[]).await;
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(
            r.header("content-security-policy").as_deref(),
            Some(CONTENT_SECURITY_POLICY)
        );
        assert_eq!(
            r.header("x-content-type-options").as_deref(),
            Some("nosniff")
        );
        assert_eq!(r.header("cache-control").as_deref(), Some("no-store"));
    }
}

#[tokio::test]
async fn the_hand_off_file_is_private_and_goes_when_its_link_is_spent_or_the_review_ends() {
    use std::os::unix::fs::PermissionsExt;
    let f = Fixture::start().await;
    let links = f.review.links();
    let file = links.handoff_file().unwrap();
    let dir = file.parent().unwrap().to_path_buf();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&file), 0o600);
    assert_eq!(mode(&dir), 0o700);
    let html = std::fs::read_to_string(&file).unwrap();
    let at = html.find("http://127.0.0.1:").unwrap();
    let link: String = html[at..].chars().take_while(|c| *c != '"').collect();
    let (_, token) = parts(&link);
    let first = send(f.port, "GET", &format!("/?token={token}"), &[f.host()], "").await;
    assert_eq!(first.status, 303);
    assert!(!dir.exists(), "spent: its file is removed");
    // One never opened goes with the review.
    let unopened = links.handoff_file().unwrap();
    assert!(unopened.exists());
    drop(f);
    drop(links);
    assert!(!unopened.exists(), "the review ended: its file is removed");
}

#[tokio::test]
async fn a_plan_containing_script_is_served_as_text() {
    let f = Fixture::start().await;
    let plan = f.get("/api/plan", &[]).await;
    let page: serde_json::Value = serde_json::from_str(&plan.body).unwrap();
    let html = page["html"].as_str().unwrap();
    assert!(!html.contains("<script"), "{html}");
    assert!(
        html.contains("&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;"),
        "{html}"
    );
    assert_eq!(
        page["plan"], PLAN,
        "the source lines are data, set as text by the page"
    );
    let shell = f.get("/", &[]).await.body;
    assert!(
        !shell.contains("pwned") && !shell.contains("<script>"),
        "{shell}"
    );
}

#[tokio::test]
async fn wrong_or_missing_tokens_foreign_hosts_and_origins_are_refused() {
    let mut f = Fixture::start().await;
    let port = f.port;
    let wrong_cookie = ("Cookie", format!("catui_review_{port}={}", "0".repeat(64)));
    let other_port_cookie = ("Cookie", format!("catui_review_{}={}", port + 1, f.session));
    let (_, unspent) = parts(&f.review.links().link());
    for (what, headers, path) in [
        ("no token", vec![f.host()], "/".to_string()),
        ("no token (api)", vec![f.host()], "/api/plan".to_string()),
        (
            "a wrong token",
            vec![f.host()],
            format!("/?token={}", "f".repeat(64)),
        ),
        (
            "a wrong cookie",
            vec![f.host(), wrong_cookie.clone()],
            "/api/plan".to_string(),
        ),
        (
            "another server's cookie",
            vec![f.host(), other_port_cookie],
            "/app.js".to_string(),
        ),
        (
            "a foreign Host",
            vec![("Host", format!("attacker.example:{port}")), f.cookie()],
            "/api/plan".to_string(),
        ),
        (
            "a rebinding Host with the token",
            vec![("Host", format!("rebind.example:{port}"))],
            format!("/?token={unspent}"),
        ),
        ("no Host", vec![f.cookie()], "/".to_string()),
        (
            "a foreign Origin",
            vec![
                f.host(),
                f.cookie(),
                ("Origin", "http://attacker.example".into()),
            ],
            "/api/plan".to_string(),
        ),
        (
            "an Origin on another port",
            vec![
                f.host(),
                f.cookie(),
                ("Origin", format!("http://127.0.0.1:{}", port + 1)),
            ],
            "/".to_string(),
        ),
    ] {
        let r = send(port, "GET", &path, &headers, "").await;
        assert_eq!(r.status, 403, "{what}: {}", r.body);
        assert!(!r.body.contains("Parse --json"), "{what} leaked the plan");
    }

    let csrf = f.csrf().await;
    let hash = catui_core::plan::plan_hash(PLAN);
    let approve =
        serde_json::json!({"verdict": "approve", "planHash": hash, "mode": "acceptEdits"})
            .to_string();
    let json = ("Content-Type", "application/json".to_string());
    let token = (CSRF_HEADER, csrf.clone());
    for (what, headers) in [
        (
            "no CSRF token",
            vec![f.host(), f.cookie(), f.origin(), json.clone()],
        ),
        (
            "a wrong CSRF token",
            vec![
                f.host(),
                f.cookie(),
                f.origin(),
                json.clone(),
                (CSRF_HEADER, "0".repeat(64)),
            ],
        ),
        (
            "no Origin",
            vec![f.host(), f.cookie(), json.clone(), token.clone()],
        ),
        (
            "a foreign Origin",
            vec![
                f.host(),
                f.cookie(),
                json.clone(),
                token.clone(),
                ("Origin", "http://attacker.example".into()),
            ],
        ),
        (
            "no cookie",
            vec![f.host(), f.origin(), json.clone(), token.clone()],
        ),
        (
            "a foreign Host",
            vec![
                ("Host", format!("evil.example:{port}")),
                f.cookie(),
                f.origin(),
                json.clone(),
                token.clone(),
            ],
        ),
    ] {
        let r = send(port, "POST", "/api/decision", &headers, &approve).await;
        assert_eq!(r.status, 403, "{what}: {}", r.body);
        assert!(f.undecided(), "{what} decided something");
    }
    // A decision about another revision is refused too.
    let stale = serde_json::json!({"verdict": "approve", "planHash": "0".repeat(64)}).to_string();
    let headers = vec![
        f.host(),
        f.cookie(),
        f.origin(),
        json.clone(),
        token.clone(),
    ];
    let r = send(port, "POST", "/api/decision", &headers, &stale).await;
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(f.undecided());

    // The real thing is decided once, and the server ends with it.
    let r = send(port, "POST", "/api/decision", &headers, &approve).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.body.contains("Approved, continuing in acceptEdits"),
        "{}",
        r.body
    );
    let decision = f.review.decision().await.unwrap();
    assert_eq!(decision.verdict, ApprovalVerdict::Approve);
    assert_eq!(
        decision.mode,
        Some(catui_protocol::PermissionMode::AcceptEdits)
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_ok()
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the server kept running after the decision"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn dropping_the_review_ends_the_server() {
    let f = Fixture::start().await;
    let port = f.port;
    assert_eq!(f.get("/app.css", &[]).await.status, 200);
    drop(f);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_ok()
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the server outlived its review"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}
