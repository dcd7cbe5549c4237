//! Answer from anywhere, through the real binary and a real nats-server:
//! two "machines" (separate HOME, config dir and project) share one
//! broker. A headless planning run with `--approvals broker` waits on
//! machine A; machine B sees it waiting (`catui agents`), lists its plan
//! (`catui approvals`), the broker is killed (-9) and restarted, B approves
//! once (a second approval is told it was already answered), and the run
//! implements and exits 0.

use crate::common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use catui_testkit::nats::NatsServer;
use common::{Sandbox, sdk_plan_script};
use serde_json::Value;

/// `cmd` as machine `host` on `broker`.
fn on(mut cmd: Command, host: &str, broker: &NatsServer) -> Command {
    cmd.env("CATUI_HOST", host)
        .env("CATUI_BROKER", broker.url())
        .env("CATUI_BROKER_HEARTBEAT_MS", "300");
    cmd
}

/// Runs a short command to its end (bounded).
fn run(cmd: Command) -> (i32, String, String) {
    let out = common::output_within(cmd, b"", 60);
    (
        out.status.code().unwrap_or(-1),
        common::stdout(&out),
        common::stderr(&out),
    )
}

/// A child ended by pid if the test fails before it exits.
struct Killed(Option<Child>);

impl Drop for Killed {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[test]
fn a_plan_waiting_on_one_machine_is_approved_once_from_another_across_a_broker_restart() {
    let mut broker = NatsServer::start();
    let a = Sandbox::new();
    let b = Sandbox::new();
    // Not about the plan contract: no goal loop after approval.
    a.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let (script, target) = sdk_plan_script(&a);
    let server = common::mock(script);

    let mut run_a = on(a.catui(&server), "machine-a", &broker);
    run_a
        .args([
            "-p",
            "Plan the feature, then build it",
            "--permission-mode",
            "plan",
            "--approvals",
            "broker",
            "--output-format",
            "json",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = Killed(Some(run_a.spawn().unwrap()));

    // Machine B sees the run waiting for a person.
    let waiting: Value = common::eventually("the run to wait for approval", || {
        let mut cmd = on(b.bare(), "machine-b", &broker);
        cmd.args(["agents", "--json"]);
        let (code, out, err) = run(cmd);
        assert_eq!(code, 0, "{err}");
        let list: Vec<Value> = serde_json::from_str(&out).unwrap();
        list.into_iter().find(|e| e["state"] == "waiting_for_you")
    });
    assert_eq!(waiting["host"], "machine-a");
    assert_eq!(waiting["kind"], "headless");
    assert!(
        waiting["waiting_for"]
            .as_str()
            .unwrap()
            .contains("approve plan"),
        "{waiting}"
    );
    let session_id = waiting["session_id"].as_str().unwrap().to_string();

    // It lists the plan.
    let mut cmd = on(b.bare(), "machine-b", &broker);
    cmd.args(["approvals", "--json"]);
    let (code, out, err) = run(cmd);
    assert_eq!(code, 0, "{err}");
    let pending: Vec<Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(pending.len(), 1, "{out}");
    let request = &pending[0];
    assert_eq!(request["kind"], "plan");
    assert_eq!(request["session_id"], session_id.as_str());
    assert!(
        request["plan"]
            .as_str()
            .unwrap()
            .contains("Write feature.txt")
    );
    assert!(request["answer"].is_null());
    let id = request["id"].as_str().unwrap().to_string();

    let mut cmd = on(b.bare(), "machine-b", &broker);
    cmd.args(["approvals", "show", &id]);
    let (code, out, _) = run(cmd);
    assert_eq!(code, 0);
    assert!(
        out.contains("1. Write feature.txt") && out.contains("machine-a"),
        "{out}"
    );

    // The broker dies without a clean shutdown and comes back.
    broker.kill();
    std::thread::sleep(Duration::from_millis(500));
    broker.restart();

    let mut cmd = on(b.bare(), "machine-b", &broker);
    cmd.args(["approvals", "approve", &id, "--mode", "acceptEdits"]);
    let (code, out, err) = run(cmd);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Approved"), "{out}");

    let mut cmd = on(b.bare(), "machine-b", &broker);
    cmd.args(["approvals", "approve", &id]);
    let (code, _, err) = run(cmd);
    assert_eq!(code, 1, "a second answer is refused");
    assert!(
        err.contains("already answered") && err.contains("approved (mode acceptEdits)"),
        "{err}"
    );

    // The run implements and ends well.
    let child = child.0.take().unwrap();
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let output = match rx.recv_timeout(Duration::from_secs(90)) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("the approved run did not finish");
        }
    };
    let stderr = common::stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["subtype"], "success", "{result}");
    assert_eq!(result["permission_mode"], "acceptEdits");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "built");

    // The session is listed as done, and nothing waits any more.
    let done: Value = common::eventually("the session to be done", || {
        let mut cmd = on(b.bare(), "machine-b", &broker);
        cmd.args(["agents", "--json"]);
        let (_, out, _) = run(cmd);
        let list: Vec<Value> = serde_json::from_str(&out).ok()?;
        list.into_iter()
            .find(|e| e["session_id"] == session_id.as_str() && e["state"] == "done")
    });
    assert_eq!(done["host"], "machine-a");
    let mut cmd = on(b.bare(), "machine-b", &broker);
    cmd.args(["approvals", "--json"]);
    let (_, out, _) = run(cmd);
    assert_eq!(serde_json::from_str::<Vec<Value>>(&out).unwrap().len(), 0);
}

#[test]
fn broker_approvals_without_a_reachable_broker_fail_at_start_without_hanging() {
    let sb = Sandbox::new();
    let server = common::mock(catui_testkit::Script::new());
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut cmd = sb.catui(&server);
    cmd.args([
        "-p",
        "hi",
        "--approvals",
        "broker",
        "--broker",
        &format!("nats://amy:pa55word-secret@127.0.0.1:{port}"),
    ]);
    let out = common::output_within(cmd, b"", 30);
    let err = common::stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot reach the broker"), "{err}");
    assert!(!err.contains("pa55word-secret"), "{err}");
    assert!(
        server.requests().is_empty(),
        "nothing was sent to the model"
    );

    // Asking for broker approvals with no broker at all is a usage error.
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "hi", "--approvals", "broker"]);
    let out = common::output_within(cmd, b"", 30);
    let err = common::stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("needs a broker"), "{err}");
}
