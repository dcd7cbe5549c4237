//! WebFetch end to end: the real binary reads pages from a local HTTP
//! server (HTML to Markdown, oversize, redirects, errors), under the
//! permission rules and in plan mode, against the testkit mock model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use catui_testkit::{Script, Turn};
use common::{Sandbox, result_of};
use serde_json::{Value, json};

/// A small HTTP/1.1 server on loopback with fixed routes; records the
/// paths asked for.
struct Site {
    port: u16,
    hits: Arc<Mutex<Vec<String>>>,
}

const PAGE: &str = "<html><head><title>Guide</title><script>var secret = 1;</script></head>\
<body><h1>Install guide</h1><p>Run <code>make install</code> as <b>root</b>.</p>\
<ul><li>Linux</li><li>macOS</li></ul></body></html>";

impl Site {
    fn start() -> Site {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let hits = Arc::new(Mutex::new(Vec::new()));
        let seen = hits.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let seen = seen.clone();
                std::thread::spawn(move || serve(stream, port, &seen));
            }
        });
        Site { port, hits }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn hits(&self) -> Vec<String> {
        self.hits.lock().unwrap().clone()
    }
}

fn serve(mut stream: TcpStream, port: u16, seen: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut first = String::new();
    if reader.read_line(&mut first).is_err() {
        return;
    }
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
    }
    let path = first.split_whitespace().nth(1).unwrap_or("/").to_string();
    seen.lock().unwrap().push(path.clone());
    let (status, headers, body): (&str, Vec<String>, Vec<u8>) = match path.as_str() {
        "/guide.html" => (
            "200 OK",
            vec!["Content-Type: text/html; charset=utf-8".into()],
            PAGE.into(),
        ),
        "/moved" => (
            "301 Moved Permanently",
            vec!["Location: /guide.html".into()],
            vec![],
        ),
        // Same port, another host name: another site.
        "/away" => (
            "302 Found",
            vec![format!("Location: http://localhost:{port}/guide.html")],
            vec![],
        ),
        "/huge.txt" => (
            "200 OK",
            vec!["Content-Type: text/plain".into()],
            "x".repeat(11 * 1024 * 1024).into_bytes(),
        ),
        "/logo.png" => (
            "200 OK",
            vec!["Content-Type: image/png".into()],
            vec![0x89, b'P', b'N', b'G'],
        ),
        _ => (
            "404 Not Found",
            vec!["Content-Type: text/plain".into()],
            b"no such page".to_vec(),
        ),
    };
    let mut head = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for h in headers {
        head.push_str(&h);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
}

/// Runs one prompt in which the model calls WebFetch with each input in
/// turn; returns the results (text, is_error) in order.
fn fetch_all(sb: &Sandbox, args: &[&str], inputs: Vec<Value>) -> Vec<(String, bool)> {
    let mut script = Script::new();
    for (i, input) in inputs.iter().enumerate() {
        script = script.turn(Turn::tool_use(format!("w{i}"), "WebFetch", input.clone()));
    }
    let mock = common::mock(script.turn(Turn::text("done")));
    let mut s = sb.stream(&mock, args);
    s.send_user("read the docs");
    // A permission prompt is answered no.
    loop {
        let v = s.wait_for("a result or a prompt", |v| {
            v["type"] == "result" || v["request"]["subtype"] == "can_use_tool"
        });
        if v["type"] == "result" {
            break;
        }
        assert_eq!(v["request"]["tool_name"], "WebFetch", "{v}");
        s.send(
            json!({"type":"control_response","response":{"subtype":"success",
            "request_id": v["request_id"], "response":{"behavior":"deny","message":"asked: no"}}}),
        );
    }
    let (code, seen) = s.finish();
    assert_eq!(code, 0, "{seen:#?}");
    let reqs = mock.requests();
    (0..inputs.len())
        .map(|i| result_of(&reqs[i + 1], &format!("w{i}")))
        .collect()
}

#[test]
fn reads_html_as_markdown_and_reports_limits_redirects_and_errors() {
    let site = Site::start();
    let sb = Sandbox::new();
    let results = fetch_all(
        &sb,
        &["--allowed-tools", "WebFetch(domain:127.0.0.1)"],
        vec![
            json!({"url": site.url("/guide.html")}),
            json!({"url": site.url("/moved")}),
            json!({"url": site.url("/away")}),
            json!({"url": site.url("/huge.txt")}),
            json!({"url": site.url("/logo.png")}),
            json!({"url": site.url("/missing")}),
            json!({"url": "file:///etc/passwd"}),
        ],
    );
    let (page, err) = &results[0];
    assert!(!err, "{page}");
    common::assert_contains(page, "# Install guide");
    assert!(
        page.contains("`make install`") && page.contains("**root**"),
        "{page}"
    );
    assert!(
        !page.contains("secret"),
        "a script reached the model: {page}"
    );

    // A same-site redirect is followed.
    let (moved, err) = &results[1];
    assert!(!err && moved.contains("# Install guide"), "{moved}");
    common::assert_contains(moved, "/guide.html");

    // Another host: reported, not followed.
    let (away, err) = &results[2];
    assert!(!err, "{away}");
    assert!(
        away.contains("redirects to another host") && away.contains("http://localhost:"),
        "{away}"
    );
    let followed = site.hits().iter().filter(|p| *p == "/guide.html").count();
    assert_eq!(
        followed,
        2,
        "the cross-host redirect was followed: {:?}",
        site.hits()
    );

    let (huge, err) = &results[3];
    assert!(!err, "{}", &huge[..200]);
    assert!(
        huge.contains("larger than 10 MB") && huge.contains("cut at 100000"),
        "{}",
        &huge[huge.len() - 300..]
    );
    assert!(huge.len() < 110_000, "{}", huge.len());

    let (png, err) = &results[4];
    assert!(*err && png.contains("image/png"), "{png}");
    let (missing, err) = &results[5];
    assert!(*err && missing.contains("404"), "{missing}");
    let (file, err) = &results[6];
    assert!(*err && file.contains("http"), "{file}");
    common::assert_lacks(file, "root:");
}

#[test]
fn a_domain_rule_decides_and_plan_mode_allows_reading() {
    let site = Site::start();
    let sb = Sandbox::new();
    // A rule for another domain does not cover this one: the user is asked.
    let refused = fetch_all(
        &sb,
        &["--allowed-tools", "WebFetch(domain:docs.rs)"],
        vec![json!({"url": site.url("/guide.html")})],
    );
    assert!(
        refused[0].1 && refused[0].0.contains("asked: no"),
        "{:?}",
        refused[0]
    );
    let denied = fetch_all(
        &sb,
        &[
            "--allowed-tools",
            "WebFetch",
            "--disallowed-tools",
            "WebFetch(domain:127.0.0.1)",
        ],
        vec![json!({"url": site.url("/guide.html")})],
    );
    assert!(
        denied[0].1 && !denied[0].0.contains("asked: no"),
        "a deny rule asked: {:?}",
        denied[0]
    );
    assert!(site.hits().is_empty(), "{:?}", site.hits());

    // Plan mode: a read, allowed by the rule as in any mode.
    let planned = fetch_all(
        &sb,
        &[
            "--permission-mode",
            "plan",
            "--allowed-tools",
            "WebFetch(domain:127.0.0.1)",
        ],
        vec![json!({"url": site.url("/guide.html")})],
    );
    assert!(
        !planned[0].1 && planned[0].0.contains("Install guide"),
        "{:?}",
        planned[0]
    );
}

#[test]
fn a_prompt_is_answered_by_the_small_model_from_the_page() {
    let site = Site::start();
    let sb = Sandbox::new();
    let mock = common::mock(
        Script::new()
            .turn(Turn::tool_use(
                "w1",
                "WebFetch",
                json!({"url": site.url("/guide.html"), "prompt": "How do I install it?"}),
            ))
            .turn(
                Turn::respond(|r| {
                    let asked = r.last_user_text().unwrap_or_default();
                    let ok =
                        asked.contains("make install") && asked.contains("How do I install it?");
                    Turn::text(if ok {
                        "Run make install as root."
                    } else {
                        "the page was not given"
                    })
                })
                .when(|r| r.body["tools"].as_array().is_none_or(|t| t.is_empty())),
            )
            .turn(Turn::text("done")),
    );
    let mut s = sb.stream(&mock, &["--allowed-tools", "WebFetch"]);
    s.send_user("how to install?");
    s.wait_type("result");
    let (code, seen) = s.finish();
    assert_eq!(code, 0, "{seen:#?}");
    let reqs = mock.requests();
    let main = reqs
        .iter()
        .rfind(|r| r.tool_result("w1").is_some())
        .unwrap();
    let (answer, err) = result_of(main, "w1");
    assert!(!err, "{answer}");
    common::assert_contains(&answer, "Run make install as root.");
    // The answer, not the page, reaches the main model.
    common::assert_lacks(&answer, "# Install guide");
}
