//! "Run as a dry run" at a default-mode permission prompt (issue 50, item
//! 4), through the real binary: the stream-json answer
//! `{"behavior":"allow","dryRun":true}` and the TUI's `d` (in tmux) run
//! the command in a fresh throwaway copy; the model's result says it ran
//! dry and lists what it would have changed; the project is untouched and
//! the copy is gone once the command ended. Where dry runs are off the
//! answer runs nothing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use catui_testkit::{Script, Turn};
use common::tmux::*;
use common::{Sandbox, StreamSession, result_of};

use super::dry_run::{scratch_areas, tree_of};
use serde_json::{Value, json};

const HEADER: &str = "Dry run (the user chose it at the permission prompt): this command ran \
    in a throwaway copy of the project";
const COMMAND: &str = "touch x && echo hi > y && rm keep.txt && echo did-it";

/// Content, mode and times of everything beneath `root`.
fn tree(root: &Path) -> BTreeMap<PathBuf, String> {
    tree_of(root, false)
}

fn answer(ask: &Value, body: Value) -> Value {
    json!({"type":"control_response","response":{"subtype":"success",
        "request_id":ask["request_id"],"response":body}})
}

/// A default-mode session asked to run [`COMMAND`], answered with `body`;
/// returns the model's tool result, whether it was an error, and the
/// scratch areas left once the turn ended.
fn ask_and_answer(sb: &Sandbox, body: Value) -> (String, bool, Vec<PathBuf>) {
    let tmp = tempfile::tempdir().unwrap();
    let server = common::mock(
        Script::new()
            .turn(common::bash("b1", COMMAND))
            .turn(Turn::text("Noted.")),
    );
    let mut cmd = sb.catui(&server);
    cmd.env("TMPDIR", tmp.path());
    let mut s = StreamSession::start(cmd, &["--permission-mode", "default"]);
    s.wait_for("init", |v| v["subtype"] == "init");
    s.send_user("Make the files.");
    let ask = s.wait_type("control_request");
    assert_eq!(ask["request"]["subtype"], "can_use_tool", "{ask}");
    assert_eq!(ask["request"]["tool_name"], "Bash", "{ask}");
    s.send(answer(&ask, body));
    let result = s.wait_type("result");
    assert_eq!(result["subtype"], "success", "{result}");
    let left = scratch_areas(tmp.path());
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    let (text, is_error) = result_of(server.requests().last().unwrap(), "b1");
    (text, is_error, left)
}

#[test]
fn a_dry_run_answer_over_stream_json_runs_in_a_copy_and_changes_nothing() {
    let sb = Sandbox::new();
    sb.write("keep.txt", "keep me\n");
    let before = tree(&sb.project());
    let (text, is_error, left) = ask_and_answer(&sb, json!({"behavior": "allow", "dryRun": true}));
    assert!(!is_error, "{text}");
    assert!(text.starts_with(HEADER), "{text}");
    // It really ran (in the copy) ...
    common::assert_contains(&text, "did-it");
    // ... and the model is told what it would have changed.
    assert!(
        text.ends_with(
            "Changes in the copy: 2 added, 0 modified, 1 deleted:\n+ x\n+ y\n- keep.txt"
        ),
        "{text}"
    );
    // The project is untouched; the copy went when the command ended.
    assert_eq!(tree(&sb.project()), before);
    assert_eq!(left, Vec::<PathBuf>::new());
}

#[test]
fn a_dry_run_answer_where_dry_runs_are_off_runs_nothing() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"dryRun": false}"#);
    sb.write("keep.txt", "keep me\n");
    let before = tree(&sb.project());
    let (text, is_error, _) = ask_and_answer(&sb, json!({"behavior": "allow", "dryRun": true}));
    assert!(is_error, "{text}");
    assert!(
        text.contains("as a dry run") && text.contains("it was not run"),
        "{text}"
    );
    common::assert_lacks(&text, "did-it");
    assert_eq!(tree(&sb.project()), before);
}

#[test]
fn d_in_the_permission_dialog_runs_the_command_dry() {
    let s = tmux_session(
        Script::new()
            .turn(common::bash("b1", COMMAND))
            .turn(Turn::text("It would have made x and y.")),
    );
    s.sb.write("keep.txt", "keep me\n");
    let before = tree(&s.sb.project());
    launch(&s);
    s.tmux.submit("make the files");
    let screen = s.tmux.wait_text("Do you want to proceed?");
    common::assert_contains(&screen, "4. Run as a dry run");
    common::assert_contains(&screen, "d dry run");
    s.tmux.type_text("d");
    s.tmux.wait_text("It would have made x and y.");
    let (text, is_error) = result_of(s.server.requests().last().unwrap(), "b1");
    assert!(!is_error && text.starts_with(HEADER), "{text}");
    common::assert_contains(&text, "did-it");
    common::assert_contains(&text, "+ x\n+ y\n- keep.txt");
    assert_eq!(tree(&s.sb.project()), before);
    quit_and_check_terminal(&s);
    assert_eq!(tree(&s.sb.project()), before);
}
