//! The shadow repository against real git in temporary folders.

use std::collections::HashSet;
use std::path::Path;
use std::process::Command;

use super::*;
use crate::checkpoints::restore;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn read(root: &Path, rel: &str) -> Option<String> {
    std::fs::read_to_string(root.join(rel)).ok()
}

fn paths(changes: &[Change]) -> Vec<String> {
    let mut p: Vec<String> = changes.iter().map(|c| c.path.clone()).collect();
    p.sort();
    p
}

/// Every file under `dir` with its modification time and length.
fn listing(dir: &Path) -> Vec<(String, std::time::SystemTime, u64)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let meta = std::fs::symlink_metadata(e.path()).unwrap();
            if meta.is_dir() {
                stack.push(e.path());
            } else {
                out.push((
                    e.path().display().to_string(),
                    meta.modified().unwrap(),
                    meta.len(),
                ));
            }
        }
    }
    out.sort();
    out
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

#[test]
fn snapshots_see_every_change_and_restore_brings_a_state_back_exactly() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    write(&root, "src/a.rs", "fn a() {}\n");
    write(&root, "src/b.rs", "fn b() {}\n");
    write(&root, ".gitignore", "target/\n");
    write(&root, "target/out.bin", "build output");
    let repo = ShadowRepo::new(home.path(), &root);
    let first = repo.snapshot("s1", None, None).unwrap();

    // A shell command's kind of change: edit, delete, create, in a new folder.
    write(&root, "src/a.rs", "fn a() { changed }\n");
    std::fs::remove_file(root.join("src/b.rs")).unwrap();
    write(&root, "docs/new/notes.md", "new\n");
    write(&root, "target/out.bin", "rebuilt");
    let second = repo.snapshot("s1", Some(&first), None).unwrap();
    assert_ne!(first.commit, second.commit);
    let changes = repo.changes(&first.commit, &second.commit).unwrap();
    assert_eq!(
        paths(&changes),
        ["docs/new/notes.md", "src/a.rs", "src/b.rs"],
        "ignored files are not in checkpoints"
    );

    // Unchanged files give the same commit back.
    let again = repo.snapshot("s1", Some(&second), None).unwrap();
    assert_eq!(again.commit, second.commit);

    let done = restore::restore(&repo, &changes, &HashSet::new()).unwrap();
    assert_eq!(done.deleted, ["docs/new/notes.md"]);
    assert_eq!(read(&root, "src/a.rs").unwrap(), "fn a() {}\n");
    assert_eq!(read(&root, "src/b.rs").unwrap(), "fn b() {}\n");
    assert!(!root.join("docs").exists(), "folders created since go too");
    assert_eq!(read(&root, "target/out.bin").unwrap(), "rebuilt");
    let back = repo.snapshot("s1", Some(&again), None).unwrap();
    assert_eq!(back.tree, first.tree);
}

#[cfg(unix)]
#[test]
fn modes_and_symlinks_come_back() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    write(&root, "run.sh", "#!/bin/sh\necho hi\n");
    std::fs::set_permissions(root.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink("run.sh", root.join("link")).unwrap();
    let repo = ShadowRepo::new(home.path(), &root);
    let first = repo.snapshot("s", None, None).unwrap();
    std::fs::remove_file(root.join("run.sh")).unwrap();
    std::fs::remove_file(root.join("link")).unwrap();
    write(&root, "link", "now a file");
    let second = repo.snapshot("s", Some(&first), None).unwrap();
    let changes = repo.changes(&first.commit, &second.commit).unwrap();
    restore::restore(&repo, &changes, &HashSet::new()).unwrap();
    let meta = std::fs::metadata(root.join("run.sh")).unwrap();
    assert_eq!(meta.permissions().mode() & 0o111, 0o111, "executable again");
    assert_eq!(
        std::fs::read_link(root.join("link")).unwrap(),
        Path::new("run.sh")
    );
}

#[test]
fn big_and_binary_files_are_left_out_and_named() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    write(&root, "small.txt", "ok");
    write(&root, "big.txt", &"x".repeat(300));
    std::fs::write(root.join("blob.bin"), [0u8; 200]).unwrap();
    std::fs::write(root.join("tiny.bin"), [0u8; 10]).unwrap();
    let repo = ShadowRepo::new(home.path(), &root).with_limits(Limits {
        max_file_bytes: 256,
        max_binary_bytes: 100,
        max_changed_files: 10,
    });
    let snap = repo.snapshot("s", None, None).unwrap();
    let mut skipped = snap.skipped.clone();
    skipped.sort();
    assert_eq!(skipped, ["big.txt", "blob.bin"]);
    assert!(snap.skipped_why.iter().any(|w| w.contains("over the")));
    assert!(
        snap.skipped_why
            .iter()
            .any(|w| w.starts_with("blob.bin (binary"))
    );

    for i in 0..11 {
        write(&root, &format!("many/{i}.txt"), "x");
    }
    let err = repo.snapshot("s", Some(&snap), None).unwrap_err();
    assert!(
        matches!(
            err,
            CheckpointError::TooManyChanges {
                count: 11,
                limit: 10
            }
        ),
        "{err}"
    );
}

#[test]
fn a_git_project_is_read_but_never_written_and_its_tracked_files_are_not_copied() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    for i in 0..50 {
        write(&root, &format!("src/f{i}.txt"), &format!("file {i}\n"));
    }
    write(&root, "crlf.txt", "a\r\nb\r\n");
    write(&root, ".gitattributes", "* text=auto\n");
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "init"]);
    // A hook that would leave a trace if anything ran it.
    write(
        &root,
        ".git/hooks/post-commit",
        "#!/bin/sh\ntouch hook-ran\n",
    );
    write(&root, ".git/info/exclude", "secret-notes.txt\n");
    write(&root, "secret-notes.txt", "excluded by the project");
    write(&root, "untracked.txt", "new\n");
    let before = listing(&root.join(".git"));

    let repo = ShadowRepo::new(home.path(), &root);
    let first = repo.snapshot("s", None, None).unwrap();
    write(&root, "src/f1.txt", "changed\n");
    let second = repo.snapshot("s", Some(&first), None).unwrap();
    assert_eq!(
        paths(&repo.changes(&first.commit, &second.commit).unwrap()),
        ["src/f1.txt"]
    );

    // No file of the project's .git is created, removed or changed; git may
    // refresh the time of objects it finds there (as it does itself).
    let now = listing(&root.join(".git"));
    let shape = |l: &[(String, std::time::SystemTime, u64)]| -> Vec<(String, u64)> {
        l.iter().map(|(p, _, n)| (p.clone(), *n)).collect()
    };
    assert_eq!(
        shape(&now),
        shape(&before),
        "the project's .git has the same files"
    );
    let outside_objects =
        |l: &[(String, std::time::SystemTime, u64)]| -> Vec<(String, std::time::SystemTime)> {
            l.iter()
                .filter(|(p, ..)| !p.contains("/.git/objects/"))
                .map(|(p, t, _)| (p.clone(), *t))
                .collect()
        };
    assert_eq!(outside_objects(&now), outside_objects(&before));
    assert!(!root.join("hook-ran").exists());
    // Only what git did not already have was stored: the untracked file,
    // the changed one and the trees.
    let loose = listing(&repo.dir().join("objects"))
        .into_iter()
        .filter(|(p, ..)| !p.contains("/info/") && !p.contains("/pack/"))
        .count();
    assert!(loose < 20, "{loose} objects stored for a 52-file project");
    let tree = repo
        .git()
        .run(&["ls-tree", "-r", "--name-only", &second.commit])
        .unwrap();
    let tree = String::from_utf8_lossy(&tree);
    assert!(
        tree.contains("untracked.txt") && !tree.contains("secret-notes.txt"),
        "{tree}"
    );

    // Line endings are kept as they are in the file (no attribute applies).
    std::fs::write(root.join("crlf.txt"), "changed").unwrap();
    let third = repo.snapshot("s", Some(&second), None).unwrap();
    let changes = repo.changes(&second.commit, &third.commit).unwrap();
    restore::restore(&repo, &changes, &HashSet::new()).unwrap();
    assert_eq!(read(&root, "crlf.txt").unwrap(), "a\r\nb\r\n");
}

#[test]
fn cleanup_forgets_lines_of_sessions_that_are_gone() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let transcripts = tempfile::tempdir().unwrap();
    write(&root, "a.txt", "a");
    let repo = ShadowRepo::new(home.path(), &root);
    let kept = repo.snapshot("alive", None, None).unwrap();
    let gone = repo.snapshot("gone", None, None).unwrap();
    std::fs::write(transcripts.path().join("alive.jsonl"), "").unwrap();
    let _current = repo.snapshot("current", None, None).unwrap();
    assert_eq!(repo.clean_up(transcripts.path(), "current").unwrap(), 1);
    assert!(repo.tree_of(&kept.commit).is_some());
    // Same tree, same commit object for both lines here; the line is gone.
    let refs = repo
        .git()
        .run(&["for-each-ref", "--format=%(refname)"])
        .unwrap();
    let refs = String::from_utf8_lossy(&refs);
    assert!(
        refs.contains("sessions/alive") && !refs.contains("sessions/gone"),
        "{refs}"
    );
    let _ = gone;
    // Not again within a day.
    assert_eq!(repo.clean_up(transcripts.path(), "current").unwrap(), 0);
}

#[test]
fn a_folder_swapped_for_a_symlink_is_snapshotted_as_the_link() {
    // As the watch reports it, and as a full scan sees it.
    for watched in [true, false] {
        let home = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        write(&root, "d/a.txt", "a\n");
        write(&root, "d/sub/b.txt", "b\n");
        let repo = ShadowRepo::new(home.path(), &root);
        let first = repo.snapshot("s1", None, None).unwrap();
        std::fs::rename(root.join("d"), root.join("d.old")).unwrap();
        std::os::unix::fs::symlink("d.old", root.join("d")).unwrap();
        let only: BTreeSet<PathBuf> = ["d", "d/a.txt", "d/sub/b.txt", "d.old/a.txt"]
            .iter()
            .map(PathBuf::from)
            .collect();
        let second = repo
            .snapshot("s1", Some(&first), watched.then_some(&only))
            .unwrap();
        assert!(
            second.skipped.iter().any(|p| p == "d/a.txt")
                && second
                    .skipped_why
                    .iter()
                    .any(|w| w.contains("symbolic link")),
            "{second:?}"
        );
        let changed = paths(&repo.changes(&first.commit, &second.commit).unwrap());
        assert!(changed.contains(&"d".to_string()), "{changed:?}");
        assert!(changed.contains(&"d.old/a.txt".to_string()), "{changed:?}");
    }
}

#[test]
fn line_counts_per_file_are_what_going_back_adds_and_removes() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    write(&root, "src/a.rs", "one\ntwo\nthree\n");
    write(&root, "src/b.rs", "keep\n");
    let repo = ShadowRepo::new(home.path(), &root);
    let then = repo.snapshot("s1", None, None).unwrap();
    write(&root, "src/a.rs", "one\n2\n");
    write(&root, "src/new.rs", "x\ny\nz\nw\n");
    let now = repo.snapshot("s1", Some(&then), None).unwrap();
    let mut files = repo.file_line_counts(&now.commit, &then.commit).unwrap();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    assert_eq!(
        files,
        [
            // Going back puts `two` and `three` back and takes `2` out.
            FileLines {
                path: "src/a.rs".into(),
                insertions: 2,
                deletions: 1,
            },
            // The file created since goes: all of its lines.
            FileLines {
                path: "src/new.rs".into(),
                insertions: 0,
                deletions: 4,
            },
        ]
    );
    assert!(
        repo.file_line_counts(&now.commit, &now.commit)
            .unwrap()
            .is_empty()
    );
}
