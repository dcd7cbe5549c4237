//! Sub-agents end to end: the real binary, Agent tool calls answered by the
//! testkit mock (requests routed by model and prompt text).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::Duration;

use catui_testkit::{Block, RecordedRequest, Script, Turn};
use common::{Sandbox, json_lines, result_of};
use serde_json::{Value, json};

fn agent(id: &str, kind: &str, prompt: &str) -> Block {
    Block::ToolUse {
        id: id.into(),
        name: "Agent".into(),
        input: json!({"description": "look around", "prompt": prompt, "subagent_type": kind}),
    }
}

#[test]
fn three_explore_agents_run_in_parallel_on_the_small_model() {
    let sb = Sandbox::new();
    sb.write("AGENTS.md", "MEMORY-MARKER: always use tabs\n");
    let mut script = Script::new().turn(
        Turn::blocks(vec![
            agent("a1", "Explore", "find the parser"),
            agent("a2", "Explore", "find the lexer"),
            agent("a3", "Explore", "find the tests"),
        ])
        .when_model("test-model"),
    );
    for what in ["parser", "lexer", "tests"] {
        script = script.turn(
            Turn::text(format!("The {what} is in src/{what}.rs"))
                .delay(Duration::from_secs(1))
                .when_model("small-model")
                .when_contains(format!("find the {what}")),
        );
    }
    let server = common::mock(script.turn(Turn::text("All found.").when_model("test-model")));
    let out = sb.run(
        &server,
        [
            "-p",
            "where is everything?",
            "--small-model",
            "small-model",
            "--output-format",
            "stream-json",
        ],
    );
    common::assert_ok(&out);

    let reqs = server.requests();
    assert_eq!(reqs.len(), 5);
    let subs: Vec<&RecordedRequest> = reqs.iter().filter(|r| r.model() == "small-model").collect();
    assert_eq!(subs.len(), 3);
    let first = subs.iter().map(|r| r.received_at).min().unwrap();
    let last = subs.iter().map(|r| r.received_at).max().unwrap();
    assert!(
        last - first < Duration::from_millis(200),
        "sub-agent requests spread over {:?}",
        last - first
    );
    // The Agent step took about one agent's latency, not three.
    let parent_next = reqs
        .iter()
        .filter(|r| r.model() == "test-model")
        .nth(1)
        .unwrap()
        .received_at;
    assert!(
        parent_next - first < Duration::from_millis(1500),
        "agents step took {:?}",
        parent_next - first
    );

    for r in &subs {
        let tools = r.tool_names();
        for banned in [
            "Write",
            "Edit",
            "NotebookEdit",
            "Agent",
            "ExitPlanMode",
            "EnterPlanMode",
        ] {
            assert!(
                !tools.iter().any(|t| t == banned),
                "{banned} offered to Explore: {tools:?}"
            );
        }
        assert!(tools.iter().any(|t| t == "Grep"));
        assert!(
            !r.system_text().contains("MEMORY-MARKER"),
            "memory files leaked into Explore"
        );
    }
    assert!(
        reqs[0].system_text().contains("MEMORY-MARKER"),
        "the main agent gets memory files"
    );

    let (text, is_error) = result_of(&reqs[4], "a2");
    assert!(
        !is_error && text.starts_with("The lexer is in src/lexer.rs"),
        "{text}"
    );

    // Sub-agent messages are tagged with the Agent tool_use that started them.
    let lines = json_lines(&out.stdout);
    let tagged: Vec<&Value> = lines
        .iter()
        .filter(|l| !l["parent_tool_use_id"].is_null())
        .collect();
    let parents: std::collections::BTreeSet<&str> = tagged
        .iter()
        .map(|l| l["parent_tool_use_id"].as_str().unwrap())
        .collect();
    assert_eq!(parents.into_iter().collect::<Vec<_>>(), ["a1", "a2", "a3"]);
    assert_eq!(lines.iter().filter(|l| l["type"] == "result").count(), 1);

    // Sidechain transcripts beside the session's.
    let sidechains = sb
        .transcripts()
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("subagents"))
        .count();
    assert_eq!(sidechains, 3);
}

#[test]
fn plan_agent_inherits_the_main_model_and_a_failing_agent_spares_its_siblings() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(
                Turn::blocks(vec![
                    agent("p1", "Plan", "design the change"),
                    agent("e1", "Explore", "find it"),
                ])
                .when_contains("go"),
            )
            .turn(Turn::text("Design: do X").when_contains("design the change"))
            .turn(Turn::error_status(400, "bad request for this agent").when_contains("find it"))
            .turn(Turn::text("done").when_contains("Design: do X")),
    );
    let out = sb.run(&server, ["-p", "go", "--small-model", "small-model"]);
    common::assert_ok(&out);
    assert_eq!(common::stdout(&out).trim(), "done");
    let reqs = server.requests();
    let plan_req = reqs
        .iter()
        .find(|r| {
            r.last_user_text()
                .is_some_and(|t| t.contains("design the change"))
        })
        .unwrap();
    assert_eq!(plan_req.model(), "test-model");
    let last = reqs.last().unwrap();
    let (plan_text, plan_err) = result_of(last, "p1");
    assert!(!plan_err && plan_text.contains("Design: do X"));
    let (explore_text, explore_err) = result_of(last, "e1");
    assert!(
        explore_err && explore_text.contains("bad request for this agent"),
        "{explore_text}"
    );
}

#[test]
fn sub_agents_in_plan_mode_get_their_own_plan_file_and_cannot_write() {
    let sb = Sandbox::new();
    let target = sb.write("src/lib.rs", "pub fn a() {}\n");
    let server = common::mock(
        Script::new()
            .turn(Turn::blocks(vec![agent("x", "Explore", "inspect lib")]).when_model("test-model"))
            .turn(common::write("w", target.to_str().unwrap(), "x").when_model("small-model"))
            .turn(Turn::text("cannot write, as expected").when_model("small-model"))
            .turn(
                common::agent("g", "d", "change things", "general-purpose")
                    .when_model("test-model"),
            )
            .turn(Turn::text("ok").when_model("test-model")),
    );
    let mut s = sb.stream(
        &server,
        &["--permission-mode", "plan", "--small-model", "small-model"],
    );
    let init = s.wait_for("init", |v| v["subtype"] == "init");
    let main_plan = init["plan_file"].as_str().unwrap().to_string();
    s.send_user("plan it");
    s.wait_type("result");
    s.finish();
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "pub fn a() {}\n");
    let reqs = server.requests();
    let sub: Vec<&RecordedRequest> = reqs.iter().filter(|r| r.model() == "small-model").collect();
    // The sub-agent is reminded of plan mode in terms of its own tools:
    // Explore cannot write, so it gets no plan file and reports in its
    // final message (and is not told to use AskUserQuestion).
    let reminder = sub[0].last_user_text().unwrap();
    let slug = std::path::Path::new(&main_plan)
        .file_stem()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    common::assert_contains(&reminder, "sub-agent working under plan mode");
    common::assert_lacks(&reminder, &format!("{slug}-agent-"));
    common::assert_lacks(&reminder, "AskUserQuestion");
    common::assert_contains(&reminder, "final message is your whole report");
    let (w, w_err) = result_of(sub[1], "w");
    assert!(w_err, "{w}");
    // A writing agent type is refused in plan mode.
    let main_last = reqs.iter().rfind(|r| r.model() == "test-model").unwrap();
    let (g, g_err) = result_of(main_last, "g");
    assert!(g_err && g.contains("Plan mode"), "{g}");
}

#[test]
fn interrupting_running_agents_keeps_the_transcript_valid() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(
                Turn::blocks(vec![
                    agent("s1", "Explore", "slow one"),
                    agent("s2", "Explore", "slow two"),
                ])
                .when_model("test-model"),
            )
            .turn(
                Turn::text("late")
                    .delay(Duration::from_secs(10))
                    .when_contains("slow one"),
            )
            .turn(
                Turn::text("late")
                    .delay(Duration::from_secs(10))
                    .when_contains("slow two"),
            ),
    );
    let mut s = sb.stream(&server, &["--small-model", "small-model"]);
    s.send_user("explore slowly");
    s.wait_for("the Agent calls", |v| {
        v["type"] == "assistant" && v["parent_tool_use_id"].is_null()
    });
    std::thread::sleep(Duration::from_millis(300));
    s.send(json!({"type":"control_request","request_id":"i1","request":{"subtype":"interrupt"}}));
    let r = s.wait_type("result");
    assert_eq!(r["subtype"], "error_during_execution");
    let (code, _) = s.finish();
    assert_eq!(code, 1);
    let main = sb
        .transcripts()
        .into_iter()
        .find(|p| !p.to_string_lossy().contains("subagents"))
        .unwrap();
    let text = std::fs::read_to_string(main).unwrap();
    let entries: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut uses = vec![];
    let mut results = vec![];
    for e in &entries {
        for b in e["message"]["content"].as_array().into_iter().flatten() {
            if b["type"] == "tool_use" {
                uses.push(b["id"].as_str().unwrap().to_string());
            }
            if b["type"] == "tool_result" {
                results.push(b["tool_use_id"].as_str().unwrap().to_string());
            }
        }
    }
    assert_eq!(uses, ["s1", "s2"]);
    assert_eq!(results, ["s1", "s2"], "every tool_use has a result");
}

/// A custom agent with Explore's own tools (reading tools and Bash) may run
/// while planning, held to plan mode like the session: its write command is
/// refused, its read-only one runs.
#[test]
fn a_custom_agent_with_explore_s_tools_runs_in_plan_mode_held_to_it() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.config().join("agents")).unwrap();
    std::fs::write(
        sb.config().join("agents/scout.md"),
        "---\nname: scout\ndescription: Looks around\ntools: Read, Grep, Glob, Bash\n---\nYou are the scout.\n",
    )
    .unwrap();
    sb.write("notes.txt", "hello\n");
    let scout = |r: &RecordedRequest| r.system_text().contains("You are the scout.");
    let server = common::mock(
        Script::new()
            .turn(
                Turn::blocks(vec![agent("a1", "scout", "look at notes.txt")])
                    .when(move |r| !scout(r)),
            )
            .turn(common::bash("b1", "touch hacked.txt").when(scout))
            .turn(common::bash("b2", "cat notes.txt").when(scout))
            .turn(Turn::text("notes.txt says hello").when(scout))
            .turn(Turn::text("The scout reported.").when(move |r| !scout(r))),
    );
    let out = sb.run_planning(&server, "look around");
    assert_eq!(out.status.code(), Some(0));
    let reqs = server.requests();
    let last_main = reqs.iter().rev().find(|r| !scout(r)).unwrap();
    let (text, is_error) = result_of(last_main, "a1");
    assert!(!is_error, "{text}");
    common::assert_contains(&text, "notes.txt says hello");
    let scout_reqs: Vec<&RecordedRequest> = reqs.iter().filter(|r| scout(r)).collect();
    let (refused, is_error) = result_of(scout_reqs.last().unwrap(), "b1");
    assert!(is_error && refused.contains("Plan mode"), "{refused}");
    let (read, is_error) = result_of(scout_reqs.last().unwrap(), "b2");
    assert!(!is_error && read.contains("hello"), "{read}");
    assert!(!sb.project().join("hacked.txt").exists());
}
