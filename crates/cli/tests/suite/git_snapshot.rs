//! The git snapshot end to end: the real binary in a real git repository
//! (and with a `git` that never answers), against the mock model. The
//! system prompt names the branch without running git; the working-tree
//! snapshot reaches the model once, as a reminder, without the session
//! waiting for it; git processes never outlive the session.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use catui_testkit::{Script, Turn};
use common::Sandbox;

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=Test",
            "-c",
            "user.email=test@example.invalid",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?} failed");
}

/// How often `needle` occurs in the request's messages (not the system).
fn occurrences(request: &catui_testkit::RecordedRequest, needle: &str) -> usize {
    serde_json::to_string(request.messages())
        .unwrap()
        .matches(needle)
        .count()
}

#[test]
fn the_snapshot_reaches_the_model_once_as_a_reminder() {
    let sb = Sandbox::new();
    let project = sb.project();
    git(&project, &["init", "-q"]);
    sb.write("tracked.txt", "one\n");
    git(&project, &["add", "tracked.txt"]);
    git(&project, &["commit", "-q", "-m", "Add the tracked file"]);
    git(&project, &["checkout", "-q", "-b", "feature/snap"]);
    sb.write("tracked.txt", "two\n");
    sb.write("untracked.txt", "new\n");

    // The first answer is slow enough that git (allowed two seconds) has
    // finished, one way or the other, before the second request.
    let server = common::mock(
        Script::new()
            .turn(common::read("r1", "tracked.txt").delay(Duration::from_millis(2_500)))
            .turn(Turn::text("done")),
    );
    let out = sb.run(&server, ["-p", "look"]);
    common::assert_ok(&out);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    for r in &reqs {
        let system = r.system_text();
        common::assert_contains(&system, "Is a git repository: yes");
        common::assert_contains(&system, "Current git branch: feature/snap");
        // The snapshot changes with every edit; it stays out of the
        // system prompt so that the prompt's cache survives.
        common::assert_lacks(&system, "# Git status");
    }
    // Sent once, kept in the conversation from then on.
    let last = &reqs[1];
    assert_eq!(occurrences(last, "# Git status"), 1);
    // (The machine's facts are the first request's other reminder.)
    assert_eq!(occurrences(last, "<system-reminder>"), 2);
    for needle in [
        "Current branch: feature/snap",
        " M tracked.txt",
        "?? untracked.txt",
        "- Add the tracked file",
    ] {
        assert_eq!(occurrences(last, needle), 1, "{needle}");
    }
}

#[test]
fn outside_a_repository_there_is_no_git_at_all() {
    let (sb, server) = common::with_mock(Script::new().turn(Turn::text("hi")));
    let out = sb.run(&server, ["-p", "hi"]);
    assert_eq!(out.status.code(), Some(0));
    let reqs = server.requests();
    let system = reqs[0].system_text();
    common::assert_contains(&system, "Is a git repository: no");
    common::assert_lacks(&system, "git branch");
    assert_eq!(occurrences(&reqs[0], "# Git status"), 0);
}

#[cfg(target_os = "linux")]
#[test]
fn a_git_that_never_answers_does_not_hold_up_or_outlive_the_session() {
    use std::os::unix::fs::PermissionsExt;

    let sb = Sandbox::new();
    let project = sb.project();
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::fs::write(project.join(".git/HEAD"), "ref: refs/heads/trunk\n").unwrap();
    // A `git` that records its pid and its niceness (once catui has had
    // a moment to lower it), then hangs.
    let bin = sb.dir.path().join("fake-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let pids = sb.dir.path().join("git-pids");
    let script = format!(
        "#!/bin/sh\nsleep 0.2\necho $$ $(nice) >> '{}'\nexec sleep 600\n",
        pids.display()
    );
    std::fs::write(bin.join("git"), script).unwrap();
    std::fs::set_permissions(bin.join("git"), std::fs::Permissions::from_mode(0o755)).unwrap();

    // Slow enough that both git commands have started (and written their
    // pids) while the session is still running.
    let server = common::mock(
        Script::new().turn(Turn::text("answered").delay(Duration::from_millis(1_500))),
    );
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let out = sb
        .catui(&server)
        .env("PATH", path)
        .args(["-p", "hi"])
        .output()
        .unwrap();
    common::assert_ok(&out);
    assert_eq!(common::stdout(&out).trim(), "answered");
    let reqs = server.requests();
    let system = reqs[0].system_text();
    common::assert_contains(&system, "Current git branch: trunk");
    assert_eq!(occurrences(&reqs[0], "# Git status"), 0);

    let recorded = std::fs::read_to_string(&pids).unwrap();
    let started: Vec<u32> = recorded
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(started.len(), 2, "status and log were started");
    // They run at the lowest priority, so they never slow the session.
    for line in recorded.lines() {
        assert_eq!(line.split_whitespace().nth(1), Some("19"), "{recorded}");
    }
    // Killed and reaped when the session ended: gone from the process
    // table (a short grace period for the kernel to tear them down).
    let deadline = Instant::now() + Duration::from_secs(10);
    for pid in started {
        let proc_dir = format!("/proc/{pid}");
        while Path::new(&proc_dir).exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!Path::new(&proc_dir).exists(), "git {pid} outlived catui");
    }
}
