//! The review page's token is on no command line and works once (issue
//! 47, item 3), through the real binary: `catui plans review SLUG` opens
//! the page with `$BROWSER`, a script that records its command line and
//! the hand-off file it was given; the page is opened once with the link
//! in that file (as the browser does), and the same link loaded again
//! from another client is refused — no cookie, no plan, no decision.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use common::review::{PageClient, PlansReview, request};
use common::{Sandbox, json_lines, plans_dir, writes_plan_then_exits};
use serde_json::json;

const PLAN: &str = "# Add a --json flag\n\n1. Parse --json in cli.py\n2. Test it\n";

/// A browser that writes down what it was started with: its arguments,
/// a copy of the file it was given and that file's mode.
const BROWSER: &str = r#"#!/bin/sh
out="$(dirname "$0")"
printf '%s\n' "$@" > "$out/args.txt"
cp "$1" "$out/handoff.html"
stat -c %a "$1" > "$out/mode.tmp" && mv "$out/mode.tmp" "$out/mode.txt"
"#;

#[test]
fn the_browser_gets_no_token_and_a_replayed_link_is_refused() {
    let sb = Sandbox::new();
    let server = common::mock(writes_plan_then_exits(&plans_dir(&sb), PLAN));
    let out = sb
        .catui(&server)
        .args(["-p", "--output-format", "stream-json"])
        .args(["--permission-mode", "plan", "plan it"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let ready = json_lines(&out.stdout).pop().unwrap();
    let slug = std::path::Path::new(ready["plan_file"].as_str().unwrap())
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();

    let browser_dir = sb.dir.path().join("browser");
    std::fs::create_dir_all(&browser_dir).unwrap();
    let browser = browser_dir.join("browser.sh");
    std::fs::write(&browser, BROWSER).unwrap();
    std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    let review = PlansReview::start_with_env(&sb, &slug, &[("BROWSER", browser.to_str().unwrap())]);
    let said = review.lines.join("\n");
    common::assert_contains(&said, "Opened the review page");

    let mode_file = browser_dir.join("mode.txt");
    let started = Instant::now();
    while !mode_file.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the browser was not started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let args = std::fs::read_to_string(browser_dir.join("args.txt")).unwrap();
    let handoff = std::fs::read_to_string(browser_dir.join("handoff.html")).unwrap();
    assert_eq!(std::fs::read_to_string(&mode_file).unwrap().trim(), "600");
    let at = handoff.find("http://127.0.0.1:").expect(&handoff);
    let link: String = handoff[at..].chars().take_while(|c| *c != '"').collect();
    let token = link.split_once("?token=").unwrap().1.to_string();
    assert!(token.len() >= 32, "{link}");
    // Neither the browser's command line nor catui's output holds it.
    assert!(!args.contains(&token) && !args.contains("token="), "{args}");
    common::assert_lacks(&said, &token);
    let given = std::path::PathBuf::from(args.lines().next().unwrap());
    assert!(given.exists(), "the hand-off file waits for the browser");

    // The browser's first load spends the link; its cookie gets it in.
    let page = PageClient::open(&link);
    assert!(!given.exists(), "a spent link's hand-off file is removed");
    let hash = page.page()["hash"].clone();

    // Another process that read the link replays it: refused, no cookie.
    let port = page.port;
    let host = ("Host", format!("127.0.0.1:{port}"));
    let replay = request(
        port,
        "GET",
        &format!("/?token={token}"),
        std::slice::from_ref(&host),
        "",
    );
    assert_eq!(replay.status, 403, "{}", replay.head);
    assert!(
        !replay.head.to_ascii_lowercase().contains("set-cookie"),
        "{}",
        replay.head
    );
    // Nor is the token a cookie.
    let as_cookie = ("Cookie", format!("catui_review_{port}={token}"));
    let r = request(port, "GET", "/api/plan", &[host, as_cookie], "");
    assert_eq!(r.status, 403);
    assert!(!r.body.contains("Parse --json"));

    // The browser decides; catui records it.
    let (status, answer) =
        page.decide(&json!({"verdict": "park", "planHash": hash, "feedback": "later"}));
    assert_eq!(status, 200, "{answer}");
    let (code, said) = review.finish();
    assert_eq!(code, 0, "{said}");
}
