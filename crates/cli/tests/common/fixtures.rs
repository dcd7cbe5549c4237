//! Inputs and steps several suites share word for word: the two-question
//! AskUserQuestion set, a run fed on stdin, a plan-mode stream session with
//! a stand-in editor, a finished transcript written straight to disk. Kept
//! here so a change to one of them is made once.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use catui_core::session::{EntryBody, Redactor, TranscriptWriter};
use catui_protocol::{Message, PermissionMode};
use catui_testkit::{MockServer, Script};
use serde_json::{Value, json};

use super::{Sandbox, StreamSession};

/// Two questions, one of a single choice (worded `first`, about where the
/// cache lives) and one of several (the platforms that matter).
pub fn cache_questions(first: &str) -> Value {
    json!({"questions": [
        {"question": first, "header": "Storage",
         "options": [{"label": "Memory", "description": "fast, lost on restart"},
                     {"label": "Disk", "description": "kept across restarts"}],
         "multiSelect": false},
        {"question": "Which platforms matter?", "header": "Platforms",
         "options": [{"label": "Linux", "description": ""},
                     {"label": "macOS", "description": ""},
                     {"label": "Windows", "description": ""}],
         "multiSelect": true}
    ]})
}

/// Runs `cmd` with `input` written to its stdin (then closed), stdout and
/// stderr captured.
pub fn output_with_stdin(cmd: &mut Command, input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// A stream-json session in plan mode with `editor` as `$EDITOR` and no
/// terminal, against a mock with no turns; returns the mock (keep it
/// alive), the session and the plan file its init line names.
pub fn plan_session_with_editor(
    sb: &Sandbox,
    editor: &Path,
) -> (MockServer, StreamSession, String) {
    let server = super::mock(Script::new());
    let mut cmd = sb.catui(&server);
    cmd.env("EDITOR", editor);
    super::without_terminal(&mut cmd);
    let mut s = StreamSession::start(cmd, &["--permission-mode", "plan"]);
    let init = s.wait_for("init", |v| v["subtype"] == "init");
    let plan_file = init["plan_file"].as_str().unwrap().to_string();
    (server, s, plan_file)
}

/// Writes a finished session into the sandbox's transcript folder: the
/// user's `prompt`, a switch to `mode` if given, and the answer "ok".
pub fn write_transcript(
    sb: &Sandbox,
    id: &str,
    prompt: &str,
    slug: Option<&str>,
    mode: Option<PermissionMode>,
) -> std::path::PathBuf {
    let mut w = TranscriptWriter::for_session(&sb.config(), &sb.project(), id)
        .unwrap()
        .with_redactor(Redactor::default());
    w.set_slug(slug.map(str::to_string));
    let mut bodies = vec![EntryBody::user(Message::user_text(prompt))];
    if let Some(mode) = mode {
        bodies.push(EntryBody::PermissionMode {
            mode,
            pre_plan_mode: None,
        });
    }
    bodies.push(EntryBody::Assistant {
        message: Message::assistant_text("ok"),
        usage: None,
        model: None,
    });
    w.append_batch(bodies).unwrap();
    w.path().to_path_buf()
}

/// Sends `s` the user's "Run these." and answers each tool permission
/// prompt with what `reply` makes of it, until the result line, which must
/// read "done".
pub fn run_these_answering(s: &mut StreamSession, mut reply: impl FnMut(&Value) -> Value) {
    s.send_user("Run these.");
    loop {
        let v = s.wait_for("a prompt or the result", |v| {
            v["type"] == "control_request" || v["type"] == "result"
        });
        if v["type"] == "result" {
            assert_eq!(v["result"], "done", "{v}");
            break;
        }
        if v["request"]["subtype"] == "can_use_tool" {
            s.send(reply(&v));
        }
    }
}

/// The answer to a `can_use_tool` prompt `ask`: allowed as asked, or
/// denied with "The user said no.".
pub fn answer_can_use_tool(ask: &Value, approve: bool) -> Value {
    let id = ask["request_id"].as_str().unwrap();
    let response = if approve {
        json!({"behavior": "allow", "updatedInput": ask["request"]["input"]})
    } else {
        json!({"behavior": "deny", "message": "The user said no."})
    };
    json!({"type": "control_response",
        "response": {"subtype": "success", "request_id": id, "response": response}})
}
