//! Reliability end to end, through the real binary: hostile files in the
//! project, interrupted and signalled sessions, failing transcript writes,
//! shared sessions and broken input never hang catui, leave a process
//! behind or lose something silently.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use catui_testkit::{Block, MockServer, Script, Turn};
use common::{Sandbox, output_within};
use serde_json::json;

fn mkfifo(path: &std::path::Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn a_fifo_in_the_project_is_refused_by_the_file_tools_without_hanging() {
    let sb = Sandbox::new();
    sb.write("notes.txt", "the needle is here\n");
    let pipe = sb.project().join("pipe");
    mkfifo(&pipe);
    std::os::unix::fs::symlink("/dev/zero", sb.project().join("zero.txt")).unwrap();
    let server = MockServer::start_blocking(
        Script::new()
            .turn(Turn::blocks(vec![
                Block::tool_use("r1", "Read", json!({"file_path": "pipe"})),
                Block::tool_use("r2", "Read", json!({"file_path": "zero.txt"})),
                Block::tool_use("g1", "Grep", json!({"pattern": "needle"})),
                Block::tool_use("g2", "Glob", json!({"pattern": "*"})),
            ]))
            .turn(Turn::text("done")),
    )
    .unwrap();
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "look around"]);
    let out = output_within(cmd, b"", 60);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reqs = server.requests();
    let (read_pipe, is_error) = common::result_of(&reqs[1], "r1");
    assert!(is_error && read_pipe.contains("FIFO"), "{read_pipe}");
    let (read_zero, is_error) = common::result_of(&reqs[1], "r2");
    assert!(
        is_error && read_zero.contains("character device"),
        "{read_zero}"
    );
    let (grep, _) = common::result_of(&reqs[1], "g1");
    assert!(
        grep.contains("notes.txt") && !grep.contains("pipe"),
        "{grep}"
    );
    let (glob, _) = common::result_of(&reqs[1], "g2");
    assert!(
        glob.contains("notes.txt") && !glob.contains("pipe"),
        "{glob}"
    );
}
