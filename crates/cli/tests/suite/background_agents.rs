//! Sub-agents in the background through the real binary (issue 40 item 4):
//! `Agent` with `run_in_background` returns at once with a task id while
//! the agent runs on; its report reaches the main conversation by itself
//! (a turn of its own when the session is idle, one result for it); a
//! one-shot `-p` run waits for it; `stop_task` stops one and answers
//! unknown or ended ids with an error; plan mode keeps its rules.
//!
//! The agent is held on a gate file (a Bash loop) that the test creates
//! only after it has seen the main conversation go on, so "returns at once"
//! is shown by order, not by timing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use catui_testkit::{MockServer, RecordedRequest, Script, Turn};
use common::Sandbox;
use serde_json::{Value, json};

/// The text of the first user message: what the conversation was asked.
fn first_user_text(r: &RecordedRequest) -> String {
    let Some(first) = r.messages().first() else {
        return String::new();
    };
    common::text_of(first, "\n")
}

const TASK: &str = "GATED-TASK: wait for the gate, then report";

fn is_agent(r: &RecordedRequest) -> bool {
    first_user_text(r).contains(TASK)
}

/// The main conversation starts a background agent that waits for `gate`
/// and then reports REPORT-XYZ; the main conversation answers "Waiting"
/// right away, and "FINAL" once it has the report.
fn gated_script(gate: &str) -> Script {
    starts_gated_agent(format!(
        "while [ ! -f {gate} ]; do sleep 0.05; done; echo open"
    ))
    .turn(Turn::text("REPORT-XYZ: the gate opened").when(is_agent))
    .turn(
        Turn::text("Waiting for the agent.")
            .when(|r| !is_agent(r) && !r.contains_text("REPORT-XYZ")),
    )
    .turn(
        Turn::text("FINAL: the agent reported XYZ")
            .when(|r| !is_agent(r) && r.contains_text("REPORT-XYZ")),
    )
}

/// The main conversation starts a background agent whose first step is
/// the Bash `wait` (which waits for a gate file).
fn starts_gated_agent(wait: String) -> Script {
    Script::new()
        .turn(
            Turn::tool_use(
                "bg1",
                "Agent",
                json!({"description": "gated work", "prompt": TASK,
                       "subagent_type": "general-purpose", "run_in_background": true}),
            )
            .when(|r| !is_agent(r)),
        )
        .turn(common::bash("gate1", wait).when(is_agent))
}

fn main_requests(server: &MockServer) -> Vec<RecordedRequest> {
    server
        .requests()
        .into_iter()
        .filter(|r| !is_agent(r))
        .collect()
}

#[test]
fn a_background_agent_returns_at_once_and_its_report_starts_a_turn_of_its_own() {
    let sb = Sandbox::new();
    let gate = sb.project().join("gate");
    let server = common::mock(gated_script(&gate.display().to_string()));
    let mut s = sb.stream(&server, &["--permission-mode", "bypassPermissions"]);
    s.send_user("start the gated work in the background");
    let started = s.wait_for("task_started", |v| v["subtype"] == "task_started");
    assert_eq!(started["task_type"], "local_agent");
    assert_eq!(started["tool_use_id"], "bg1");
    assert_eq!(started["subagent_type"], "general-purpose");
    let task_id = started["task_id"].as_str().unwrap().to_string();
    // The turn ends while the agent still waits for the gate.
    let first = s.wait_type("result");
    assert_eq!(first["result"], "Waiting for the agent.", "{first}");
    assert!(!gate.exists());
    let agent_result = main_requests(&server)[1].tool_result("bg1").unwrap();
    assert!(
        agent_result.content.contains(&task_id) && agent_result.content.contains("background"),
        "{}",
        agent_result.content
    );
    assert!(
        !s.seen.iter().any(|v| v["subtype"] == "task_notification"),
        "the agent ended before the gate opened"
    );

    std::fs::write(&gate, "").unwrap();
    let ended = s.wait_for("task_notification", |v| v["subtype"] == "task_notification");
    assert_eq!(ended["task_id"], task_id.as_str());
    assert_eq!(ended["status"], "completed");
    // Its Bash call was reported as progress, before the end.
    let progress: Vec<&Value> = s
        .seen
        .iter()
        .filter(|v| v["subtype"] == "task_progress")
        .collect();
    assert_eq!(progress.len(), 1, "{progress:?}");
    assert_eq!(progress[0]["task_id"], task_id.as_str());
    assert_eq!(progress[0]["last_tool_name"], "Bash");
    assert_eq!(progress[0]["usage"]["tool_uses"], 1);
    assert!(progress[0]["usage"]["total_tokens"].as_u64().unwrap() > 0);
    let output_file = ended["output_file"].as_str().unwrap();
    assert!(
        std::fs::read_to_string(output_file)
            .unwrap()
            .contains("REPORT-XYZ"),
        "{output_file}"
    );
    // Nobody typed anything: the report itself started the next turn.
    let second = s.wait_type("result");
    assert_eq!(
        second["result"], "FINAL: the agent reported XYZ",
        "{second}"
    );
    let mains = main_requests(&server);
    let woke = mains.last().unwrap();
    let told = common::last_user(woke);
    assert!(
        told.contains(&task_id) && told.contains("REPORT-XYZ: the gate opened"),
        "{told}"
    );

    // Stopping it now, or a task that never was, is a clear error.
    for (id, why) in [
        (task_id.as_str(), "already ended"),
        ("agent_99", "no background task agent_99"),
    ] {
        s.send(
            json!({"type": "control_request", "request_id": format!("stop-{id}"),
                      "request": {"subtype": "stop_task", "task_id": id}}),
        );
        let answer = s.wait_for("stop_task answer", |v| {
            v["type"] == "control_response" && v["response"]["request_id"] == format!("stop-{id}")
        });
        assert_eq!(answer["response"]["subtype"], "error", "{answer}");
        let error = answer["response"]["error"].as_str().unwrap();
        common::assert_contains(error, why);
    }
    let (code, _) = s.finish();
    assert_eq!(code, 0);
}

#[test]
fn a_one_shot_run_waits_for_its_background_agent_and_answers_with_its_report() {
    let sb = Sandbox::new();
    let gate = sb.project().join("gate");
    let server = common::mock(gated_script(&gate.display().to_string()));
    let mut child = sb
        .catui(&server)
        .args([
            "-p",
            "start the gated work in the background",
            "--permission-mode",
            "bypassPermissions",
            "--output-format",
            "json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once the main conversation has answered "Waiting" the run would be
    // over without the agent; it must still be running then.
    let start = Instant::now();
    while !server
        .requests()
        .iter()
        .any(|r| !is_agent(r) && r.has_tool_result("bg1"))
    {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no second main request"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        child.try_wait().unwrap().is_none(),
        "catui exited under its agent"
    );
    std::fs::write(&gate, "").unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = common::stdout(&out);
    common::assert_ok(&out);
    // json prints one object: the answer made with the report.
    let lines: Vec<&str> = stdout.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    let result: Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(result["result"], "FINAL: the agent reported XYZ");
    assert!(common::last_user(main_requests(&server).last().unwrap()).contains("REPORT-XYZ"));
}

#[test]
fn stop_task_stops_a_running_background_agent_and_the_model_is_told() {
    let sb = Sandbox::new();
    let gate = sb.project().join("never");
    let server = common::mock(
        gated_script(&gate.display().to_string())
            .turn(Turn::text("OK, it was stopped.").when(|r| r.contains_text("was stopped"))),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "bypassPermissions"]);
    s.send_user("start the gated work in the background");
    let started = s.wait_for("task_started", |v| v["subtype"] == "task_started");
    let task_id = started["task_id"].as_str().unwrap().to_string();
    s.wait_type("result");
    // The agent is inside its Bash loop.
    let start = Instant::now();
    while !ps_has(&gate.display().to_string()) {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the agent's loop did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    s.send(json!({"type": "control_request", "request_id": "stop-1",
                  "request": {"subtype": "stop_task", "task_id": task_id}}));
    let answer = s.wait_for("stop_task answer", |v| {
        v["type"] == "control_response" && v["response"]["request_id"] == "stop-1"
    });
    assert_eq!(answer["response"]["subtype"], "success", "{answer}");
    let ended = s.wait_for("task_notification", |v| v["subtype"] == "task_notification");
    assert_eq!(ended["status"], "stopped");
    // The loop (the agent's command) is gone with it.
    let start = Instant::now();
    while ps_has(&gate.display().to_string()) {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the agent's command still runs"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // A stop does not start a turn by itself; the next one is told.
    s.send_user("what happened?");
    let result = s.wait_type("result");
    assert_eq!(result["result"], "OK, it was stopped.", "{result}");
    let told = common::last_user(main_requests(&server).last().unwrap());
    assert!(
        told.contains(&task_id) && told.contains("the user stopped it"),
        "{told}"
    );
    let (code, _) = s.finish();
    assert_eq!(code, 0);
}

/// Whether a process's command line contains `needle`.
fn ps_has(needle: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
        e.file_name().to_string_lossy().parse::<u32>().is_ok()
            && std::fs::read(e.path().join("cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(needle))
    })
}

#[test]
fn plan_mode_refuses_a_background_agent_that_could_write() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::tool_use(
                "bg1",
                "Agent",
                json!({"description": "edit things", "prompt": "change the code",
                       "subagent_type": "general-purpose", "run_in_background": true}),
            ))
            .turn(Turn::text("understood")),
    );
    let out = sb.run(
        &server,
        [
            "-p",
            "plan it",
            "--permission-mode",
            "plan",
            "--output-format",
            "stream-json",
        ],
    );
    let lines = common::json_lines(&out.stdout);
    assert!(
        !lines.iter().any(|v| v["subtype"] == "task_started"),
        "a writing agent started in plan mode"
    );
    let (text, is_error) = common::result_of(&server.requests()[1], "bg1");
    assert!(is_error, "{text}");
}

#[test]
fn a_background_agent_keeps_to_plan_mode_once_the_session_enters_it() {
    let sb = Sandbox::new();
    let gate = sb.project().join("gate");
    let leak = sb.project().join("leak.txt");
    let server = common::mock(
        starts_gated_agent(format!(
            "while [ ! -f {} ]; do sleep 0.05; done",
            gate.display()
        ))
        .turn(common::write("w1", leak.display().to_string(), "changed\n").when(is_agent))
        .turn(Turn::text("REPORT-XYZ: could not write").when(is_agent))
        .turn(Turn::text("Waiting.").when(|r| !is_agent(r) && !r.contains_text("REPORT-XYZ")))
        .turn(Turn::text("FINAL").when(|r| !is_agent(r) && r.contains_text("REPORT-XYZ"))),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "bypassPermissions"]);
    s.send_user("start the gated work in the background");
    s.wait_type("result");
    s.send(json!({"type": "control_request", "request_id": "m1",
                  "request": {"subtype": "set_permission_mode", "mode": "plan"}}));
    let answer = s.wait_for("mode answer", |v| {
        v["type"] == "control_response" && v["response"]["request_id"] == "m1"
    });
    assert_eq!(answer["response"]["subtype"], "success", "{answer}");
    std::fs::write(&gate, "").unwrap();
    let ended = s.wait_for("task_notification", |v| v["subtype"] == "task_notification");
    assert_eq!(ended["status"], "completed");
    s.wait_type("result");
    assert!(!leak.exists(), "a background agent wrote in plan mode");
    let refused = server
        .requests()
        .iter()
        .filter(|r| is_agent(r))
        .find_map(|r| r.tool_result("w1"))
        .unwrap();
    assert!(
        refused.is_error && refused.content.contains("plan mode"),
        "{}",
        refused.content
    );
    let (code, _) = s.finish();
    assert_eq!(code, 0);
}
