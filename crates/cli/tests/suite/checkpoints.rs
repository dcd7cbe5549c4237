//! Checkpoints and rewind through the real binary (docs/CHECKPOINTS.md):
//! Write, Edit, a shell command and a sub-agent change files over several
//! messages; rewinding to each message restores exactly the files as they
//! were before it (content, new files removed, deleted files back), over
//! stream-json (`rewind_files`, the Agent SDKs' request) and from the
//! command line after a resume (`--rewind-to`); conversation rewinds,
//! back to the plan, and files changed outside catui.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use catui_testkit::{MockServer, Script, Turn};
use common::{Sandbox, StreamSession, plan_path_in};
use serde_json::{Value, json};

const CHECKPOINTING: &str = "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING";

/// Every file under `root` with its content.
fn tree(root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(root).unwrap().display().to_string();
                out.insert(rel, std::fs::read_to_string(&p).unwrap_or_default());
            }
        }
    }
    out
}

fn session(sb: &Sandbox, server: &MockServer, extra: &[&str]) -> StreamSession {
    let mut cmd = sb.catui(server);
    cmd.env(CHECKPOINTING, "true");
    let mut args = vec![
        "--replay-user-messages",
        "--permission-mode",
        "bypassPermissions",
    ];
    args.extend_from_slice(extra);
    StreamSession::start(cmd, &args)
}

fn user_with_uuid(text: &str, uuid: &str) -> Value {
    json!({"type":"user","message":{"role":"user","content":text},"uuid":uuid,"parent_tool_use_id":null,"session_id":""})
}

fn control(id: &str, request: Value) -> Value {
    json!({"type":"control_request","request_id":id,"request":request})
}

/// Sends a control request and waits for its answer.
fn ask(s: &mut StreamSession, id: &str, request: Value) -> Value {
    s.send(control(id, request));
    s.wait_for(id, |v| {
        v["type"] == "control_response" && v["response"]["request_id"] == id
    })["response"]
        .clone()
}

/// Sends a message and waits for its echo (returning its uuid) and result.
fn turn(s: &mut StreamSession, text: &str, uuid: Option<&str>) -> String {
    match uuid {
        Some(u) => s.send(user_with_uuid(text, u)),
        None => s.send_user(text),
    }
    let echo = s.wait_for("the echo", |v| v["type"] == "user" && v["isReplay"] == true);
    assert_eq!(echo["message"]["content"][0]["text"], text);
    let result = s.wait_type("result");
    assert_eq!(result["subtype"], "success", "{result}");
    echo["uuid"].as_str().unwrap().to_string()
}

#[test]
fn write_edit_shell_and_sub_agent_changes_each_rewind_to_exactly_their_state() {
    let sb = Sandbox::new();
    let root = sb.project();
    sb.write("a.txt", "one\n");
    sb.write("keep/b.txt", "bee\n");
    let p = |rel: &str| root.join(rel).display().to_string();
    let server = common::mock(Script::new());
    for t in [
        common::write("w", p("new.txt"), "new\n"),
        Turn::text("wrote"),
        common::read("r", p("a.txt")),
        common::edit("e", p("a.txt"), "one", "two"),
        Turn::text("edited"),
        common::bash("b", "sed -i 's/bee/BEE/' keep/b.txt && rm new.txt"),
        Turn::text("ran"),
        common::agent("g", "d", "write agent.txt", "general-purpose"),
        // The sub-agent's own requests.
        common::write("aw", p("sub/agent.txt"), "by the agent\n"),
        Turn::text("agent done"),
        Turn::text("delegated"),
    ] {
        server.push(t);
    }
    let mut s = session(&sb, &server, &[]);
    s.wait_type("system");
    let mut states = Vec::new();
    let mut ids = Vec::new();
    states.push(tree(&root));
    ids.push(turn(
        &mut s,
        "write new.txt",
        Some("11111111-1111-4111-8111-111111111111"),
    ));
    states.push(tree(&root));
    ids.push(turn(&mut s, "edit a.txt", None));
    states.push(tree(&root));
    ids.push(turn(&mut s, "run sed", None));
    states.push(tree(&root));
    ids.push(turn(
        &mut s,
        "delegate",
        Some("44444444-4444-4444-8444-444444444444"),
    ));
    let last = tree(&root);
    assert_eq!(
        ids[0], "11111111-1111-4111-8111-111111111111",
        "the client's id is kept"
    );
    assert_eq!(last["sub/agent.txt"], "by the agent\n");
    assert_eq!(last["keep/b.txt"], "BEE\n");
    assert!(!last.contains_key("new.txt"));

    // Back and forth: each message's point is the files just before it.
    for (n, k) in [3usize, 0, 2, 1, 3].into_iter().enumerate() {
        let answer = ask(
            &mut s,
            &format!("rw{n}"),
            json!({"subtype": "rewind_files", "user_message_id": ids[k]}),
        );
        assert_eq!(answer["subtype"], "success", "{answer}");
        assert_eq!(answer["response"]["canRewind"], true, "{answer}");
        assert_eq!(tree(&root), states[k], "rewind to message {}", k + 1);
    }
    // A dry run says what would change and changes nothing.
    let dry = ask(
        &mut s,
        "dry",
        json!({"subtype": "rewind_files", "user_message_id": ids[0], "dry_run": true}),
    );
    let files: Vec<&str> = dry["response"]["filesChanged"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    // new.txt existed neither before message 1 nor now.
    assert_eq!(files, ["a.txt", "keep/b.txt"]);
    assert_eq!(tree(&root), states[3]);
    let unknown = ask(
        &mut s,
        "nope",
        json!({"subtype": "rewind_files", "user_message_id": "no-such-message"}),
    );
    assert_eq!(unknown["subtype"], "error");
    assert!(
        unknown["error"]
            .as_str()
            .unwrap()
            .contains("no-such-message")
    );
    let (code, _) = s.finish();
    assert_eq!(code, 0);

    // The shadow repository is in catui's home, not in the project.
    assert!(sb.config().join("checkpoints").is_dir());
    assert!(!root.join(".git").exists());
}

#[test]
fn files_changed_outside_catui_are_refused_unless_forced() {
    let sb = Sandbox::new();
    let root = sb.project();
    sb.write("a.txt", "one\n");
    let a = root.join("a.txt").display().to_string();
    let server = common::mock(
        Script::new()
            .turn(common::read("r", &a))
            .turn(common::write("w", &a, "two\n"))
            .turn(Turn::text("done")),
    );
    let mut s = session(&sb, &server, &[]);
    let id = turn(&mut s, "change a", None);
    // The user edits in their editor after the turn.
    sb.write("mine.txt", "my own work\n");

    let dry = ask(
        &mut s,
        "d",
        json!({"subtype": "rewind_files", "user_message_id": id, "dry_run": true}),
    );
    assert_eq!(dry["response"]["canRewind"], false, "{dry}");
    assert_eq!(dry["response"]["changedOutside"], json!(["mine.txt"]));
    let refused = ask(
        &mut s,
        "r",
        json!({"subtype": "rewind_files", "user_message_id": id}),
    );
    assert_eq!(refused["subtype"], "error");
    assert!(
        refused["error"].as_str().unwrap().contains("mine.txt"),
        "{refused}"
    );
    assert_eq!(tree(&root)["mine.txt"], "my own work\n");
    assert_eq!(tree(&root)["a.txt"], "two\n");

    let forced = ask(
        &mut s,
        "f",
        json!({"subtype": "rewind_files", "user_message_id": id, "force": true}),
    );
    assert_eq!(forced["subtype"], "success", "{forced}");
    assert_eq!(
        tree(&root),
        BTreeMap::from([("a.txt".into(), "one\n".into())])
    );

    // The rewind is a point of its own: `/rewind` lists it, and undoes it.
    s.send_user("/rewind");
    let listed = s.wait_type("result")["result"]
        .as_str()
        .unwrap()
        .to_string();
    common::assert_contains(&listed, "[undo]");
    let undo = listed
        .lines()
        .find(|l| l.contains("[undo]"))
        .and_then(|l| l.split('(').next_back())
        .map(|l| l.trim_end_matches(')').to_string())
        .unwrap();
    s.send_user(&format!("/rewind {undo}"));
    let undone = s.wait_type("result");
    assert_eq!(undone["is_error"], false, "{undone}");
    assert_eq!(tree(&root)["a.txt"], "two\n");
    assert_eq!(tree(&root)["mine.txt"], "my own work\n");
    assert_eq!(s.finish().0, 0);
}

#[test]
fn resume_then_rewind_the_code_and_the_conversation_from_the_command_line() {
    let sb = Sandbox::new();
    let root = sb.project();
    sb.write("a.txt", "one\n");
    let a = root.join("a.txt").display().to_string();
    let server = common::mock(
        Script::new()
            .turn(common::read("r1", &a))
            .turn(common::write("w1", &a, "two\n"))
            .turn(Turn::text("first done"))
            .turn(common::read("r2", &a))
            .turn(common::write("w2", &a, "three\n"))
            .turn(Turn::text("second done")),
    );
    let mut s = session(&sb, &server, &[]);
    let init = s.wait_type("system");
    let session_id = init["session_id"].as_str().unwrap().to_string();
    turn(&mut s, "first change", None);
    let second = turn(&mut s, "second change", None);
    assert_eq!(s.finish().0, 0);
    assert_eq!(tree(&root)["a.txt"], "three\n");

    // No need for the SDK's variable: the session's checkpoints are read.
    let out = sb.run(&server, ["--resume", &session_id, "--rewind-to", &second]);
    let stdout = common::stdout(&out);
    assert!(out.status.success(), "{stdout}\n{}", common::stderr(&out));
    common::assert_contains(&stdout, "The message was:\nsecond change");
    assert_eq!(tree(&root)["a.txt"], "two\n");

    // The conversation continues from before the second message.
    server.push(Turn::text("again"));
    let out = sb.run(
        &server,
        ["-p", "--resume", &session_id, "second change, differently"],
    );
    assert!(out.status.success());
    let last = server.requests().pop().unwrap();
    let texts: Vec<String> = last.messages().iter().map(|m| m.to_string()).collect();
    let all = texts.join("\n");
    assert!(
        all.contains("first change") && all.contains("first done"),
        "{all}"
    );
    common::assert_lacks(&all, "second done");
}

#[test]
fn back_to_the_plan_restores_the_code_and_plans_again_with_the_approved_text() {
    let sb = Sandbox::new();
    let root = sb.project();
    sb.write("src/lib.rs", "pub fn f() {}\n");
    let lib = root.join("src/lib.rs").display().to_string();
    let plans = sb.config().join("plans").display().to_string();
    let plan = "# Plan\n\n1. Change src/lib.rs\n";
    let server = common::mock(
        Script::new()
            .turn(Turn::respond(move |r| {
                let path = plan_path_in(r, &plans);
                common::write("p", &path, plan)
            }))
            .turn(common::exit_plan("x"))
            .turn(common::read("r", &lib))
            .turn(common::write("w", &lib, "pub fn g() {}\n"))
            .turn(common::todo_write("t", json!([{"content": "Change src/lib.rs", "status": "completed", "activeForm": "Changing"}])))
            .turn(Turn::text("implemented")),
    );
    let mut cmd = sb.catui(&server);
    cmd.env(CHECKPOINTING, "1");
    let mut s = StreamSession::start(cmd, &["--permission-mode", "plan"]);
    let plan_file = s.wait_type("system")["plan_file"]
        .as_str()
        .unwrap()
        .to_string();
    s.send_user("plan a change to lib.rs");
    let ask_plan = s.wait_type("control_request");
    let mut approved = ask_plan["request"]["input"].clone();
    approved["mode"] = json!("acceptEdits");
    s.send(json!({"type":"control_response","response":{"subtype":"success",
        "request_id": ask_plan["request_id"],"response":{"behavior":"allow","updatedInput":approved}}}));
    assert_eq!(s.wait_type("result")["result"], "implemented");
    assert_eq!(tree(&root)["src/lib.rs"], "pub fn g() {}\n");
    // The model then changed the plan file; back to the plan brings the
    // approved text back.
    std::fs::write(&plan_file, "# Plan\n\n1. something else\n").unwrap();

    let seen_before = s.seen.len();
    let answer = ask(&mut s, "c1", json!({"subtype": "rewind_to_plan"}));
    assert_eq!(answer["subtype"], "success", "{answer}");
    assert_eq!(tree(&root)["src/lib.rs"], "pub fn f() {}\n");
    assert_eq!(std::fs::read_to_string(&plan_file).unwrap(), plan);
    let planning = |v: &Value| v["subtype"] == "permission_mode" && v["mode"] == "plan";
    if !s.seen[seen_before..].iter().any(planning) {
        s.wait_for("plan mode again", planning);
    }

    // The model hears of it at its next request.
    server.push(Turn::text("revising"));
    s.send_user("let us revise the plan");
    assert_eq!(s.wait_type("result")["permission_mode"], "plan");
    let last = server.requests().pop().unwrap();
    let text = last.last_user_text().unwrap_or_default();
    common::assert_contains(&text, "went back to the approved plan");
    assert_eq!(s.finish().0, 0);
}

#[test]
fn the_conversation_rewind_of_rewind_command_puts_the_message_back() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::text("answer one"))
            .turn(Turn::text("answer two"))
            .turn(Turn::text("answer again")),
    );
    let mut s = session(&sb, &server, &[]);
    turn(&mut s, "question one", None);
    let two = turn(&mut s, "question two", None);
    s.send_user(&format!("/rewind {two} conversation"));
    let result = s.wait_type("result");
    assert!(
        result["result"]
            .as_str()
            .unwrap()
            .contains("The message was:\nquestion two"),
        "{result}"
    );
    turn(&mut s, "question two, better", None);
    let last = server.requests().pop().unwrap();
    let all: Vec<String> = last.messages().iter().map(|m| m.to_string()).collect();
    let all = all.join("\n");
    assert!(
        all.contains("answer one") && !all.contains("answer two"),
        "{all}"
    );
    assert_eq!(s.finish().0, 0);
}

#[test]
fn checkpoints_are_off_in_headless_runs_unless_asked() {
    let (sb, server) = common::with_mock(Script::new().turn(Turn::text("hi")));
    let mut s = sb.stream(&server, &[]);
    s.send_user("hello");
    s.wait_type("result");
    let answer = ask(
        &mut s,
        "r",
        json!({"subtype": "rewind_files", "user_message_id": "x"}),
    );
    assert_eq!(answer["subtype"], "error");
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .contains("enable_file_checkpointing"),
        "{answer}"
    );
    assert_eq!(s.finish().0, 0);
    assert!(!sb.config().join("checkpoints").exists());
}

#[test]
fn a_fork_keeps_its_parents_points_and_goes_on_on_its_own_line() {
    let sb = Sandbox::new();
    let root = sb.project();
    let p = |rel: &str| root.join(rel).display().to_string();
    let server = common::mock(
        Script::new()
            .turn(common::write("w1", p("one.txt"), "1\n"))
            .turn(Turn::text("made one"))
            .turn(common::write("w2", p("two.txt"), "2\n"))
            .turn(Turn::text("made two in the fork")),
    );
    let mut parent = session(&sb, &server, &[]);
    let parent_id = parent.wait_type("system")["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let first = turn(&mut parent, "make one", None);
    assert_eq!(parent.finish().0, 0);

    let mut fork = session(&sb, &server, &["--resume", &parent_id, "--fork-session"]);
    let fork_id = fork.wait_type("system")["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(fork_id, parent_id);
    turn(&mut fork, "make two", None);
    // The parent's message is a point of the fork too (same id).
    let answer = ask(
        &mut fork,
        "r",
        json!({"subtype": "rewind_files", "user_message_id": first}),
    );
    assert_eq!(answer["subtype"], "success", "{answer}");
    assert!(tree(&root).is_empty(), "{:?}", tree(&root));
    assert_eq!(fork.finish().0, 0);

    // Each session has its own line in the shadow repository.
    let refs_dir = std::fs::read_dir(sb.config().join("checkpoints"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path()
        .join("refs/catui/sessions");
    for id in [&parent_id, &fork_id] {
        assert!(
            refs_dir.join(id).is_file(),
            "no line for {id} in {}",
            refs_dir.display()
        );
    }
}

/// A plan approved, carried out, revised and approved again keeps its
/// slug: each approval is its own point, and `rewind_to_plan` with
/// `approval: 1` goes back to the first (its files and its text), not only
/// to the last.
#[test]
fn each_approval_of_a_plan_revised_and_approved_again_can_be_gone_back_to() {
    let sb = Sandbox::new();
    // Not about the plan contract: no goal loop after approval.
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let root = sb.project();
    sb.write("src/lib.rs", "pub fn f() {}\n");
    let lib = root.join("src/lib.rs").display().to_string();
    let plans = sb.config().join("plans").display().to_string();
    let first = "# Plan\n\n1. Rename f to g in src/lib.rs\n";
    let second = "# Plan\n\n1. Rename g to h in src/lib.rs\n";
    let plans2 = plans.clone();
    let lib2 = lib.clone();
    let server = common::mock(
        Script::new()
            .turn(Turn::respond(move |r| {
                let path = plan_path_in(r, &plans);
                common::write("p", &path, first)
            }))
            .turn(common::exit_plan("x"))
            .turn(common::read("r", &lib))
            .turn(common::write("w", &lib, "pub fn g() {}\n"))
            .turn(Turn::text("first done"))
            .turn(Turn::respond(move |r| {
                let path = plan_path_in(r, &plans2);
                common::write("p2", &path, second)
            }))
            .turn(common::exit_plan("x2"))
            .turn(common::read("r2", &lib2))
            .turn(common::write("w2", &lib2, "pub fn h() {}\n"))
            .turn(Turn::text("second done")),
    );
    let mut cmd = sb.catui(&server);
    cmd.env(CHECKPOINTING, "1");
    let mut s = StreamSession::start(cmd, &["--permission-mode", "plan"]);
    let plan_file = s.wait_type("system")["plan_file"]
        .as_str()
        .unwrap()
        .to_string();
    let slug = Path::new(&plan_file)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let approve = |s: &mut StreamSession| {
        let ask = s.wait_type("control_request");
        let mut approved = ask["request"]["input"].clone();
        approved["mode"] = json!("acceptEdits");
        s.send(json!({"type":"control_response","response":{"subtype":"success",
            "request_id": ask["request_id"],"response":{"behavior":"allow","updatedInput":approved}}}));
    };
    s.send_user("plan the rename");
    approve(&mut s);
    assert_eq!(s.wait_type("result")["result"], "first done");
    s.send_user("/plan");
    s.wait_type("result");
    s.send_user("rename it again");
    approve(&mut s);
    assert_eq!(s.wait_type("result")["result"], "second done");
    assert_eq!(tree(&root)["src/lib.rs"], "pub fn h() {}\n");

    // Both approvals are listed, each with its own id.
    s.send_user("/rewind");
    let list = s.wait_type("result")["result"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(list.contains(&format!("(plan:{slug}#1)")), "{list}");
    assert!(list.contains(&format!("(plan:{slug}#2)")), "{list}");

    let answer = ask(
        &mut s,
        "c1",
        json!({"subtype": "rewind_to_plan", "slug": slug, "approval": 1}),
    );
    assert_eq!(answer["subtype"], "success", "{answer}");
    assert_eq!(tree(&root)["src/lib.rs"], "pub fn f() {}\n");
    assert_eq!(std::fs::read_to_string(&plan_file).unwrap(), first);
    // An approval that was never made says so.
    let answer = ask(
        &mut s,
        "c2",
        json!({"subtype": "rewind_to_plan", "slug": slug, "approval": 3}),
    );
    assert_eq!(answer["subtype"], "error", "{answer}");
    assert_eq!(s.finish().0, 0);
}
