//! A terminal that goes away ends the session: the real `catui` binary in
//! a tmux pane against the testkit mock model. Killing the tmux session
//! (what closing a terminal window or losing an SSH connection does), the
//! pty closing under a catui that is not in its session (no SIGHUP at
//! all), and SIGTERM each end catui within a second — idle, while an
//! answer streams and while a permission dialog is open — with the
//! transcript complete and the session resumable by a new process.
//!
//! The deadline is checked by polling the process table for two seconds,
//! never by a fixed sleep. Without tmux the tests fail.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::{Duration, Instant};

use catui_testkit::{Script, Turn};
use common::tmux::*;
use serde_json::Value;

/// How long a hung-up or signalled catui may take to be gone (the product
/// promises one second; the rest is room for a loaded test machine).
const GONE_WITHIN: Duration = Duration::from_secs(2);

/// Polls until `pid` has ended; fails after [`GONE_WITHIN`].
fn assert_gone_within(pid: u32, what: &str) {
    let start = Instant::now();
    while !process_ended(pid) {
        if start.elapsed() > GONE_WITHIN {
            // Leave nothing behind, then fail.
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
            panic!("catui (pid {pid}) still runs {GONE_WITHIN:?} after {what}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The session's transcript entries (one session in the sandbox).
fn transcript(s: &Setup) -> (String, Vec<Value>) {
    let files = s.sb.transcripts();
    assert_eq!(files.len(), 1, "{files:?}");
    let id = files[0].file_stem().unwrap().to_string_lossy().into_owned();
    let entries = std::fs::read_to_string(&files[0])
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every transcript line is whole JSON"))
        .collect();
    (id, entries)
}

/// Whether the transcript has a user entry whose content mentions `text`.
fn has_user_text(entries: &[Value], text: &str) -> bool {
    entries
        .iter()
        .any(|e| e["type"] == "user" && e["message"]["content"].to_string().contains(text))
}

/// A new process resumes the session: the model gets the earlier prompt
/// and answers (the lock was released, the transcript loads).
fn assert_resumable(s: &Setup, id: &str, earlier_prompt: &str) {
    let mut cmd = s.sb.catui(&s.server);
    cmd.args(["-p", "--resume", id, "and now?"]);
    let out = common::output_within(cmd, b"", 60);
    assert!(
        out.status.success(),
        "resume failed: {}",
        common::stderr(&out)
    );
    assert!(
        common::stdout(&out).contains("Resumed fine."),
        "{}",
        common::stdout(&out)
    );
    let last = s.server.requests().last().cloned().unwrap();
    let sent = serde_json::to_string(last.messages()).unwrap();
    common::assert_contains(&sent, earlier_prompt);
    assert_eq!(last.last_user_typed().as_deref(), Some("and now?"));
}

/// A long answer streamed slowly (a chunk every 150 ms).
fn slow_answer() -> Turn {
    let text: String = (1..=60).map(|i| format!("Streaming word {i}. ")).collect();
    Turn::text(text).chunk_delay(Duration::from_millis(150))
}

#[test]
fn killing_the_tmux_session_ends_an_idle_catui() {
    let s = tmux_session(
        Script::new()
            .turn(Turn::text("First answer, IDLE-MARK."))
            .turn(Turn::text("Resumed fine.")),
    );
    let pid = launch_with_pid(&s, "", false);
    s.tmux.submit("remember the idle prompt");
    s.tmux.wait_text("IDLE-MARK");
    assert!(s.tmux.run(&["kill-session", "-t", "e2e"]).status.success());
    assert_gone_within(pid, "tmux kill-session");
    let (id, entries) = transcript(&s);
    assert!(has_user_text(&entries, "remember the idle prompt"));
    assert!(
        entries
            .iter()
            .any(|e| e["type"] == "assistant" && e.to_string().contains("IDLE-MARK")),
        "the answer is in the transcript"
    );
    assert_resumable(&s, &id, "remember the idle prompt");
}

/// Hangs the terminal up (kill-session) while an answer streams; with
/// `own_session` catui runs under setsid, so that no SIGHUP comes, only the
/// pty's hang-up.
fn hang_up_while_streaming(own_session: bool, what: &str) {
    let s = tmux_session(
        Script::new()
            .turn(slow_answer())
            .turn(Turn::text("Resumed fine.")),
    );
    let pid = launch_with_pid(&s, "", own_session);
    s.tmux.submit("stream something long");
    s.tmux.wait_text("Streaming word 3.");
    assert!(s.tmux.run(&["kill-session", "-t", "e2e"]).status.success());
    assert_gone_within(pid, what);
    let (id, entries) = transcript(&s);
    assert!(has_user_text(&entries, "stream something long"));
    assert_resumable(&s, &id, "stream something long");
}

/// Hangs the terminal up while a permission dialog is open (see
/// [`hang_up_while_streaming`] for `own_session`).
fn hang_up_with_a_dialog_open(own_session: bool, what: &str) {
    let s = tmux_session(
        Script::new()
            .turn(common::bash("w1", "touch created-by-the-model"))
            .turn(Turn::text("Resumed fine.")),
    );
    let pid = launch_with_pid(&s, "", own_session);
    s.tmux.submit("create the file");
    s.tmux.wait_text("Do you want to proceed?");
    assert!(s.tmux.run(&["kill-session", "-t", "e2e"]).status.success());
    assert_gone_within(pid, what);
    assert!(
        !s.sb.project().join("created-by-the-model").exists(),
        "the open prompt was declined, not approved"
    );
    let (id, entries) = transcript(&s);
    assert!(has_user_text(&entries, "create the file"));
    // Every tool call has its result: the declined prompt was recorded.
    assert!(
        entries.iter().any(|e| e["type"] == "user"
            && e["message"]["content"].to_string().contains("tool_result")
            && e["message"]["content"].to_string().contains("w1")),
        "{entries:#?}"
    );
    assert_resumable(&s, &id, "create the file");
}

#[test]
fn killing_the_tmux_session_while_an_answer_streams_ends_catui() {
    require_tmux();
    hang_up_while_streaming(false, "tmux kill-session while streaming");
}

#[test]
fn killing_the_tmux_session_ends_catui_with_a_dialog_open() {
    require_tmux();
    hang_up_with_a_dialog_open(false, "tmux kill-session with a dialog open");
}

#[test]
fn a_pty_closed_without_sighup_ends_catui_while_an_answer_streams() {
    require_tmux();
    hang_up_while_streaming(true, "its pty closed (no SIGHUP) while streaming");
}

#[test]
fn a_pty_closed_without_sighup_ends_catui_with_a_dialog_open() {
    require_tmux();
    hang_up_with_a_dialog_open(true, "its pty closed (no SIGHUP)");
}

/// SIGTERM ends catui even when nothing can be printed: stderr is a full
/// device, as it is in effect once the terminal has hung up (a failed
/// write used to kill the signal handler and leave SIGTERM ignored).
#[test]
fn sigterm_ends_catui_with_a_dialog_open_even_when_stderr_fails() {
    let s = tmux_session(
        Script::new()
            .turn(common::bash("w1", "touch created-by-the-model"))
            .turn(Turn::text("Resumed fine.")),
    );
    let pid = launch_with_pid(&s, "2>/dev/full", false);
    s.tmux.submit("create the file");
    s.tmux.wait_text("Do you want to proceed?");
    assert!(
        std::process::Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .unwrap()
            .success()
    );
    assert_gone_within(pid, "SIGTERM");
    // 128 + 15, and the shell has its terminal back.
    s.tmux.wait_text("catui-exit=143");
    assert_eq!(s.tmux.display("#{alternate_on}"), "0");
    let (id, _) = transcript(&s);
    assert!(!s.sb.project().join("created-by-the-model").exists());
    assert_resumable(&s, &id, "create the file");
}
