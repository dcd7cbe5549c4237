//! Plan mode, second pass (issue 22, items 1–11): the real binary against
//! the testkit mock model, real plan files in temp dirs.

#![allow(clippy::unwrap_used, clippy::expect_used, unsafe_code)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::{
    Sandbox, StreamSession, is_teammate, last_user, plan_path_in, result_of, teammate_plan_path,
    writes_plan_then_exits,
};
use serde_json::{Value, json};

/// Item 1: plain `-p "/plan ..."` is a planning run like
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
    assert!(!stdout.contains("nobody can answer"), "{stdout}");

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

/// Item 2: no exit without a plan file — the model is told to write one
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
    let mut s = StreamSession::start(sb.catui(&server), &["--permission-mode", "plan"]);
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

/// Item 7: a lead that can start teammates is told it may split the work.
#[test]
fn approval_suggests_teammates_to_a_lead() {
    let sb = Sandbox::new();
    let plans_dir = common::plans_dir(&sb);
    let server = common::mock(
        writes_plan_then_exits(&plans_dir, "# Plan\n\n1. a\n2. b\n").turn(Turn::text("ok")),
    );
    let mut s = StreamSession::start(sb.catui(&server), &["--permission-mode", "plan"]);
    s.send_user("plan it");
    let ask = s.wait_type("control_request");
    s.send(common::allow_request(
        ask["request_id"].as_str().unwrap(),
        ask["request"]["input"].clone(),
    ));
    s.wait_type("result");
    s.finish();
    let reqs = server.requests();
    assert!(reqs[0].tool_names().iter().any(|t| t == "TeamCreate"));
    let (text, is_error) = result_of(&reqs[2], "x");
    assert!(!is_error, "{text}");
    assert!(text.contains("starting teammates"), "{text}");
}

/// Item 8: a teammate that is not in plan mode calling ExitPlanMode
/// changes nothing.
#[test]
fn exit_plan_mode_outside_plan_mode_changes_nothing_for_a_teammate() {
    let sb = Sandbox::new();
    let done = sb.project().join("done.txt");
    let done_path = done.to_str().unwrap().to_string();
    let server = common::mock(
        Script::new()
            .turn(
                Turn::tool_use(
                    "tc",
                    "TeamCreate",
                    json!({"team_name": "core", "members": [{"name": "amy", "prompt": "Please do it", "mode": "acceptEdits"}]}),
                )
                .when(|r| !is_teammate(r, "amy") && last_user(r).contains("start a team")),
            )
            .turn(Turn::text("Team started.").when(|r| !is_teammate(r, "amy") && r.has_tool_result("tc")))
            .turn(
                common::exit_plan("ax")
                    .when(|r| is_teammate(r, "amy") && !r.has_tool_result("ax")),
            )
            .turn(
                common::write("aw", &done_path, "done\n")
                    .when(|r| is_teammate(r, "amy") && r.has_tool_result("ax") && !r.has_tool_result("aw")),
            )
            .turn(Turn::text("finished").when(|r| is_teammate(r, "amy") && r.has_tool_result("aw"))),
    );
    let mut s = StreamSession::start(sb.catui(&server), &["--permission-mode", "acceptEdits"]);
    s.send_user("start a team");
    assert_eq!(s.wait_type("result")["result"], "Team started.");
    let wrote = |v: &Value| {
        v["subtype"] == "teammate_message" && v["message"]["content"][0]["tool_use_id"] == "aw"
    };
    s.wait_for("amy's Write result", wrote);
    let (_, seen) = s.finish();
    // Amy stayed in acceptEdits: her write ran without a prompt.
    assert!(
        !seen.iter().any(|v| v["type"] == "control_request"),
        "{seen:#?}"
    );
    assert_eq!(std::fs::read_to_string(&done).unwrap(), "done\n");
    let amy = server
        .requests()
        .into_iter()
        .find(|r| is_teammate(r, "amy") && r.has_tool_result("ax"))
        .unwrap();
    let (text, is_error) = result_of(&amy, "ax");
    assert!(!is_error, "{text}");
    assert!(text.contains("nothing was changed"), "{text}");
    assert!(!seen.iter().any(
        |v| v["subtype"] == "teammate_message" && v["message"]["subtype"] == "permission_mode"
    ),);
}

/// Item 3: EnterPlanMode asks the user; declining keeps the mode, and the
/// model is told so. Even bypassPermissions does not skip the question.
#[test]
fn entering_plan_mode_can_be_declined() {
    let sb = Sandbox::new();
    let server = common::mock(
        Script::new()
            .turn(Turn::tool_use("e", "EnterPlanMode", json!({})))
            .turn(Turn::text("Implementing directly.")),
    );
    let mut s = StreamSession::start(
        sb.catui(&server),
        &["--permission-mode", "bypassPermissions"],
    );
    s.send_user("rename a variable");
    let ask = s.wait_type("control_request");
    assert_eq!(ask["request"]["tool_name"], "EnterPlanMode");
    assert!(ask["request"]["input"]["reason"].is_null());
    s.send(
        json!({"type":"control_response","response":{"subtype":"success",
        "request_id": ask["request_id"],
        "response":{"behavior":"deny","message":"too small to plan"}}}),
    );
    let r = s.wait_type("result");
    assert_eq!(r["result"], "Implementing directly.");
    assert_eq!(r["permission_mode"], "bypassPermissions");
    let (_, seen) = s.finish();
    assert!(!seen.iter().any(|v| v["subtype"] == "permission_mode"));
    let (text, is_error) = result_of(&server.requests()[1], "e");
    assert!(is_error);
    assert!(
        text.starts_with("The user declined to enter plan mode.")
            && text.contains("too small to plan"),
        "{text}"
    );
}

/// Item 3, failing closed: an error answer, or a client that goes away
/// without answering, leaves the mode as it was.
#[test]
fn entering_plan_mode_fails_closed() {
    let sb = Sandbox::new();
    let server = common::mock(
        Script::new()
            .turn(Turn::tool_use("e1", "EnterPlanMode", json!({})))
            .turn(Turn::text("Not planning."))
            .turn(Turn::tool_use("e2", "EnterPlanMode", json!({})))
            .turn(Turn::text("Still not planning.")),
    );
    let mut s = StreamSession::start(sb.catui(&server), &[]);
    s.send_user("rework the storage");
    let ask = s.wait_type("control_request");
    assert_eq!(ask["request"]["tool_name"], "EnterPlanMode");
    s.send(
        json!({"type":"control_response","response":{"subtype":"error",
        "request_id": ask["request_id"], "error":"the client crashed"}}),
    );
    let r = s.wait_type("result");
    assert_eq!(r["permission_mode"], "default");
    s.send_user("try again");
    let ask = s.wait_type("control_request");
    assert_eq!(ask["request"]["tool_name"], "EnterPlanMode");
    // The client goes away with the question open.
    let (_, seen) = s.finish();
    assert!(
        !seen
            .iter()
            .any(|v| v["subtype"] == "permission_mode" && v["mode"] == "plan"),
        "{seen:#?}"
    );
    let reqs = server.requests();
    let (text, is_error) = result_of(&reqs[1], "e1");
    assert!(
        is_error && text.starts_with("The user declined to enter plan mode."),
        "{text}"
    );
    if let Some(last) = reqs.get(3) {
        let (text, is_error) = result_of(last, "e2");
        assert!(is_error, "{text}");
    }
    let transcript = std::fs::read_to_string(&sb.transcripts()[0]).unwrap();
    assert!(
        !transcript.contains("\"mode\":\"plan\""),
        "plan mode was recorded: {transcript}"
    );
}

/// Item 11: EnterPlanMode's schema is strict (no fields for the model) and
/// a sub-agent gets the agent-context error.
#[test]
fn enter_plan_mode_schema_is_strict() {
    let sb = Sandbox::new();
    let server = common::mock(
        Script::new()
            .turn(Turn::tool_use(
                "e",
                "EnterPlanMode",
                json!({"reason": "mine"}),
            ))
            .turn(Turn::text("ok")),
    );
    let mut s = StreamSession::start(sb.catui(&server), &[]);
    s.send_user("go");
    let r = s.wait_type("result");
    assert_eq!(r["permission_mode"], "default");
    let (_, seen) = s.finish();
    assert!(!seen.iter().any(|v| v["type"] == "control_request"));
    let reqs = server.requests();
    let tool = reqs[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "EnterPlanMode")
        .unwrap()
        .clone();
    assert_eq!(tool["input_schema"]["properties"], json!({}), "{tool}");
    let (text, is_error) = result_of(&reqs[1], "e");
    assert!(
        is_error && text.contains("unknown field `reason`"),
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

/// Runs `cmd` in a new session, without a controlling terminal, as under
/// an SDK or CI (whatever terminal the test itself runs in).
fn without_terminal(cmd: &mut std::process::Command) {
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

/// Item 6: headless `/plan open` keeps stdout pure JSON lines (the editor's
/// output goes elsewhere, it reads no protocol input) and a failing editor
/// is reported with the path (item 11: the failure text). Without a
/// terminal the editor gets no input at all.
#[test]
fn headless_plan_open_keeps_the_protocol_clean() {
    let sb = Sandbox::new();
    let editor = script(
        &sb,
        "editor.sh",
        "#!/bin/sh\necho 'EDITOR WAS HERE'\nread line\necho \"read: $line\" >> \"$1\"\ntty >> \"$1\"\necho 'edited' >> \"$1\"\n",
    );
    let server = common::mock(Script::new());
    let mut cmd = sb.catui(&server);
    cmd.env("EDITOR", &editor);
    without_terminal(&mut cmd);
    let mut s = StreamSession::start(cmd, &["--permission-mode", "plan"]);
    let init = s.wait_for("init", |v| v["subtype"] == "init");
    let plan_file = init["plan_file"].as_str().unwrap().to_string();
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
    assert!(text.contains("read: \nnot a tty\n"), "{text}");

    // stdout carries JSON lines only, even with an editor that prints.
    let mut cmd = sb.catui(&server);
    cmd.env("EDITOR", &editor);
    without_terminal(&mut cmd);
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

/// Item 6, with a terminal: a headless session started from a terminal
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
    assert!(text.contains("typed: hello from the keyboard"), "{text}");
}

/// Item 4: `/clear` starts a new conversation with a new plan file; the
/// mode stays; a resume starts after the clear.
#[test]
fn clear_starts_a_new_conversation_and_plan_file() {
    let sb = Sandbox::new();
    let server = common::mock(
        Script::new()
            .turn(Turn::text("first answer"))
            .turn(Turn::text("second answer"))
            .turn(Turn::text("resumed answer")),
    );
    let mut s = StreamSession::start(sb.catui(&server), &["--permission-mode", "plan"]);
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
    assert!(sent.contains(&new_plan), "{sent}");
    // The first request after /clear gets the full plan-mode workflow again.
    assert!(sent.contains("Plan mode is active."), "{sent}");

    // A resume continues the cleared conversation, not the old one.
    let mut s = StreamSession::start(sb.catui(&server), &["--resume", &session_id]);
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

/// Item 5: with plan snapshots on, the plan edited at approval is
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

/// Item 10: a plan written but never presented comes back from the
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
    let mut s = StreamSession::start(sb.catui(&server), &["--permission-mode", "plan"]);
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
    let mut s = StreamSession::start(sb.catui(&server), &["--resume", &session_id]);
    s.wait_for("init", |v| v["subtype"] == "init");
    s.finish();
    assert_eq!(
        std::fs::read_to_string(&plan_file).unwrap(),
        "# Draft\n1. one\n2. two\n"
    );
}

/// Item 9: in plan mode, whether an agent may start is decided from its
/// tools: a custom agent that only reads runs, one that can edit is
/// refused, and `tools: *` does not count as reading only.
#[test]
fn custom_agents_in_plan_mode_are_judged_by_their_tools() {
    let sb = Sandbox::new();
    // The user's own agents (a project's wait for its trust).
    let agents = sb.config().join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    for (file, text) in [
        (
            "reviewer.md",
            "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep, Glob\n---\nYou review code and report.\n",
        ),
        (
            "fixer.md",
            "---\nname: fixer\ndescription: Fixes code\ntools: Read, Edit\n---\nYou fix code.\n",
        ),
        (
            "anything.md",
            "---\nname: anything\ndescription: Does anything\ntools: \"*\"\n---\nYou do anything.\n",
        ),
    ] {
        std::fs::write(agents.join(file), text).unwrap();
    }
    let start = |id: &str, kind: &str| {
        Turn::tool_use(
            id,
            "Agent",
            json!({"description": "d", "prompt": format!("TASK for {kind}"), "subagent_type": kind}),
        )
    };
    let is_sub = |r: &catui_testkit::RecordedRequest| r.system_text().contains("You review code");
    let server = common::mock(
        Script::new()
            .turn(start("a1", "reviewer").when(move |r| !is_sub(r) && !r.has_tool_result("a1")))
            .turn(Turn::text("REVIEW: all good").when(is_sub))
            .turn(start("a2", "fixer").when(move |r| !is_sub(r) && !r.has_tool_result("a2")))
            .turn(start("a3", "anything").when(move |r| !is_sub(r) && !r.has_tool_result("a3")))
            .turn(Turn::text("planned").when(move |r| !is_sub(r))),
    );
    let mut s = StreamSession::start(sb.catui(&server), &["--permission-mode", "plan"]);
    s.send_user("plan a review");
    assert_eq!(s.wait_type("result")["result"], "planned");
    s.finish();
    let reqs = server.requests();
    let last = reqs.iter().rfind(|r| !is_sub(r)).unwrap();
    let (review, err) = result_of(last, "a1");
    assert!(!err && review.contains("REVIEW: all good"), "{review}");
    for id in ["a2", "a3"] {
        let (refused, err) = result_of(last, id);
        assert!(
            err && refused.contains("Plan mode is active"),
            "{id}: {refused}"
        );
    }
    // The read-only agent was reminded of plan mode in terms of its tools.
    let sub = reqs.iter().find(|r| is_sub(r)).unwrap();
    let reminder = sub.last_user_text().unwrap();
    assert!(
        reminder.contains("sub-agent working under plan mode"),
        "{reminder}"
    );
    assert!(!reminder.contains("AskUserQuestion"), "{reminder}");
}

/// Item 11: a sub-agent cannot enter plan mode; it gets the agent-context
/// error and the session's mode does not change.
#[test]
fn enter_plan_mode_is_refused_inside_a_sub_agent() {
    let sb = Sandbox::new();
    let is_sub = |r: &catui_testkit::RecordedRequest| {
        r.messages()
            .first()
            .is_some_and(|m| m.to_string().contains("SUBTASK"))
    };
    let server = common::mock(
        Script::new()
            .turn(
                Turn::tool_use(
                    "a",
                    "Agent",
                    json!({"description": "d", "prompt": "SUBTASK: look", "subagent_type": "general-purpose"}),
                )
                .when(move |r| !is_sub(r) && !r.has_tool_result("a")),
            )
            .turn(Turn::tool_use("e", "EnterPlanMode", json!({})).when(move |r| is_sub(r) && !r.has_tool_result("e")))
            .turn(Turn::text("could not plan").when(move |r| is_sub(r)))
            .turn(Turn::text("done").when(move |r| !is_sub(r))),
    );
    let mut s = StreamSession::start(sb.catui(&server), &[]);
    s.send_user("go");
    assert_eq!(s.wait_type("result")["result"], "done");
    let (_, seen) = s.finish();
    let reqs = server.requests();
    let sub_last = reqs.iter().rfind(|r| is_sub(r)).unwrap();
    let (text, is_error) = result_of(sub_last, "e");
    assert!(is_error, "{text}");
    assert!(
        text.contains("EnterPlanMode tool cannot be used in agent contexts"),
        "{text}"
    );
    assert!(
        !seen.iter().any(|v| v["subtype"] == "permission_mode"),
        "the mode did not change"
    );
    assert!(
        !seen.iter().any(|v| v["type"] == "control_request"),
        "nobody was asked"
    );
}

/// Item 5: with plan snapshots on, a plan edited through `/plan open` is
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
