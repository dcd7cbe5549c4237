//! The plan review page from outside: `catui plans review SLUG` as a child
//! process (its address read from its output), and a plain HTTP/1.1
//! client that opens the page as a browser would (token, cookie, CSRF
//! token, Origin).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use serde_json::Value;

use super::Sandbox;

/// `catui plans review SLUG` waiting for a decision.
pub struct PlansReview {
    pub child: Child,
    pub url: String,
    /// Its output lines so far (the address included).
    pub lines: Vec<String>,
    rx: Receiver<String>,
}

impl PlansReview {
    pub fn start(sb: &Sandbox, slug: &str) -> PlansReview {
        Self::start_with_env(sb, slug, &[])
    }

    /// [`Self::start`] with these environment variables set.
    pub fn start_with_env(sb: &Sandbox, slug: &str, vars: &[(&str, &str)]) -> PlansReview {
        let mut cmd: Command = sb.bare();
        cmd.envs(vars.iter().copied());
        cmd.args(["plans", "review", slug])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let (mut child, rx) = super::spawn_reading_lines(cmd, Some);
        let mut lines = Vec::new();
        let url = loop {
            let Ok(line) = rx.recv_timeout(Duration::from_secs(30)) else {
                let _ = child.kill();
                let _ = child.wait();
                panic!("no address from catui plans review: {lines:?}");
            };
            lines.push(line.clone());
            if line.starts_with("http://127.0.0.1:") {
                break line;
            }
        };
        PlansReview {
            child,
            url,
            lines,
            rx,
        }
    }

    /// Waits for the command to end; its exit code and the rest of its output.
    pub fn finish(mut self) -> (i32, String) {
        let status = self.child.wait().unwrap();
        while let Ok(line) = self.rx.recv_timeout(Duration::from_secs(5)) {
            self.lines.push(line);
        }
        (status.code().unwrap_or(-1), self.lines.join("\n"))
    }
}

impl Drop for PlansReview {
    /// A test that failed before the decision does not leave the server
    /// running.
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// One reply.
pub struct Reply {
    pub status: u16,
    pub head: String,
    pub body: String,
}

/// One HTTP/1.1 request to `port` with exactly `headers`.
pub fn request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, String)],
    body: &str,
) -> Reply {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
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
    stream.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    Reply {
        status: head
            .split_whitespace()
            .nth(1)
            .unwrap_or("0")
            .parse()
            .unwrap(),
        head: head.to_string(),
        body: body.to_string(),
    }
}

/// The page as a browser holds it after the first load.
pub struct PageClient {
    pub port: u16,
    cookie: String,
    csrf: String,
}

impl PageClient {
    /// Loads `url` (with its token), keeps the cookie and the CSRF token.
    pub fn open(url: &str) -> PageClient {
        let rest = url.strip_prefix("http://127.0.0.1:").unwrap();
        let (port, path) = rest.split_once('/').unwrap();
        let port: u16 = port.parse().unwrap();
        let host = ("Host", format!("127.0.0.1:{port}"));
        let first = request(
            port,
            "GET",
            &format!("/{path}"),
            std::slice::from_ref(&host),
            "",
        );
        assert_eq!(first.status, 303, "{}", first.head);
        let cookie = first
            .head
            .lines()
            .find(|l| l.to_ascii_lowercase().starts_with("set-cookie:"))
            .map(|l| l["set-cookie:".len()..].trim())
            .and_then(|c| c.split(';').next())
            .unwrap()
            .to_string();
        let shell = request(port, "GET", "/", &[host, ("Cookie", cookie.clone())], "");
        assert_eq!(shell.status, 200);
        let at = shell.body.find("name=\"csrf-token\" content=\"").unwrap() + 27;
        let csrf = shell.body[at..at + 64].to_string();
        PageClient { port, cookie, csrf }
    }

    fn headers(&self) -> Vec<(&'static str, String)> {
        vec![
            ("Host", format!("127.0.0.1:{}", self.port)),
            ("Cookie", self.cookie.clone()),
        ]
    }

    /// `/api/plan`.
    pub fn page(&self) -> Value {
        let r = request(self.port, "GET", "/api/plan", &self.headers(), "");
        assert_eq!(r.status, 200, "{}", r.body);
        serde_json::from_str(&r.body).unwrap()
    }

    /// Posts a decision as the page does; the status and the JSON answer.
    pub fn decide(&self, decision: &Value) -> (u16, Value) {
        let mut headers = self.headers();
        headers.push(("Origin", format!("http://127.0.0.1:{}", self.port)));
        headers.push(("Content-Type", "application/json".into()));
        headers.push(("X-CSRF-Token", self.csrf.clone()));
        let r = request(
            self.port,
            "POST",
            "/api/decision",
            &headers,
            &decision.to_string(),
        );
        (
            r.status,
            serde_json::from_str(&r.body).unwrap_or(Value::Null),
        )
    }
}
