//! What the model is told, checked through the real binary against the
//! testkit mock (issue #36): relative paths, the Agent tool's model
//! aliases, what sub-agents are offered and told, the git snapshot's
//! place, shell state, and schemas free of developer notes.
//!
//! Loop and error reflection through the real binary: three identical
//! calls in a row add a reminder to step back, and a tool error says what
//! to check first (a missing file: search for it; an Edit that matches
//! several places: where they are, and to widen the context).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::process::Command;

use catui_testkit::{Block, Script, Turn};
use common::{Sandbox, StreamSession, output_within, result_of};
use serde_json::{Value, json};

fn run_p(mut cmd: Command, prompt: &str, extra: &[&str]) -> std::process::Output {
    let out = cmd.args(["-p", prompt]).args(extra).output().unwrap();
    common::assert_ok(&out);
    out
}

/// An interactive (stream-json) session that sends `prompt` and ends when
/// the answer is complete: the tool set a front end's user gets.
fn interactive(cmd: Command, prompt: &str, extra: &[&str]) {
    let mut s = StreamSession::start(cmd, extra);
    s.send_user(prompt);
    s.wait_type("result");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
}

fn agent(id: &str, kind: &str, prompt: &str, model: Option<&str>) -> Block {
    let mut input = json!({"description": "look around", "prompt": prompt, "subagent_type": kind});
    if let Some(m) = model {
        input["model"] = json!(m);
    }
    Block::ToolUse {
        id: id.into(),
        name: "Agent".into(),
        input,
    }
}

/// Item 1: relative paths resolve from the project root the environment
/// names, whatever directory Bash last changed to.
#[test]
fn relative_paths_resolve_from_the_project_root_after_a_bash_cd() {
    let sb = Sandbox::new();
    sb.write("src/lib.rs", "pub fn answer() -> u32 { 42 }\n");
    let outside = tempfile::tempdir().unwrap();
    let outside_dir = outside.path().canonicalize().unwrap();
    let server = common::mock(
        Script::new()
            .turn(common::bash("c1", "cd src"))
            .turn(Turn::blocks(vec![
                Block::tool_use("r1", "Read", json!({"file_path": "src/lib.rs"})),
                Block::tool_use("g1", "Glob", json!({"pattern": "src/*.rs"})),
                Block::tool_use(
                    "w1",
                    "Write",
                    json!({"file_path": "README.md", "content": "hello\n"}),
                ),
            ]))
            .turn(common::bash("c2", format!("cd {}", outside_dir.display())))
            .turn(Turn::blocks(vec![
                Block::tool_use(
                    "w2",
                    "Write",
                    json!({"file_path": "NOTES.md", "content": "notes\n"}),
                ),
                Block::tool_use("p1", "Bash", json!({"command": "pwd"})),
            ]))
            .turn(Turn::text("done")),
    );
    run_p(
        sb.catui(&server),
        "go",
        &["--permission-mode", "bypassPermissions"],
    );
    let reqs = server.requests();
    assert_eq!(reqs.len(), 5);
    let (read, is_error) = result_of(&reqs[2], "r1");
    assert!(!is_error && read.contains("pub fn answer"), "{read}");
    let (glob, _) = result_of(&reqs[2], "g1");
    common::assert_contains(&glob, "lib.rs");
    assert_eq!(
        std::fs::read_to_string(sb.project().join("README.md")).unwrap(),
        "hello\n"
    );
    assert!(!sb.project().join("src/README.md").exists());
    assert_eq!(
        std::fs::read_to_string(sb.project().join("NOTES.md")).unwrap(),
        "notes\n"
    );
    assert!(!outside_dir.join("NOTES.md").exists());
    // Bash itself still keeps its own directory.
    let (pwd, _) = result_of(&reqs[4], "p1");
    common::assert_contains(&pwd, &outside_dir.display().to_string());
    // The rule is stated where the model reads it.
    let system = reqs[0].system_text();
    common::assert_contains(
        &system,
        "file tools resolve relative paths from it, and a `cd` in Bash does not",
    );
}

/// Item 2: Agent's `model` is an alias from a fixed list, sent to the API
/// as the provider's real model id; anything else is refused with the list.
#[test]
fn agent_model_aliases_map_to_real_ids_and_others_are_refused() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(
                Turn::blocks(vec![
                    agent("a1", "general-purpose", "task one", Some("opus")),
                    agent("a2", "general-purpose", "task two", Some("gpt-9")),
                ])
                .when_model("test-model"),
            )
            .turn(Turn::text("sub-agent report").when_contains("task one"))
            .turn(Turn::text("done").when_model("test-model")),
    );
    run_p(sb.catui(&server), "go", &[]);
    let reqs = server.requests();
    let schema = &common::offered_tool(&reqs[0], "Agent")["input_schema"]["properties"]["model"];
    assert_eq!(
        schema["enum"],
        json!(["sonnet", "opus", "haiku"]),
        "{schema}"
    );
    let sub = reqs
        .iter()
        .find(|r| {
            r.contains_text("task one") && r.tool_results().is_empty() && r.model() != "test-model"
        })
        .expect("the sub-agent's request");
    assert_eq!(sub.model(), "claude-opus-4-5");
    let last = reqs.last().unwrap();
    let (refused, is_error) = result_of(last, "a2");
    assert!(is_error, "{refused}");
    for alias in ["sonnet", "opus", "haiku"] {
        common::assert_contains(&refused, alias);
    }
    assert!(
        !reqs
            .iter()
            .any(|r| r.model() == "gpt-9" || r.model() == "opus")
    );
}

/// Items 3, 5 and 7: a read-only sub-agent is offered only tools that work
/// for it, its prompt names the model it really runs on, and nothing tells
/// it how to get write access; the Agent listing names only real tools.
#[test]
fn sub_agents_are_offered_and_told_what_is_true() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(
                Turn::blocks(vec![
                    agent("a1", "Explore", "find the parser", None),
                    agent("a2", "general-purpose", "do the chore", None),
                ])
                .when_model("test-model"),
            )
            .turn(Turn::text("found").when_model("small-model"))
            .turn(Turn::text("did it").when_contains("do the chore"))
            .turn(Turn::text("done").when_model("test-model")),
    );
    interactive(sb.catui(&server), "go", &["--small-model", "small-model"]);
    let reqs = server.requests();
    let main = &reqs[0];
    let main_tools = main.tool_names();
    let explore = reqs
        .iter()
        .find(|r| r.model() == "small-model")
        .expect("Explore's request");
    // Item 5: the prompt names the model the agent runs on.
    assert!(explore.system_text().contains("Model: small-model\n"));
    assert!(!explore.system_text().contains("Model: test-model"));
    // Item 3: no tool that would always fail.
    let tools = explore.tool_names();
    for absent in [
        "TeamCreate",
        "SendMessage",
        "TeamStop",
        "Agent",
        "AskUserQuestion",
        "Write",
        "Edit",
    ] {
        assert!(
            !tools.iter().any(|t| t == absent),
            "{absent} offered: {tools:?}"
        );
    }
    // Item 7: no way to write offered or described.
    let bash = common::offered_tool(explore, "Bash");
    assert!(
        bash["input_schema"]["properties"]
            .get("unconfined")
            .is_none(),
        "{bash}"
    );
    assert!(!bash["description"].as_str().unwrap().contains("unconfined"));
    // Item 3: the listing of agent types names only tools that exist and
    // says what each agent really lacks.
    let listing = common::offered_tool(main, "Agent")["description"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!listing.contains("all tools)"), "{listing}");
    common::assert_lacks(&listing, "Task");
    let general = reqs
        .iter()
        .find(|r| {
            r.contains_text("do the chore")
                && r.model() == "test-model"
                && r.tool_results().is_empty()
                && r.messages().len() == 1
        })
        .expect("general-purpose's request");
    for t in general.tool_names() {
        assert!(main_tools.contains(&t), "{t} is not a tool of the session");
    }
    for line in listing.lines().filter(|l| l.starts_with("- ")) {
        let Some(tools) = line.split("(tools: ").nth(1) else {
            continue;
        };
        for name in tools
            .trim_end_matches(')')
            .replace("all except", "")
            .split(", ")
        {
            let name = name.trim();
            if !name.is_empty() {
                assert!(main_tools.iter().any(|t| t == name), "{name} in {line}");
            }
        }
    }
}

fn git(dir: &std::path::Path, args: &[&str]) {
    let ok = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "git {args:?}");
}

/// Item 4: the git snapshot is in the first request, every time, in
/// default and plan mode, before any tool result.
#[test]
fn the_git_snapshot_is_in_every_first_request() {
    let sb = Sandbox::new();
    sb.write("src/lib.rs", "fn main() {}\n");
    git(&sb.project(), &["init", "-q", "-b", "trunk"]);
    git(&sb.project(), &["add", "."]);
    git(
        &sb.project(),
        &["commit", "-q", "-m", "first commit subject"],
    );
    for mode in ["default", "plan", "default", "plan", "default", "plan"] {
        let server = common::mock(
            Script::new()
                .turn(common::read("r1", "src/lib.rs"))
                .turn(Turn::text("ok").forever()),
        );
        run_p(sb.catui(&server), "hi", &["--permission-mode", mode]);
        let reqs = server.requests();
        let first = reqs[0].messages()[0].to_string();
        assert!(
            first.contains("# Git status") && first.contains("first commit subject"),
            "{mode}: {first}"
        );
        for later in &reqs[1..] {
            let last = later.messages().last().unwrap().to_string();
            assert!(!last.contains("# Git status"), "{mode}: sent again: {last}");
        }
    }
}

/// Item 8: `cd` carries over between Bash calls and exported variables do
/// not, and the description says exactly that.
#[test]
fn bash_describes_the_shell_state_that_carries_over() {
    let sb = Sandbox::new();
    sb.write("sub/marker.txt", "x");
    let server = common::mock(
        Script::new()
            .turn(common::bash("c1", "cd sub && export CATUI_X=kept"))
            .turn(common::bash("c2", "echo \"[$CATUI_X]\" && ls"))
            .turn(Turn::text("done")),
    );
    run_p(
        sb.catui(&server),
        "go",
        &["--permission-mode", "bypassPermissions"],
    );
    let reqs = server.requests();
    let (out, _) = result_of(&reqs[2], "c2");
    assert!(out.contains("[]") && out.contains("marker.txt"), "{out}");
    let description = common::offered_tool(&reqs[0], "Bash")["description"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        description.contains("`cd` stays in effect") && description.contains("`export`"),
        "{description}"
    );
}

/// Every `description` string in a schema, with its JSON path.
fn descriptions(v: &Value, path: &str, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                if k == "description"
                    && let Some(s) = v.as_str()
                {
                    out.push((path.to_string(), s.to_string()));
                }
                descriptions(v, &format!("{path}.{k}"), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                descriptions(v, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// Item 11: schemas carry what the model may send and the limits it must
/// keep, not notes for developers, and no line breaks inside sentences.
#[test]
fn tool_schemas_hold_limits_and_no_developer_notes() {
    let (sb, server) = common::with_mock(Script::new().turn(Turn::text("hello").forever()));
    interactive(sb.catui(&server), "hi", &[]);
    let reqs = server.requests();
    let first = &reqs[0];
    let ask = &common::offered_tool(first, "AskUserQuestion")["input_schema"];
    let questions = &ask["properties"]["questions"];
    assert_eq!(
        (
            questions["minItems"].as_u64(),
            questions["maxItems"].as_u64()
        ),
        (Some(1), Some(4)),
        "{ask}"
    );
    let options = ask.to_string();
    assert!(
        options.contains("\"minItems\":2") && options.contains("\"maxItems\":4"),
        "{ask}"
    );
    let enter = &common::offered_tool(first, "EnterPlanMode")["input_schema"];
    assert!(enter.get("description").is_none(), "{enter}");
    for name in first.tool_names() {
        let mut found = Vec::new();
        descriptions(
            &common::offered_tool(first, &name)["input_schema"],
            &name,
            &mut found,
        );
        for (path, text) in found {
            assert!(
                !text.contains("front end") && !text.contains("not offered"),
                "{path}: {text}"
            );
            let broken = text
                .split('\n')
                .zip(text.split('\n').skip(1))
                .any(|(a, b)| !a.is_empty() && !b.is_empty() && !b.starts_with("- "));
            assert!(!broken, "{path} breaks a line mid-sentence: {text:?}");
        }
    }
}

const STEP_BACK: &str = "Step back";

#[test]
fn three_identical_calls_in_a_row_add_a_reminder_to_step_back() {
    let sb = Sandbox::new();
    sb.write("a.txt", "alpha\n");
    let server = common::mock(
        Script::new()
            .turn(common::read("r1", "a.txt"))
            .turn(common::read("r2", "a.txt"))
            .turn(common::read("r3", "a.txt"))
            .turn(Turn::text("stopped looping")),
    );
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "read it"]);
    let out = output_within(cmd, b"", 60);
    assert_eq!(out.status.code(), Some(0));
    let reqs = server.requests();
    // Not after one or two.
    for r in &reqs[1..3] {
        let last = r.messages().last().unwrap().to_string();
        common::assert_lacks(&last, STEP_BACK);
    }
    let last = reqs[3].messages().last().unwrap().to_string();
    common::assert_contains(&last, "same Read call");
    common::assert_contains(&last, "3 times in a row");
    common::assert_contains(&last, STEP_BACK);
}

#[test]
fn the_same_error_three_times_adds_the_reminder_and_errors_say_what_to_check() {
    let sb = Sandbox::new();
    sb.write("dup.txt", "x = 1\ny = 2\nx = 1\n");
    let server = common::mock(
        Script::new()
            .turn(common::read("r0", "dup.txt"))
            .turn(common::edit("e1", "dup.txt", "x = 1", "x = 3"))
            .turn(common::edit("e2", "./dup.txt", "x = 1", "x = 4"))
            .turn(common::edit("e3", "dup.txt", "x = 1", "x = 5"))
            .turn(common::read("m1", "missing.txt"))
            .turn(Turn::text("done")),
    );
    let mut cmd = sb.catui(&server);
    cmd.args(["-p", "edit it", "--allowed-tools", "Edit"]);
    let out = output_within(cmd, b"", 60);
    assert_eq!(out.status.code(), Some(0));
    let reqs = server.requests();
    let (text, is_error) = common::result_of(&reqs[2], "e1");
    assert!(is_error);
    common::assert_contains(&text, "occurs 2 times in the file (at lines 1, 3)");
    common::assert_contains(&text, "Widen the context");
    // Three different calls, one error: the error repeating is named.
    let last = reqs[4].messages().last().unwrap().to_string();
    common::assert_contains(&last, "same error has now come back 3 times");
    let (missing, _) = common::result_of(&reqs[5], "m1");
    common::assert_contains(&missing, "Use Glob to find the file");
}
