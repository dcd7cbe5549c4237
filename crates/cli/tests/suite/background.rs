//! Background commands through the real binary: Bash `run_in_background`,
//! BashOutput and KillShell, the reminder when one ends, plan mode, and
//! that nothing is left running when catui ends (also on SIGTERM).

#![allow(clippy::unwrap_used, clippy::expect_used, unsafe_code)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::{Sandbox, output_within};
use serde_json::json;

/// How many `sleep STAMP` processes run.
fn sleeps(stamp: &str) -> usize {
    let wanted = format!("sleep {stamp} ");
    common::processes_with(stamp)
        .into_iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).replace('\0', " ") == wanted)
        })
        .count()
}

/// Waits for every process carrying `marker` to be gone.
fn assert_no_process_left(marker: &str) {
    common::wait_until(&format!("no process with {marker:?}"), || {
        common::processes_with(marker).is_empty()
    });
}

/// A unique argument for `sleep`, so the process table shows this test's
/// commands only.
fn marker(base: u32, tag: u32) -> String {
    format!("{base}.{}{tag}", std::process::id())
}

/// Background output files left in the config home (one folder per
/// session).
fn output_files(sb: &Sandbox) -> Vec<std::path::PathBuf> {
    let Ok(sessions) = std::fs::read_dir(sb.config().join("tool-output")) else {
        return Vec::new();
    };
    sessions
        .flatten()
        .filter_map(|s| std::fs::read_dir(s.path()).ok())
        .flat_map(|entries| entries.flatten().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".log"))
        .collect()
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

#[test]
fn a_server_started_in_the_background_is_curled_read_and_killed() {
    let sb = Sandbox::new();
    sb.write("www/hello.txt", "hello from the background server\n");
    let port = free_port();
    let server_cmd = format!("/usr/bin/python3 -u -m http.server {port} --bind 127.0.0.1 -d www");
    let curl = format!(
        "for i in $(seq 100); do curl -sf http://127.0.0.1:{port}/hello.txt && break; sleep 0.1; done"
    );
    let server = common::mock(
        Script::new()
            .turn(Turn::tool_use(
                "b1",
                "Bash",
                json!({"command": server_cmd, "run_in_background": true, "description": "serve www"}),
            ))
            .turn(common::bash("b2", &curl))
            .turn(Turn::tool_use("b3", "BashOutput", json!({"id": "bash_1"})))
            .turn(Turn::tool_use("b4", "BashOutput", json!({"id": "bash_1"})))
            .turn(Turn::tool_use("b5", "KillShell", json!({"id": "bash_1"})))
            .turn(Turn::tool_use("b6", "BashOutput", json!({"id": "bash_1"})))
            .turn(Turn::tool_use("b7", "KillShell", json!({"id": "bash_9"})))
            .turn(Turn::text("served, fetched and stopped")),
    );
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "serve and fetch", "--allowed-tools", "Bash"]);
    let out = output_within(cmd, b"", 90);
    let stderr = common::stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let reqs = server.requests();
    let (started, is_error) = common::result_of(&reqs[1], "b1");
    assert!(!is_error, "{started}");
    common::assert_contains(&started, "bash_1");
    let log_path = sb.config().join("tool-output");
    assert!(
        started.contains(&log_path.display().to_string()),
        "the answer says where the output goes: {started}"
    );
    let (fetched, _) = common::result_of(&reqs[2], "b2");
    common::assert_contains(&fetched, "hello from the background server");
    let (first_read, _) = common::result_of(&reqs[3], "b3");
    common::assert_contains(&first_read, "bash_1: running");
    assert!(
        first_read.contains("GET /hello.txt"),
        "the server's log of the request: {first_read}"
    );
    // The second read has only what is new: nothing.
    let (second_read, _) = common::result_of(&reqs[4], "b4");
    common::assert_contains(&second_read, "(no new output)");
    common::assert_lacks(&second_read, "GET /hello.txt");
    let (killed, is_error) = common::result_of(&reqs[5], "b5");
    assert!(!is_error && killed.contains("Stopped bash_1"), "{killed}");
    let (after, _) = common::result_of(&reqs[6], "b6");
    common::assert_contains(&after, "bash_1: killed");
    let (unknown, is_error) = common::result_of(&reqs[7], "b7");
    assert!(is_error, "{unknown}");
    assert!(unknown.contains("bash_1"), "names the known ids: {unknown}");
    // Killing the group freed the port at once.
    assert!(std::net::TcpListener::bind(("127.0.0.1", port)).is_ok());
    assert_no_process_left(&format!("http.server {port}"));
    assert!(output_files(&sb).is_empty(), "{:?}", output_files(&sb));
}

#[test]
fn background_commands_end_with_the_session_and_on_sigterm() {
    // A normal end of `-p` with the command still running.
    let sb = Sandbox::new();
    let stamp = marker(500, 1);
    let server = common::mock(
        Script::new()
            .turn(common::bash_background(
                "b1",
                format!("echo up; sleep {stamp}"),
            ))
            .turn(Turn::text("left it running")),
    );
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "start it", "--allowed-tools", "Bash"]);
    let out = output_within(cmd, b"", 60);
    assert_eq!(out.status.code(), Some(0));
    assert_no_process_left(&stamp);
    assert!(output_files(&sb).is_empty());

    // SIGTERM while idle, with one running.
    let stamp = marker(500, 2);
    let server = common::mock(
        Script::new()
            .turn(common::bash_background(
                "b1",
                format!("sleep {stamp} & sleep {stamp}"),
            ))
            .turn(Turn::text("started")),
    );
    let mut s = sb.stream(&server, &["--allowed-tools", "Bash"]);
    s.wait_type("system");
    s.send_user("start it");
    s.wait_type("result");
    common::wait_until("both sleeps to run", || sleeps(&stamp) == 2);
    assert_eq!(output_files(&sb).len(), 1);
    // SAFETY: a plain signal to the child this test started.
    assert_eq!(unsafe { libc::kill(s.child.id() as i32, libc::SIGTERM) }, 0);
    let last = s.wait_type("result");
    assert!(
        last["result"].as_str().unwrap().contains("SIGTERM"),
        "{last}"
    );
    let (exit, _) = s.finish();
    assert_eq!(exit, 143);
    assert_no_process_left(&stamp);
    assert!(output_files(&sb).is_empty());
}

#[test]
fn plan_mode_refuses_a_background_write_command() {
    let sb = Sandbox::new();
    let stamp = marker(600, 1);
    let server = common::mock(
        Script::new()
            .turn(common::bash_background(
                "b1",
                format!("sleep {stamp}; echo x > written.txt"),
            ))
            .turn(Turn::text("refused")),
    );
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "write it", "--permission-mode", "plan"]);
    let out = output_within(cmd, b"", 60);
    assert_eq!(out.status.code(), Some(0));
    let (text, is_error) = common::result_of(&server.requests()[1], "b1");
    assert!(
        is_error && text.contains("without `run_in_background`"),
        "{text}"
    );
    common::assert_lacks(&text, "bash_1");
    assert!(common::processes_with(&stamp).is_empty());
    assert!(!sb.project().join("written.txt").exists());
}

#[test]
fn the_model_is_told_when_a_background_command_ends() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::tool_use(
                "b1",
                "Bash",
                // It ends only after the next call lets it (not before the
                // request that follows its own call, however loaded the
                // machine), and says so with a file.
                json!({
                    "command": "while [ ! -f gate ]; do sleep 0.05; done; \
                                echo first-line; echo LAST-LINE-q7; touch ended; exit 3",
                    "run_in_background": true
                }),
            ))
            // While this runs, the background command ends.
            .turn(common::bash(
                "b2",
                "touch gate; while [ ! -f ended ]; do sleep 0.05; done; sleep 1",
            ))
            .turn(common::bash("b3", "true"))
            .turn(Turn::text("saw it end")),
    );
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "run it", "--allowed-tools", "Bash"]);
    let out = output_within(cmd, b"", 60);
    common::assert_ok(&out);
    let reqs = server.requests();
    let reminder = |i: usize| {
        reqs[i]
            .messages()
            .last()
            .map(|m| m.to_string())
            .unwrap_or_default()
    };
    assert!(!reminder(1).contains("has ended"), "{}", reminder(1));
    let told = reminder(2);
    assert!(
        told.contains("Background command bash_1")
            && told.contains("exit code 3")
            && told.contains("LAST-LINE-q7")
            && told.contains("first-line"),
        "{told}"
    );
    // Once only.
    assert!(!reminder(3).contains("Background command bash_1"));
}

#[test]
fn a_long_command_reports_progress_in_the_sdk_form_at_most_four_times_a_second() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(common::bash(
                "b1",
                "for i in 1 2 3 4 5 6 7 8 9 10; do echo tick $i; sleep 0.2; done",
            ))
            .turn(common::bash("b2", "echo quick"))
            .turn(Turn::text("done")),
    );
    let mut cmd = sb.catui(&server);
    cmd.args([
        "-p",
        "run it",
        "--allowed-tools",
        "Bash",
        "--output-format",
        "stream-json",
        "--verbose",
    ]);
    let out = output_within(cmd, b"", 60);
    assert_eq!(out.status.code(), Some(0));
    let lines = common::json_lines(&out.stdout);
    let session = lines[0]["session_id"].as_str().unwrap().to_string();
    let progress: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l["type"] == "tool_progress")
        .collect();
    assert!(progress.len() >= 2, "{lines:#?}");
    let mut last = 0.0;
    for p in &progress {
        assert_eq!(p["tool_use_id"], "b1", "{p}");
        assert_eq!(p["tool_name"], "Bash");
        assert!(p["parent_tool_use_id"].is_null());
        assert_eq!(p["session_id"], session.as_str());
        assert!(p["uuid"].as_str().is_some_and(|u| u.len() == 36));
        let elapsed = p["elapsed_time_seconds"].as_f64().unwrap();
        assert!(elapsed >= last, "{p}");
        last = elapsed;
    }
    // None in the first second, never more than four a second after:
    // the n-th (from 0) comes at 1 s + n × 250 ms or later.
    for (n, p) in progress.iter().enumerate() {
        let elapsed = p["elapsed_time_seconds"].as_f64().unwrap();
        assert!(elapsed >= 1.0 + 0.25 * n as f64 - 0.01, "{n}: {p}");
    }
    // All of them come before the call's result.
    let result_at = lines
        .iter()
        .position(|l| l["type"] == "user" && l["message"]["content"][0]["tool_use_id"] == "b1")
        .unwrap();
    let last_progress = lines
        .iter()
        .rposition(|l| l["type"] == "tool_progress")
        .unwrap();
    assert!(last_progress < result_at);
}
