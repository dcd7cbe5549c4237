//! Nothing catui prints outside its terminal interface can drive the
//! user's terminal: escape sequences in the model's answer, a tool's
//! summary or error, a plan file or a server's error reach stdout and
//! stderr as plain text (issue 47, item 8). The real binary against the
//! testkit mock model; every case carries OSC 52 (clipboard), OSC 2
//! (title), CSI (erase, colour), DCS and C1 forms.
//!
//! `catui "prompt"` without a terminal: the binary falls back to headless
//! text mode (as with `-p`) and says so on stderr, keeping stdout for the
//! answer.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::{Sandbox, json_lines, plans_dir, writes_plan_then_exits};

/// Text from outside with every kind of sequence a terminal acts on.
const HOSTILE: &str = "Done.\x1b]52;c;cm0gLXJmIH4=\x07 \x1b]2;pwned\x1b\\\x1b[2J\x1b[31mred\x1b[0m \
                       \u{9d}52;c;QUFB\u{9c}\x1bP+q544e\x1b\\\x07\x08end\r";
/// What of it is text.
const VISIBLE: &str = "Done. red end";

/// Fails if `bytes` hold anything a terminal acts on: ESC, BEL, BS, CR,
/// DEL or a C1 control (UTF-8 encoded; a raw byte would not be UTF-8 and
/// shows as U+FFFD, which the text assertions catch).
fn assert_inert(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let bad: Vec<char> = text
        .chars()
        .filter(|c| c.is_control() && *c != '\n' && *c != '\t')
        .collect();
    assert!(
        bad.is_empty(),
        "{what} holds control characters {bad:?}: {text:?}"
    );
}

#[test]
fn the_answer_of_a_text_run_reaches_stdout_without_its_sequences() {
    let (sb, server) = common::with_mock(Script::new().turn(Turn::text(HOSTILE)));
    let out = sb.run(&server, ["-p", "hi"]);
    assert_eq!(out.status.code(), Some(0));
    assert_inert("stdout", &out.stdout);
    assert_eq!(common::stdout(&out).trim(), VISIBLE);
}

/// JSON output keeps the answer's value (a JSON reader gets every byte
/// back) while its text holds no raw control: C1 controls, which a JSON
/// encoder leaves raw, are escaped too.
#[test]
fn json_and_stream_json_keep_the_value_and_hold_no_raw_control() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::text(HOSTILE))
            .turn(Turn::text(HOSTILE)),
    );
    for format in ["json", "stream-json"] {
        let mut cmd = sb.catui(&server);
        cmd.args(["-p", "hi", "--output-format", format]);
        if format == "stream-json" {
            cmd.arg("--verbose");
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{format}");
        assert_inert(format, &out.stdout);
        let result = json_lines(&out.stdout).pop().unwrap();
        assert_eq!(result["result"], HOSTILE, "{format}");
    }
}

/// `--verbose` prints each tool call's summary and a failed call's error
/// on stderr; both carry the model's input.
#[test]
fn verbose_tool_summaries_and_errors_reach_stderr_without_their_sequences() {
    let sb = Sandbox::new();
    let path = format!(
        "{}/missing\x1b]52;c;QUFB\x07\u{9b}2J.txt",
        sb.project().display()
    );
    let server = common::mock(
        Script::new()
            .turn(common::read("r", &path))
            .turn(Turn::text("ok")),
    );
    let out = sb.run(&server, ["-p", "read it", "--verbose"]);
    assert_eq!(out.status.code(), Some(0));
    let err = common::stderr(&out);
    assert!(err.contains("missing"), "the summary is printed: {err}");
    assert!(err.contains("✗"), "the error is printed: {err}");
    assert_inert("stderr", &out.stderr);
    assert_inert("stdout", &out.stdout);
}

/// A server's error message is printed as catui's error.
#[test]
fn a_server_error_reaches_stderr_without_its_sequences() {
    let sb = Sandbox::new();
    let server =
        common::mock(Script::new().turn(Turn::error_status(400, format!("bad request {HOSTILE}"))));
    let out = sb.run(&server, ["-p", "hi"]);
    assert_ne!(out.status.code(), Some(0));
    let err = common::stderr(&out);
    common::assert_contains(&err, "bad request Done.");
    assert_inert("stderr", &out.stderr);
}

/// The plan a headless planning run prints, and the plan file as `catui
/// plans list` and `catui plans show` print it.
#[test]
fn plans_printed_by_a_planning_run_and_by_plans_show_and_list_are_inert() {
    let sb = Sandbox::new();
    let plan = format!("# Plan\x1b]2;title\x07 one\n\n1. {HOSTILE}\n");
    let server = common::mock(writes_plan_then_exits(&plans_dir(&sb), &plan));
    let out = sb.run(&server, ["-p", "--permission-mode", "plan", "plan it"]);
    common::assert_ok(&out);
    let printed = common::stdout(&out);
    common::assert_contains(&printed, "# Plan one\n\n1. Done. red end");
    assert_inert("the planning run's stdout", &out.stdout);

    let slug = std::fs::read_dir(sb.config().join("plans"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find_map(|n| n.strip_suffix(".md").map(str::to_string))
        .unwrap();
    let shown = sb.bare().args(["plans", "show", &slug]).output().unwrap();
    assert_eq!(shown.status.code(), Some(0));
    let text = common::stdout(&shown);
    assert!(
        text.starts_with("# Plan one\n\n1. Done. red end\n"),
        "{text}"
    );
    assert_inert("plans show", &shown.stdout);

    let listed = sb.bare().args(["plans", "list"]).output().unwrap();
    assert_eq!(listed.status.code(), Some(0));
    let text = common::stdout(&listed);
    common::assert_contains(&text, "# Plan one");
    assert_inert("plans list", &listed.stdout);
}

const NOTICE: &str = "not attached to a terminal; running headless as with -p";

#[test]
fn a_prompt_without_a_terminal_runs_like_print_mode() {
    let (sb, server) = common::with_mock(Script::new().turn(Turn::text("Answer without a TTY.")));
    // `output()` pipes stdout and stderr and gives no stdin: no terminal.
    let out = sb.catui(&server).arg("what is here?").output().unwrap();
    let stderr = common::stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(common::stdout(&out).trim(), "Answer without a TTY.");
    common::assert_contains(&stderr, NOTICE);
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
    let (sb, server) = common::with_mock(Script::new().turn(Turn::text("Read from stdin.")));
    let out = common::fixtures::output_with_stdin(&mut sb.catui(&server), b"piped question\n");
    let stderr = common::stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    common::assert_contains(&stderr, NOTICE);
    assert_eq!(common::stdout(&out).trim(), "Read from stdin.");
    assert_eq!(
        server.requests()[0].last_user_typed().as_deref(),
        Some("piped question\n")
    );
}

#[test]
fn with_print_there_is_no_notice() {
    let (sb, server) = common::with_mock(Script::new().turn(Turn::text("ok")));
    let out = sb.run(&server, ["-p", "x"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!common::stderr(&out).contains(NOTICE));
}
