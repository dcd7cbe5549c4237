//! What a session leaves behind when it ends (issue 47, item 11), through
//! the real binary:
//!
//! - no process a confined command started, even one that tried to leave
//!   its session (`setsid`) or its group (job control, `timeout`), without
//!   bubblewrap's pid namespace to hold it;
//! - no private temp dir: confined commands' `TMPDIR` is created 0700 and
//!   removed when catui exits.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;

use catui_testkit::{Script, Turn};
use common::{Sandbox, output_within};

/// Whether process `pid` is alive (a zombie counts as gone).
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rfind(')').map(|i| s[i + 2..].starts_with('Z')))
        .is_some_and(|zombie| !zombie)
}

/// Whether `pid` is still alive after a moment's grace: SIGKILL sent as
/// the session ended takes effect when the process is next scheduled, which
/// on a loaded machine may come just after catui has exited. A process that
/// really outlived the session is still there two seconds later.
fn survives(pid: i32) -> bool {
    for _ in 0..40 {
        if !alive(pid) {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    alive(pid)
}

/// The pid written to `file`, if any.
fn pid_in(file: &Path) -> Option<i32> {
    std::fs::read_to_string(file).ok()?.trim().parse().ok()
}

/// Runs one `-p` turn whose model runs `commands` with Bash (one call
/// each), with bubblewrap switched off.
fn run_without_bubblewrap(sb: &Sandbox, commands: &[&str]) -> std::process::Output {
    let mut script = Script::new();
    for (i, c) in commands.iter().enumerate() {
        script = script.turn(common::bash_timeout(format!("c{i}"), c, 10000));
    }
    let server = common::mock(script.turn(Turn::text("done")));
    let mut cmd = sb.catui(&server);
    cmd.env("CATUI_SANDBOX_DISABLE", "bubblewrap")
        .args(["-p", "go", "--output-format", "json"]);
    let out = output_within(cmd, b"", 60);
    assert!(out.status.success(), "{out:?}");
    out
}

#[test]
fn no_process_a_confined_command_started_outlives_the_session_without_bubblewrap() {
    let sb = Sandbox::new();
    // Approved commands run confined to the project (the `sandbox`
    // setting); every command is approved.
    sb.user_settings(r#"{"sandbox": {"enabled": true}, "permissions": {"allow": ["Bash"]}}"#);
    let attempts = [
        (
            "setsid.pid",
            "setsid sh -c 'echo $$ > setsid.pid; exec sleep 300' >/dev/null 2>&1 &",
        ),
        (
            "fork.pid",
            "setsid -f sh -c 'echo $$ > fork.pid; exec sleep 301' >/dev/null 2>&1",
        ),
        (
            "python.pid",
            "python3 -c 'import os,sys,time\nif os.fork(): sys.exit()\ntry: os.setsid()\nexcept OSError: pass\nopen(\"python.pid\",\"w\").write(str(os.getpid()))\ntime.sleep(302)' >/dev/null 2>&1 &",
        ),
        (
            "job.pid",
            "(set -m; sleep 303 & echo $! > job.pid) >/dev/null 2>&1",
        ),
        (
            "timeout.pid",
            "(timeout 304 sleep 304 & echo $! > timeout.pid) >/dev/null 2>&1",
        ),
        ("plain.pid", "(sleep 305 & echo $! > plain.pid)"),
    ];
    let commands: Vec<&str> = attempts.iter().map(|(_, c)| *c).collect();
    // Before the session ends, wait until those that stay in the session
    // have written their pid files (the others start as fast, where they
    // can start at all).
    let mut all = commands.clone();
    all.push(
        "for i in $(seq 100); do [ -s job.pid ] && [ -s timeout.pid ] && [ -s plain.pid ] \
         && [ -s python.pid ] && break; sleep 0.05; done",
    );
    run_without_bubblewrap(&sb, &all);
    let mut survivors = Vec::new();
    let mut started = 0;
    for (file, _) in attempts {
        if let Some(pid) = pid_in(&sb.project().join(file)) {
            started += 1;
            if survives(pid) {
                survivors.push(format!("{file} ({pid})"));
                // Processes we caused are ours to end.
                end_survivor(pid);
            }
        }
    }
    assert!(survivors.is_empty(), "outlived the session: {survivors:?}");
    // Those that stay in the session really started.
    assert!(started >= 4, "only {started} started");
}

/// Ends a survivor, and its group when it leads one (`timeout`'s child).
fn end_survivor(pid: i32) {
    for target in [format!("-{pid}"), pid.to_string()] {
        let _ = std::process::Command::new("kill")
            .args(["-9", "--", &target])
            .status();
    }
}

#[test]
fn confined_commands_temp_dir_is_private_and_removed_at_the_end() {
    let sb = Sandbox::new();
    run_without_bubblewrap(
        &sb,
        &["echo \"tmp=$TMPDIR mode=$(stat -c %a \"$TMPDIR\")\""],
    );
    let transcript = sb
        .transcripts()
        .into_iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect::<String>();
    let at = transcript.find("tmp=/").expect("the command's output");
    let line: String = transcript[at..]
        .chars()
        .take_while(|c| *c != '\\' && *c != '"')
        .collect();
    let (tmp, mode) = line
        .trim_start_matches("tmp=")
        .split_once(" mode=")
        .unwrap();
    assert_eq!(mode, "700", "{line}");
    assert!(!Path::new(tmp).exists(), "{tmp} left behind");
    // Nor the session's directory it was in.
    let parent = Path::new(tmp).parent().unwrap();
    assert!(!parent.exists(), "{} left behind", parent.display());
}
