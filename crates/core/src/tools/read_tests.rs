//! Tests for the Read tool, on real files in temp dirs.

use std::fs;

use serde_json::json;

use super::*;
use crate::tools::FileStamp;
use crate::tools::test_support::{ctx, run, run_err};

#[tokio::test]
async fn numbers_lines_like_cat_n_and_records_stamp() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.txt");
    fs::write(&path, "alpha\nbeta\r\ngamma").unwrap();
    let c = ctx(dir.path());
    let out = run(ReadTool, &c, json!({"file_path": "a.txt"}))
        .await
        .unwrap();
    assert_eq!(out.content, "     1\talpha\n     2\tbeta\n     3\tgamma\n");
    assert_eq!(c.read_stamp(&path), FileStamp::of(&path));
}

#[tokio::test]
async fn window_with_offset_and_limit_says_how_to_read_more() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.txt");
    let text: String = (1..=50).map(|i| format!("line {i}\n")).collect();
    fs::write(&path, text).unwrap();
    let c = ctx(dir.path());
    let out = run(
        ReadTool,
        &c,
        json!({"file_path": path.to_str().unwrap(), "offset": 10, "limit": 3}),
    )
    .await
    .unwrap();
    assert!(
        out.content
            .starts_with("    10\tline 10\n    11\tline 11\n    12\tline 12\n")
    );
    assert!(
        out.content
            .contains("(Showing lines 10-12 of 50. To read more, call Read again with offset=13.)"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn default_window_is_2000_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.txt");
    let text: String = (1..=2500).map(|i| format!("{i}\n")).collect();
    fs::write(&path, text).unwrap();
    let out = run(ReadTool, &ctx(dir.path()), json!({"file_path": "big.txt"}))
        .await
        .unwrap();
    assert!(out.content.contains("  2000\t2000\n"));
    assert!(!out.content.contains("\t2001\n"));
    assert!(out.content.contains("of 2500"));
    assert!(out.content.contains("offset=2001"));
}

#[tokio::test]
async fn offset_past_end_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("s.txt"), "one\ntwo\n").unwrap();
    let out = run(
        ReadTool,
        &ctx(dir.path()),
        json!({"file_path": "s.txt", "offset": 9}),
    )
    .await
    .unwrap();
    assert!(
        out.content
            .contains("has 2 lines, so offset 9 is past its end")
    );
}

#[tokio::test]
async fn long_lines_are_cut_with_marker() {
    let dir = tempfile::tempdir().unwrap();
    let long = "x".repeat(2500);
    fs::write(dir.path().join("l.txt"), format!("{long}\nshort\n")).unwrap();
    let out = run(ReadTool, &ctx(dir.path()), json!({"file_path": "l.txt"}))
        .await
        .unwrap();
    let first = out.content.lines().next().unwrap();
    assert!(first.contains("[line cut: 2500 characters in all]"));
    assert_eq!(first.matches('x').count(), 2000);
    assert!(out.content.contains("     2\tshort\n"));
}

#[tokio::test]
async fn empty_file_is_reported_and_counts_as_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("e.txt");
    fs::write(&path, "").unwrap();
    let c = ctx(dir.path());
    let out = run(ReadTool, &c, json!({"file_path": "e.txt"}))
        .await
        .unwrap();
    assert!(out.content.contains("exists but is empty"));
    assert!(c.read_stamp(&path).is_some());
}

#[tokio::test]
async fn binary_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("b.bin"), b"ELF\0\0\x01\x02rest").unwrap();
    let err = run_err(ReadTool, &ctx(dir.path()), json!({"file_path": "b.bin"})).await;
    assert!(err.contains("binary file"), "{err}");
}

#[tokio::test]
async fn image_is_described_with_dimensions() {
    let dir = tempfile::tempdir().unwrap();
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    png.extend_from_slice(&32u32.to_be_bytes());
    png.extend_from_slice(&16u32.to_be_bytes());
    png.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
    fs::write(dir.path().join("pic.PNG"), &png).unwrap();
    let out = run(ReadTool, &ctx(dir.path()), json!({"file_path": "pic.PNG"}))
        .await
        .unwrap();
    assert!(
        out.content.contains("a PNG image (32x16 pixels"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn pdf_is_described() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("doc.pdf"),
        b"%PDF-1.4\n<< /Type /Page >>\n\0\0binary",
    )
    .unwrap();
    let out = run(ReadTool, &ctx(dir.path()), json!({"file_path": "doc.pdf"}))
        .await
        .unwrap();
    assert!(
        out.content
            .contains("a PDF document (PDF 1.4, about 1 page"),
        "{}",
        out.content
    );
}

#[tokio::test]
async fn directory_is_refused_with_advice() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("src")).unwrap();
    let err = run_err(ReadTool, &ctx(dir.path()), json!({"file_path": "src"})).await;
    assert!(err.contains("is a directory"), "{err}");
    assert!(err.contains("Glob"), "{err}");
}

#[tokio::test]
async fn missing_file_suggests_similar_names() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("config.toml"), "x").unwrap();
    fs::write(dir.path().join("unrelated.md"), "x").unwrap();
    let err = run_err(
        ReadTool,
        &ctx(dir.path()),
        json!({"file_path": "config.json"}),
    )
    .await;
    assert!(err.contains("File does not exist"), "{err}");
    assert!(err.contains("config.toml"), "{err}");
    assert!(!err.contains("unrelated.md"), "{err}");

    let err = run_err(
        ReadTool,
        &ctx(dir.path()),
        json!({"file_path": "nodir/x.rs"}),
    )
    .await;
    assert!(err.contains("does not exist either"), "{err}");
}

#[tokio::test]
async fn unknown_fields_and_zero_limit_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let err = run_err(
        ReadTool,
        &ctx(dir.path()),
        json!({"file_path": "a", "lines": 3}),
    )
    .await;
    assert!(err.contains("unknown field"), "{err}");
    let err = run_err(
        ReadTool,
        &ctx(dir.path()),
        json!({"file_path": "a", "limit": 0}),
    )
    .await;
    assert!(err.contains("limit must be at least 1"), "{err}");
}

#[test]
fn numbered_snippet_strips_cr() {
    let s = numbered_snippet(7, ["a\r", "b"].into_iter());
    assert_eq!(s, "     7\ta\n     8\tb\n");
}

#[tokio::test]
async fn fifos_and_devices_are_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    crate::safe_fs::mkfifo(&dir.path().join("pipe"));
    let c = ctx(dir.path());
    // Nobody writes to the FIFO: opening it for reading would wait forever.
    let err = run_err(ReadTool, &c, json!({"file_path": "pipe"})).await;
    assert!(
        err.contains("FIFO") && err.contains("not a regular file"),
        "{err}"
    );
    // /dev/zero has size 0 but never ends: it is not "an empty file".
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero")).unwrap();
    let err = run_err(ReadTool, &c, json!({"file_path": "zero"})).await;
    assert!(err.contains("character device"), "{err}");
    assert!(c.read_stamp(&dir.path().join("pipe")).is_none());
}

#[tokio::test]
async fn a_giant_line_is_cut_while_reading_and_counted_whole() {
    let dir = tempfile::tempdir().unwrap();
    // 6 MiB on one line, then two short lines.
    let mut text = "é".repeat(3 * 1024 * 1024);
    text.push_str("\nsecond\nthird");
    fs::write(dir.path().join("big.txt"), &text).unwrap();
    let out = run(ReadTool, &ctx(dir.path()), json!({"file_path": "big.txt"}))
        .await
        .unwrap();
    let first = out.content.lines().next().unwrap();
    assert_eq!(first.matches('é').count(), 2000);
    assert!(
        first.contains(&format!(
            "[line cut: {} characters in all]",
            3 * 1024 * 1024
        )),
        "{}",
        &first[first.len().saturating_sub(80)..]
    );
    assert!(out.content.contains("     2\tsecond\n     3\tthird\n"));
}

#[test]
fn an_interrupted_scan_stops() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.txt");
    fs::write(&path, "a\n".repeat(100_000)).unwrap();
    let err = crate::tools::read::read_file(&path, 1, 10, &|| true).unwrap_err();
    assert_eq!(err, crate::tools::ToolError::Cancelled);
}

#[tokio::test]
async fn pages_is_for_pdfs_only() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "text\n").unwrap();
    let err = run_err(
        ReadTool,
        &ctx(dir.path()),
        json!({"file_path": "a.txt", "pages": "1-2"}),
    )
    .await;
    assert!(err.contains("PDF files only"), "{err}");
}

#[test]
fn the_texts_give_the_default_line_count_of_the_code() {
    let schema = serde_json::to_value(schemars::schema_for!(ReadInput)).unwrap();
    let limit_doc = schema["properties"]["limit"]["description"]
        .as_str()
        .unwrap();
    assert!(
        limit_doc.contains(&format!("(default {DEFAULT_LIMIT})")),
        "{limit_doc}"
    );
    assert!(
        ReadTool
            .description()
            .contains(&format!("Up to {DEFAULT_LIMIT} lines"))
    );
}
