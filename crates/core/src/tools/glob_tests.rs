//! Tests for Glob on real directory trees.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::json;

use super::*;
use crate::tools::test_support::{ctx, run, run_err};

fn touch(path: &Path, content: &str, age_secs: u64) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(path, content).unwrap();
    let when = SystemTime::now() - Duration::from_secs(age_secs);
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

#[tokio::test]
async fn matches_by_name_at_any_depth_newest_first() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    touch(&root.join("old.rs"), "", 300);
    touch(&root.join("src/mid.rs"), "", 200);
    touch(&root.join("src/deep/new.rs"), "", 100);
    touch(&root.join("src/readme.md"), "", 10);
    let out = run(GlobTool, &ctx(root), json!({"pattern": "*.rs"}))
        .await
        .unwrap();
    let expected = [
        root.join("src/deep/new.rs"),
        root.join("src/mid.rs"),
        root.join("old.rs"),
    ]
    .map(|p| p.display().to_string())
    .join("\n");
    assert_eq!(out.content, expected);
}

#[tokio::test]
async fn pattern_with_slash_is_relative_to_root() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    touch(&root.join("src/a.ts"), "", 5);
    touch(&root.join("src/ui/b.tsx"), "", 5);
    touch(&root.join("other/c.ts"), "", 5);
    let c = ctx(root);
    let out = run(GlobTool, &c, json!({"pattern": "src/**/*.{ts,tsx}"}))
        .await
        .unwrap();
    let mut lines: Vec<&str> = out.content.lines().collect();
    lines.sort_unstable();
    assert_eq!(
        lines,
        vec![
            root.join("src/a.ts").to_str().unwrap(),
            root.join("src/ui/b.tsx").to_str().unwrap()
        ]
    );
    // `*` does not cross directories in a pattern with a slash.
    let out = run(GlobTool, &c, json!({"pattern": "src/*.ts"}))
        .await
        .unwrap();
    assert_eq!(out.content, root.join("src/a.ts").display().to_string());
}

#[tokio::test]
async fn respects_gitignore_and_skips_hidden() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir(root.join(".git")).unwrap();
    fs::write(root.join(".gitignore"), "target/\n*.log\n").unwrap();
    touch(&root.join("src/lib.rs"), "", 5);
    touch(&root.join("target/debug/gen.rs"), "", 5);
    touch(&root.join("build.log"), "", 5);
    touch(&root.join(".hidden/secret.rs"), "", 5);
    let c = ctx(root);
    let out = run(GlobTool, &c, json!({"pattern": "**/*"})).await.unwrap();
    let lines: Vec<&str> = out.content.lines().collect();
    assert_eq!(lines, vec![root.join("src/lib.rs").to_str().unwrap()]);

    // Naming a dot-directory in the pattern includes it.
    let out = run(GlobTool, &c, json!({"pattern": ".hidden/*.rs"}))
        .await
        .unwrap();
    assert_eq!(
        out.content,
        root.join(".hidden/secret.rs").display().to_string()
    );
}

#[tokio::test]
async fn caps_at_100_with_note() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..130 {
        touch(&dir.path().join(format!("f{i:03}.txt")), "", 1000 - i);
    }
    let out = run(GlobTool, &ctx(dir.path()), json!({"pattern": "*.txt"}))
        .await
        .unwrap();
    let lines: Vec<&str> = out.content.lines().collect();
    assert_eq!(lines.len(), 101);
    // Newest (largest i, smallest age) first.
    assert!(lines[0].ends_with("f129.txt"), "{}", lines[0]);
    assert!(lines[99].ends_with("f030.txt"), "{}", lines[99]);
    assert_eq!(
        lines[100],
        "(results truncated: 30 more files not shown; use a more specific pattern or path)"
    );
}

#[tokio::test]
async fn the_cut_keeps_the_newest_and_breaks_ties_by_path() {
    let dir = tempfile::tempdir().unwrap();
    // 150 files of the same age and one newer: the newer leads, then the
    // first 99 paths in order.
    let same = SystemTime::now() - Duration::from_secs(500);
    for i in 0..150 {
        let path = dir.path().join(format!("t{i:03}.log"));
        fs::write(&path, "").unwrap();
        fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(same)
            .unwrap();
    }
    touch(&dir.path().join("z-new.log"), "", 10);
    let out = run(GlobTool, &ctx(dir.path()), json!({"pattern": "*.log"}))
        .await
        .unwrap();
    let lines: Vec<&str> = out.content.lines().collect();
    assert!(lines[0].ends_with("z-new.log"), "{}", lines[0]);
    for (i, line) in lines[1..100].iter().enumerate() {
        assert!(line.ends_with(&format!("t{i:03}.log")), "{i}: {line}");
    }
    assert_eq!(
        lines[100],
        "(results truncated: 51 more files not shown; use a more specific pattern or path)"
    );
}

#[tokio::test]
async fn path_argument_and_absolute_pattern() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    touch(&root.join("a/x.rs"), "", 5);
    touch(&root.join("b/y.rs"), "", 5);
    let c = ctx(root);
    let out = run(GlobTool, &c, json!({"pattern": "*.rs", "path": "b"}))
        .await
        .unwrap();
    assert_eq!(out.content, root.join("b/y.rs").display().to_string());

    let abs = format!("{}/a/**/*.rs", root.display());
    let out = run(GlobTool, &c, json!({"pattern": abs})).await.unwrap();
    assert_eq!(out.content, root.join("a/x.rs").display().to_string());
}

#[tokio::test]
async fn no_matches_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let c = ctx(dir.path());
    let out = run(GlobTool, &c, json!({"pattern": "*.nothing"}))
        .await
        .unwrap();
    assert_eq!(out.content, "No files found");

    let err = run_err(GlobTool, &c, json!({"pattern": "*.rs", "path": "missing"})).await;
    assert!(err.contains("does not exist"), "{err}");
    let err = run_err(GlobTool, &c, json!({"pattern": "src/[a"})).await;
    assert!(err.contains("Invalid glob pattern"), "{err}");
}

#[test]
fn access_is_read_of_search_root() {
    let c = ctx(Path::new("/work"));
    let input = GlobInput {
        pattern: "/elsewhere/src/**/*.rs".into(),
        path: None,
    };
    assert_eq!(
        GlobTool.access(&input, &c),
        Access::Read {
            paths: vec![Path::new("/elsewhere/src").to_path_buf()]
        }
    );
    assert!(GlobTool.is_read_only(&input) && GlobTool.is_concurrency_safe(&input));
}

#[test]
fn beyond_the_time_limit_matches_are_listed_by_path() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // Spread over directories so that several walker threads share them;
    // the newest file sorts last by path.
    for d in 0..6 {
        for i in 0..40 {
            touch(
                &root.join(format!("d{d}/f{i:03}.txt")),
                "",
                1000 + d * 40 + i,
            );
        }
    }
    touch(&root.join("zz/newest.txt"), "", 1);
    let cancel = CancellationToken::new();

    let by_path = find_files_sorting_up_to(root, "**/*.txt", &cancel, 150, None).unwrap();
    assert!(!by_path.by_time);
    assert_eq!(by_path.total, 241);
    let mut expected: Vec<PathBuf> = (0..6)
        .flat_map(|d| (0..40).map(move |i| root.join(format!("d{d}/f{i:03}.txt"))))
        .collect();
    expected.sort();
    expected.truncate(MAX_RESULTS);
    assert_eq!(by_path.files, expected);
    let text = by_path.render();
    assert!(
        text.ends_with(
            "(results truncated: 241 files matched, more than 10000, so these are the first 100 \
             by path rather than the most recently modified; use a more specific pattern or path)"
        ),
        "{text}"
    );

    // Within the limit the same search is newest first.
    let by_time = find_files_sorting_up_to(root, "**/*.txt", &cancel, 241, None).unwrap();
    assert!(by_time.by_time);
    assert_eq!(by_time.files[0], root.join("zz/newest.txt"));
    assert_eq!(by_time.files[1], root.join("d0/f000.txt"));
    assert_eq!(by_time.files.len(), MAX_RESULTS);
}

#[test]
fn many_matches_are_stat_ed_in_parallel_and_ordered() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // More than the parallel-stat threshold, in many directories.
    for i in 0..1_500u64 {
        touch(&root.join(format!("p{}/f{i:04}.rs", i % 30)), "", 5_000 - i);
    }
    let found = find_files(root, "*.rs", &CancellationToken::new()).unwrap();
    assert!(found.by_time);
    assert_eq!(found.total, 1_500);
    let expected: Vec<PathBuf> = (1_400..1_500u64)
        .rev()
        .map(|i| root.join(format!("p{}/f{i:04}.rs", i % 30)))
        .collect();
    assert_eq!(found.files, expected);
}
