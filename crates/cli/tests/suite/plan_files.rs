//! The plan file: a headless `/plan` run ends with it, ExitPlanMode without
//! one is refused with its path, `/plan open` with no terminal and with
//! one, `/clear` starting a new one, and a plan edited at approval or never
//! presented recovered from its snapshots and writes. The real binary
//! against the testkit mock model, real plan files in temp dirs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::{
    Sandbox, StreamSession, plan_path_in, result_of, teammate_plan_path, writes_plan_then_exits,
};
use serde_json::{Value, json};

/// Plain `-p "/plan ..."` is a planning run like
/// `--permission-mode plan`: it ends with the plan, printed.
#[test]
fn plain_print_plan_command_ends_with_the_plan() {
    let sb = Sandbox::new();
    let plans_dir = common::plans_dir(&sb);
    let server = common::mock(
        writes_plan_then_exits(&plans_dir, "# Plan\n\n1. Add X\n")
            .turn(Turn::text("should never be requested")),
    );
    let out = sb.run(&server, ["-p", "/plan add X"]);
    common::assert_ok(&out);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2, "the run ends at ExitPlanMode");
    let path = plan_path_in(&reqs[0], &plans_dir);
    let stdout = common::stdout(&out);
    assert_eq!(
        stdout.trim_end(),
        format!("# Plan\n\n1. Add X\n\nPlan saved to {path}")
    );
    common::assert_lacks(&stdout, "nobody can answer");

    // In stream-json the same run ends plan_ready, still in plan mode.
    let server = common::mock(writes_plan_then_exits(&plans_dir, "# Plan Y\n"));
    let out = sb.run(
        &server,
        ["-p", "--output-format", "stream-json", "/plan add Y"],
    );
    let lines = common::json_lines(&out.stdout);
    let result = lines.last().unwrap();
    assert_eq!(result["subtype"], "plan_ready", "{result}");
    assert_eq!(result["result"], "# Plan Y\n");
    assert_eq!(result["permission_mode"], "plan");
}

/// No exit without a plan file — the model is told to write one
/// first; no dialog, no empty plan_ready.
#[test]
fn exit_without_a_plan_is_refused_with_the_path() {
    let sb = Sandbox::new();
    let plans_dir = common::plans_dir(&sb);
    // Interactive (stream-json): no approval request is made.
    let server = common::mock(
        Script::new()
            .turn(common::exit_plan("x0"))
            .turn(Turn::text("I will write the plan first.")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    let init = s.wait_for("init", |v| v["subtype"] == "init");
    let plan_file = init["plan_file"].as_str().unwrap().to_string();
    s.send_user("plan it");
    let r = s.wait_type("result");
    assert_eq!(r["subtype"], "success");
    assert_eq!(r["permission_mode"], "plan");
    let (_, seen) = s.finish();
    assert!(!seen.iter().any(|v| v["type"] == "control_request"));
    let (text, is_error) = result_of(&server.requests()[1], "x0");
    assert!(is_error);
    assert_eq!(
        text,
        format!(
            "No plan file found at {plan_file}. Please write your plan to this file before calling ExitPlanMode."
        )
    );

    // Headless planning run: refused the same way, then the model writes
    // the plan and presents it; the run ends with that plan.
    let server = common::mock(
        Script::new()
            .turn(common::exit_plan("x0"))
            .turn(Turn::respond({
                let dir = plans_dir;
                move |r| common::write("p", teammate_plan_path(r, &dir), "# Real plan\n")
            }))
            .turn(common::exit_plan("x1")),
    );
    let out = sb.run(&server, ["-p", "--permission-mode", "plan", "plan it"]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = common::stdout(&out);
    assert!(stdout.starts_with("# Real plan\n"), "{stdout}");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    let (text, is_error) = result_of(&reqs[1], "x0");
    assert!(
        is_error && text.starts_with("No plan file found at "),
        "{text}"
    );
}

fn script(sb: &Sandbox, name: &str, body: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = sb.dir.path().join(name);
    std::fs::write(&path, body).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Headless `/plan open` keeps stdout pure JSON lines (the editor's
/// output goes elsewhere, it reads no protocol input) and a failing editor
/// is reported with the path (the failure text). Without a
/// terminal the editor gets no input at all.
#[test]
fn headless_plan_open_keeps_the_protocol_clean() {
    let sb = Sandbox::new();
    let editor = script(
        &sb,
        "editor.sh",
        "#!/bin/sh\necho 'EDITOR WAS HERE'\nread line\necho \"read: $line\" >> \"$1\"\ntty >> \"$1\"\necho 'edited' >> \"$1\"\n",
    );
    let (server, mut s, plan_file) = common::fixtures::plan_session_with_editor(&sb, &editor);
    std::fs::write(&plan_file, "# Plan\n").unwrap();
    s.send_user("/plan open");
    let r = s.wait_type("result");
    assert_eq!(r["result"], format!("Opened plan in editor: {plan_file}"));
    // The next protocol line still reaches catui, not the editor.
    s.send_user("/plan");
    let shown = s.wait_type("result");
    assert!(shown["result"].as_str().unwrap().contains("edited"));
    s.finish();
    let text = std::fs::read_to_string(&plan_file).unwrap();
    assert!(
        !text.contains("/plan"),
        "the editor read protocol input: {text}"
    );
    common::assert_contains(&text, "read: \nnot a tty\n");

    // stdout carries JSON lines only, even with an editor that prints.
    let mut cmd = sb.catui(&server);
    cmd.env("EDITOR", &editor);
    common::without_terminal(&mut cmd);
    let out = common::output_within(
        {
            cmd.args([
                "-p",
                "--permission-mode",
                "plan",
                "--input-format",
                "stream-json",
                "--output-format",
                "stream-json",
            ]);
            cmd
        },
        br#"{"type":"user","message":{"role":"user","content":"/plan open"}}
"#,
        60,
    );
    for line in common::stdout(&out).lines() {
        assert!(
            serde_json::from_str::<Value>(line).is_ok(),
            "non-JSON on stdout: {line}"
        );
    }

    // An editor that cannot start: the failure says so, with the path.
    let server = common::mock(Script::new());
    let mut cmd = sb.catui(&server);
    cmd.env("EDITOR", "/nonexistent/editor");
    let mut s = StreamSession::start(cmd, &["--permission-mode", "plan"]);
    let init = s.wait_for("init", |v| v["subtype"] == "init");
    let plan_file = init["plan_file"].as_str().unwrap().to_string();
    std::fs::write(&plan_file, "# Plan\n").unwrap();
    s.send_user("/plan open");
    let r = s.wait_type("result");
    let text = r["result"].as_str().unwrap();
    assert!(
        text.starts_with("Failed to open plan in editor: could not start /nonexistent/editor")
            && text.contains(&plan_file),
        "{text}"
    );
    assert_eq!(r["is_error"], true);
    s.finish();
}

/// With a terminal: a headless session started from a terminal
/// (stdin and stdout redirected to files) runs `/plan open`'s editor on
/// that terminal, so a terminal editor works; the protocol's files stay
/// pure.
#[test]
fn headless_plan_open_uses_the_controlling_terminal() {
    common::tmux::require_tmux();
    let sb = Sandbox::new();
    let editor = script(
        &sb,
        "editor.sh",
        "#!/bin/sh\necho 'EDITOR ON THE TERMINAL'\ntty >> \"$1\"\nread line\necho \"typed: $line\" >> \"$1\"\n",
    );
    let plans_dir = common::plans_dir(&sb);
    let server = common::mock(
        Script::new()
            .turn(Turn::respond(move |r| {
                common::write("w", plan_path_in(r, &plans_dir), "# Plan\n")
            }))
            .turn(Turn::text("Written.")),
    );
    let input = sb.dir.path().join("in.jsonl");
    let line =
        |text: &str| json!({"type":"user","message":{"role":"user","content":text}}).to_string();
    std::fs::write(
        &input,
        format!("{}\n{}\n", line("write the plan"), line("/plan open")),
    )
    .unwrap();
    let output = sb.dir.path().join("out.jsonl");
    let env = vec![
        ("PATH", std::env::var("PATH").unwrap_or_default()),
        ("HOME", sb.dir.path().display().to_string()),
        ("PS1", common::tmux::SHELL_PROMPT.to_string()),
        ("TERM", "xterm-256color".to_string()),
        ("CATUI_CONFIG_DIR", sb.config().display().to_string()),
        ("CATUI_MODEL", "test-model".to_string()),
        ("ANTHROPIC_API_KEY", "test-key-not-secret".to_string()),
        ("ANTHROPIC_BASE_URL", server.url()),
        ("EDITOR", editor.display().to_string()),
    ];
    let tmux = common::tmux::Tmux::start(sb.dir.path(), &sb.project(), &env);
    tmux.wait_text(common::tmux::SHELL_PROMPT.trim_end());
    let bin = assert_cmd::cargo::cargo_bin("catui");
    tmux.type_text(&format!(
        "'{}' -p --permission-mode plan --input-format stream-json --output-format stream-json < '{}' > '{}'; echo \"exit=$?\"",
        bin.display(),
        input.display(),
        output.display()
    ));
    tmux.keys(&["Enter"]);
    // The editor talks to the user on the terminal and reads the answer there.
    tmux.wait_text("EDITOR ON THE TERMINAL");
    tmux.submit("hello from the keyboard");
    tmux.wait_text("exit=0");
    let lines: Vec<Value> = common::json_lines(&std::fs::read(&output).unwrap());
    let result = lines
        .iter()
        .filter(|v| v["type"] == "result")
        .nth(1)
        .unwrap();
    let opened = result["result"].as_str().unwrap();
    let plan_file = opened.strip_prefix("Opened plan in editor: ").unwrap();
    let text = std::fs::read_to_string(plan_file).unwrap();
    assert!(text.starts_with("# Plan\n/dev/tty\n"), "{text}");
    common::assert_contains(&text, "typed: hello from the keyboard");
}

/// `/clear` starts a new conversation with a new plan file; the
/// mode stays; a resume starts after the clear.
#[test]
fn clear_starts_a_new_conversation_and_plan_file() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::text("first answer"))
            .turn(Turn::text("second answer"))
            .turn(Turn::text("resumed answer")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("remember the word BANANA");
    let first = s.wait_type("result");
    let old_plan = first["plan_file"].as_str().unwrap().to_string();
    let session_id = first["session_id"].as_str().unwrap().to_string();
    s.send_user("/clear");
    let cleared = s.wait_type("result");
    assert_eq!(cleared["result"], "Conversation cleared. Starting fresh.");
    assert_eq!(cleared["is_error"], false);
    assert_eq!(cleared["num_turns"], 0);
    s.send_user("what word?");
    let second = s.wait_type("result");
    assert_eq!(second["permission_mode"], "plan");
    let new_plan = second["plan_file"].as_str().unwrap().to_string();
    assert_ne!(
        old_plan, new_plan,
        "a new conversation gets a new plan file"
    );
    s.finish();
    let reqs = server.requests();
    let sent = serde_json::to_string(reqs[1].messages()).unwrap();
    assert!(
        !sent.contains("BANANA"),
        "the old conversation was sent: {sent}"
    );
    common::assert_contains(&sent, &new_plan);
    // The first request after /clear gets the full plan-mode workflow again.
    common::assert_contains(&sent, "Plan mode is active.");

    // A resume continues the cleared conversation, not the old one.
    let mut s = sb.stream(&server, &["--resume", &session_id]);
    let init = s.wait_for("init", |v| v["subtype"] == "init");
    assert_eq!(init["plan_file"], new_plan.as_str());
    s.send_user("again");
    s.wait_type("result");
    s.finish();
    let sent = serde_json::to_string(server.requests()[2].messages()).unwrap();
    assert!(
        !sent.contains("BANANA") && sent.contains("what word?"),
        "{sent}"
    );
}

/// With plan snapshots on, the plan edited at approval is
/// snapshotted, so recovery brings back the approved text (not v1).
#[test]
fn plan_edited_at_approval_is_snapshotted_and_recovered() {
    let sb = Sandbox::new();
    // Not about the plan contract: no goal loop after approval.
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let plans_dir = common::plans_dir(&sb);
    let server =
        common::mock(writes_plan_then_exits(&plans_dir, "# v1\n").turn(Turn::text("approved")));
    let mut cmd = sb.catui(&server);
    cmd.env("CATUI_REMOTE", "1");
    let mut s = StreamSession::start(cmd, &["--permission-mode", "plan"]);
    s.send_user("plan it");
    let ask = s.wait_type("control_request");
    let mut input = ask["request"]["input"].clone();
    input["plan"] = json!("# v2, edited by the user\n");
    s.send(common::allow_request(
        ask["request_id"].as_str().unwrap(),
        input,
    ));
    let r = s.wait_type("result");
    let session_id = r["session_id"].as_str().unwrap().to_string();
    let plan_file = r["plan_file"].as_str().unwrap().to_string();
    s.finish();
    assert_eq!(
        std::fs::read_to_string(&plan_file).unwrap(),
        "# v2, edited by the user\n"
    );
    std::fs::remove_file(&plan_file).unwrap();
    // Remove the other sources so only the snapshot can bring v2 back:
    // resume must pick the most recent snapshot.
    let server = common::mock(Script::new().turn(Turn::text("ok")));
    let mut cmd = sb.catui(&server);
    cmd.env("CATUI_REMOTE", "1");
    let mut s = StreamSession::start(cmd, &["--resume", &session_id]);
    s.wait_for("init", |v| v["subtype"] == "init");
    s.finish();
    assert_eq!(
        std::fs::read_to_string(&plan_file).unwrap(),
        "# v2, edited by the user\n"
    );
    let transcript = sb
        .transcripts()
        .into_iter()
        .find(|p| p.to_string_lossy().contains(&session_id))
        .unwrap();
    let snapshots: Vec<String> = std::fs::read_to_string(transcript)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["type"] == "file_snapshot" && v["key"] == "plan")
        .map(|v| v["content"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        snapshots.last().unwrap(),
        "# v2, edited by the user\n",
        "{snapshots:?}"
    );
}

/// A plan written but never presented comes back from the
/// transcript's Write/Edit calls when its file disappears.
#[test]
fn unpresented_plan_is_recovered_from_its_writes() {
    let sb = Sandbox::new();
    let plans_dir = common::plans_dir(&sb);
    let server = common::mock(
        Script::new()
            .turn(Turn::respond({
                let dir = plans_dir.clone();
                move |r| common::write("w", teammate_plan_path(r, &dir), "# Draft\n1. one\n")
            }))
            .turn(Turn::respond({
                let dir = plans_dir;
                move |r| common::edit("e", teammate_plan_path(r, &dir), "1. one", "1. one\n2. two")
            }))
            .turn(Turn::text("still drafting")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("draft a plan");
    let r = s.wait_type("result");
    let session_id = r["session_id"].as_str().unwrap().to_string();
    let plan_file = r["plan_file"].as_str().unwrap().to_string();
    s.finish();
    assert_eq!(
        std::fs::read_to_string(&plan_file).unwrap(),
        "# Draft\n1. one\n2. two\n"
    );
    std::fs::remove_file(&plan_file).unwrap();
    let server = common::mock(Script::new());
    let mut s = sb.stream(&server, &["--resume", &session_id]);
    s.wait_for("init", |v| v["subtype"] == "init");
    s.finish();
    assert_eq!(
        std::fs::read_to_string(&plan_file).unwrap(),
        "# Draft\n1. one\n2. two\n"
    );
}

/// With plan snapshots on, a plan edited through `/plan open` is
/// snapshotted too, and recovery brings the edited text back.
#[test]
fn plan_edited_through_plan_open_is_snapshotted_and_recovered() {
    let sb = Sandbox::new();
    let editor = script(
        &sb,
        "rewrite.sh",
        "#!/bin/sh\nprintf '# v2, from the editor\\n' > \"$1\"\n",
    );
    let server = common::mock(Script::new());
    let mut cmd = sb.catui(&server);
    cmd.env("CATUI_REMOTE", "1").env("EDITOR", &editor);
    let mut s = StreamSession::start(cmd, &["--permission-mode", "plan"]);
    let init = s.wait_for("init", |v| v["subtype"] == "init");
    let plan_file = init["plan_file"].as_str().unwrap().to_string();
    let session_id = init["session_id"].as_str().unwrap().to_string();
    std::fs::write(&plan_file, "# v1\n").unwrap();
    s.send_user("/plan open");
    let r = s.wait_type("result");
    assert_eq!(r["result"], format!("Opened plan in editor: {plan_file}"));
    s.finish();
    assert_eq!(
        std::fs::read_to_string(&plan_file).unwrap(),
        "# v2, from the editor\n"
    );

    std::fs::remove_file(&plan_file).unwrap();
    let mut cmd = sb.catui(&server);
    cmd.env("CATUI_REMOTE", "1");
    let mut s = StreamSession::start(cmd, &["--resume", &session_id]);
    s.wait_for("init", |v| v["subtype"] == "init");
    s.finish();
    assert_eq!(
        std::fs::read_to_string(&plan_file).unwrap(),
        "# v2, from the editor\n",
        "the snapshot brought the edited plan back"
    );
}
