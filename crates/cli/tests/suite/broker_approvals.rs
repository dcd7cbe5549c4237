//! Answer from anywhere, through the real binary and a real nats-server:
//! two "machines" (separate HOME, config dir and project) share one
//! broker. A headless planning run with `--approvals broker` waits on
//! machine A; machine B sees it waiting (`catui agents`), lists its plan
//! (`catui approvals`), the broker is killed (-9) and restarted, B approves
//! once (a second approval is told it was already answered), and the run
//! implements and exits 0.
//!
//! The broker's views in the terminal UI, through the real binary in tmux
//! and a real nats-server: `/agents` lists a run waiting on another
//! machine, `/approvals` lists its plan and approves it once (a second
//! approval is told it was already answered; the run then implements and
//! exits 0), and `/agents ID` jumps to a session of this project on this
//! machine as `/resume` does.
//!
//! Without tmux the tests fail.
//!
//! The broker goes away mid-session, through the real binary and a real
//! nats-server: the session says so, goes on answering locally, says when
//! the broker is back, and is listed again (`catui agents`) once it has
//! reconnected. Nothing of the session is printed with credentials: the
//! broker's URL carries a user and password, which never appear in the
//! session's output, its stderr or `catui agents`.

use crate::common;
use common::broker::{Killed, on};

use std::process::{Command, Stdio};
use std::time::Duration;

use catui_testkit::nats::NatsServer;
use catui_testkit::{MockServer, Script, Turn};
use common::tmux::*;
use common::{Sandbox, StreamSession, last_user, sdk_plan_script};
use serde_json::Value;

/// Runs a short command to its end (bounded).
fn run(cmd: Command) -> (i32, String, String) {
    let out = common::output_within(cmd, b"", 60);
    (
        out.status.code().unwrap_or(-1),
        common::stdout(&out),
        common::stderr(&out),
    )
}

/// A planning run of `sb` as machine `host` (`-p`, plan mode, approvals on
/// `broker`, JSON out) against a mock playing [`sdk_plan_script`], with no
/// goal loop after approval (these tests are not about the plan contract).
/// Returns the running child, the file the plan builds, and the mock.
fn planning_run_on_broker(
    sb: &Sandbox,
    host: &str,
    broker: &NatsServer,
) -> (Killed, std::path::PathBuf, MockServer) {
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let (script, target) = sdk_plan_script(sb);
    let server = common::mock(script);
    let mut run = on(sb.catui(&server), host, broker);
    run.args([
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
    (Killed(Some(run.spawn().unwrap())), target, server)
}

#[test]
fn a_plan_waiting_on_one_machine_is_approved_once_from_another_across_a_broker_restart() {
    let mut broker = NatsServer::start();
    let a = Sandbox::new();
    let b = Sandbox::new();
    let (mut child, target, _server) = planning_run_on_broker(&a, "machine-a", &broker);

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
    common::assert_contains(&out, "Approved");

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
    let (sb, server) = common::with_mock(catui_testkit::Script::new());
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
    common::assert_contains(&err, "cannot reach the broker");
    common::assert_lacks(&err, "pa55word-secret");
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
    common::assert_contains(&err, "needs a broker");
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
    let (mut child, target, _b_model) = planning_run_on_broker(&b, "machine-b", &broker);
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
    common::assert_contains(row, "waiting_for_you");
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
    common::assert_contains(&shown, "approved (mode acceptEdits)");

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
    common::assert_contains(&shown, "hello there");
    quit_and_check_terminal(&s);
}

#[test]
fn a_session_goes_on_while_the_broker_is_away_and_reconnects() {
    let mut broker = NatsServer::start();
    let sb = Sandbox::new();
    let model = common::mock(
        Script::new()
            .turn(Turn::text("First answer.").when(|r| last_user(r).contains("first")))
            .turn(
                Turn::text("Answered while the broker was away.")
                    .when(|r| last_user(r).contains("second")),
            )
            .turn(Turn::text("Third answer.").when(|r| last_user(r).contains("third"))),
    );
    // A user and password in the URL (the server has no accounts, so it
    // takes them): they go to the NATS client only.
    let url = broker.url().replace("nats://", "nats://alice:s3cret-pw@");
    let mut cmd = sb.catui(&model);
    cmd.env("CATUI_HOST", "machine-a")
        .env("CATUI_BROKER", &url)
        .env("CATUI_BROKER_HEARTBEAT_MS", "300");
    let mut s = StreamSession::start(cmd, &[]);
    let init = s.wait_for("init", |v| v["type"] == "system" && v["subtype"] == "init");
    let session_id = init["session_id"].as_str().unwrap().to_string();
    s.send_user("first");
    assert_eq!(s.wait_type("result")["result"], "First answer.");

    let listed = |state: &str| {
        let mut agents = sb.bare();
        agents.env("CATUI_BROKER", &url).args(["agents", "--json"]);
        let out = common::output_within(agents, b"", 30);
        for bytes in [&out.stdout, &out.stderr] {
            assert!(
                !String::from_utf8_lossy(bytes).contains("s3cret-pw"),
                "a password in catui agents"
            );
        }
        let list: Vec<Value> = serde_json::from_slice(&out.stdout).ok()?;
        list.into_iter()
            .find(|e| e["session_id"] == session_id.as_str() && e["state"] == state)
    };
    common::eventually("the session listed idle", || listed("idle"));

    // The broker dies: the session says so and goes on.
    broker.kill();
    let gone = s.wait_for("the notice that the broker is gone", |v| {
        v["type"] == "system" && v["key"] == "broker"
    });
    let text = gone["text"].as_str().unwrap();
    assert!(
        text.contains("unreachable") && text.contains("goes on locally"),
        "{text}"
    );
    s.send_user("second");
    assert_eq!(
        s.wait_type("result")["result"],
        "Answered while the broker was away."
    );

    // It comes back: the session says so and is listed again.
    broker.restart();
    let back = s.wait_for("the notice that the broker is back", |v| {
        v["type"] == "system" && v["key"] == "broker"
    });
    assert!(
        back["text"].as_str().unwrap().contains("reconnected"),
        "{back}"
    );
    s.send_user("third");
    assert_eq!(s.wait_type("result")["result"], "Third answer.");
    let entry = common::eventually("the session listed again", || listed("idle"));
    assert_eq!(entry["host"], "machine-a");
    let mut table = sb.bare();
    table.env("CATUI_BROKER", &url).arg("agents");
    let out = common::output_within(table, b"", 30);
    let shown = common::stdout(&out);
    common::assert_contains(&shown, &session_id[..8]);
    common::assert_lacks(&shown, "s3cret-pw");

    let (code, seen) = s.finish();
    assert_eq!(code, 0);
    let printed = serde_json::to_string(&seen).unwrap();
    assert!(
        printed.contains("nats://alice:***@127.0.0.1:"),
        "the URL is shown without its password"
    );
    for secret in ["s3cret-pw"] {
        if let Some(at) = printed.find(secret) {
            panic!(
                "{secret} printed: {}",
                &printed[at.saturating_sub(300)..(at + 100).min(printed.len())]
            );
        }
    }
    for transcript in sb.transcripts() {
        let text = std::fs::read_to_string(&transcript).unwrap();
        assert!(!text.contains("s3cret-pw"), "{}", transcript.display());
    }
}
