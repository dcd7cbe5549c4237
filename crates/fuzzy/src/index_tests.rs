//! The walk over a real temporary tree: ignore files respected, `.git`
//! and unmentionable names left out, directories marked, the list served
//! again without walking.

use std::time::{Duration, Instant};

use super::*;

fn wait_ready(index: &FileIndex) -> usize {
    let start = Instant::now();
    loop {
        if let IndexStatus::Ready { paths, .. } = index.status() {
            return paths;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the walk never ended"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn paths(index: &mut FileIndex) -> Vec<String> {
    let mut all =
        index.with_entries(|e, _| e.iter().map(|e| e.path().to_string()).collect::<Vec<_>>());
    all.sort();
    all
}

#[test]
fn the_walk_lists_the_project_as_git_would_see_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for f in [
        "src/main.rs",
        "target/debug/out.bin",
        "notes.log",
        ".github/ci.yml",
        ".git/HEAD",
        "with space.txt",
    ] {
        let p = root.join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "x").unwrap();
    }
    std::fs::write(root.join(".gitignore"), "target/\n*.log\n").unwrap();
    let mut index = FileIndex::new(root);
    assert_eq!(index.status(), IndexStatus::NotStarted);
    index.open();
    wait_ready(&index);
    assert_eq!(
        paths(&mut index),
        [
            ".github/",
            ".github/ci.yml",
            ".gitignore",
            "src/",
            "src/main.rs"
        ]
    );
}

#[test]
fn opening_again_soon_serves_the_same_list_without_walking() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "x").unwrap();
    let mut index = FileIndex::new(dir.path());
    index.open();
    wait_ready(&index);
    let generation = index.with_entries(|_, g| g);
    std::fs::write(dir.path().join("b.txt"), "x").unwrap();
    index.open();
    assert_eq!(index.with_entries(|_, g| g), generation);
    assert_eq!(paths(&mut index), ["a.txt"]);
    assert!(!index.changed_since((generation, 1)));
}
