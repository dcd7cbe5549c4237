//! Helpers for driving the real `catui` binary against the testkit mock.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use assert_cmd::cargo::CommandCargoExt;
use catui_testkit::{MockServer, Turn};
use serde_json::Value;

pub mod broker;
pub mod fixtures;
pub mod review;
pub mod sdk_cases;
pub mod team_plan;
pub mod tmux;

/// `catui` in `project` with `home` as its HOME and `config` as its config
/// dir, against `server` as `model` with `key`; git's system and global
/// config ignored, the test run's sandbox switch passed on.
pub fn catui_at(
    project: &Path,
    home: &Path,
    config: &Path,
    server: &MockServer,
    model: &str,
    key: &str,
) -> Command {
    let mut cmd = Command::cargo_bin("catui").unwrap();
    cmd.current_dir(project)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("CATUI_CONFIG_DIR", config)
        .env("CATUI_RETRY_BASE_MS", "1")
        .env("CATUI_MODEL", model)
        .env("ANTHROPIC_API_KEY", key)
        .env("ANTHROPIC_BASE_URL", server.url());
    if let Some(disable) = std::env::var_os("CATUI_SANDBOX_DISABLE") {
        cmd.env("CATUI_SANDBOX_DISABLE", disable);
    }
    cmd
}

/// The mock model server playing `script` (every test's model).
pub fn mock(script: catui_testkit::Script) -> MockServer {
    MockServer::start_blocking(script).unwrap()
}

/// A fresh [`Sandbox`] and the mock model playing `script`.
pub fn with_mock(script: catui_testkit::Script) -> (Sandbox, MockServer) {
    (Sandbox::new(), mock(script))
}

/// Asserts that `out` exited with 0, showing its stderr when it did not.
#[track_caller]
pub fn assert_ok(out: &std::process::Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Asserts that `text` contains `needle`, showing `text` when it does not.
#[track_caller]
pub fn assert_contains(text: &str, needle: &str) {
    assert!(text.contains(needle), "{text}");
}

/// Asserts that `text` does not contain `needle`, showing `text` when it does.
#[track_caller]
pub fn assert_lacks(text: &str, needle: &str) {
    assert!(!text.contains(needle), "{text}");
}

/// The text of a message's `content`: a string as it is, text blocks
/// joined by `sep`, anything else empty.
pub fn text_of(message: &Value, sep: &str) -> String {
    match &message["content"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join(sep),
        _ => String::new(),
    }
}

/// catui's stdout as text.
pub fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// catui's stderr as text.
pub fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A model turn calling Write with `file_path` and `content`.
pub fn write(
    id: impl Into<String>,
    path: impl serde::Serialize,
    content: impl serde::Serialize,
) -> Turn {
    Turn::tool_use(
        id,
        "Write",
        serde_json::json!({"file_path": path, "content": content}),
    )
}

/// A model turn calling Bash with `command`.
pub fn bash(id: impl Into<String>, command: impl serde::Serialize) -> Turn {
    Turn::tool_use(id, "Bash", serde_json::json!({"command": command}))
}

/// A model turn calling Read on `file_path`.
pub fn read(id: impl Into<String>, path: impl serde::Serialize) -> Turn {
    Turn::tool_use(id, "Read", serde_json::json!({"file_path": path}))
}

/// A model turn calling Edit on `file_path`, replacing `old` with `new`.
pub fn edit(
    id: impl Into<String>,
    path: impl serde::Serialize,
    old: impl serde::Serialize,
    new: impl serde::Serialize,
) -> Turn {
    Turn::tool_use(
        id,
        "Edit",
        serde_json::json!({"file_path": path, "old_string": old, "new_string": new}),
    )
}

/// A model turn calling TeamCreate for the team `core` with `members`.
pub fn team_create(id: impl Into<String>, members: Value) -> Turn {
    Turn::tool_use(
        id,
        "TeamCreate",
        serde_json::json!({"team_name": "core", "members": members}),
    )
}

/// A model turn calling TodoWrite with `todos`.
pub fn todo_write(id: impl Into<String>, todos: impl serde::Serialize) -> Turn {
    Turn::tool_use(id, "TodoWrite", serde_json::json!({"todos": todos}))
}

/// A model turn starting a sub-agent of `subagent_type`.
pub fn agent(
    id: impl Into<String>,
    description: impl serde::Serialize,
    prompt: impl serde::Serialize,
    subagent_type: impl serde::Serialize,
) -> Turn {
    Turn::tool_use(
        id,
        "Agent",
        serde_json::json!({"description": description, "prompt": prompt, "subagent_type": subagent_type}),
    )
}

/// A model turn calling Bash with `command` in the background.
pub fn bash_background(id: impl Into<String>, command: impl serde::Serialize) -> Turn {
    Turn::tool_use(
        id,
        "Bash",
        serde_json::json!({"command": command, "run_in_background": true}),
    )
}

/// A model turn calling Bash with `command` and a `timeout` (ms).
pub fn bash_timeout(
    id: impl Into<String>,
    command: impl serde::Serialize,
    timeout: impl serde::Serialize,
) -> Turn {
    Turn::tool_use(
        id,
        "Bash",
        serde_json::json!({"command": command, "timeout": timeout}),
    )
}

/// A model turn calling SendMessage to `to`.
pub fn send_message(
    id: impl Into<String>,
    to: impl serde::Serialize,
    message: impl serde::Serialize,
) -> Turn {
    Turn::tool_use(
        id,
        "SendMessage",
        serde_json::json!({"to": to, "message": message}),
    )
}

/// A model turn calling ExitPlanMode (presenting its plan).
pub fn exit_plan(id: impl Into<String>) -> Turn {
    Turn::tool_use(id, "ExitPlanMode", serde_json::json!({}))
}

/// Polls `probe` every 200 ms until it gives a value, failing the test
/// after 60 s.
pub fn eventually<T>(what: &str, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(v) = probe() {
            return v;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "gave up waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Polls `done` every 50 ms until it holds, failing the test after 30 s.
pub fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Answers the permission prompt with id `request_id`: allow, with `updated`
/// as the tool's input.
pub fn allow_request(request_id: impl serde::Serialize, updated: Value) -> Value {
    serde_json::json!({"type":"control_response","response":{"subtype":"success","request_id":request_id,
        "response":{"behavior":"allow","updatedInput":updated}}})
}

/// Answers the permission prompt with id `request_id`: deny, with `message`.
pub fn deny_request(request_id: impl serde::Serialize, message: &str) -> Value {
    serde_json::json!({"type":"control_response","response":{"subtype":"success","request_id":request_id,
        "response":{"behavior":"deny","message":message}}})
}

/// A temp project and config home, isolated from the user's.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("project")).unwrap();
        std::fs::create_dir_all(dir.path().join("config")).unwrap();
        Sandbox { dir }
    }

    pub fn project(&self) -> PathBuf {
        std::fs::canonicalize(self.dir.path().join("project")).unwrap()
    }

    pub fn config(&self) -> PathBuf {
        self.dir.path().join("config")
    }

    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.project().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }

    /// Writes the user's own settings (`$CATUI_CONFIG_DIR/settings.json`),
    /// which apply whatever the project's trust.
    pub fn user_settings(&self, text: &str) -> PathBuf {
        let p = self.config().join("settings.json");
        std::fs::write(&p, text).unwrap();
        p
    }

    /// `catui` with a clean environment pointing at `server` (Anthropic).
    pub fn catui(&self, server: &MockServer) -> Command {
        let mut cmd = self.bare();
        cmd.env("ANTHROPIC_API_KEY", "test-key-not-secret")
            .env("ANTHROPIC_BASE_URL", server.url());
        cmd
    }

    /// Runs `catui` against `server` with `args` to its end.
    pub fn run<I, S>(&self, server: &MockServer, args: I) -> std::process::Output
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.catui(server).args(args).output().unwrap()
    }

    /// A headless planning run (`-p --permission-mode plan`, stream-json
    /// output) of `prompt` against `server`, to its end.
    pub fn run_planning(&self, server: &MockServer, prompt: &str) -> std::process::Output {
        self.run(
            server,
            [
                "-p",
                "--permission-mode",
                "plan",
                "--output-format",
                "stream-json",
                prompt,
            ],
        )
    }

    /// A `--input-format stream-json` session of `catui` against `server`
    /// with `extra` arguments.
    pub fn stream(&self, server: &MockServer, extra: &[&str]) -> StreamSession {
        StreamSession::start(self.catui(server), extra)
    }

    /// `catui` pointing at `server` with the OpenAI wire format.
    pub fn catui_openai(&self, server: &MockServer) -> Command {
        let mut cmd = self.bare();
        cmd.env("OPENAI_API_KEY", "test-key-not-secret")
            .env("OPENAI_BASE_URL", format!("{}/v1", server.url()));
        cmd
    }

    /// `catui` with no provider configured.
    pub fn bare(&self) -> Command {
        let mut cmd = Command::cargo_bin("catui").unwrap();
        cmd.current_dir(self.project())
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.dir.path())
            .env("CATUI_CONFIG_DIR", self.config())
            .env("CATUI_RETRY_BASE_MS", "1")
            // Scripts end with the model's first answer: the completion
            // gate's own tests (completion_gate.rs) turn it back on.
            .env("CATUI_COMPLETION_CHECK", "off")
            .env("CATUI_MODEL", "test-model");
        cmd
    }

    /// All transcript files written under the config home.
    pub fn transcripts(&self) -> Vec<PathBuf> {
        let mut out = vec![];
        collect_jsonl(&self.config().join("projects"), &mut out);
        out
    }
}

fn collect_jsonl(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_jsonl(&p, out);
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
}

/// Parses stdout as JSON lines, failing on any line that is not JSON.
pub fn json_lines(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {l}"))
        })
        .collect()
}

/// The arguments of a headless run reading and writing stream-json.
pub const STREAM_JSON: [&str; 5] = [
    "-p",
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
];

/// A running `--input-format stream-json` session.
pub struct StreamSession {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    pub seen: Vec<Value>,
}

/// Spawns `cmd` (its stdout piped) and forwards each stdout line `keep`
/// maps to `Some` over the returned channel, from a thread that stops at
/// the end of output, an unreadable line, or a dropped receiver.
pub fn spawn_reading_lines<T: Send + 'static>(
    mut cmd: Command,
    keep: impl Fn(String) -> Option<T> + Send + 'static,
) -> (Child, Receiver<T>) {
    let mut child = cmd.stdout(Stdio::piped()).spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let Some(item) = keep(line) else { continue };
            if tx.send(item).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

impl StreamSession {
    pub fn start(mut cmd: Command, extra: &[&str]) -> Self {
        cmd.args(STREAM_JSON)
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let (mut child, rx) = spawn_reading_lines(cmd, |line| {
            if line.trim().is_empty() {
                return None;
            }
            let v: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
            Some(v)
        });
        let stdin = child.stdin.take();
        StreamSession {
            child,
            stdin,
            lines: rx,
            seen: vec![],
        }
    }

    pub fn send(&mut self, v: Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    }

    /// Writes `bytes` to stdin as they are (not necessarily JSON or UTF-8).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    pub fn send_user(&mut self, text: &str) {
        self.send(serde_json::json!({"type":"user","message":{"role":"user","content":text}}));
    }

    /// Waits for the next line matching `pred`, keeping everything seen.
    pub fn wait_for(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        loop {
            match self.lines.recv_timeout(Duration::from_secs(30)) {
                Ok(v) => {
                    self.seen.push(v.clone());
                    if pred(&v) {
                        return v;
                    }
                }
                Err(_) => panic!("timed out waiting for {what}; seen: {:#?}", self.seen),
            }
        }
    }

    pub fn wait_type(&mut self, ty: &str) -> Value {
        self.wait_for(ty, |v| v["type"] == ty)
    }

    /// Closes stdin and waits for the exit code.
    pub fn finish(mut self) -> (i32, Vec<Value>) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        while let Ok(v) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.seen.push(v);
        }
        (status.code().unwrap_or(-1), self.seen)
    }
}

/// A model that writes a one-step plan to its plan file and presents it
/// (ExitPlanMode); after that, `then` answers whatever comes next.
pub fn presents_plan(plans_dir: &str, then: &str) -> catui_testkit::Script {
    use catui_testkit::Turn;
    let dir = plans_dir.to_string();
    catui_testkit::Script::new()
        .turn(Turn::respond(move |r| {
            Turn::tool_use(
                "p1",
                "Write",
                serde_json::json!({"file_path": plan_path_in(r, &dir), "content": "# Plan\n\n1. Rewrite the parser\n"}),
            )
        }))
        .turn(Turn::tool_use("x1", "ExitPlanMode", serde_json::json!({})))
        .turn(Turn::text(then))
}

/// A model that writes `plan` to its plan file (ids `p1`, then `x1`) and
/// presents it.
pub fn writes_and_presents(plans_dir: &str, plan: &'static str) -> catui_testkit::Script {
    let dir = plans_dir.to_string();
    catui_testkit::Script::new()
        .turn(Turn::respond(move |r| {
            write("p1", plan_path_in(r, &dir), plan)
        }))
        .turn(exit_plan("x1"))
}

/// The plan file path as the model sees it in its plan-mode reminder (the
/// last user message of `r`).
pub fn plan_path_in(r: &catui_testkit::RecordedRequest, plans_dir: &str) -> String {
    let text = r.last_user_text().unwrap_or_default();
    let start = text
        .find(plans_dir)
        .unwrap_or_else(|| panic!("no plan path in {text}"));
    let end = start + text[start..].find(".md").unwrap() + 3;
    text[start..end].to_string()
}

/// A scripted model that writes `plan` to the plan file named in its
/// plan-mode reminder (under `plans_dir`), then calls ExitPlanMode.
pub fn writes_plan_then_exits(plans_dir: &str, plan: &str) -> catui_testkit::Script {
    let dir = plans_dir.to_string();
    let plan = plan.to_string();
    catui_testkit::Script::new()
        .turn(catui_testkit::Turn::respond(move |r| {
            let path = plan_path_in(r, &dir);
            catui_testkit::Turn::tool_use(
                "p",
                "Write",
                serde_json::json!({"file_path": path, "content": plan}),
            )
        }))
        .turn(catui_testkit::Turn::tool_use(
            "x",
            "ExitPlanMode",
            serde_json::json!({}),
        ))
}

/// The text of the last user message of `r` (empty when there is none).
pub fn last_user(r: &catui_testkit::RecordedRequest) -> String {
    r.last_user_text().unwrap_or_default()
}

/// Whether `r` was sent for the teammate `name` (its system prompt names it).
pub fn is_teammate(r: &catui_testkit::RecordedRequest, name: &str) -> bool {
    r.system_text().contains(&format!("You are '{name}'"))
}

/// A teammate's plan file as its conversation names it (its plan-mode
/// reminder may be in any message, not only the last).
pub fn teammate_plan_path(r: &catui_testkit::RecordedRequest, plans_dir: &str) -> String {
    let text = serde_json::to_string(r.messages()).unwrap();
    let start = text
        .find(plans_dir)
        .unwrap_or_else(|| panic!("no plan path in {text}"));
    let end = start + text[start..].find(".md").unwrap() + 3;
    text[start..end].to_string()
}

/// A turn in which a teammate writes `content` to its plan file.
pub fn writes_teammate_plan(
    id: &'static str,
    plans_dir: &str,
    content: &'static str,
) -> catui_testkit::Turn {
    let dir = plans_dir.to_string();
    catui_testkit::Turn::respond(move |r| {
        let path = teammate_plan_path(r, &dir);
        catui_testkit::Turn::tool_use(
            id,
            "Write",
            serde_json::json!({"file_path": path, "content": content}),
        )
    })
}

/// The tool `name` as `r` offers it to the model; fails the test when it
/// is not offered.
pub fn offered_tool<'a>(r: &'a catui_testkit::RecordedRequest, name: &str) -> &'a Value {
    r.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} not offered: {:?}", r.tool_names()))
}

/// The text and error flag of tool call `id`'s result in an Anthropic
/// request `body` (text parts joined by lines, any other content as JSON);
/// fails the test when there is none.
pub fn tool_result_in(body: &Value, id: &str) -> (String, bool) {
    for m in body["messages"].as_array().unwrap() {
        for b in m["content"].as_array().into_iter().flatten() {
            if b["type"] == "tool_result" && b["tool_use_id"] == id {
                let text = match &b["content"] {
                    Value::String(s) => s.clone(),
                    Value::Array(parts) => parts
                        .iter()
                        .filter_map(|p| p["text"].as_str())
                        .collect::<Vec<_>>()
                        .join("\n"),
                    other => other.to_string(),
                };
                return (text, b["is_error"] == true);
            }
        }
    }
    panic!("no tool_result for {id} in {body:#}");
}

/// Teammate `name`'s turn writing `content` to its plan file (call
/// `id`), taken once.
pub fn teammate_writes_plan(
    name: &'static str,
    id: &'static str,
    plans_dir: &str,
    content: &'static str,
) -> Turn {
    writes_teammate_plan(id, plans_dir, content)
        .when(move |r| is_teammate(r, name) && !r.has_tool_result(id))
}

/// Teammate `name`'s ExitPlanMode (call `id`) once its plan write
/// `written` has its result, taken once.
pub fn teammate_presents(name: &'static str, written: &'static str, id: &'static str) -> Turn {
    exit_plan(id)
        .when(move |r| is_teammate(r, name) && r.has_tool_result(written) && !r.has_tool_result(id))
}

/// The text and error flag of tool call `id`'s result in `r`; fails the
/// test when there is none.
pub fn result_of(r: &catui_testkit::RecordedRequest, id: &str) -> (String, bool) {
    let t = r
        .tool_result(id)
        .unwrap_or_else(|| panic!("no result for {id}"));
    (t.content, t.is_error)
}

/// Runs `cmd` to completion with `stdin` as its input, failing the test
/// (and killing the process) if it has not exited after `secs` seconds: a
/// hang is a failure, not a stuck test run.
pub fn output_within(mut cmd: Command, stdin: &[u8], secs: u64) -> std::process::Output {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    let bytes = stdin.to_vec();
    std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let pid = child.id();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("catui did not exit within {secs} s");
        }
    }
}

/// The model side of an SDK plan-mode scenario: a write refused before
/// approval, the plan written, ExitPlanMode, the write after approval.
pub fn sdk_plan_script(sb: &Sandbox) -> (catui_testkit::Script, PathBuf) {
    use catui_testkit::{Script, Turn};
    use serde_json::json;
    let plans = sb.config().join("plans").to_string_lossy().to_string();
    let target = sb.project().join("feature.txt");
    let t = target.to_string_lossy().to_string();
    let script = Script::new()
        // Before approval: refused by plan mode, without a prompt.
        .turn(Turn::tool_use(
            "early",
            "Write",
            json!({"file_path": t, "content": "too early"}),
        ))
        .turn(Turn::respond(move |r| {
            let path = plan_path_in(r, &plans);
            Turn::tool_use(
                "p",
                "Write",
                json!({"file_path": path, "content": "# Plan\n\n1. Write feature.txt\n"}),
            )
        }))
        .turn(Turn::tool_use("x", "ExitPlanMode", json!({})))
        .turn(Turn::tool_use(
            "late",
            "Write",
            json!({"file_path": t, "content": "built"}),
        ))
        .turn(Turn::text("Built."));
    (script, target)
}

/// Answers the permission prompt `ask` with `allow` and `updated`.
pub fn allow(ask: &Value, updated: Value) -> Value {
    serde_json::json!({"type":"control_response","response":{"subtype":"success","request_id":ask["request_id"],
        "response":{"behavior":"allow","updatedInput":updated}}})
}

/// Answers the permission prompt `ask` with `deny` and the fields of
/// `body` (`message`, `park`, `comments`).
pub fn deny(ask: &Value, body: Value) -> Value {
    let mut response = serde_json::json!({"behavior":"deny"});
    if let (Value::Object(r), Value::Object(b)) = (&mut response, body) {
        r.extend(b);
    }
    serde_json::json!({"type":"control_response","response":{"subtype":"success","request_id":ask["request_id"],
        "response":response}})
}

/// The plans directory of `sb`, as the model sees it in its reminders.
pub fn plans_dir(sb: &Sandbox) -> String {
    format!("{}/plans/", sb.config().display())
}

/// Runs `cmd` in a new session, without a controlling terminal, as under
/// an SDK or CI (whatever terminal the test itself runs in).
#[allow(unsafe_code)]
pub fn without_terminal(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    // SAFETY: setsid is async-signal-safe; nothing else runs between fork
    // and exec.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Pids of the processes whose command line contains `marker`.
pub fn processes_with(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        if String::from_utf8_lossy(&cmdline)
            .replace('\0', " ")
            .contains(marker)
        {
            found.push(pid);
        }
    }
    found
}
