//! Tests for NotebookEdit on real notebook files.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::*;
use crate::tools::test_support::{ctx, run, run_err};

fn sample() -> Value {
    json!({
        "cells": [
            {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["# Title\n", "text"]},
            {"cell_type": "code", "id": "c1", "metadata": {"tags": ["x"]}, "execution_count": 3,
             "outputs": [{"output_type": "stream", "name": "stdout", "text": ["hi\n"]}],
             "source": ["print('hi')"]}
        ],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5
    })
}

fn setup() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nb.ipynb");
    fs::write(&path, serde_json::to_string_pretty(&sample()).unwrap()).unwrap();
    (dir, path)
}

/// Parses the file back and checks the notebook invariants.
fn load_valid(path: &Path) -> Value {
    let nb: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(nb["nbformat"], 4);
    assert_eq!(nb["metadata"]["kernelspec"]["name"], "python3");
    for cell in nb["cells"].as_array().unwrap() {
        let kind = cell["cell_type"].as_str().unwrap();
        assert!(cell["source"].is_array(), "source must be a list: {cell}");
        assert!(cell["metadata"].is_object());
        if kind == "code" {
            assert!(
                cell["outputs"].is_array(),
                "code cell without outputs: {cell}"
            );
            assert!(cell.get("execution_count").is_some());
        } else {
            assert!(
                cell.get("outputs").is_none(),
                "markdown cell with outputs: {cell}"
            );
        }
    }
    nb
}

#[tokio::test]
async fn replace_code_cell_clears_outputs_and_keeps_metadata() {
    let (dir, path) = setup();
    run(
        NotebookEditTool,
        &ctx(dir.path()),
        json!({"notebook_path": "nb.ipynb", "cell_id": "c1", "new_source": "x = 1\nprint(x)\n"}),
    )
    .await
    .unwrap();
    let nb = load_valid(&path);
    let cell = &nb["cells"][1];
    assert_eq!(cell["source"], json!(["x = 1\n", "print(x)\n"]));
    assert_eq!(cell["outputs"], json!([]));
    assert_eq!(cell["execution_count"], Value::Null);
    assert_eq!(cell["metadata"]["tags"], json!(["x"]));
    assert_eq!(nb["cells"][0]["source"], json!(["# Title\n", "text"]));
}

#[tokio::test]
async fn replace_by_index_and_change_type() {
    let (dir, path) = setup();
    run(
        NotebookEditTool,
        &ctx(dir.path()),
        json!({"notebook_path": "nb.ipynb", "cell_id": "1", "new_source": "now prose", "cell_type": "markdown"}),
    )
    .await
    .unwrap();
    let nb = load_valid(&path);
    assert_eq!(nb["cells"][1]["cell_type"], "markdown");
    assert_eq!(nb["cells"][1]["source"], json!(["now prose"]));
}

#[tokio::test]
async fn insert_after_cell_and_at_start() {
    let (dir, path) = setup();
    let c = ctx(dir.path());
    let out = run(
        NotebookEditTool,
        &c,
        json!({"notebook_path": "nb.ipynb", "cell_id": "intro", "new_source": "import os", "cell_type": "code", "edit_mode": "insert"}),
    )
    .await
    .unwrap();
    assert!(out.content.contains("position 1"), "{}", out.content);
    run(
        NotebookEditTool,
        &c,
        json!({"notebook_path": "nb.ipynb", "new_source": "first", "cell_type": "markdown", "edit_mode": "insert"}),
    )
    .await
    .unwrap();
    let nb = load_valid(&path);
    let cells = nb["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 4);
    assert_eq!(cells[0]["source"], json!(["first"]));
    assert_eq!(cells[1]["id"], "intro");
    assert_eq!(cells[2]["source"], json!(["import os"]));
    assert_eq!(cells[2]["outputs"], json!([]));
    assert_eq!(cells[2]["execution_count"], Value::Null);
    // nbformat 4.5 notebooks get cell ids.
    assert_eq!(cells[2]["id"].as_str().unwrap().len(), 8);
}

#[tokio::test]
async fn delete_cell() {
    let (dir, path) = setup();
    run(
        NotebookEditTool,
        &ctx(dir.path()),
        json!({"notebook_path": "nb.ipynb", "cell_id": "intro", "edit_mode": "delete"}),
    )
    .await
    .unwrap();
    let nb = load_valid(&path);
    assert_eq!(nb["cells"].as_array().unwrap().len(), 1);
    assert_eq!(nb["cells"][0]["id"], "c1");
}

#[tokio::test]
async fn errors_leave_notebook_unchanged() {
    let (dir, path) = setup();
    let before = fs::read_to_string(&path).unwrap();
    let c = ctx(dir.path());
    let err = run_err(
        NotebookEditTool,
        &c,
        json!({"notebook_path": "nb.ipynb", "cell_id": "nope", "new_source": "x"}),
    )
    .await;
    assert!(err.contains("No cell has the id \"nope\""), "{err}");
    let err = run_err(
        NotebookEditTool,
        &c,
        json!({"notebook_path": "nb.ipynb", "cell_id": "7", "new_source": "x"}),
    )
    .await;
    assert!(err.contains("out of range"), "{err}");
    let err = run_err(
        NotebookEditTool,
        &c,
        json!({"notebook_path": "nb.ipynb", "new_source": "x", "edit_mode": "insert"}),
    )
    .await;
    assert!(err.contains("cell_type is required"), "{err}");
    assert_eq!(fs::read_to_string(&path).unwrap(), before);
}

#[tokio::test]
async fn refuses_non_notebook_and_invalid_json() {
    let dir = tempfile::tempdir().unwrap();
    let c = ctx(dir.path());
    let err = run_err(
        NotebookEditTool,
        &c,
        json!({"notebook_path": "a.py", "cell_id": "0", "new_source": "x"}),
    )
    .await;
    assert!(err.contains("not a Jupyter notebook"), "{err}");
    fs::write(dir.path().join("bad.ipynb"), "{not json").unwrap();
    let err = run_err(
        NotebookEditTool,
        &c,
        json!({"notebook_path": "bad.ipynb", "cell_id": "0", "new_source": "x"}),
    )
    .await;
    assert!(err.contains("not valid notebook JSON"), "{err}");
}

#[tokio::test]
async fn a_fifo_named_like_a_notebook_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let c = ctx(dir.path());
    crate::safe_fs::mkfifo(&dir.path().join("nb.ipynb"));
    let err = run_err(
        NotebookEditTool,
        &c,
        json!({"notebook_path": "nb.ipynb", "cell_id": "c1", "new_source": "x"}),
    )
    .await;
    assert!(err.contains("FIFO"), "{err}");
    assert!(crate::safe_fs::special_file_kind(&dir.path().join("nb.ipynb")).is_some());
}
