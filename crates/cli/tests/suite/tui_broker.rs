//! The broker's views in the terminal UI, through the real binary in tmux
//! and a real nats-server: `/agents` lists a run waiting on another
//! machine, `/approvals` lists its plan and approves it once (a second
//! approval is told it was already answered; the run then implements and
//! exits 0), and `/agents ID` jumps to a session of this project on this
//! machine as `/resume` does.
//!
//! Without tmux the tests fail.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use catui_testkit::nats::NatsServer;
use catui_testkit::{Script, Turn};
use common::tmux::*;
use common::{Sandbox, sdk_plan_script};
use serde_json::Value;

/// `cmd` as machine `host` on `broker`.
fn on(mut cmd: Command, host: &str, broker: &NatsServer) -> Command {
    cmd.env("CATUI_HOST", host)
        .env("CATUI_BROKER", broker.url())
        .env("CATUI_BROKER_HEARTBEAT_MS", "300");
    cmd
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

fn command(s: &Setup, line: &str) {
    s.tmux.submit(line);
}

#[test]
fn agents_and_approvals_in_the_terminal_ui() {
    require_tmux();
    let broker = NatsServer::start();
    let s = tmux_session(Script::new().turn(Turn::text("The LOCAL-ANSWER.")));
    // An earlier session of this project on this machine, listed as done.
    let mut earlier = on(s.sb.catui(&s.server), "machine-a", &broker);
    earlier.args(["-p", "hello there", "--output-format", "json"]);
    let out = common::output_within(earlier, b"", 60);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let earlier: Value = serde_json::from_slice(&out.stdout).unwrap();
    let earlier_id = earlier["session_id"].as_str().unwrap().to_string();

    // Machine B: a planning run that waits for an answer on the broker.
    let b = Sandbox::new();
    // Not about the plan contract: no goal loop after approval.
    b.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let (script, target) = sdk_plan_script(&b);
    let b_model = common::mock(script);
    let mut run_b = on(b.catui(&b_model), "machine-b", &broker);
    run_b
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
    let mut child = Killed(Some(run_b.spawn().unwrap()));
    let id = common::eventually("machine B's plan on the broker", || {
        let mut cmd = on(s.sb.bare(), "machine-a", &broker);
        cmd.args(["approvals", "--json"]);
        let out = common::output_within(cmd, b"", 30);
        let list: Vec<Value> = serde_json::from_slice(&out.stdout).ok()?;
        list.first()
            .and_then(|r| r["id"].as_str())
            .map(str::to_string)
    });

    launch_with(
        &s,
        &format!(
            "CATUI_BROKER={} CATUI_HOST=machine-a CATUI_BROKER_HEARTBEAT_MS=300 ",
            broker.url()
        ),
    );
    command(&s, "/agents");
    let shown = s.tmux.wait_history("/agents ID jumps");
    let row = shown
        .lines()
        .find(|l| l.contains("machine-b"))
        .unwrap_or_else(|| panic!("machine B's run is not listed:\n{shown}"));
    assert!(row.contains("waiting_for_you"), "{row}");
    assert!(
        shown
            .lines()
            .any(|l| l.contains(&earlier_id[..8]) && l.contains("done")),
        "{shown}"
    );

    command(&s, "/approvals");
    wait_for("the approvals table", &s.tmux, || {
        let shown = s.tmux.history();
        shown
            .lines()
            .any(|l| {
                l.starts_with(&format!("  {id} ")) && l.contains("machine-b") && l.contains("plan")
            })
            .then_some(())
    });

    command(&s, &format!("/approvals approve {id} --mode acceptEdits"));
    s.tmux.wait_history(&format!("Approved {id}"));
    command(&s, &format!("/approvals approve {id}"));
    let shown = s.tmux.wait_history("already answered");
    assert!(shown.contains("approved (mode acceptEdits)"), "{shown}");

    // The run on machine B implements and ends well.
    let mut running = child.0.take().unwrap();
    let status = common::eventually("machine B's run to end", || running.try_wait().unwrap());
    child.0 = Some(running);
    assert_eq!(status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "built");

    // Another machine's session cannot be resumed here; a local one can.
    let b_session = {
        let mut cmd = on(s.sb.bare(), "machine-a", &broker);
        cmd.args(["agents", "--json"]);
        let out = common::output_within(cmd, b"", 30);
        let list: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
        list.iter()
            .find(|e| e["host"] == "machine-b")
            .and_then(|e| e["session_id"].as_str())
            .unwrap()
            .to_string()
    };
    command(&s, &format!("/agents {b_session}"));
    s.tmux.wait_history("runs on machine-b");
    command(&s, &format!("/agents {}", &earlier_id[..8]));
    s.tmux.wait_history("Resumed this session");
    let shown = s.tmux.wait_history("LOCAL-ANSWER");
    assert!(shown.contains("hello there"), "{shown}");
    quit_and_check_terminal(&s);
}
