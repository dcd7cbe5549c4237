//! Teammates on other machines, through the real binary and a real
//! nats-server: a lead (`teams.backend: "broker"`) starts a teammate with
//! `"host": "wk"`, which `catui worker --name wk` runs in its own machine's
//! checkout (separate HOME, config dir and project). The teammate's plan
//! reaches the lead's reviewer, and once approved it writes in the worker's
//! checkout. A worker killed mid-task is reported failed to the lead.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use common::broker::on;

use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use catui_testkit::nats::NatsServer;
use catui_testkit::{MockServer, RecordedRequest, Script, Turn};
use common::{Sandbox, StreamSession, is_teammate, last_user};
use serde_json::{Value, json};

/// A running `catui worker`, killed by pid when dropped.
struct Worker(Child);

impl Worker {
    fn start(sb: &Sandbox, server: &MockServer, broker: &NatsServer) -> Worker {
        let mut cmd = on(sb.catui(server), "machine-w", broker);
        cmd.args(["worker", "--name", "wk", "--project"])
            .arg(sb.project())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        let worker = Worker(cmd.spawn().unwrap());
        // Leads find it in the registry once it is up.
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let mut agents = on(sb.bare(), "machine-w", broker);
            agents.args(["agents", "--json"]);
            let out = common::output_within(agents, b"", 30);
            let list: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap_or_default();
            if list
                .iter()
                .any(|e| e["session_id"] == "worker.wk" && e["state"] == "idle")
            {
                return worker;
            }
            assert!(Instant::now() < deadline, "the worker did not come up");
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The lead's machine: its own settings put teams on the broker.
fn lead_sandbox() -> Sandbox {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"teams": {"backend": "broker"}}"#);
    sb
}

fn wait_until(what: &str, secs: u64, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !done() {
        assert!(Instant::now() < deadline, "gave up waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_teammate_hosted_by_a_worker_sends_its_plan_to_the_lead_and_writes_in_its_own_checkout() {
    let broker = NatsServer::start();
    let lead = lead_sandbox();
    let machine = Sandbox::new();
    let plans_dir = common::plans_dir(&machine);
    let feature = machine.project().join("feature.txt");
    let feature_path = feature.to_str().unwrap().to_string();
    let approved = |r: &RecordedRequest| last_user(r).contains("approved your plan");

    // The worker machine's model plays amy.
    let worker_model = common::mock(
        Script::new()
            .turn(common::teammate_writes_plan(
                "amy",
                "w1",
                &plans_dir,
                "# Plan\n\n1. Write feature.txt\n",
            ))
            .turn(common::exit_plan("x1").when(|r| {
                is_teammate(r, "amy") && r.has_tool_result("w1") && !r.has_tool_result("x1")
            }))
            .turn(
                Turn::text("Waiting for the lead.").when(move |r| {
                    is_teammate(r, "amy") && r.has_tool_result("x1") && !approved(r)
                }),
            )
            .turn(
                common::write("f", &feature_path, "feature\n")
                    .when(move |r| is_teammate(r, "amy") && approved(r) && !r.has_tool_result("f")),
            )
            .turn(
                common::send_message("s", "team-lead", "feature.txt is written").when(|r| {
                    is_teammate(r, "amy") && r.has_tool_result("f") && !r.has_tool_result("s")
                }),
            )
            .turn(
                Turn::text("Implemented.")
                    .when(|r| is_teammate(r, "amy") && r.has_tool_result("s")),
            ),
    );
    let _worker = Worker::start(&machine, &worker_model, &broker);

    // The lead's model starts amy on the worker.
    let lead_model = common::mock(
        Script::new()
            .turn(
                common::team_create(
                    "tc",
                    json!([{"name": "amy", "prompt": "Please add feature.txt",
                        "mode": "acceptEdits", "planModeRequired": true, "host": "wk"}]),
                )
                .when(|r| last_user(r).contains("start a team")),
            )
            .turn(Turn::text("Team started.").when(|r| {
                r.has_tool_result("tc") && !last_user(r).contains("feature.txt is written")
            }))
            .turn(
                Turn::text("Thanks, amy.")
                    .when(|r| last_user(r).contains("feature.txt is written")),
            ),
    );
    let mut s = StreamSession::start(
        on(lead.catui(&lead_model), "machine-l", &broker),
        &["--permission-mode", "acceptEdits"],
    );
    s.send_user("start a team for the feature");
    let started = s.wait_type("result");
    assert_eq!(started["result"], "Team started.", "{started}");

    let request = s.wait_for("amy's plan", |v| {
        v["type"] == "control_request" && v["request"]["subtype"] == "plan_approval"
    });
    assert_eq!(request["request"]["from"], "amy");
    assert_eq!(request["request"]["team"], "core");
    assert_eq!(
        request["request"]["plan"],
        "# Plan\n\n1. Write feature.txt\n"
    );
    let plan_path = request["request"]["plan_file_path"].as_str().unwrap();
    assert!(
        plan_path.starts_with(&plans_dir),
        "written on the worker's machine: {plan_path}"
    );
    assert!(!feature.exists(), "nothing changes before approval");
    s.send(json!({"type": "control_response", "response": {
        "subtype": "success", "request_id": request["request_id"],
        "response": {"behavior": "allow"}}}));

    wait_until("amy to write feature.txt on the worker", 60, || {
        feature.exists()
    });
    assert_eq!(std::fs::read_to_string(&feature).unwrap(), "feature\n");
    assert!(
        !lead.project().join("feature.txt").exists(),
        "the teammate works in its own machine's checkout"
    );
    // Her report reaches the lead through the broker.
    s.wait_for("amy's message", |v| {
        v["type"] == "system"
            && v["text"]
                .as_str()
                .is_some_and(|t| t.contains("feature.txt is written"))
    });
    let (code, _) = s.finish();
    assert_eq!(code, 0);
}

#[test]
fn a_worker_killed_mid_task_is_reported_failed_to_the_lead() {
    let broker = NatsServer::start();
    let lead = lead_sandbox();
    let machine = Sandbox::new();
    // Bob's model answers slowly: the worker dies while he waits for it.
    let worker_model = common::mock(
        Script::new().turn(
            Turn::text("Done.")
                .delay(Duration::from_secs(120))
                .when(|r| is_teammate(r, "bob")),
        ),
    );
    let mut worker = Worker::start(&machine, &worker_model, &broker);
    let lead_model = common::mock(
        Script::new()
            .turn(
                Turn::tool_use(
                    "tc",
                    "TeamCreate",
                    json!({"team_name": "ops", "members": [{"name": "bob", "prompt": "Take your time", "host": "wk"}]}),
                )
                .when(|r| last_user(r).contains("start bob")),
            )
            .turn(Turn::text("Bob is on it.").when(|r| r.has_tool_result("tc") && !last_user(r).contains("failed")))
            .turn(Turn::text("Noted: bob failed.").when(|r| last_user(r).contains("failed"))),
    );
    let mut s = StreamSession::start(on(lead.catui(&lead_model), "machine-l", &broker), &[]);
    s.send_user("start bob");
    assert_eq!(s.wait_type("result")["result"], "Bob is on it.");

    // Bob is working on the worker (his model request is under way).
    wait_until("bob's request on the worker", 60, || {
        !worker_model.requests().is_empty()
    });
    worker.kill();

    let failed = s.wait_for("bob reported failed", |v| {
        v["type"] == "system" && v["key"] == "teammate-failed"
    });
    let text = failed["text"].as_str().unwrap();
    assert!(
        text.contains("bob@ops failed") && text.contains("wk"),
        "{text}"
    );
    // The lead model is told too.
    assert_eq!(s.wait_type("result")["result"], "Noted: bob failed.");

    // Any machine sees it failed in the registry.
    let mut agents = on(lead.bare(), "machine-l", &broker);
    agents.args(["agents", "--json"]);
    let out = common::output_within(agents, b"", 30);
    let list: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let bob = list
        .iter()
        .find(|e| e["session_id"] == "teammate.ops.bob")
        .expect("bob is listed");
    assert_eq!(bob["state"], "failed", "{bob}");
    assert_eq!(bob["worker"], "wk");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
}
