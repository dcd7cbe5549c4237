//! `catui "prompt"` without a terminal: the binary falls back to headless
//! text mode (as with `-p`) and says so on stderr, keeping stdout for the
//! answer.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::io::Write;
use std::process::Stdio;

use catui_testkit::{Script, Turn};
use common::Sandbox;

const NOTICE: &str = "not attached to a terminal; running headless as with -p";

#[test]
fn a_prompt_without_a_terminal_runs_like_print_mode() {
    let sb = Sandbox::new();
    let server = common::mock(Script::new().turn(Turn::text("Answer without a TTY.")));
    // `output()` pipes stdout and stderr and gives no stdin: no terminal.
    let out = sb.catui(&server).arg("what is here?").output().unwrap();
    let stderr = common::stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(common::stdout(&out).trim(), "Answer without a TTY.");
    assert!(stderr.contains(NOTICE), "{stderr}");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].last_user_typed().as_deref(), Some("what is here?"));
    // Nobody can answer prompts, exactly as in plain -p.
    assert!(
        !reqs[0].tool_names().iter().any(|t| t == "EnterPlanMode"),
        "{:?}",
        reqs[0].tool_names()
    );
}

#[test]
fn without_a_prompt_argument_stdin_is_the_prompt() {
    let sb = Sandbox::new();
    let server = common::mock(Script::new().turn(Turn::text("Read from stdin.")));
    let mut child = sb
        .catui(&server)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"piped question\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = common::stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains(NOTICE), "{stderr}");
    assert_eq!(common::stdout(&out).trim(), "Read from stdin.");
    assert_eq!(
        server.requests()[0].last_user_typed().as_deref(),
        Some("piped question\n")
    );
}

#[test]
fn with_print_there_is_no_notice() {
    let sb = Sandbox::new();
    let server = common::mock(Script::new().turn(Turn::text("ok")));
    let out = sb.run(&server, ["-p", "x"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!common::stderr(&out).contains(NOTICE));
}
