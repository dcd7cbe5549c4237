//! Tests for the Edit tool, on real files in temp dirs.

use std::fs;
use std::path::PathBuf;

use serde_json::{Value, json};

use super::*;
use crate::tools::read::ReadTool;
use crate::tools::test_support::{ctx, run, run_err};

/// A temp dir with `name` holding `content`, already Read by the context.
async fn read_file_setup(name: &str, content: &[u8]) -> (tempfile::TempDir, ToolContext, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    fs::write(&path, content).unwrap();
    let c = ctx(dir.path());
    run(ReadTool, &c, json!({"file_path": name})).await.unwrap();
    (dir, c, path)
}

fn edit(path: &str, old: &str, new: &str) -> Value {
    json!({"file_path": path, "old_string": old, "new_string": new})
}

#[tokio::test]
async fn replaces_unique_match_and_returns_snippet_and_diff() {
    let text = "fn a() {}\nfn b() {\n    old();\n}\nfn c() {}\n";
    let (_d, c, path) = read_file_setup("x.rs", text.as_bytes()).await;
    let out = run(EditTool, &c, edit("x.rs", "    old();", "    new();"))
        .await
        .unwrap();
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "fn a() {}\nfn b() {\n    new();\n}\nfn c() {}\n"
    );
    assert!(
        out.content.contains("     3\t    new();\n"),
        "{}",
        out.content
    );
    assert!(
        out.content.contains("     1\tfn a() {}\n"),
        "{}",
        out.content
    );
    let diff = out.display.unwrap();
    assert!(
        diff.contains("-    old();") && diff.contains("+    new();"),
        "{diff}"
    );
}

#[tokio::test]
async fn refuses_unread_file() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), "abc\n").unwrap();
    let err = run_err(EditTool, &ctx(dir.path()), edit("f.txt", "abc", "xyz")).await;
    assert!(err.contains("has not been read"), "{err}");
    assert_eq!(
        fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "abc\n"
    );
}

#[tokio::test]
async fn refuses_file_changed_since_read() {
    let (_d, c, path) = read_file_setup("f.txt", b"abc\n").await;
    fs::write(&path, "abc plus more\n").unwrap();
    let err = run_err(EditTool, &c, edit("f.txt", "abc", "xyz")).await;
    assert!(err.contains("changed since you last read it"), "{err}");
}

#[tokio::test]
async fn missing_file_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let err = run_err(EditTool, &ctx(dir.path()), edit("nope.txt", "a", "b")).await;
    assert!(err.contains("File does not exist"), "{err}");
}

#[tokio::test]
async fn empty_old_string_creates_missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let c = ctx(dir.path());
    run(EditTool, &c, edit("sub/new.txt", "", "hello\n"))
        .await
        .unwrap();
    let path = dir.path().join("sub/new.txt");
    assert_eq!(fs::read_to_string(&path).unwrap(), "hello\n");
    // A follow-up edit works without a Read.
    run(EditTool, &c, edit("sub/new.txt", "hello", "bye"))
        .await
        .unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "bye\n");
}

#[tokio::test]
async fn empty_old_string_on_non_empty_file_is_refused() {
    let (_d, c, _p) = read_file_setup("f.txt", b"content\n").await;
    let err = run_err(EditTool, &c, edit("f.txt", "", "x")).await;
    assert!(err.contains("old_string is empty"), "{err}");
}

#[tokio::test]
async fn zero_matches_is_an_error() {
    let (_d, c, path) = read_file_setup("f.txt", b"alpha\n").await;
    let err = run_err(EditTool, &c, edit("f.txt", "beta", "gamma")).await;
    assert!(err.contains("was not found"), "{err}");
    assert_eq!(fs::read_to_string(&path).unwrap(), "alpha\n");
}

#[tokio::test]
async fn several_matches_need_replace_all() {
    let (_d, c, path) = read_file_setup("f.txt", b"x = 1\nx = 1\nx = 1\n").await;
    let err = run_err(EditTool, &c, edit("f.txt", "x = 1", "x = 2")).await;
    assert!(err.contains("occurs 3 times"), "{err}");
    assert!(err.contains("replace_all"), "{err}");

    let out = run(
        EditTool,
        &c,
        json!({"file_path": "f.txt", "old_string": "x = 1", "new_string": "x = 2", "replace_all": true}),
    )
    .await
    .unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "x = 2\nx = 2\nx = 2\n");
    assert!(
        out.content.contains("replaced 3 occurrences"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn identical_strings_are_rejected() {
    let (_d, c, _p) = read_file_setup("f.txt", b"same\n").await;
    let err = run_err(EditTool, &c, edit("f.txt", "same", "same")).await;
    assert!(err.contains("identical"), "{err}");
}

#[tokio::test]
async fn crlf_file_keeps_crlf() {
    let (_d, c, path) = read_file_setup("w.txt", b"one\r\ntwo\r\nthree\r\n").await;
    // The model saw the lines without `\r` and sends LF text.
    run(EditTool, &c, edit("w.txt", "one\ntwo", "one\n2\nmore"))
        .await
        .unwrap();
    assert_eq!(
        fs::read(&path).unwrap(),
        b"one\r\n2\r\nmore\r\nthree\r\n".to_vec()
    );
}

#[tokio::test]
async fn lf_file_stays_lf() {
    let (_d, c, path) = read_file_setup("u.txt", b"a\nb\n").await;
    run(EditTool, &c, edit("u.txt", "a\nb", "c\nd"))
        .await
        .unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"c\nd\n".to_vec());
}

#[tokio::test]
async fn trailing_newline_is_kept_as_it_was() {
    // Had one: an edit that eats it gets it back.
    let (_d, c, path) = read_file_setup("a.txt", b"x\nlast\n").await;
    run(EditTool, &c, edit("a.txt", "last\n", "final"))
        .await
        .unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "x\nfinal\n");

    // Had none: an edit that adds one at the end does not add it.
    let (_d2, c2, path2) = read_file_setup("b.txt", b"x\nlast").await;
    run(EditTool, &c2, edit("b.txt", "last", "final\n"))
        .await
        .unwrap();
    assert_eq!(fs::read_to_string(&path2).unwrap(), "x\nfinal");
}

#[tokio::test]
async fn non_utf8_file_is_refused_untouched() {
    let (_d, c, path) = read_file_setup("l1.txt", b"caf\xe9 au lait\n").await;
    let err = run_err(EditTool, &c, edit("l1.txt", "lait", "sucre")).await;
    assert!(err.contains("not valid UTF-8"), "{err}");
    assert_eq!(fs::read(&path).unwrap(), b"caf\xe9 au lait\n".to_vec());
}

#[tokio::test]
async fn consecutive_edits_need_no_reread() {
    let (_d, c, path) = read_file_setup("f.txt", b"a\nb\nc\n").await;
    run(EditTool, &c, edit("f.txt", "a", "A")).await.unwrap();
    run(EditTool, &c, edit("f.txt", "c", "C")).await.unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "A\nb\nC\n");
}

#[cfg(unix)]
#[tokio::test]
async fn keeps_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let (_d, c, path) = read_file_setup("run.sh", b"echo a\n").await;
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    // Changing permissions does not change mtime or size, so the stamp holds.
    run(EditTool, &c, edit("run.sh", "echo a", "echo b"))
        .await
        .unwrap();
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o755
    );
}

#[tokio::test]
async fn an_edit_spans_lines_with_mixed_endings() {
    // First line LF, second CRLF: the model's `\n` matches either.
    let (_d, c, path) = read_file_setup("m.txt", b"one\ntwo\r\nthree\n").await;
    run(EditTool, &c, edit("m.txt", "one\ntwo\nthree", "1\n2\n3"))
        .await
        .unwrap();
    // The replacement takes the ending of the text it replaced (LF first).
    assert_eq!(fs::read(&path).unwrap(), b"1\n2\n3\n".to_vec());

    let (_d2, c2, path2) = read_file_setup("n.txt", b"a\r\nb\nc\r\n").await;
    run(EditTool, &c2, edit("n.txt", "b\nc", "B\nC"))
        .await
        .unwrap();
    assert_eq!(fs::read(&path2).unwrap(), b"a\r\nB\nC\r\n".to_vec());
}

#[tokio::test]
async fn adding_the_missing_final_newline_is_written() {
    let (_d, c, path) = read_file_setup("f.txt", b"abc").await;
    let out = run(EditTool, &c, edit("f.txt", "abc", "abc\n"))
        .await
        .unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"abc\n".to_vec());
    assert!(out.content.starts_with("Edited"), "{}", out.content);
    // And removing it on purpose.
    run(EditTool, &c, edit("f.txt", "abc\n", "abc"))
        .await
        .unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"abc".to_vec());
}

#[tokio::test]
async fn an_edit_that_changes_nothing_says_so() {
    // new differs from old only in line endings, which the file keeps.
    let (_d, c, path) = read_file_setup("f.txt", b"a\nb\n").await;
    let err = run_err(EditTool, &c, edit("f.txt", "a\nb", "a\r\nb")).await;
    assert!(err.contains("unchanged"), "{err}");
    assert_eq!(fs::read(&path).unwrap(), b"a\nb\n".to_vec());
}

#[tokio::test]
async fn special_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let c = ctx(dir.path());
    crate::safe_fs::mkfifo(&dir.path().join("pipe"));
    let err = run_err(EditTool, &c, edit("pipe", "a", "b")).await;
    assert!(
        err.contains("FIFO") && err.contains("regular file"),
        "{err}"
    );
    std::os::unix::fs::symlink("/dev/null", dir.path().join("null")).unwrap();
    let err = run_err(EditTool, &c, edit("null", "", "x")).await;
    assert!(err.contains("character device"), "{err}");
}

#[tokio::test]
async fn files_over_the_size_cap_are_refused_without_being_loaded() {
    let dir = tempfile::tempdir().unwrap();
    let c = ctx(dir.path());
    let path = dir.path().join("huge.log");
    // Sparse: 65 MiB on paper, nothing on disk.
    let f = fs::File::create(&path).unwrap();
    f.set_len(super::super::write::MAX_EDIT_FILE_BYTES + 1024 * 1024)
        .unwrap();
    drop(f);
    c.record_read(&path);
    let err = run_err(EditTool, &c, edit("huge.log", "a", "b")).await;
    assert!(
        err.contains("too large for Edit") && err.contains("sed"),
        "{err}"
    );
    assert_eq!(
        fs::metadata(&path).unwrap().len(),
        super::super::write::MAX_EDIT_FILE_BYTES + 1024 * 1024
    );
}
