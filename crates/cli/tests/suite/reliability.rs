//! Reliability end to end, through the real binary: hostile files in the
//! project, interrupted and signalled sessions, failing transcript writes,
//! shared sessions and broken input never hang catui, leave a process
//! behind or lose something silently.

#![allow(clippy::unwrap_used, clippy::expect_used, unsafe_code)]

use crate::common;

use catui_testkit::{Block, MockServer, Script, Turn};
use common::{Sandbox, output_within};
use serde_json::json;

fn mkfifo(path: &std::path::Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn a_fifo_in_the_project_is_refused_by_the_file_tools_without_hanging() {
    let sb = Sandbox::new();
    sb.write("notes.txt", "the needle is here\n");
    let pipe = sb.project().join("pipe");
    mkfifo(&pipe);
    std::os::unix::fs::symlink("/dev/zero", sb.project().join("zero.txt")).unwrap();
    let server = common::mock(
        Script::new()
            .turn(Turn::blocks(vec![
                Block::tool_use("r1", "Read", json!({"file_path": "pipe"})),
                Block::tool_use("r2", "Read", json!({"file_path": "zero.txt"})),
                Block::tool_use("g1", "Grep", json!({"pattern": "needle"})),
                Block::tool_use("g2", "Glob", json!({"pattern": "*"})),
            ]))
            .turn(Turn::text("done")),
    );
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "look around"]);
    let out = output_within(cmd, b"", 60);
    common::assert_ok(&out);
    let reqs = server.requests();
    let (read_pipe, is_error) = common::result_of(&reqs[1], "r1");
    assert!(is_error && read_pipe.contains("FIFO"), "{read_pipe}");
    let (read_zero, is_error) = common::result_of(&reqs[1], "r2");
    assert!(
        is_error && read_zero.contains("character device"),
        "{read_zero}"
    );
    let (grep, _) = common::result_of(&reqs[1], "g1");
    assert!(
        grep.contains("notes.txt") && !grep.contains("pipe"),
        "{grep}"
    );
    let (glob, _) = common::result_of(&reqs[1], "g2");
    assert!(
        glob.contains("notes.txt") && !glob.contains("pipe"),
        "{glob}"
    );
}

/// Limits the size of files catui may write to `bytes` (RLIMIT_FSIZE, with
/// SIGXFSZ ignored): writes past it fail with EFBIG, a real kernel-level
/// write failure, as on a full disk.
fn limit_file_size(cmd: &mut std::process::Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: only async-signal-safe calls (signal, setrlimit) between fork
    // and exec.
    unsafe {
        cmd.pre_exec(move || {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: libc::RLIM_INFINITY,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Lifts the file size limit of the running process `pid`.
fn lift_file_size_limit(pid: u32) {
    let limit = libc::rlimit {
        rlim_cur: libc::RLIM_INFINITY,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: plain system call on a pid we started; no pointers kept.
    let rc = unsafe {
        libc::prlimit(
            pid as libc::pid_t,
            libc::RLIMIT_FSIZE,
            &limit,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(rc, 0, "prlimit: {}", std::io::Error::last_os_error());
}

fn is_notice(v: &serde_json::Value, key: &str) -> bool {
    v["type"] == "system" && v["subtype"] == "notification" && v["key"] == key
}

#[test]
fn a_failing_transcript_write_is_announced_taken_back_and_caught_up() {
    let sb = Sandbox::new();
    let long_answer = format!("BEGIN {} END", "words ".repeat(4000));
    let server = common::mock(
        Script::new()
            .turn(Turn::text(long_answer.clone()))
            .turn(Turn::text("second answer"))
            .turn(Turn::text("third answer")),
    );
    let mut cmd = sb.catui(&server);
    // Room for the first entries, not for the long answer.
    limit_file_size(&mut cmd, 6 * 1024);
    let mut s = common::StreamSession::start(cmd, &[]);
    let init = s.wait_type("system");
    assert_eq!(init["subtype"], "init", "the init event comes first");
    let session_id = init["session_id"].as_str().unwrap().to_string();

    s.send_user("first question");
    let failed = s.wait_for("the write failure", |v| {
        is_notice(v, "transcript_write_failed")
    });
    let text = failed["text"].as_str().unwrap();
    assert!(
        text.contains("Not saved: the model's answer") && text.contains("File too large"),
        "{text}"
    );
    let result = s.wait_type("result");
    assert_eq!(result["result"].as_str().unwrap(), long_answer);
    assert!(
        s.seen.iter().any(|v| is_notice(v, "transcript_unsaved")),
        "the turn ends by saying what is unsaved: {:#?}",
        s.seen
    );

    lift_file_size_limit(s.child.id());
    s.send_user("second question");
    s.wait_for("the recovery", |v| is_notice(v, "transcript_recovered"));
    s.wait_type("result");
    let (code, _) = s.finish();
    assert_eq!(code, 0);

    // Every line is a whole entry: the torn write was taken back.
    let path = sb
        .transcripts()
        .into_iter()
        .find(|p| p.to_string_lossy().contains(&session_id))
        .unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    for line in text.lines() {
        serde_json::from_str::<serde_json::Value>(line)
            .unwrap_or_else(|e| panic!("torn line ({e}): {line:.200}"));
    }
    let order: Vec<usize> = [
        "first question",
        "BEGIN words",
        "second question",
        "second answer",
    ]
    .iter()
    .map(|needle| text.find(needle).unwrap_or_else(|| panic!("{needle} lost")))
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");

    // A resume sends the whole conversation, nothing dropped.
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "--resume", &session_id, "third question"]);
    let out = output_within(cmd, b"", 60);
    common::assert_ok(&out);
    let last = server.requests().pop().unwrap();
    for needle in [
        "first question",
        "BEGIN words",
        "second question",
        "second answer",
    ] {
        assert!(last.contains_text(needle), "{needle} missing after resume");
    }
}

#[test]
fn a_transcript_that_can_never_be_written_is_said_on_every_front() {
    let (sb, server) = common::with_mock(Script::new().turn(Turn::text("the answer")));
    let mut cmd = sb.catui(&server);
    limit_file_size(&mut cmd, 0);
    let mut s = common::StreamSession::start(cmd, &[]);
    assert_eq!(s.wait_type("system")["subtype"], "init");
    s.wait_for("the write failure", |v| {
        is_notice(v, "transcript_write_failed")
    });
    s.send_user("hello");
    let result = s.wait_type("result");
    assert_eq!(result["result"], "the answer");
    let unsaved = s
        .seen
        .iter()
        .find(|v| is_notice(v, "transcript_unsaved"))
        .unwrap_or_else(|| panic!("no unsaved notice: {:#?}", s.seen));
    assert!(
        unsaved["text"]
            .as_str()
            .unwrap()
            .contains("not saved to the transcript"),
        "{unsaved}"
    );
    let (code, _) = s.finish();
    assert_eq!(code, 0);
}

#[test]
fn a_live_session_has_one_writer() {
    let (sb, server) = common::with_mock(Script::new().turn(Turn::text("one").forever()));
    let mut live = sb.stream(&server, &[]);
    let id = live.wait_type("system")["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    live.send_user("hello");
    live.wait_type("result");

    // A second resume of the live session is refused, clearly.
    for args in [vec!["--resume", id.as_str()], vec!["--continue"]] {
        let mut cmd = sb.catui(&server);
        cmd.arg("-p").args(&args).arg("again");
        let out = output_within(cmd, b"", 60);
        let err = common::stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("open in another catui process") && err.contains("--fork-session"),
            "{err}"
        );
    }
    // Forking it is fine: a new session, its own transcript.
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "--resume", &id, "--fork-session", "fork"]);
    let out = output_within(cmd, b"", 60);
    common::assert_ok(&out);
    // --session-id of an existing session never merges two conversations.
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "--session-id", &id, "merge?"]);
    let out = output_within(cmd, b"", 60);
    let err = common::stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("already exists") && err.contains("--resume"),
        "{err}"
    );

    let (code, _) = live.finish();
    assert_eq!(code, 0);
    // Once the first process is gone, the session can be resumed.
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "--resume", &id, "later"]);
    let out = output_within(cmd, b"", 60);
    common::assert_ok(&out);
}

/// Waits for every process carrying `marker` to be gone (killed processes
/// are reaped by init shortly after their parent exits).
fn assert_no_process_left(marker: &str) {
    let start = std::time::Instant::now();
    loop {
        let left = common::processes_with(marker);
        if left.is_empty() {
            return;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "processes left behind with {marker:?}: {left:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A unique argument for `sleep`, so the process table shows this test's
/// commands only.
fn marker(base: u32, tag: i32) -> String {
    format!("{base}.{}{}", std::process::id(), tag)
}

#[test]
fn a_signal_ends_the_session_with_a_result_and_kills_the_running_command() {
    for (signal, code) in [
        (libc::SIGTERM, 143),
        (libc::SIGINT, 130),
        (libc::SIGHUP, 129),
    ] {
        let sb = Sandbox::new();
        let stamp = marker(400, signal);
        let server = common::mock(
            Script::new()
                .turn(common::bash("b1", format!("sleep {stamp}")))
                .turn(Turn::text("not reached")),
        );
        let mut s = sb.stream(&server, &["--allowed-tools", "Bash"]);
        s.wait_type("system");
        s.send_user("wait a long time");
        common::wait_until("the command to start", || {
            !common::processes_with(&format!("sleep {stamp}")).is_empty()
        });
        // SAFETY: a plain signal to the child this test started.
        assert_eq!(unsafe { libc::kill(s.child.id() as i32, signal) }, 0);
        let result = s.wait_type("result");
        assert_eq!(result["is_error"], true, "{result}");
        // Every tool_use got its result before the end.
        assert!(
            s.seen
                .iter()
                .any(|v| v["type"] == "user" && v["message"]["content"][0]["tool_use_id"] == "b1"),
            "{:#?}",
            s.seen
        );
        let (exit, _) = s.finish();
        assert_eq!(exit, code, "signal {signal}");
        assert_no_process_left(&stamp);
    }
}

/// The mock: one Bash call that leaves a job sleeping `stamp` seconds in
/// the background and prints "started", then the answer "started it".
fn starts_a_background_job(stamp: &str) -> MockServer {
    // Not read-only (it writes a log), so it runs unconfined, as allowed:
    // a confined command's background jobs end with it.
    let command =
        format!("(sleep {stamp}; echo late) >/dev/null 2>&1 & echo started | tee -a started.log");
    common::mock(
        Script::new()
            .turn(common::bash("b1", &command))
            .turn(Turn::text("started it")),
    )
}

#[test]
fn background_jobs_end_with_the_session() {
    // A normal end: `-p` runs the command, answers and exits.
    let sb = Sandbox::new();
    let stamp = marker(300, 1);
    let server = starts_a_background_job(&stamp);
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "start it", "--allowed-tools", "Bash"]);
    let out = output_within(cmd, b"", 60);
    common::assert_ok(&out);
    assert_eq!(common::result_of(&server.requests()[1], "b1").0, "started");
    assert_no_process_left(&stamp);

    // A signal while idle: the session still ends with a result line.
    let stamp = marker(300, 2);
    let server = starts_a_background_job(&stamp);
    let mut s = sb.stream(&server, &["--allowed-tools", "Bash"]);
    s.wait_type("system");
    s.send_user("start it");
    s.wait_type("result");
    assert!(
        !common::processes_with(&stamp).is_empty(),
        "the job runs while the session lives"
    );
    // SAFETY: a plain signal to the child this test started.
    assert_eq!(unsafe { libc::kill(s.child.id() as i32, libc::SIGTERM) }, 0);
    let last = s.wait_type("result");
    assert_eq!(last["is_error"], true);
    assert!(
        last["result"]
            .as_str()
            .unwrap()
            .contains("stopped by SIGTERM"),
        "{last}"
    );
    let (exit, _) = s.finish();
    assert_eq!(exit, 143);
    assert_no_process_left(&stamp);
}

#[test]
fn sigterm_restores_the_terminal_and_kills_the_command_in_the_ui() {
    use common::tmux::*;
    require_tmux();
    let stamp = marker(400, 99);
    let command = format!("sleep {stamp}");
    let s = setup(
        |sb, _, _| {
            sb.user_settings(r#"{"permissions": {"allow": ["Bash"]}}"#);
            Script::new()
                .turn(common::bash("b1", &command))
                .turn(Turn::text("not reached"))
        },
        None,
    );
    launch(&s);
    s.tmux.submit("wait a long time");
    // The shell running the command is catui's descendant. Waited for by
    // its name: bubblewrap and the sandbox's inner stage carry the command
    // in their arguments too, and under load they are seen before the
    // shell exists.
    let bash = wait_for("the command to start", &s.tmux, || {
        common::processes_with(&stamp).into_iter().find(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == "bash")
        })
    });
    // catui is its nearest `catui` ancestor (a confined command runs
    // under bubblewrap and the sandbox's inner stage in between).
    let parent = |pid: i32| -> i32 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let after_name = &stat[stat.rfind(')').unwrap() + 2..];
        after_name.split(' ').nth(1).unwrap().parse().unwrap()
    };
    let mut catui = parent(bash as i32);
    while std::fs::read_to_string(format!("/proc/{catui}/comm")).is_ok_and(|c| c.trim() != "catui")
    {
        catui = parent(catui);
    }
    // SAFETY: a plain signal to the catui process this test started.
    assert_eq!(unsafe { libc::kill(catui, libc::SIGTERM) }, 0);
    s.tmux.wait_text("catui-exit=143");
    assert_eq!(
        s.tmux.display("#{alternate_on}"),
        "0",
        "alternate screen left on"
    );
    assert!(s.tmux.screen().contains("stopped by SIGTERM"));
    assert_no_process_left(&stamp);
    let stty = s.sb.dir.path().join("stty.txt");
    s.tmux.submit(&format!("stty -a > '{}'", stty.display()));
    let settings = wait_for("stty -a output", &s.tmux, || {
        std::fs::read_to_string(&stty)
            .ok()
            .filter(|t| t.contains("icanon"))
    });
    let flags: Vec<&str> = settings.split_whitespace().collect();
    for flag in ["icanon", "echo", "isig"] {
        assert!(
            flags.contains(&flag),
            "`{flag}` is off after SIGTERM:\n{settings}"
        );
    }
}
