//! The headless CLI end to end: the real binary, real HTTP + SSE against the
//! testkit mock model, real files in temp dirs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::{Sandbox, json_lines};
use serde_json::{Value, json};

#[test]
fn no_provider_configured_is_one_clear_line_and_exit_2() {
    let sb = Sandbox::new();
    let out = sb.bare().args(["-p", "hi"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = common::stderr(&out);
    assert!(
        err.contains("ANTHROPIC_API_KEY") && err.contains("OPENAI_API_KEY"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn text_answer_streams_over_the_anthropic_wire_format() {
    let (sb, server) =
        common::with_mock(Script::new().turn(Turn::text("Hello from the mock model.")));
    let out = sb.run(&server, ["-p", "say hello"]);
    common::assert_ok(&out);
    assert_eq!(common::stdout(&out).trim(), "Hello from the mock model.");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].path, "/v1/messages");
    assert_eq!(reqs[0].header("x-api-key"), Some("test-key-not-secret"));
    assert_eq!(reqs[0].header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(reqs[0].body["model"], "test-model");
    assert_eq!(reqs[0].body["stream"], true);
    assert_eq!(reqs[0].last_user_typed().as_deref(), Some("say hello"));
    let tools: Vec<&str> = reqs[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for t in ["Read", "Glob", "Grep"] {
        assert!(tools.contains(&t), "{tools:?}");
    }
}

#[test]
fn text_answer_streams_over_the_openai_wire_format() {
    let sb = Sandbox::new();
    let server =
        common::mock(Script::new().turn(Turn::text("Hi from an OpenAI-compatible server.")));
    let out = sb
        .catui_openai(&server)
        .args(["-p", "hello"])
        .output()
        .unwrap();
    common::assert_ok(&out);
    assert_eq!(
        common::stdout(&out).trim(),
        "Hi from an OpenAI-compatible server."
    );
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].path, "/v1/chat/completions");
    assert_eq!(
        reqs[0].header("authorization"),
        Some("Bearer test-key-not-secret")
    );
}

#[test]
fn prompt_can_come_from_stdin() {
    let (sb, server) = common::with_mock(Script::new().turn(Turn::text("ok")));
    let out = sb
        .catui(&server)
        .arg("-p")
        .write_stdin_compat("question from a pipe\n");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        server.requests()[0].last_user_typed().as_deref(),
        Some("question from a pipe\n")
    );
}

#[test]
fn multi_turn_tool_loop_read_then_grep_then_answer() {
    let sb = Sandbox::new();
    let file = sb.write("src/lib.rs", "pub fn answer() -> u32 {\n    42\n}\n");
    sb.write("src/other.rs", "// nothing here\n");
    let server = common::mock(
        Script::new()
            .turn(common::read("toolu_1", file.to_str().unwrap()))
            .turn(Turn::tool_use(
                "toolu_2",
                "Grep",
                json!({"pattern": "fn answer", "output_mode": "files_with_matches"}),
            ))
            .turn(Turn::text("answer() returns 42, defined in src/lib.rs.")),
    );
    let out = sb.run(&server, ["-p", "what does answer return?"]);
    common::assert_ok(&out);
    assert_eq!(
        common::stdout(&out).trim(),
        "answer() returns 42, defined in src/lib.rs."
    );
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    let read_result = tool_result_text(&reqs[1].body, "toolu_1");
    common::assert_contains(&read_result, "42");
    let grep_result = tool_result_text(&reqs[2].body, "toolu_2");
    assert!(
        grep_result.contains("lib.rs") && !grep_result.contains("other.rs"),
        "{grep_result}"
    );
}

#[test]
fn overloaded_twice_then_success() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::error_status(529, "Overloaded"))
            .turn(Turn::error_status(529, "Overloaded"))
            .turn(Turn::text("third time lucky")),
    );
    let out = sb.run(&server, ["-p", "hi"]);
    common::assert_ok(&out);
    assert_eq!(common::stdout(&out).trim(), "third time lucky");
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn dropped_stream_is_retried_without_duplicate_transcript_entries() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::text("this answer will be cut off in the middle").drop_after_events(4))
            .turn(Turn::text("complete answer")),
    );
    let out = sb.run(&server, ["-p", "hi", "--output-format", "stream-json"]);
    common::assert_ok(&out);
    let lines = json_lines(&out.stdout);
    let assistants: Vec<&Value> = lines.iter().filter(|l| l["type"] == "assistant").collect();
    assert_eq!(assistants.len(), 1);
    assert_eq!(
        assistants[0]["message"]["content"][0]["text"],
        "complete answer"
    );
    assert_eq!(server.requests().len(), 2);

    let transcripts = sb.transcripts();
    assert_eq!(transcripts.len(), 1, "{transcripts:?}");
    let text = std::fs::read_to_string(&transcripts[0]).unwrap();
    let entries: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let assistant_entries: Vec<&Value> = entries
        .iter()
        .filter(|e| e["type"] == "assistant")
        .collect();
    assert_eq!(assistant_entries.len(), 1, "{text}");
    assert!(
        !text.contains("cut off"),
        "partial answer leaked into the transcript: {text}"
    );
    assert!(!text.contains("test-key-not-secret"));
}

#[test]
fn unauthorized_names_the_key_and_exits_1() {
    let (sb, server) =
        common::with_mock(Script::new().turn(Turn::error_status(401, "invalid x-api-key")));
    let out = sb.run(&server, ["-p", "hi"]);
    assert_eq!(out.status.code(), Some(1));
    let err = common::stderr(&out);
    common::assert_contains(&err, "ANTHROPIC_API_KEY");
    common::assert_contains(&err, "invalid x-api-key");
    common::assert_lacks(&err, "test-key-not-secret");
    assert_eq!(server.requests().len(), 1, "401 must not be retried");
}

#[test]
fn malformed_tool_json_gets_an_error_result_and_the_loop_continues() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::tool_use_raw(
                "toolu_bad",
                "Read",
                "{\"file_path\": \"/tmp/x",
            ))
            .turn(Turn::text("sorry, fixed")),
    );
    let out = sb.run(&server, ["-p", "read it"]);
    common::assert_ok(&out);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let (text, is_error) = common::tool_result_in(&reqs[1].body, "toolu_bad");
    assert!(is_error);
    common::assert_contains(&text, "JSON");
    // The tool_use sent back to the API is still a valid object.
    let tool_use = reqs[1].body["messages"][1]["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["type"] == "tool_use")
        .unwrap()
        .clone();
    assert!(tool_use["input"].is_object());
}

#[test]
fn unknown_tool_gets_an_error_result() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::tool_use("toolu_x", "Teleport", json!({"to": "mars"})))
            .turn(Turn::text("ok")),
    );
    let out = sb.run(&server, ["-p", "go"]);
    assert_eq!(out.status.code(), Some(0));
    let (text, is_error) = common::tool_result_in(&server.requests()[1].body, "toolu_x");
    assert!(
        is_error && text.contains("Teleport") && text.contains("Read"),
        "{text}"
    );
}

#[test]
fn max_turns_ends_with_error_max_turns() {
    let sb = Sandbox::new();
    let file = sb.write("a.txt", "a\n");
    let read = json!({"file_path": file.to_str().unwrap()});
    let server = common::mock(
        Script::new()
            .turn(Turn::tool_use("t1", "Read", read.clone()))
            .turn(Turn::tool_use("t2", "Read", read.clone()))
            .turn(Turn::tool_use("t3", "Read", read)),
    );
    let out = sb.run(
        &server,
        [
            "-p",
            "loop",
            "--max-turns",
            "2",
            "--output-format",
            "stream-json",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let lines = json_lines(&out.stdout);
    let result = lines.last().unwrap();
    assert_eq!(result["type"], "result");
    assert_eq!(result["subtype"], "error_max_turns");
    assert_eq!(result["num_turns"], 2);
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn stream_json_output_has_init_messages_and_one_result() {
    let sb = Sandbox::new();
    let file = sb.write("notes.md", "remember the milk\n");
    let server = common::mock(
        Script::new()
            .turn(common::read("toolu_r", file.to_str().unwrap()))
            .turn(Turn::text("The note says to remember the milk.").usage(100, 20)),
    );
    let out = sb.run(
        &server,
        ["-p", "read notes", "--output-format", "stream-json"],
    );
    common::assert_ok(&out);
    let lines = json_lines(&out.stdout);
    let init = &lines[0];
    assert_eq!(
        (init["type"].as_str(), init["subtype"].as_str()),
        (Some("system"), Some("init"))
    );
    assert_eq!(init["permission_mode"], "default");
    assert_eq!(init["model"], "test-model");
    assert!(
        init["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "Read")
    );
    let session_id = init["session_id"].as_str().unwrap().to_string();
    let types: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    // init, then the machine's facts as an attachment line.
    assert_eq!(
        types,
        [
            "system",
            "system",
            "assistant",
            "user",
            "assistant",
            "result"
        ]
    );
    assert_eq!(lines[1]["subtype"], "attachment");
    assert!(
        lines[1]["attachment"]["text"]
            .as_str()
            .unwrap()
            .starts_with("# Machine"),
        "{}",
        lines[1]
    );
    for l in &lines[2..] {
        assert_eq!(l["session_id"], session_id.as_str());
    }
    assert!(lines[2]["parent_tool_use_id"].is_null());
    assert_eq!(lines[3]["message"]["content"][0]["tool_use_id"], "toolu_r");
    let result = &lines[5];
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["result"], "The note says to remember the milk.");
    assert_eq!(result["num_turns"], 2);
    assert!(result["usage"]["input_tokens"].as_u64().unwrap() >= 100);
}

#[test]
fn json_output_is_a_single_result_object() {
    let (sb, server) = common::with_mock(Script::new().turn(Turn::text("forty-two")));
    let out = sb.run(&server, ["-p", "q", "--output-format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["type"], "result");
    assert_eq!(lines[0]["result"], "forty-two");
}

#[test]
fn stream_json_input_answers_every_input_with_one_result() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::text("first"))
            .turn(Turn::text("second")),
    );
    let mut s = sb.stream(&server, &[]);
    s.wait_for("init", |v| v["subtype"] == "init");
    s.send_user("one");
    assert_eq!(s.wait_type("result")["result"], "first");
    s.send_user("/nonsense");
    let r = s.wait_type("result");
    assert_eq!(r["num_turns"], 0);
    assert!(
        r["result"]
            .as_str()
            .unwrap()
            .contains("Unknown command: /nonsense")
    );
    s.send_user("/mode plan");
    let r = s.wait_type("result");
    assert_eq!(r["permission_mode"], "plan");
    s.send_user("two");
    assert_eq!(s.wait_type("result")["result"], "second");
    let (code, seen) = s.finish();
    assert_eq!(code, 0);
    let mode_events: Vec<&Value> = seen
        .iter()
        .filter(|v| v["subtype"] == "permission_mode")
        .collect();
    assert_eq!(mode_events.len(), 1);
    assert_eq!(mode_events[0]["mode"], "plan");
    assert_eq!(mode_events[0]["pre_plan_mode"], "default");
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn set_permission_mode_control_is_answered() {
    let (sb, server) = common::with_mock(Script::new());
    let mut s = sb.stream(&server, &[]);
    s.send(json!({"type":"control_request","request_id":"c1","request":{"subtype":"set_permission_mode","mode":"acceptEdits"}}));
    let r = s.wait_type("control_response");
    assert_eq!(r["response"]["subtype"], "success");
    assert_eq!(r["response"]["request_id"], "c1");
    s.send(json!({"type":"control_request","request_id":"c2","request":{"subtype":"set_permission_mode","mode":"sideways"}}));
    let r = s.wait_type("control_response");
    assert_eq!(r["response"]["subtype"], "error");
    assert!(
        r["response"]["error"]
            .as_str()
            .unwrap()
            .contains("sideways")
    );
    s.send(json!({"garbage": true}));
    s.wait_for("notification", |v| v["subtype"] == "notification");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
}

fn tool_result_text(body: &Value, id: &str) -> String {
    common::tool_result_in(body, id).0
}

trait WriteStdin {
    fn write_stdin_compat(&mut self, input: &str) -> std::process::Output;
}

impl WriteStdin for std::process::Command {
    fn write_stdin_compat(&mut self, input: &str) -> std::process::Output {
        common::fixtures::output_with_stdin(self, input.as_bytes())
    }
}

#[test]
fn read_edit_and_bash_change_a_real_file() {
    let sb = Sandbox::new();
    let file = sb.write("greet.py", "def greet():\r\n    return 'hello'\r\n");
    let path = file.to_str().unwrap();
    let server = common::mock(
        Script::new()
            .turn(common::read("r", path))
            .turn(common::edit(
                "e",
                path,
                "return 'hello'",
                "return 'hello, world'",
            ))
            .turn(common::bash("b1", "mkdir -p out && cd out"))
            .turn(common::bash(
                "b2",
                "pwd && printf '# done\\n' >> ../greet.py",
            ))
            .turn(Turn::text("Updated greet.py.")),
    );
    let out = sb.run(
        &server,
        [
            "-p",
            "make it greet the world",
            "--permission-mode",
            "bypassPermissions",
        ],
    );
    common::assert_ok(&out);
    // CRLF kept by Edit, the shell's `cd` persisted between calls.
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "def greet():\r\n    return 'hello, world'\r\n# done\n"
    );
    let reqs = server.requests();
    let (pwd, _) = common::tool_result_in(&reqs[4].body, "b2");
    assert!(
        pwd.trim_start()
            .starts_with(sb.project().join("out").to_str().unwrap()),
        "{pwd}"
    );
}

#[test]
fn writes_ask_in_default_mode_and_are_denied_without_a_client() {
    let sb = Sandbox::new();
    let target = sb.project().join("new.txt");
    let server = common::mock(
        Script::new()
            .turn(common::write("w", target.to_str().unwrap(), "x"))
            .turn(Turn::text("ok")),
    );
    let out = sb.run(&server, ["-p", "write it"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!target.exists());
    let (text, is_error) = common::tool_result_in(&server.requests()[1].body, "w");
    assert!(
        is_error && text.contains("acceptEdits"),
        "the denial names what would allow it: {text}"
    );
}

#[test]
fn a_can_use_tool_request_is_answered_over_stdin() {
    let sb = Sandbox::new();
    let target = sb.project().join("allowed.txt");
    let server = common::mock(
        Script::new()
            .turn(common::write(
                "w",
                target.to_str().unwrap(),
                "from the model",
            ))
            .turn(Turn::text("written")),
    );
    let mut s = sb.stream(&server, &[]);
    s.send_user("write the file");
    let ask = s.wait_type("control_request");
    assert_eq!(ask["request"]["subtype"], "can_use_tool");
    assert_eq!(ask["request"]["tool_name"], "Write");
    assert_eq!(ask["request"]["tool_use_id"], "w");
    assert_eq!(ask["request"]["input"]["content"], "from the model");
    let id = ask["request_id"].as_str().unwrap().to_string();
    // The client edits the input before allowing it.
    s.send(json!({"type":"control_response","response":{"subtype":"success","request_id":id,
        "response":{"behavior":"allow","updatedInput":{"file_path": target.to_str().unwrap(), "content": "edited by the client"}}}}));
    assert_eq!(s.wait_type("result")["result"], "written");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "edited by the client"
    );
}

#[test]
fn always_allow_stops_asking_for_the_same_rule() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(common::bash("b1", "touch one.txt"))
            .turn(common::bash("b2", "touch two.txt"))
            .turn(Turn::text("done")),
    );
    let mut s = sb.stream(&server, &[]);
    s.send_user("touch files");
    let ask = s.wait_type("control_request");
    let id = ask["request_id"].as_str().unwrap().to_string();
    s.send(
        json!({"type":"control_response","response":{"subtype":"success","request_id":id,
        "response":{"behavior":"allow","updatedPermissions":[{"type":"addRules","behavior":"allow",
            "destination":"session","rules":[{"toolName":"Bash","ruleContent":"touch:*"}]}]}}}),
    );
    assert_eq!(s.wait_type("result")["result"], "done");
    let (_, seen) = s.finish();
    assert_eq!(
        seen.iter()
            .filter(|v| v["type"] == "control_request")
            .count(),
        1
    );
    assert!(sb.project().join("one.txt").exists() && sb.project().join("two.txt").exists());
}

#[test]
fn closing_stdin_while_a_prompt_waits_denies_it_and_ends_the_session() {
    let sb = Sandbox::new();
    let target = sb.project().join("never.txt");
    let server = common::mock(
        Script::new()
            .turn(common::write("w", target.to_str().unwrap(), "x"))
            .turn(Turn::text("could not write")),
    );
    let mut s = sb.stream(&server, &[]);
    s.send_user("write the file");
    assert_eq!(
        s.wait_type("control_request")["request"]["tool_name"],
        "Write"
    );
    // The client goes away without answering.
    let (code, seen) = s.finish();
    assert_eq!(code, 0, "{seen:#?}");
    assert!(!target.exists());
    let denied = server.requests()[1].tool_result("w").unwrap();
    assert!(denied.is_error, "{}", denied.content);
}

#[test]
fn an_interrupt_withdraws_the_pending_prompt_with_control_cancel_request() {
    let sb = Sandbox::new();
    let target = sb.project().join("never.txt");
    let server = common::mock(
        Script::new()
            .turn(Turn::tool_use(
                "w1",
                "Write",
                serde_json::json!({"file_path": target.display().to_string(), "content": "x"}),
            ))
            .turn(Turn::text("after the interrupt")),
    );
    let mut s = sb.stream(&server, &[]);
    s.send_user("write it");
    let ask = s.wait_for("the permission prompt", |v| {
        v["request"]["subtype"] == "can_use_tool"
    });
    let id = ask["request_id"].as_str().unwrap().to_string();
    s.send(
        serde_json::json!({"type": "control_request", "request_id": "int-1",
        "request": {"subtype": "interrupt"}}),
    );
    let cancel = s.wait_for("the withdrawal", |v| v["type"] == "control_cancel_request");
    assert_eq!(cancel["request_id"], id.as_str(), "{cancel}");
    // The withdrawal is a control line and the turn's result an engine
    // event: two streams, so on a loaded machine the result may be written
    // first. Either way this turn has exactly one result, and it failed.
    let already = s.seen.iter().find(|v| v["type"] == "result").cloned();
    let result = match already {
        Some(result) => result,
        None => s.wait_type("result"),
    };
    assert_eq!(result["is_error"], true, "{result}");
    // An answer that arrives late changes nothing.
    s.send(
        serde_json::json!({"type":"control_response","response":{"subtype":"success",
        "request_id": id, "response":{"behavior":"allow","updatedInput":{}}}}),
    );
    // The session goes on.
    s.send_user("go on");
    let next = s.wait_type("result");
    assert_eq!(next["result"], "after the interrupt", "{next}");
    let (code, seen) = s.finish();
    assert_eq!(code, 0, "{seen:#?}");
    assert!(!target.exists(), "the withdrawn prompt's write ran");
}

#[test]
fn a_prompt_after_the_input_closed_fails_closed_instead_of_waiting() {
    // The client sent its one message and closed its input before the
    // model asked for a command: nobody can answer, so the call is not run
    // and the session ends rather than waiting forever.
    let sb = Sandbox::new();
    let target = sb.project().join("x.txt");
    let server = common::mock(
        Script::new()
            .turn(common::bash("b", format!("touch {}", target.display())))
            .turn(Turn::text("could not")),
    );
    let mut cmd = sb.catui(&server);
    cmd.args(common::STREAM_JSON).args(["--verbose"]);
    let stdin = json!({"type": "user", "message": {"role": "user", "content": "touch it"}})
        .to_string()
        + "\n";
    let out = common::output_within(cmd, stdin.as_bytes(), 60);
    assert!(!target.exists(), "a call nobody allowed ran");
    let lines = common::json_lines(&out.stdout);
    let result = lines.iter().find(|l| l["type"] == "result");
    assert!(result.is_some(), "no result line: {lines:?}");
    let (text, is_error) = common::tool_result_in(&server.requests()[1].body, "b");
    assert!(is_error, "{text}");
}
