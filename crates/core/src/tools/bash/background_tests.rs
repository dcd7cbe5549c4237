//! Background commands through the real Bash, BashOutput and KillShell
//! tools: output read in parts and filtered, the finished list taken once,
//! a kill that ends the whole group, and the same confinement as in the
//! foreground.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use super::{BackgroundShells, BashTool, ShellStatus};
use crate::permissions::Grant;
use crate::permissions::sandbox::SessionSandbox;
use crate::tools::ToolContext;
use crate::tools::shells::{BashOutputTool, KillShellTool};
use crate::tools::test_support::{ctx, run, run_err};

fn with_shells(dir: &std::path::Path) -> (ToolContext, Arc<BackgroundShells>) {
    let mut c = ctx(dir);
    let shells = Arc::new(BackgroundShells::new(dir.join("out")));
    c.values.insert(shells.clone());
    (c, shells)
}

async fn until_ended(shells: &BackgroundShells, id: &str) -> ShellStatus {
    for _ in 0..600 {
        let status = shells.get(id).unwrap().status();
        if !status.is_running() {
            return status;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{id} did not end");
}

#[tokio::test]
async fn output_is_read_in_parts_and_filtered_and_the_end_is_reported_once() {
    let dir = tempfile::tempdir().unwrap();
    let (c, shells) = with_shells(dir.path());
    let started = run(
        BashTool::default(),
        &c,
        json!({"command": "echo one; echo two; echo three; exit 4", "run_in_background": true}),
    )
    .await
    .unwrap();
    assert!(started.content.contains("bash_1"), "{}", started.content);
    assert_eq!(until_ended(&shells, "bash_1").await, ShellStatus::Exited(4));
    let shell = shells.get("bash_1").unwrap();
    assert_eq!(shell.last_lines(2), vec!["two", "three"]);
    // Ended and not yet read: the conversation that started it is told once.
    assert!(shells.take_finished(Some("other-agent")).is_empty());
    assert_eq!(shells.take_finished(None).len(), 1);
    assert!(shells.take_finished(None).is_empty());

    let read = run(BashOutputTool, &c, json!({"id": "bash_1", "filter": "^t"}))
        .await
        .unwrap();
    assert!(
        read.content.contains("bash_1: exit code 4"),
        "{}",
        read.content
    );
    assert!(read.content.contains("two\nthree"), "{}", read.content);
    assert!(!read.content.contains("one"), "{}", read.content);
    let again = run(BashOutputTool, &c, json!({"id": "bash_1"}))
        .await
        .unwrap();
    assert!(
        again.content.contains("(no new output)"),
        "{}",
        again.content
    );

    let bad = run_err(BashOutputTool, &c, json!({"id": "bash_1", "filter": "("})).await;
    assert!(bad.contains("not a valid regular expression"), "{bad}");
    let ended = run_err(KillShellTool, &c, json!({"id": "bash_1"})).await;
    assert!(ended.contains("already ended (exit code 4)"), "{ended}");
}

#[tokio::test]
async fn read_before_the_end_means_no_reminder_and_kill_ends_the_group() {
    let dir = tempfile::tempdir().unwrap();
    let (c, shells) = with_shells(dir.path());
    let pid_file = dir.path().join("child.pid");
    let command = format!(
        "sleep 300 & echo $! > {}; echo ready; wait",
        pid_file.display()
    );
    run(
        BashTool::default(),
        &c,
        json!({"command": command, "run_in_background": true}),
    )
    .await
    .unwrap();
    let mut child_pid = None;
    for _ in 0..200 {
        if let Ok(text) = std::fs::read_to_string(&pid_file)
            && let Ok(pid) = text.trim().parse::<i32>()
        {
            child_pid = Some(pid);
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let child_pid = child_pid.expect("the job started");
    assert_eq!(shells.running(), 1);
    // "ready" is on disk before the kill (the pid file alone says only that
    // the shell got that far, not that its output was stored).
    let shell = shells.get("bash_1").expect("bash_1 is listed");
    for _ in 0..400 {
        if shell.bytes_written() >= "ready\n".len() as u64 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let out = run(KillShellTool, &c, json!({"id": "bash_1"}))
        .await
        .unwrap();
    assert!(out.content.starts_with("Stopped bash_1"), "{}", out.content);
    assert_eq!(shells.running(), 0);
    // The job the command started went with it.
    let mut gone = false;
    for _ in 0..200 {
        let state = std::fs::read_to_string(format!("/proc/{child_pid}/stat")).unwrap_or_default();
        // Killed and not yet reaped counts as gone (state Z).
        if state.is_empty() || state.contains(") Z") {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(gone, "the sleep {child_pid} is still running");
    // KillShell was the model's own doing: no reminder.
    assert!(shells.take_finished(None).is_empty());
    let read = run(BashOutputTool, &c, json!({"id": "bash_1"}))
        .await
        .unwrap();
    assert!(read.content.contains("bash_1: killed"), "{}", read.content);
    assert!(
        read.content.contains("ready"),
        "unread output stays: {}",
        read.content
    );
}

#[tokio::test]
async fn a_command_allowed_as_read_only_runs_confined_in_the_background_too() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p");
    std::fs::create_dir_all(&project).unwrap();
    assert!(
        SessionSandbox::for_project(&project).complete(),
        "this machine's sandbox enforces reading only"
    );
    let (mut c, shells) = with_shells(&project);
    c.grant = Grant::ReadOnly;
    let target = project.join("written.txt");
    let command = format!("echo x > {}", target.display());
    run(
        BashTool::default(),
        &c,
        json!({"command": command, "run_in_background": true}),
    )
    .await
    .unwrap();
    let status = until_ended(&shells, "bash_1").await;
    assert_ne!(status, ShellStatus::Exited(0));
    assert!(!target.exists());
    let read = run(BashOutputTool, &c, json!({"id": "bash_1"}))
        .await
        .unwrap();
    assert!(
        read.content.contains("Read-only file system")
            || read.content.contains("Permission denied"),
        "{}",
        read.content
    );
}

#[tokio::test]
async fn without_a_session_list_background_is_refused_and_nothing_runs() {
    let dir = tempfile::tempdir().unwrap();
    let c = ctx(dir.path());
    let marker = dir.path().join("ran");
    let err = run_err(
        BashTool::default(),
        &c,
        json!({"command": format!("touch {}", marker.display()), "run_in_background": true}),
    )
    .await;
    assert!(err.contains("not available"), "{err}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!marker.exists());
}

/// Polls until `f` holds (a generous bound; never decides by timing).
async fn until(what: &str, f: impl Fn() -> bool) {
    for _ in 0..600 {
        if f() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("timed out waiting for {what}");
}

#[tokio::test]
async fn a_running_foreground_command_sent_to_the_background_keeps_its_process_and_output() {
    let dir = tempfile::tempdir().unwrap();
    let (mut c, shells) = with_shells(dir.path());
    // Nothing runs: the user's Ctrl+B does nothing.
    assert_eq!(shells.detach_foreground(), 0);
    let live = crate::tools::live::LiveOutput::new();
    c.values.insert(live.clone());
    let release = dir.path().join("release");
    let pid_file = dir.path().join("shell.pid");
    let command = format!(
        "echo $$ > '{}'; echo before-$((40+2)); while [ ! -e '{}' ]; do sleep 0.05; done; \
         echo after-$((6*7)); exit 3",
        pid_file.display(),
        release.display()
    );
    let call = tokio::spawn({
        let c = c.clone();
        async move { run(BashTool::default(), &c, json!({ "command": command })).await }
    });
    // The foreground call has read its first line (so it is running and
    // registered) before it is sent to the background.
    until("the first line", || {
        live.snapshot().lines.iter().any(|l| l == "before-42")
    })
    .await;
    assert_eq!(shells.foreground_running(), 1);
    assert_eq!(shells.detach_foreground(), 1);
    let answer = call.await.unwrap().unwrap();
    assert!(
        answer
            .content
            .contains("The user sent this command to the background"),
        "{}",
        answer.content
    );
    assert!(answer.content.contains("id bash_1"), "{}", answer.content);
    assert_eq!(shells.foreground_running(), 0);
    let shell = shells.get("bash_1").unwrap();
    assert!(shell.status().is_running());
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // Same process, still alive after its call returned.
    assert!(std::path::Path::new(&format!("/proc/{pid}")).exists());
    // The output so far went along, and what follows joins it.
    std::fs::write(&release, "").unwrap();
    assert_eq!(until_ended(&shells, "bash_1").await, ShellStatus::Exited(3));
    assert_eq!(shell.last_lines(5), vec!["before-42", "after-42"]);
    assert_eq!(shells.take_finished(None).len(), 1);
    let read = run(BashOutputTool, &c, json!({"id": "bash_1"}))
        .await
        .unwrap();
    assert!(
        read.content.contains("before-42\nafter-42"),
        "{}",
        read.content
    );
}

#[tokio::test]
async fn a_command_sent_to_the_background_is_killed_with_its_group_by_kill_shell() {
    let dir = tempfile::tempdir().unwrap();
    let (c, shells) = with_shells(dir.path());
    let pid_file = dir.path().join("job.pid");
    let command = format!("sleep 300 & echo $! > '{}'; wait", pid_file.display());
    let call = tokio::spawn({
        let c = c.clone();
        async move { run(BashTool::default(), &c, json!({ "command": command })).await }
    });
    until("the job", || {
        std::fs::read_to_string(&pid_file).is_ok_and(|t| t.trim().parse::<i32>().is_ok())
            && shells.foreground_running() == 1
    })
    .await;
    let job: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(shells.detach_foreground(), 1);
    call.await.unwrap().unwrap();
    assert_eq!(shells.running(), 1);
    let out = run(KillShellTool, &c, json!({"id": "bash_1"}))
        .await
        .unwrap();
    assert!(out.content.starts_with("Stopped bash_1"), "{}", out.content);
    until("the job to end", || {
        let state = std::fs::read_to_string(format!("/proc/{job}/stat")).unwrap_or_default();
        state.is_empty() || state.contains(") Z")
    })
    .await;
}

#[tokio::test]
async fn a_read_only_agents_command_cannot_be_sent_to_the_background() {
    let dir = tempfile::tempdir().unwrap();
    let (mut c, shells) = with_shells(dir.path());
    c.values.insert(crate::tools::ReadOnlyAgent);
    let live = crate::tools::live::LiveOutput::new();
    c.values.insert(live.clone());
    let release = dir.path().join("release");
    let command = format!(
        "echo started; while [ ! -e '{}' ]; do sleep 0.05; done; echo done",
        release.display()
    );
    let call = tokio::spawn({
        let c = c.clone();
        async move { run(BashTool::default(), &c, json!({ "command": command })).await }
    });
    until("the first line", || {
        live.snapshot().lines.iter().any(|l| l == "started")
    })
    .await;
    assert_eq!(shells.detach_foreground(), 0);
    std::fs::write(&release, "").unwrap();
    let answer = call.await.unwrap().unwrap();
    assert!(
        answer.content.contains("started\ndone"),
        "{}",
        answer.content
    );
    assert!(shells.list().is_empty());
}
