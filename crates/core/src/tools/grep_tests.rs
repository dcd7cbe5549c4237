//! Tests for Grep on real directory trees.

use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use super::*;
use crate::tools::test_support::{ctx, run, run_err};

fn write(root: &Path, rel: &str, content: &str, age_secs: u64) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, content).unwrap();
    let when = SystemTime::now() - Duration::from_secs(age_secs);
    fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

/// A small project: a git repo marker, an ignored dir, a binary file.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    fs::create_dir(r.join(".git")).unwrap();
    write(r, ".gitignore", "target/\n", 100);
    write(
        r,
        "src/main.rs",
        "fn main() {\n    let todo = 1;\n    helper();\n}\n",
        300,
    );
    write(r, "src/lib.rs", "// TODO: tidy\npub fn helper() {}\n", 200);
    write(r, "web/app.ts", "const x = 1; // todo later\n", 100);
    write(
        r,
        "web/view.tsx",
        "export const View = () => null; // TODO\n",
        50,
    );
    write(r, "target/out.rs", "// TODO generated\n", 10);
    write(r, "data.bin", "TODO\0\0\0binary", 10);
    dir
}

async fn grep(root: &Path, input: Value) -> String {
    run(GrepTool, &ctx(root), input).await.unwrap().content
}

fn p(root: &Path, rel: &str) -> String {
    root.join(rel).display().to_string()
}

#[tokio::test]
async fn files_with_matches_newest_first_skipping_ignored_and_binary() {
    let dir = project();
    let r = dir.path();
    let out = grep(r, json!({"pattern": "TODO"})).await;
    assert_eq!(
        out,
        format!(
            "Found 2 files\n{}\n{}",
            p(r, "web/view.tsx"),
            p(r, "src/lib.rs")
        )
    );
}

#[tokio::test]
async fn case_insensitive() {
    let dir = project();
    let r = dir.path();
    let out = grep(r, json!({"pattern": "todo", "-i": true})).await;
    assert!(out.starts_with("Found 4 files\n"), "{out}");
    let order: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(
        order,
        vec![
            p(r, "web/view.tsx"),
            p(r, "web/app.ts"),
            p(r, "src/lib.rs"),
            p(r, "src/main.rs")
        ]
    );
}

#[tokio::test]
async fn content_mode_with_line_numbers_and_without() {
    let dir = project();
    let r = dir.path();
    let out = grep(r, json!({"pattern": "helper", "output_mode": "content"})).await;
    assert_eq!(
        out,
        format!(
            "{}:2:pub fn helper() {{}}\n{}:3:    helper();",
            p(r, "src/lib.rs"),
            p(r, "src/main.rs")
        )
    );
    let out = grep(
        r,
        json!({"pattern": "helper", "output_mode": "content", "-n": false, "path": "src/lib.rs"}),
    )
    .await;
    assert_eq!(out, format!("{}:pub fn helper() {{}}", p(r, "src/lib.rs")));
}

#[tokio::test]
async fn context_lines_and_separators_like_rg() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    let text = "a\nhit1\nb\nc\nd\ne\nhit2\nf\n";
    write(r, "one.txt", text, 10);
    write(r, "two.txt", "x\nhit3\n", 10);
    let out = grep(
        r,
        json!({"pattern": "hit", "output_mode": "content", "-C": 1}),
    )
    .await;
    let one = p(r, "one.txt");
    let two = p(r, "two.txt");
    let expected = [
        format!("{one}-1-a"),
        format!("{one}:2:hit1"),
        format!("{one}-3-b"),
        "--".to_string(),
        format!("{one}-6-e"),
        format!("{one}:7:hit2"),
        format!("{one}-8-f"),
        "--".to_string(),
        format!("{two}-1-x"),
        format!("{two}:2:hit3"),
    ]
    .join("\n");
    assert_eq!(out, expected);

    // -A alone, and -B overriding -C.
    let out = grep(
        r,
        json!({"pattern": "hit2", "output_mode": "content", "-A": 1, "path": "one.txt"}),
    )
    .await;
    assert_eq!(out, format!("{one}:7:hit2\n{one}-8-f"));
    let out = grep(
        r,
        json!({"pattern": "hit2", "output_mode": "content", "-C": 1, "-B": 0, "path": "one.txt"}),
    )
    .await;
    assert_eq!(out, format!("{one}:7:hit2\n{one}-8-f"));
}

#[tokio::test]
async fn count_mode() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, "a.txt", "x\nx y\nz\n", 10);
    write(r, "b.txt", "x\n", 10);
    let out = grep(r, json!({"pattern": "x", "output_mode": "count"})).await;
    assert_eq!(
        out,
        format!(
            "{}:2\n{}:1\n\nFound 3 matching lines in 2 files.",
            p(r, "a.txt"),
            p(r, "b.txt")
        )
    );
}

#[tokio::test]
async fn type_and_glob_filters() {
    let dir = project();
    let r = dir.path();
    let out = grep(r, json!({"pattern": "(?i)todo", "type": "rust"})).await;
    assert!(out.starts_with("Found 2 files\n"), "{out}");
    assert!(
        out.contains("src/lib.rs") && out.contains("src/main.rs"),
        "{out}"
    );

    let out = grep(r, json!({"pattern": "(?i)todo", "glob": "*.{ts,tsx}"})).await;
    assert_eq!(
        out,
        format!(
            "Found 2 files\n{}\n{}",
            p(r, "web/view.tsx"),
            p(r, "web/app.ts")
        )
    );
    let out = grep(r, json!({"pattern": "(?i)todo", "glob": "*.tsx, *.rs"})).await;
    assert!(out.starts_with("Found 3 files\n"), "{out}");

    let err = run_err(
        GrepTool,
        &ctx(r),
        json!({"pattern": "x", "type": "no-such-lang"}),
    )
    .await;
    assert!(err.contains("Unknown file type"), "{err}");
}

#[tokio::test]
async fn multiline_patterns() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, "s.rs", "struct A {\n    x: u8,\n}\nstruct B;\n", 10);
    let out = grep(
        r,
        json!({"pattern": "struct A \\{.*?\\}", "multiline": true, "output_mode": "content"}),
    )
    .await;
    let f = p(r, "s.rs");
    assert_eq!(
        out,
        format!("{f}:1:struct A {{\n{f}:2:    x: u8,\n{f}:3:}}")
    );
    // Without multiline the same pattern cannot cross lines.
    let out = grep(r, json!({"pattern": "struct A \\{.*?\\}"})).await;
    assert_eq!(out, "No files found");
    let err = run_err(GrepTool, &ctx(r), json!({"pattern": "A \\{\\n"})).await;
    assert!(err.contains("multiline"), "{err}");
}

#[tokio::test]
async fn head_limit_and_offset_page_results() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    let text: String = (1..=10).map(|i| format!("match {i}\n")).collect();
    write(r, "m.txt", &text, 10);
    let f = p(r, "m.txt");
    let out = grep(
        r,
        json!({"pattern": "match", "output_mode": "content", "head_limit": 3}),
    )
    .await;
    assert_eq!(
        out,
        format!(
            "{f}:1:match 1\n{f}:2:match 2\n{f}:3:match 3\n(Showing lines 1-3 of 10. Pass offset=3 \
             to see more, or narrow the search.)"
        )
    );
    let out = grep(
        r,
        json!({"pattern": "match", "output_mode": "content", "head_limit": 3, "offset": 8}),
    )
    .await;
    assert_eq!(out, format!("{f}:9:match 9\n{f}:10:match 10"));

    for i in 0..5 {
        write(r, &format!("f{i}.txt"), "match\n", 100 + i);
    }
    let out = grep(r, json!({"pattern": "match", "head_limit": 2})).await;
    assert!(out.starts_with("Found 6 files\n"), "{out}");
    assert_eq!(out.lines().count(), 4, "{out}");
    assert!(out.contains("Showing files 1-2 of 6"), "{out}");
}

/// A page from the middle of many files: the files before it are skipped
/// by their line counts, the page starts inside a file, and the `--`
/// separators between files count as lines, as they are shown.
#[tokio::test]
async fn content_pages_across_files_with_context() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    for i in 0..30 {
        write(r, &format!("f{i:02}.txt"), "x\nmatch a\nmatch b\n", 10);
    }
    let f = |i: usize| p(r, &format!("f{i:02}.txt"));
    let out = grep(
        r,
        json!({"pattern": "match", "output_mode": "content", "-B": 1, "head_limit": 4, "offset": 5}),
    )
    .await;
    assert_eq!(
        out,
        format!(
            "{a}:2:match a\n{a}:3:match b\n--\n{b}-1-x\n(Showing lines 6-9 of 119. Pass offset=9 \
             to see more, or narrow the search.)",
            a = f(1),
            b = f(2)
        )
    );
    // The last page, without context.
    let out = grep(
        r,
        json!({"pattern": "match", "output_mode": "content", "offset": 57}),
    )
    .await;
    assert_eq!(
        out,
        format!(
            "{}:3:match b\n{}:2:match a\n{}:3:match b",
            f(28),
            f(29),
            f(29)
        )
    );
}

#[tokio::test]
async fn invalid_regex_and_missing_path_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let err = run_err(GrepTool, &ctx(dir.path()), json!({"pattern": "fn (("})).await;
    assert!(err.contains("Invalid regex pattern"), "{err}");
    let err = run_err(
        GrepTool,
        &ctx(dir.path()),
        json!({"pattern": "x", "path": "nowhere"}),
    )
    .await;
    assert!(err.contains("does not exist"), "{err}");
    let err = run_err(
        GrepTool,
        &ctx(dir.path()),
        json!({"pattern": "x", "output_mode": "lines"}),
    )
    .await;
    assert!(err.contains("unknown variant"), "{err}");
}

#[tokio::test]
async fn long_lines_are_cut_in_content_mode() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, "min.js", &format!("needle{}\n", "é".repeat(600)), 10);
    let out = grep(r, json!({"pattern": "needle", "output_mode": "content"})).await;
    assert!(out.ends_with(" … [line truncated]"), "{out}");
    assert!(out.len() < 700, "{}", out.len());
    assert!(!out.contains('\u{fffd}'), "cut inside a character");
}

#[test]
fn schema_uses_rg_style_field_names() {
    let schema = crate::tools::strict_schema::<GrepInput>();
    let props = schema["properties"].as_object().unwrap();
    for key in [
        "pattern",
        "path",
        "glob",
        "type",
        "-i",
        "-n",
        "-A",
        "-B",
        "-C",
        "multiline",
        "output_mode",
        "head_limit",
        "offset",
    ] {
        assert!(props.contains_key(key), "missing {key}");
    }
    assert_eq!(schema["additionalProperties"], json!(false));
}

#[tokio::test]
async fn fifos_in_the_tree_are_skipped_and_a_fifo_path_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.txt", "needle\n", 0);
    crate::safe_fs::mkfifo(&dir.path().join("pipe"));
    // The FIFO has no writer: opening it to search would block forever.
    let out = grep(dir.path(), json!({"pattern": "needle"})).await;
    assert!(out.contains("a.txt") && !out.contains("pipe"), "{out}");
    let out = grep(
        dir.path(),
        json!({"pattern": "needle", "glob": "*", "output_mode": "content"}),
    )
    .await;
    assert!(out.contains("needle"), "{out}");
    let err = run_err(
        GrepTool,
        &ctx(dir.path()),
        json!({"pattern": "x", "path": "pipe"}),
    )
    .await;
    assert!(err.contains("FIFO"), "{err}");
}
