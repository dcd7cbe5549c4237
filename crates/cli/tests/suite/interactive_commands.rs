//! Long, interactive and lasting commands through the real binary: a
//! background command runs on a terminal of its own and BashInput types
//! into it (a Python REPL answers, vi quits), a foreground command that
//! times out says how to run it instead, and `keep_running` leaves a
//! process running after `-p` ends (listed in the result) while others end
//! with the run.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{MockServer, Script, Turn};
use common::{Sandbox, json_lines, output_within};
use serde_json::json;

/// Every tool result the model received in the run, by call id, joined.
fn results(server: &MockServer, ids: &[&str]) -> String {
    let reqs = server.requests();
    ids.iter()
        .map(|id| {
            reqs.iter()
                .find_map(|r| r.tool_result(id))
                .unwrap_or_else(|| panic!("no result for {id}"))
                .content
        })
        .collect::<Vec<_>>()
        .join("\n----\n")
}

/// Whether process `pid` exists and its command line contains `marker`.
fn runs(pid: i32, marker: &str) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| {
        String::from_utf8_lossy(&c)
            .replace('\0', " ")
            .contains(marker)
    })
}

/// Pids of the processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<i32>().ok())
        .filter(|&pid| runs(pid, marker))
        .collect()
}

fn kill_group(pid: i32) {
    let _ = std::process::Command::new("kill")
        .args(["-9", "--", &format!("-{pid}")])
        .status();
}

#[test]
fn bash_input_drives_a_python_repl_in_the_background() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(common::bash_background("b1", "python3 -q -i"))
            .turn(Turn::tool_use(
                "b2",
                "BashInput",
                json!({"id": "bash_1", "input": "print(6 * 7 * 1000 + 1)\n"}),
            ))
            .turn(common::bash("b3", "sleep 1"))
            .turn(Turn::tool_use("b4", "BashOutput", json!({"id": "bash_1"})))
            .turn(Turn::tool_use(
                "b5",
                "BashInput",
                json!({"id": "bash_1", "input": "exit()\n"}),
            ))
            .turn(common::bash("b6", "sleep 1"))
            .turn(Turn::tool_use("b7", "BashOutput", json!({"id": "bash_1"})))
            .turn(Turn::text("the REPL answered")),
    );
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "use python", "--allowed-tools", "Bash"]);
    let out = output_within(cmd, b"", 90);
    common::assert_ok(&out);
    let answered = results(&server, &["b2", "b4"]);
    // 42001 is only printed by evaluating the expression typed in.
    common::assert_contains(&answered, "42001");
    let ended = results(&server, &["b5", "b7"]);
    common::assert_contains(&ended, "exit code 0");
}

#[test]
fn bash_input_quits_vi_running_on_its_own_terminal() {
    let sb = Sandbox::new();
    sb.write("notes.txt", "first line\n");
    let server = common::mock(
        Script::new()
            .turn(common::bash_background("v1", "vi notes.txt"))
            .turn(common::bash("v2", "sleep 1"))
            .turn(Turn::tool_use(
                "v3",
                "BashInput",
                json!({"id": "bash_1", "input": "\u{1b}:q!\n"}),
            ))
            .turn(common::bash("v4", "sleep 1"))
            .turn(Turn::tool_use("v5", "BashOutput", json!({"id": "bash_1"})))
            .turn(Turn::text("vi is closed")),
    );
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "open and quit vi", "--allowed-tools", "Bash"]);
    let out = output_within(cmd, b"", 90);
    common::assert_ok(&out);
    let reqs = server.requests();
    let (started, _) = common::result_of(&reqs[1], "v1");
    common::assert_contains(&started, "bash_1");
    // vi drew its screen on the terminal: the file's text is on it.
    let seen = results(&server, &["v3", "v5"]);
    common::assert_contains(&seen, "first line");
    assert!(seen.contains("exit code 0"), "vi quit: {seen}");
    assert_eq!(
        std::fs::read_to_string(sb.project().join("notes.txt")).unwrap(),
        "first line\n"
    );
}

#[test]
fn a_foreground_command_that_times_out_says_how_to_run_it_instead() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(common::bash_timeout("t1", "sleep 30", 300))
            .turn(Turn::text("it timed out")),
    );
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "wait", "--allowed-tools", "Bash"]);
    let out = output_within(cmd, b"", 60);
    assert_eq!(out.status.code(), Some(0));
    let (text, is_error) = common::result_of(&server.requests()[1], "t1");
    assert!(is_error, "{text}");
    common::assert_contains(&text, "timed out after 300 ms");
    common::assert_contains(&text, "waiting for input");
    common::assert_contains(&text, "run_in_background: true");
    common::assert_contains(&text, "BashInput");
}

#[test]
fn keep_running_outlives_the_run_and_is_listed_while_others_end_with_it() {
    let sb = Sandbox::new();
    let stamp = std::process::id();
    let kept = format!("3001.{stamp}1");
    let ended = format!("3001.{stamp}2");
    let server = common::mock(
        Script::new()
            .turn(Turn::tool_use(
                "k1",
                "Bash",
                json!({"command": format!("echo kept-started; sleep {kept}"),
                       "run_in_background": true, "keep_running": true}),
            ))
            .turn(common::bash_background("k2", format!("sleep {ended}")))
            .turn(common::bash("k3", "sleep 0.5"))
            .turn(Turn::tool_use("k4", "BashOutput", json!({"id": "bash_1"})))
            .turn(Turn::text("the service runs")),
    );
    let mut cmd = sb.catui(&server);
    cmd.args([
        "-p",
        "start a service",
        "--allowed-tools",
        "Bash",
        "--output-format",
        "json",
    ]);
    let out = output_within(cmd, b"", 60);
    let lines = json_lines(&out.stdout);
    let result = lines.last().unwrap();
    let left = result["left_running"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let pid = left
        .first()
        .and_then(|l| l["pid"].as_i64())
        .map(|p| p as i32);
    // Whatever else fails, what survived is ended.
    let survivors: Vec<i32> = processes_with(&kept);
    let alive = pid.is_some_and(|p| runs(p, &kept));
    if let Some(pid) = pid {
        kill_group(pid);
    }
    for p in &survivors {
        let _ = std::process::Command::new("kill")
            .args(["-9", &p.to_string()])
            .status();
    }
    assert_eq!(out.status.code(), Some(0), "{result}");
    assert_eq!(left.len(), 1, "{result}");
    assert!(
        left[0]["command"].as_str().unwrap().contains(&kept),
        "{result}"
    );
    assert!(alive, "the kept command runs after catui exited: {result}");
    assert!(!survivors.is_empty());
    // Its output went to its file, readable while catui ran.
    let (read, _) = common::result_of(&server.requests()[4], "k4");
    common::assert_contains(&read, "kept-started");
    // The other background command ended with the run.
    let start = std::time::Instant::now();
    while !processes_with(&ended).is_empty() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(20),
            "the command without keep_running outlived the run"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn keep_running_without_the_background_is_refused() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::tool_use(
                "r1",
                "Bash",
                json!({"command": "true", "keep_running": true}),
            ))
            .turn(Turn::text("refused")),
    );
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "x", "--allowed-tools", "Bash"]);
    let out = output_within(cmd, b"", 60);
    assert_eq!(out.status.code(), Some(0));
    let (text, is_error) = common::result_of(&server.requests()[1], "r1");
    assert!(is_error, "{text}");
    common::assert_contains(&text, "run_in_background");
}
