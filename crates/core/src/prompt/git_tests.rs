use super::*;
use catui_protocol::{Message, PermissionMode};

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

#[test]
fn not_a_repository_starts_nothing() {
    let dir = tempfile::tempdir().unwrap();
    assert!(GitSnapshot::start(dir.path()).is_none());
    assert_eq!(git_summary(dir.path()), None);
    assert_eq!(git_summary(&dir.path().join("missing")), None);
}

#[test]
fn summary_of_a_real_repository() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    git(repo, &["init", "-q"]);

    let fresh = git_summary(repo).unwrap();
    assert_eq!(fresh.branch, "main");
    assert!(fresh.changes.is_empty());
    assert!(fresh.recent_commits.is_empty());

    for i in 1..=7 {
        std::fs::write(repo.join("f.txt"), format!("{i}")).unwrap();
        git(repo, &["add", "f.txt"]);
        git(repo, &["commit", "-q", "-m", &format!("commit number {i}")]);
    }
    git(repo, &["checkout", "-q", "-b", "topic"]);
    std::fs::write(repo.join("f.txt"), "changed").unwrap();
    for i in 0..23 {
        std::fs::write(repo.join(format!("new{i:02}.txt")), "x").unwrap();
    }

    let s = git_summary(repo).unwrap();
    assert_eq!(s.branch, "topic");
    assert_eq!(
        s.recent_commits,
        (3..=7)
            .rev()
            .map(|i| format!("commit number {i}"))
            .collect::<Vec<_>>()
    );
    assert_eq!(s.changes.len(), MAX_STATUS_LINES);
    assert_eq!(s.more_changes, 24 - MAX_STATUS_LINES);
    assert_eq!(s.changes[0], " M f.txt");
    assert!(s.changes[1].starts_with("?? new00.txt"));

    // Works from a subdirectory too.
    std::fs::create_dir(repo.join("sub")).unwrap();
    assert_eq!(git_summary(&repo.join("sub")).unwrap().branch, "topic");

    // A detached HEAD is named as such.
    git(repo, &["checkout", "-q", "--detach"]);
    let detached = git_summary(repo).unwrap();
    assert!(
        detached.branch.starts_with("HEAD (detached at "),
        "{}",
        detached.branch
    );
}

#[test]
fn output_is_capped_while_read() {
    let mut text = String::new();
    for i in 0..10_000 {
        text.push_str(&format!("?? untracked_{i}.txt\n"));
    }
    text.push_str("\n\n");
    let lines = read_capped(text.as_bytes(), 20);
    assert_eq!(lines.kept.len(), 20);
    assert_eq!(lines.kept[0], "?? untracked_0.txt");
    assert_eq!(lines.more, 10_000 - 20);

    let long = format!("?? {}\n", "é".repeat(1_000));
    let lines = read_capped(long.as_bytes(), 5);
    assert_eq!(lines.kept[0].chars().count(), MAX_LINE_CHARS + 1);
    assert!(lines.kept[0].ends_with('…'));
    assert_eq!(lines.more, 0);
}

#[test]
fn rendering() {
    let summary = GitSummary {
        branch: "feature/login".into(),
        changes: vec![" M src/auth.rs".into(), "?? notes.txt".into()],
        more_changes: 3,
        recent_commits: vec!["Add session tokens".into(), "Initial commit".into()],
    };
    assert_eq!(
        render_git(&summary),
        "# Git status\n\
         A snapshot taken when the session started; it does not update as you work.\n\
         Current branch: feature/login\n\
         Working tree (git status --short):\n \
         M src/auth.rs\n\
         ?? notes.txt\n\
         ... and 3 more changed paths\n\
         Recent commits:\n\
         - Add session tokens\n\
         - Initial commit"
    );
    let clean = GitSummary {
        branch: "main".into(),
        changes: vec![],
        more_changes: 0,
        recent_commits: vec![],
    };
    assert!(render_git(&clean).contains("Working tree: clean\nRecent commits: none yet"));
}

fn ctx(messages: &[Message]) -> AttachmentContext<'_> {
    AttachmentContext {
        mode: PermissionMode::Default,
        messages,
        is_human_turn: true,
        agent_id: None,
        tools: &[],
        dry_run: false,
    }
}

#[test]
fn attachment_is_sent_once() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    git(repo, &["init", "-q"]);
    std::fs::write(repo.join("todo.txt"), "x").unwrap();
    let provider = GitStatusAttachments::new(Arc::new(GitSnapshot::start(repo).unwrap()));
    assert!(provider.snapshot().wait(GIT_TIMEOUT * 2).is_some());

    let first = provider.attachments(&ctx(&[]));
    match first.as_slice() {
        [Attachment::Reminder { text }] => {
            assert!(text.starts_with(GIT_STATUS_HEADER), "{text}");
            assert!(text.contains("?? todo.txt"), "{text}");
        }
        other => panic!("expected one reminder, got {other:?}"),
    }
    assert!(provider.attachments(&ctx(&[])).is_empty());
}

/// A deferred snapshot nobody waited for still arrives with the first
/// request (it waits for git), and never later.
#[test]
fn a_deferred_snapshot_is_in_the_first_request() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    git(repo, &["init", "-q"]);
    std::fs::write(repo.join("late.txt"), "x").unwrap();
    let provider = GitStatusAttachments::new(Arc::new(GitSnapshot::deferred(repo).unwrap()));
    match provider.attachments(&ctx(&[])).as_slice() {
        [Attachment::Reminder { text }] => assert!(text.contains("?? late.txt"), "{text}"),
        other => panic!("expected the snapshot in the first request, got {other:?}"),
    }
    assert!(provider.attachments(&ctx(&[])).is_empty());
}

#[test]
fn dropping_the_snapshot_stops_it() {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    let snapshot = GitSnapshot::start(dir.path()).unwrap();
    let shared = snapshot.shared.clone();
    drop(snapshot);
    // Nothing can be spawned any more, and everything spawned was reaped.
    assert!(lock(&shared.children).is_none());
}

#[test]
fn a_repositorys_fsmonitor_does_not_run_when_the_folder_is_opened() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    std::fs::write(repo.join("f.txt"), "x").unwrap();
    git(&repo, &["add", "f.txt"]);
    git(&repo, &["commit", "-q", "-m", "one"]);
    let marker = dir.path().join("fsmonitor-ran");
    let hook = dir.path().join("fsmonitor.sh");
    std::fs::write(&hook, format!("#!/bin/sh\ntouch '{}'\n", marker.display())).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    git(&repo, &["config", "core.fsmonitor", hook.to_str().unwrap()]);
    // The hook is real: git runs it when nothing turns it off.
    let status = Command::new("git")
        .arg("-C")
        .arg(&repo)
        .args(["status", "--porcelain"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    assert!(marker.exists(), "git did not run the fsmonitor hook at all");
    std::fs::remove_file(&marker).unwrap();

    let summary = git_summary(&repo).unwrap();
    assert_eq!(summary.branch, "main");
    assert!(
        !marker.exists(),
        "the snapshot ran the repository's fsmonitor"
    );
}
