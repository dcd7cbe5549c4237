//! A conversation that outgrows the model's context window, through the
//! real binary against a mock model with a context window: a refused
//! request ("prompt is too long") is shrunk and sent again, automatic
//! compaction runs before a request that would not fit, and `/compact`
//! frees context when a few huge tool results are the bulk.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Block, RecordedRequest, Script, Turn};
use common::{Sandbox, StreamSession};
use serde_json::{Value, json};

/// Writes `name` in the project: `lines` lines of 50 bytes, the last one
/// `END-OF-<name>` (so a request shows whether the whole file reached it).
fn big_file(sb: &Sandbox, name: &str, lines: usize) -> String {
    let mut text = String::new();
    for i in 0..lines {
        text.push_str(&format!("{name} line {i:06} {}\n", "x".repeat(30)));
    }
    text.push_str(&format!("END-OF-{name}\n"));
    sb.write(name, &text).display().to_string()
}

/// One turn that reads every path in parallel.
fn read_all(paths: &[String]) -> Turn {
    Turn::blocks(
        paths
            .iter()
            .enumerate()
            .map(|(i, p)| Block::tool_use(format!("r{i}"), "Read", json!({"file_path": p})))
            .collect(),
    )
}

fn body_len(r: &RecordedRequest) -> usize {
    r.body.to_string().len()
}

fn notifications(seen: &[Value], key: &str) -> Vec<String> {
    seen.iter()
        .filter(|v| v["subtype"] == "notification" && v["key"] == key)
        .map(|v| v["text"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_prompt_too_long_refusal_cuts_the_largest_tool_results_and_retries() {
    let sb = Sandbox::new();
    let paths: Vec<String> = ["a.txt", "b.txt", "c.txt"]
        .iter()
        .map(|n| big_file(&sb, n, 1_000))
        .collect();
    // catui does not know this model's window (it assumes 128k tokens);
    // the mock refuses anything over 30k tokens (~120 KB), as a real API
    // would when the catalog is wrong.
    let server = common::mock(
        Script::new()
            .context_window(30_000)
            .turn(read_all(&paths))
            .turn(Turn::text("read all three")),
    );
    let mut s = sb.stream(&server, &[]);
    s.send_user("read the three files");
    let result = s.wait_type("result");
    let (exit, seen) = s.finish();
    assert_eq!(exit, 0);
    assert_eq!(result["is_error"], false, "{result}");
    assert_eq!(result["result"], "read all three");

    let notes = notifications(&seen, "context-overflow");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("prompt is too long") && notes[0].contains("largest tool result"),
        "{}",
        notes[0]
    );
    let requests = server.requests();
    // Read, the refused request, the request that fit.
    assert_eq!(requests.len(), 3, "{}", requests.len());
    assert!(body_len(&requests[1]) > 120_000);
    let last = &requests[2];
    assert!(body_len(last) < 120_000, "{}", body_len(last));
    let (text, _) = common::result_of(last, "r0");
    assert!(
        text.contains("a.txt line 000000"),
        "the cut keeps the start"
    );
    let cut: Vec<String> = (0..3)
        .map(|i| common::result_of(last, &format!("r{i}")).0)
        .filter(|t| t.contains("the rest of this tool result was cut"))
        .collect();
    assert!(!cut.is_empty());
    assert!(cut.iter().all(|t| !t.contains("END-OF-")));
    // The transcript keeps every result whole.
    let transcript = std::fs::read_to_string(&sb.transcripts()[0]).unwrap();
    for name in ["a.txt", "b.txt", "c.txt"] {
        assert!(transcript.contains(&format!("END-OF-{name}")), "{name}");
    }
}

#[test]
fn the_openai_wire_recovers_from_context_length_exceeded_too() {
    let sb = Sandbox::new();
    let paths: Vec<String> = ["a.txt", "b.txt", "c.txt"]
        .iter()
        .map(|n| big_file(&sb, n, 1_000))
        .collect();
    let server = common::mock(
        Script::new()
            .context_window(30_000)
            .turn(read_all(&paths))
            .turn(Turn::text("read all three")),
    );
    let mut s = StreamSession::start(sb.catui_openai(&server), &[]);
    s.send_user("read the three files");
    let result = s.wait_type("result");
    let (exit, seen) = s.finish();
    assert_eq!(exit, 0);
    assert_eq!(result["result"], "read all three", "{result}");
    let notes = notifications(&seen, "context-overflow");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("maximum context length"), "{}", notes[0]);
    assert_eq!(server.requests().len(), 3);
}

/// Settings giving the mock's model (`test-model`) a context window.
fn window_settings(sb: &Sandbox, tokens: u64, threshold: Option<f64>) {
    let mut settings = json!({"models": {"test-model": {"contextWindow": tokens}}});
    if let Some(t) = threshold {
        settings["autoCompactThreshold"] = json!(t);
    }
    sb.user_settings(&settings.to_string());
}

#[test]
fn a_request_that_would_not_fit_is_compacted_before_it_is_sent() {
    let sb = Sandbox::new();
    window_settings(&sb, 30_000, None);
    let paths: Vec<String> = ["a.txt", "b.txt", "c.txt"]
        .iter()
        .map(|n| big_file(&sb, n, 1_000))
        .collect();
    let server = common::mock(
        Script::new()
            .context_window(30_000)
            .turn(read_all(&paths))
            .turn(Turn::text("read all three")),
    );
    let mut s = sb.stream(&server, &[]);
    s.send_user("read the three files");
    let result = s.wait_type("result");
    let (exit, seen) = s.finish();
    assert_eq!(exit, 0);
    assert_eq!(result["result"], "read all three", "{result}");
    let notes = notifications(&seen, "auto-compact");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("largest tool result"), "{}", notes[0]);
    // Nothing was refused: the second request was already small enough.
    assert!(notifications(&seen, "context-overflow").is_empty());
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert!(
        body_len(&requests[1]) < 120_000,
        "{}",
        body_len(&requests[1])
    );
}

#[test]
fn slash_compact_frees_context_when_tool_results_are_the_bulk() {
    let sb = Sandbox::new();
    // 3 x 57 KB of results: with the first prompt, under the 60k-token
    // window (so nothing is compacted on its own), but over the 120 KB
    // (half the window at two bytes a token) that /compact aims at.
    window_settings(&sb, 60_000, Some(1.0));
    let paths: Vec<String> = ["a.txt", "b.txt", "c.txt"]
        .iter()
        .map(|n| big_file(&sb, n, 1_000))
        .collect();
    let server = common::mock(
        Script::new()
            .turn(read_all(&paths))
            .turn(Turn::text("read all three"))
            .turn(Turn::text("still with you")),
    );
    let mut s = sb.stream(&server, &[]);
    s.send_user("read the three files");
    assert_eq!(s.wait_type("result")["result"], "read all three");
    // One human turn: there is no older turn to summarise, yet /compact
    // frees the context the results take.
    s.send_user("/compact");
    let compacted = s.wait_type("result");
    assert_eq!(compacted["is_error"], false, "{compacted}");
    let text = compacted["result"].as_str().unwrap();
    common::assert_contains(text, "largest tool result");
    s.send_user("are you there?");
    assert_eq!(s.wait_type("result")["result"], "still with you");
    let (exit, _) = s.finish();
    assert_eq!(exit, 0);
    let requests = server.requests();
    assert_eq!(requests.len(), 3, "/compact sent no summary request");
    assert!(body_len(&requests[2]) + 60_000 < body_len(&requests[1]));
    assert!(requests[2].contains_text("the rest of this tool result was cut"));
}

#[test]
fn auto_compact_threshold_and_the_catalog_window_decide_when_to_summarise() {
    let sb = Sandbox::new();
    // A 10k-token window and a threshold of 0.5: a 6,000-token prompt
    // (under the default 85%) is enough.
    window_settings(&sb, 10_000, Some(0.5));
    let server = common::mock(
        Script::new()
            .turn(Turn::text("one"))
            .turn(Turn::text("two").usage(6_000, 10))
            .turn(Turn::text("SUMMARY-7Q: the user counted to two"))
            .turn(Turn::text("three")),
    );
    let mut s = sb.stream(&server, &[]);
    for (say, answer) in [
        ("first-marker count", "one"),
        ("go on", "two"),
        ("and again", "three"),
    ] {
        s.send_user(say);
        assert_eq!(s.wait_type("result")["result"], answer);
    }
    let (exit, seen) = s.finish();
    assert_eq!(exit, 0);
    let notes = notifications(&seen, "auto-compact");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].starts_with("Compacted the conversation"),
        "{}",
        notes[0]
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    // The summary request: no tools, the older turn as text.
    assert!(requests[2].tool_names().is_empty());
    assert!(requests[2].contains_text("first-marker count"));
    // The next request starts from the summary, not the first turn.
    assert!(requests[3].contains_text("SUMMARY-7Q"));
    assert!(!requests[3].contains_text("first-marker count"));
    assert_eq!(common::last_user(&requests[3]), "and again");
}

#[test]
fn without_the_setting_the_same_prompt_is_not_compacted() {
    let sb = Sandbox::new();
    window_settings(&sb, 10_000, None);
    let server = common::mock(
        Script::new()
            .turn(Turn::text("one"))
            .turn(Turn::text("two").usage(6_000, 10))
            .turn(Turn::text("three")),
    );
    let mut s = sb.stream(&server, &[]);
    for say in ["first-marker count", "go on", "and again"] {
        s.send_user(say);
        s.wait_type("result");
    }
    let (exit, seen) = s.finish();
    assert_eq!(exit, 0);
    assert!(notifications(&seen, "auto-compact").is_empty());
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert!(requests[2].contains_text("first-marker count"));
}
