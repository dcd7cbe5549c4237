//! What a session costs, end to end: the real binary against the testkit
//! mock. The prompt-cache share of a lab-style plan-mode session (the
//! figure in docs/BENCHMARKS.md), the cost in every `result`, `/cost`,
//! `--max-budget-usd`, and the Responses provider chosen by flag or model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Block, RecordedRequest, Script, Turn};
use common::{Sandbox, StreamSession, json_lines, output_within};
use serde_json::{Value, json};

/// Sonnet 4.5's prices, $ per million tokens: input, output, cache read,
/// cache write.
const SONNET: (f64, f64, f64, f64) = (3.0, 15.0, 0.3, 3.75);

/// A request's prompt as the prompt cache sees it: tools, system blocks,
/// then each message's blocks tagged with the message's place and role;
/// `cache_control` markers removed (they move, the content must not).
fn prompt_segments(r: &RecordedRequest) -> Vec<String> {
    fn strip(v: &Value) -> Value {
        match v {
            Value::Object(map) => Value::Object(
                map.iter()
                    .filter(|(k, _)| *k != "cache_control")
                    .map(|(k, v)| (k.clone(), strip(v)))
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(strip).collect()),
            other => other.clone(),
        }
    }
    let mut out = Vec::new();
    for tool in r.body["tools"].as_array().into_iter().flatten() {
        out.push(format!("tool {}", strip(tool)));
    }
    match &r.body["system"] {
        Value::Array(blocks) => out.extend(blocks.iter().map(|b| format!("system {}", strip(b)))),
        Value::Null => {}
        other => out.push(format!("system {other}")),
    }
    for (i, m) in r.messages().iter().enumerate() {
        let tag = format!("message {i} {}", m["role"]);
        match &m["content"] {
            Value::Array(blocks) => {
                out.extend(blocks.iter().map(|b| format!("{tag} {}", strip(b))))
            }
            other => out.push(format!("{tag} {other}")),
        }
    }
    out
}

/// The lab-style plan flow (explore, plan, rejected, revised, approved,
/// implemented) on the Anthropic wire with the mock's prompt cache: every
/// request extends the previous one's prompt, so the plan-mode reminders
/// and approval attachments never break the cached prefix, and the
/// session's cost is the price table applied to the cache-aware usage.
#[test]
fn plan_session_keeps_its_cached_prefix_and_reports_the_cache_share() {
    let sb = Sandbox::new();
    // Not about the plan contract: no goal loop after approval.
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    sb.write("src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n");
    sb.write(
        "Cargo.toml",
        "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n",
    );
    let lib = sb.project().join("src/lib.rs");
    let server = common::mock(Script::new());
    let mut cmd = sb.catui(&server);
    cmd.env("CATUI_MODEL", "claude-sonnet-4-5");
    let mut s = StreamSession::start(cmd, &["--permission-mode", "plan"]);
    let init = s.wait_for("init", |v| v["subtype"] == "init");
    let plan_file = init["plan_file"].as_str().unwrap().to_string();
    for turn in [
        Turn::tool_use("g1", "Glob", json!({"pattern": "**/*.rs"})),
        common::read("r1", sb.project().join("src/main.rs")),
        common::bash("b1", "ls src"),
        common::write(
            "p1",
            &plan_file,
            "# Plan\n\n1. Add src/lib.rs with greet()\n",
        ),
        common::exit_plan("x1"),
        common::write(
            "p2",
            &plan_file,
            "# Plan\n\n1. Add src/lib.rs with greet()\n2. Test it\n\n## Verification\n- cargo test\n",
        ),
        common::exit_plan("x2"),
        common::write("w1", &lib, "pub fn greet() -> &'static str { \"hi\" }\n"),
        Turn::text("Added greet() in src/lib.rs."),
        Turn::text("It returns \"hi\"."),
    ] {
        server.push(turn);
    }
    s.send_user("Plan a greet() library function for this crate.");
    let ask = s.wait_type("control_request");
    s.send(common::deny_request(
        ask["request_id"].as_str().unwrap(),
        "Also test it.",
    ));
    let ask = s.wait_type("control_request");
    let mut approved = ask["request"]["input"].clone();
    approved["mode"] = json!("acceptEdits");
    s.send(common::allow_request(
        ask["request_id"].as_str().unwrap(),
        approved,
    ));
    let first = s.wait_type("result");
    assert_eq!(first["subtype"], "success", "{first}");
    s.send_user("What does greet return?");
    let second = s.wait_type("result");
    assert_eq!(second["result"], "It returns \"hi\".");
    s.send_user("/cost");
    let cost = s.wait_type("result");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    assert!(lib.exists(), "the approved plan was implemented");

    // Every request's prompt begins with the whole previous prompt.
    let requests = server.requests();
    assert_eq!(requests.len(), 10);
    for pair in requests.windows(2) {
        let (before, after) = (prompt_segments(&pair[0]), prompt_segments(&pair[1]));
        let common = before
            .iter()
            .zip(&after)
            .take_while(|(a, b)| a == b)
            .count();
        assert_eq!(
            common,
            before.len(),
            "the prefix broke at segment {common}:\n before: {}\n after:  {}",
            before.get(common).map_or("", String::as_str),
            after.get(common).map_or("", String::as_str),
        );
    }

    // Usage and cost: the mock's cache served most of the input, and the
    // cost is the price table applied to it.
    let usage = &second["modelUsage"]["claude-sonnet-4-5"];
    let n = |k: &str| usage[k].as_u64().unwrap();
    let (input, output, read, written) = (
        n("inputTokens"),
        n("outputTokens"),
        n("cacheReadInputTokens"),
        n("cacheCreationInputTokens"),
    );
    assert_eq!(n("requests"), 10);
    assert_eq!(n("contextWindow"), 200_000);
    let prompt = input + read + written;
    let share = read as f64 / prompt as f64;
    eprintln!(
        "plan-mode session, 10 requests: {read} of {prompt} input tokens from the cache ({:.1}%), {written} written, {input} uncached",
        share * 100.0
    );
    assert!(share > 0.85, "cache share {share:.3}");
    let expected = (input as f64 * SONNET.0
        + output as f64 * SONNET.1
        + read as f64 * SONNET.2
        + written as f64 * SONNET.3)
        / 1e6;
    let total = second["total_cost_usd"].as_f64().unwrap();
    assert!((total - expected).abs() < 1e-9, "{total} vs {expected}");
    assert!((usage["costUSD"].as_f64().unwrap() - expected).abs() < 1e-9);
    assert!(first["total_cost_usd"].as_f64().unwrap() < total);
    assert!(first["duration_api_ms"].as_u64().is_some());

    // `/cost` is answered locally, from the same ledger.
    let text = cost["result"].as_str().unwrap();
    assert_eq!(cost["num_turns"], 0);
    common::assert_contains(text, &format!("Total cost:     ${total:.4}"));
    common::assert_contains(text, &format!("From cache:     {:.0}%", share * 100.0));
    common::assert_contains(text, "claude-sonnet-4-5: 10 requests");
}

/// `--max-budget-usd`: once the session has spent it, the run stops
/// before the next request with an error result (exit 1).
#[test]
fn the_budget_stops_the_run_before_the_next_request() {
    let (sb, server) = common::with_mock(
        Script::new()
            // One million fresh input tokens of Sonnet: $3.
            .turn(Turn::tool_use("g1", "Glob", json!({"pattern": "*"})).usage(1_000_000, 10))
            .turn(Turn::text("never asked")),
    );
    let mut cmd = sb.catui(&server);
    cmd.env("CATUI_MODEL", "claude-sonnet-4-5").args([
        "-p",
        "--output-format",
        "json",
        "--max-budget-usd",
        "2.50",
        "say hi",
    ]);
    let out = output_within(cmd, b"", 60);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["subtype"], "error_max_budget_usd", "{result}");
    assert_eq!(result["is_error"], true);
    let text = result["result"].as_str().unwrap();
    assert!(
        text.contains("$2.5000") && text.contains("--max-budget-usd"),
        "{text}"
    );
    let spent = result["total_cost_usd"].as_f64().unwrap();
    assert!((spent - (3.0 + 10.0 * 15.0 / 1e6)).abs() < 1e-9, "{spent}");
    assert_eq!(server.requests().len(), 1, "no request after the budget");
    // The tool call of the last answer still ran and was recorded.
    assert_eq!(result["num_turns"], 1);
}

/// `--provider openai-responses` speaks the Responses API: reasoning items
/// go back with the tool result, `--effort` reaches the wire, and a model
/// served only there (gpt-5-codex) picks that wire without the flag.
#[test]
fn the_responses_provider_runs_a_tool_loop_with_reasoning() {
    let sb = Sandbox::new();
    let todo = sb.write("TODO.md", "ship it\n");
    let todo = todo.to_str().unwrap().to_string();
    let loop_turns = move || {
        Script::new()
            .turn(Turn::blocks(vec![
                Block::thinking("The file will say.", "ENC-7"),
                Block::tool_use("call_1", "Read", json!({"file_path": todo.clone()})),
            ]))
            .turn(Turn::text("It says: ship it.").when(|r| {
                r.messages()
                    .iter()
                    .any(|i| i["type"] == "reasoning" && i["encrypted_content"] == "ENC-7")
                    && r.tool_result("call_1")
                        .is_some_and(|t| t.content.contains("ship it"))
            }))
    };
    for (flags, model) in [
        (
            &["--provider", "openai-responses", "--effort", "high"][..],
            "gpt-5",
        ),
        (&["--effort", "low"][..], "gpt-5-codex"),
    ] {
        let server = common::mock(loop_turns());
        let mut cmd = sb.catui_openai(&server);
        cmd.env("CATUI_MODEL", model)
            .args(["-p", "--output-format", "stream-json", "--verbose"])
            .args(flags)
            .arg("What does TODO.md say?");
        let out = output_within(cmd, b"", 60);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let lines = json_lines(&out.stdout);
        let result = lines.iter().find(|v| v["type"] == "result").unwrap();
        assert_eq!(result["result"], "It says: ship it.", "{result}");
        assert!(result["total_cost_usd"].as_f64().unwrap() > 0.0);
        assert_eq!(result["modelUsage"][model]["requests"], 2);
        let requests = server.requests();
        assert_eq!(requests.len(), 2);
        assert!(requests.iter().all(|r| r.path == "/v1/responses"));
        let effort = flags[flags.len() - 1];
        assert_eq!(requests[0].body["reasoning"]["effort"], effort);
        assert_eq!(requests[0].body["reasoning"]["summary"], "auto");
    }
}
