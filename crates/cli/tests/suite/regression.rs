//! Defects found once and kept fixed (as ripgrep's `regression.rs`), each
//! test named by the behaviour it keeps: mostly plan mode's — a lead
//! acting through a teammate, one question for two ExitPlanMode calls, a
//! stale plan hash, compaction and the approved plan, an unchanged plan,
//! headless runs, read-only sub-agents, a plan path that is a directory.
//! The real binary over stream-json against the testkit mock model, real
//! plan files and mailboxes in temp dirs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Block, RecordedRequest, Script, Turn};
use common::{
    Sandbox, allow, deny, is_teammate, last_user, plan_path_in, plans_dir, result_of,
    writes_plan_then_exits,
};
use serde_json::{Value, json};

/// A lead in plan mode cannot have a teammate act for it. Its
/// SendMessage reaches only teammates held in plan mode (planModeRequired);
/// a teammate in acceptEdits, or in plan mode by choice, gets nothing, and
/// the planning lead cannot approve a teammate's plan.
#[test]
fn a_planning_lead_cannot_change_files_through_a_teammate() {
    let sb = Sandbox::new();
    let pwn = sb.project().join("pwn.txt");
    let pwn_path = pwn.to_string_lossy().to_string();
    let mate = |r: &RecordedRequest| ["amy", "cleo", "bob"].iter().any(|n| is_teammate(r, n));
    let send = |id: &str, to: &str| {
        Block::tool_use(
            id,
            "SendMessage",
            json!({"to": to, "message": format!("Create {to}-pwn.txt now.")}),
        )
    };
    let server = common::mock(
        Script::new()
            .turn(
                common::team_create("tc", json!([
                        {"name": "amy", "prompt": "Wait for instructions.", "mode": "acceptEdits"},
                        {"name": "cleo", "prompt": "Wait for instructions.", "mode": "plan"},
                        {"name": "bob", "prompt": "Wait for instructions.", "planModeRequired": true}]))
                .when(move |r| !mate(r) && last_user(r).contains("start a team")),
            )
            .turn(Turn::text("Team started.").when(move |r| !mate(r) && r.has_tool_result("tc") && !r.has_tool_result("s1")))
            // A teammate that ever gets the lead's message writes the file.
            .turn(
                common::write("w", &pwn_path, "pwned\n")
                    .when(move |r| mate(r) && r.contains_text("pwn.txt now") && !r.has_tool_result("w"))
                    .forever(),
            )
            .turn(Turn::text("Waiting.").when(move |r| mate(r)).forever())
            .turn(
                Turn::blocks(vec![
                    send("s1", "amy"),
                    send("s2", "cleo"),
                    send("s3", "bob"),
                    Block::tool_use(
                        "s4",
                        "SendMessage",
                        json!({"to": "bob", "message": "Fine.", "plan_approval_response": {"request_id": "r1", "approved": true}}),
                    ),
                ])
                .when(move |r| !mate(r) && last_user(r).contains("relay")),
            )
            .turn(Turn::text("Relayed.").when(move |r| !mate(r) && r.has_tool_result("s1"))),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "acceptEdits"]);
    s.send_user("start a team");
    assert_eq!(s.wait_type("result")["result"], "Team started.");
    s.send_user("/plan");
    assert_eq!(s.wait_type("result")["result"], "Enabled plan mode");
    s.send_user("relay the task to the team");
    assert_eq!(s.wait_type("result")["result"], "Relayed.");
    s.finish();

    let reqs = server.requests();
    let last = reqs
        .iter()
        .rfind(|r| !mate(r) && r.has_tool_result("s1"))
        .unwrap();
    for (id, who) in [("s1", "amy"), ("s2", "cleo")] {
        let (text, is_error) = result_of(last, id);
        assert!(is_error, "{who}: {text}");
        assert!(text.contains("You are in plan mode"), "{who}: {text}");
        assert!(text.contains("was not sent"), "{who}: {text}");
    }
    assert!(result_of(last, "s2").0.contains("by its own choice"));
    let (text, is_error) = result_of(last, "s3");
    assert!(!is_error, "bob is held in plan mode: {text}");
    let (text, is_error) = result_of(last, "s4");
    assert!(
        is_error && text.contains("cannot approve bob's plan"),
        "{text}"
    );
    let inbox = |name: &str| {
        std::fs::read_to_string(sb.config().join(format!("teams/core/inboxes/{name}.json")))
            .unwrap_or_default()
    };
    assert!(!inbox("amy").contains("pwn"), "{}", inbox("amy"));
    assert!(!inbox("cleo").contains("pwn"), "{}", inbox("cleo"));
    assert!(inbox("bob").contains("bob-pwn.txt"), "{}", inbox("bob"));
    assert!(!inbox("bob").contains("plan_approval_response"));
    // Bob got the message but is still in plan mode: his write was refused.
    assert!(!pwn.exists(), "a teammate wrote for the planning lead");
}

/// Two ExitPlanMode calls in one message: one question, the
/// second call refused without a prompt; the answer stands either way.
#[test]
fn two_exit_plan_mode_calls_in_one_message_ask_once() {
    for approve in [true, false] {
        let sb = Sandbox::new();
        // Not about the plan contract: no goal loop after approval.
        sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
        let dir = plans_dir(&sb);
        let server = common::mock(
            Script::new()
                .turn(Turn::respond(move |r| {
                    common::write("p", plan_path_in(r, &dir), "# Plan\n1. Do it\n")
                }))
                .turn(Turn::blocks(vec![
                    Block::tool_use("x1", "ExitPlanMode", json!({})),
                    Block::tool_use("x2", "ExitPlanMode", json!({})),
                ]))
                .turn(Turn::text("After the answer.")),
        );
        let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
        s.send_user("plan it");
        let ask = s.wait_type("control_request");
        assert_eq!(ask["request"]["tool_use_id"], "x1");
        if approve {
            s.send(allow(&ask, json!({"mode": "acceptEdits"})));
        } else {
            s.send(deny(&ask, json!({"message": "keep planning"})));
        }
        let r = s.wait_type("result");
        assert_eq!(r["result"], "After the answer.");
        assert_eq!(
            r["permission_mode"],
            if approve { "acceptEdits" } else { "plan" }
        );
        let (_, seen) = s.finish();
        let asks = seen
            .iter()
            .filter(|v| v["type"] == "control_request")
            .count();
        assert_eq!(asks, 1, "one question for the two calls: {seen:#?}");
        let reqs = server.requests();
        let (first, first_error) = result_of(&reqs[2], "x1");
        assert_eq!(first_error, !approve, "{first}");
        assert!(
            first.contains(if approve {
                "User has approved your plan."
            } else {
                "still in plan mode"
            }),
            "{first}"
        );
        let (second, second_error) = result_of(&reqs[2], "x2");
        assert!(second_error, "{second}");
        common::assert_contains(&second, "only its first call is put to the user");
        common::assert_lacks(&second, "approved your plan");
    }
}

/// The `planHash` a client sends back must be the one shown: a
/// stale or made-up hash is asked again, and a client that keeps sending
/// one approves nothing.
#[test]
fn a_wrong_plan_hash_approves_nothing() {
    let sb = Sandbox::new();
    // The plan contract (goal loop, drift questions) is not what this
    // test is about: today's note-only behaviour.
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let dir = plans_dir(&sb);
    let dir2 = dir.clone();
    let server = common::mock(
        Script::new()
            .turn(Turn::respond(move |r| {
                common::write("p1", plan_path_in(r, &dir), "# Plan\n1. One\n")
            }))
            .turn(common::exit_plan("x1"))
            .turn(Turn::respond(move |r| {
                common::write(
                    "p2",
                    common::teammate_plan_path(r, &dir2),
                    "# Plan\n1. One\n2. Two\n",
                )
            }))
            .turn(common::exit_plan("x2"))
            .turn(common::exit_plan("x3"))
            .turn(Turn::text("Approved at last.")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan it");
    let ask1 = s.wait_type("control_request");
    let hash1 = ask1["request"]["input"]["planHash"].clone();
    s.send(deny(&ask1, json!({"message": "add a second step"})));
    // Revision 2, answered with revision 1's hash, then with zeros: asked
    // again each time, never approved.
    let ask = s.wait_type("control_request");
    assert_eq!(ask["request"]["tool_use_id"], "x2");
    let shown = ask["request"]["input"].clone();
    assert_ne!(shown["planHash"], hash1);
    let mut stale = shown.clone();
    stale["planHash"] = hash1.clone();
    s.send(allow(&ask, stale.clone()));
    for wrong in [json!("0".repeat(64)), hash1, json!("0".repeat(64))] {
        let again = s.wait_type("control_request");
        assert_eq!(again["request"]["tool_use_id"], "x2");
        assert_eq!(again["request"]["input"]["planHash"], shown["planHash"]);
        assert!(
            again["request"]["decision_reason"]
                .as_str()
                .unwrap()
                .contains("another revision"),
            "{again}"
        );
        assert!(again["request"]["input"].get("planChanged").is_none());
        let mut answer = shown.clone();
        answer["planHash"] = wrong;
        s.send(allow(&again, answer));
    }
    // Past the limit the call itself refuses; the model presents again
    // and an answer with the right hash approves.
    let ask3 = s.wait_type("control_request");
    assert_eq!(ask3["request"]["tool_use_id"], "x3");
    s.send(allow(&ask3, ask3["request"]["input"].clone()));
    let r = s.wait_type("result");
    assert_eq!(r["result"], "Approved at last.");
    assert_eq!(r["permission_mode"], "default");
    s.finish();
    let reqs = server.requests();
    let x2 = reqs.iter().find(|r| r.has_tool_result("x2")).unwrap();
    let (text, is_error) = result_of(x2, "x2");
    assert!(is_error, "{text}");
    common::assert_contains(&text, "another revision of the plan");
    common::assert_contains(&text, "nothing was approved");
    let (text, is_error) = result_of(reqs.last().unwrap(), "x3");
    assert!(
        !is_error && text.contains("User has approved your plan."),
        "{text}"
    );
}

/// Compaction while the approved plan is carried out attaches the
/// approved text, not what the file says now, and says that they differ.
#[test]
fn compaction_pins_the_approved_plan() {
    let sb = Sandbox::new();
    // The plan contract (goal loop, drift questions) is not what this
    // test is about: today's note-only behaviour.
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let summary = |r: &RecordedRequest| r.tool_names().is_empty();
    let server = common::mock(
        writes_plan_then_exits(&plans_dir(&sb), "# Plan\n\n1. Build the parser\n")
            .turn(Turn::text("Approved; building.").when(move |r| !summary(r)))
            .turn(Turn::text("Second answer.").when(move |r| !summary(r)))
            .turn(Turn::text("Third answer.").when(move |r| !summary(r)))
            .turn(Turn::text("The summary of the work so far.").when(summary))
            .turn(Turn::text("Carrying on.").when(move |r| !summary(r)))
            .turn(Turn::text("The summary after the resume.").when(summary))
            .turn(Turn::text("Resumed and carrying on.").when(move |r| !summary(r))),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan the parser");
    let ask = s.wait_type("control_request");
    let plan_file = ask["request"]["input"]["planFilePath"]
        .as_str()
        .unwrap()
        .to_string();
    s.send(allow(&ask, json!({"mode": "acceptEdits"})));
    assert_eq!(s.wait_type("result")["result"], "Approved; building.");
    s.send_user("next");
    s.wait_type("result");
    s.send_user("and next");
    s.wait_type("result");
    // The file is changed after approval (the model, another process).
    let text = std::fs::read_to_string(&plan_file).unwrap();
    std::fs::write(&plan_file, format!("{text}2. ALSO rm -rf build\n")).unwrap();
    s.send_user("/compact");
    let compacted = s.wait_type("result");
    assert_eq!(compacted["is_error"], false, "{compacted}");
    s.send_user("go on");
    assert_eq!(s.wait_type("result")["result"], "Carrying on.");
    let session_id = compacted["session_id"].as_str().unwrap().to_string();
    s.finish();
    let reqs = server.requests();
    let after = reqs.last().unwrap();
    let first = serde_json::to_string(&after.messages()[0]).unwrap();
    common::assert_contains(&first, "The summary of the work so far.");
    common::assert_contains(&first, "1. Build the parser");
    common::assert_lacks(&first, "ALSO rm -rf");
    common::assert_contains(&first, "has changed since the user approved it");
    // The transcript says so too (resume rebuilds the same message).
    let transcript = sb
        .transcripts()
        .into_iter()
        .find(|p| p.to_string_lossy().contains(&session_id))
        .unwrap();
    let reference = std::fs::read_to_string(transcript)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["attachment"]["type"] == "plan_file_reference")
        .unwrap();
    assert_eq!(reference["attachment"]["approved"], true, "{reference}");
    assert_eq!(reference["attachment"]["fileChanged"], true, "{reference}");

    // A resumed session still carries out the approved text.
    let mut s = sb.stream(&server, &["--resume", &session_id]);
    s.send_user("/compact");
    assert_eq!(s.wait_type("result")["is_error"], false);
    s.send_user("after the resume");
    assert_eq!(s.wait_type("result")["result"], "Resumed and carrying on.");
    s.finish();
    let reqs = server.requests();
    let first = serde_json::to_string(&reqs.last().unwrap().messages()[0]).unwrap();
    common::assert_contains(&first, "The summary after the resume.");
    common::assert_contains(&first, "1. Build the parser");
    common::assert_lacks(&first, "ALSO rm -rf");
}

/// The same plan presented again after a rejection is marked as
/// unchanged (`planDiff` "" and `planUnchanged`), and the model is told.
#[test]
fn an_unchanged_plan_presented_again_is_marked_and_the_model_told() {
    let sb = Sandbox::new();
    let server = common::mock(
        writes_plan_then_exits(&plans_dir(&sb), "# Plan\n1. Do it\n")
            .turn(common::exit_plan("x2"))
            .turn(Turn::text("I will revise it.")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan it");
    let first = s.wait_type("control_request");
    assert_eq!(first["request"]["input"]["planDiff"], Value::Null);
    assert!(first["request"]["input"].get("planUnchanged").is_none());
    s.send(deny(&first, json!({"message": "add tests"})));
    let again = s.wait_type("control_request");
    assert_eq!(again["request"]["input"]["planDiff"], "");
    assert_eq!(again["request"]["input"]["planUnchanged"], true);
    s.send(deny(&again, json!({"message": "add tests, please"})));
    assert_eq!(s.wait_type("result")["result"], "I will revise it.");
    s.finish();
    let reqs = server.requests();
    let (first, _) = result_of(&reqs[2], "x");
    common::assert_lacks(&first, "unchanged");
    let (second, is_error) = result_of(reqs.last().unwrap(), "x2");
    assert!(is_error, "{second}");
    common::assert_contains(&second, "the plan you presented was unchanged");
}

/// A headless planning run whose model wrote a plan but ends with
/// words ends like one that presented it: `plan_ready`, the plan printed,
/// `Plan saved to PATH`, still in plan mode. Without a plan it is a plain
/// answer.
#[test]
fn a_headless_planning_run_ending_with_words_ends_with_its_plan() {
    let sb = Sandbox::new();
    let dir = plans_dir(&sb);
    let script = |dir: String| {
        Script::new()
            .turn(Turn::respond(move |r| {
                common::write("p", plan_path_in(r, &dir), "# Plan\n1. Add X\n")
            }))
            .turn(Turn::text("Shall I proceed?"))
    };
    let server = common::mock(script(dir.clone()));
    let out = sb.run(&server, ["-p", "--permission-mode", "plan", "plan X"]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = common::stdout(&out);
    let path = plan_path_in(&server.requests()[0], &dir);
    assert_eq!(
        stdout.trim_end(),
        format!("# Plan\n1. Add X\n\nPlan saved to {path}")
    );

    let server = common::mock(script(dir));
    let out = sb.run_planning(&server, "plan X");
    let lines = common::json_lines(&out.stdout);
    let result = lines.last().unwrap();
    assert_eq!(result["subtype"], "plan_ready", "{result}");
    assert_eq!(result["result"], "# Plan\n1. Add X\n");
    assert_eq!(result["permission_mode"], "plan");
    assert_eq!(result["is_error"], false);

    // Only a question answered, no plan written: a plain answer.
    let server = common::mock(Script::new().turn(Turn::text("It parses flags.")));
    let out = sb.run(
        &server,
        ["-p", "--permission-mode", "plan", "what does cli.py do?"],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(common::stdout(&out).trim_end(), "It parses flags.");
}

/// A teammate that entered plan mode of its own accord leaves it
/// without anyone approving, and is not told that the user approved.
#[test]
fn a_teammate_planning_by_choice_is_not_told_it_was_approved() {
    let sb = Sandbox::new();
    let dir = plans_dir(&sb);
    let server = common::mock(
        Script::new()
            .turn(
                common::team_create(
                    "tc",
                    json!([{"name": "amy", "prompt": "Plan, then do it.", "mode": "plan"}]),
                )
                .when(|r| !is_teammate(r, "amy") && !r.has_tool_result("tc")),
            )
            .turn(Turn::text("Team started.").when(|r| !is_teammate(r, "amy")))
            .turn(common::teammate_writes_plan(
                "amy",
                "ap",
                &dir,
                "# Amy's plan\n1. Do it\n",
            ))
            .turn(
                common::exit_plan("ax").when(|r| is_teammate(r, "amy") && !r.has_tool_result("ax")),
            )
            .turn(Turn::text("done").when(|r| is_teammate(r, "amy"))),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "acceptEdits"]);
    s.send_user("start a team");
    assert_eq!(s.wait_type("result")["result"], "Team started.");
    let line = s.wait_for("amy's ExitPlanMode result", |v| {
        v["subtype"] == "teammate_message" && v["message"]["content"][0]["tool_use_id"] == "ax"
    });
    let (_, seen) = s.finish();
    assert!(
        !seen.iter().any(|v| v["type"] == "control_request"),
        "nobody was asked"
    );
    let result = &line["message"]["content"][0];
    assert_ne!(result["is_error"], true, "{result}");
    let text = match &result["content"] {
        Value::String(text) => text.clone(),
        blocks => blocks[0]["text"].as_str().unwrap_or_default().to_string(),
    };
    assert!(text.starts_with("You have exited plan mode."), "{text}");
    common::assert_contains(&text, "No one reviewed this plan");
    common::assert_lacks(&text, "approved your plan");
}

/// Read-only sub-agents are not offered tools that always fail for
/// them (the team tools), and their plan-mode refusals do not send them to
/// a plan file or ExitPlanMode they do not have. Custom read-only agents
/// alike.
#[test]
fn read_only_sub_agents_are_refused_in_their_own_terms() {
    let sb = Sandbox::new();
    // The user's own agent (a project's waits for its trust).
    let agents = sb.config().join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("reviewer.md"),
        "---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep, SendMessage, TeamStop\n---\nYou review code and report.\n",
    )
    .unwrap();
    let sub = |r: &RecordedRequest| {
        r.messages()
            .first()
            .is_some_and(|m| m.to_string().contains("SUBTASK"))
    };
    let server = common::mock(
        Script::new()
            .turn(
                Turn::blocks(vec![
                    Block::tool_use("a1", "Agent", json!({"description": "d", "prompt": "SUBTASK explore", "subagent_type": "Explore"})),
                    Block::tool_use("a2", "Agent", json!({"description": "d", "prompt": "SUBTASK review", "subagent_type": "reviewer"})),
                ])
                .when(move |r| !sub(r) && !r.has_tool_result("a1")),
            )
            .turn(
                common::bash("b", "touch made-by-agent.txt")
                    .when(move |r| r.contains_text("SUBTASK explore") && !r.has_tool_result("b")),
            )
            .turn(Turn::text("Findings: nothing to change.").when(move |r| sub(r)).forever())
            .turn(Turn::text("planned").when(move |r| !sub(r))),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan a review");
    assert_eq!(s.wait_type("result")["result"], "planned");
    s.finish();
    let reqs = server.requests();
    assert!(
        reqs.iter()
            .any(|r| !sub(r) && r.tool_names().iter().any(|t| t == "TeamCreate"))
    );
    let subs: Vec<&RecordedRequest> = reqs.iter().filter(|r| sub(r)).collect();
    assert_eq!(subs.len(), 3, "Explore twice, the reviewer once");
    for r in &subs {
        let tools = r.tool_names();
        for t in [
            "TeamCreate",
            "SendMessage",
            "TeamStop",
            "ExitPlanMode",
            "Write",
        ] {
            assert!(!tools.iter().any(|n| n == t), "{t} offered: {tools:?}");
        }
        if let Some(refusal) = r.tool_result("b") {
            assert!(refusal.is_error, "{}", refusal.content);
            assert!(
                refusal.content.contains("final answer"),
                "{}",
                refusal.content
            );
            assert!(
                !refusal.content.contains("ExitPlanMode"),
                "{}",
                refusal.content
            );
            assert!(!refusal.content.contains("-agent-"), "{}", refusal.content);
        }
    }
    assert_eq!(subs.iter().filter(|r| r.has_tool_result("b")).count(), 1);
    assert!(!sb.project().join("made-by-agent.txt").exists());
}

/// A plan path that exists but is no readable file (a directory)
/// is no plan, for the reminder, `/plan` and ExitPlanMode alike.
#[test]
fn a_plan_path_that_is_a_directory_is_no_plan_everywhere() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(common::exit_plan("x"))
            .turn(Turn::text("I will write a plan.")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    let init = s.wait_for("init", |v| v["subtype"] == "init");
    let plan_file = init["plan_file"].as_str().unwrap().to_string();
    std::fs::create_dir_all(&plan_file).unwrap();
    s.send_user("/plan");
    assert_eq!(
        s.wait_type("result")["result"],
        "Already in plan mode. No plan written yet."
    );
    s.send_user("plan it");
    let attachment = s.wait_for("plan_mode attachment", |v| {
        v["subtype"] == "attachment" && v["attachment"]["type"] == "plan_mode"
    });
    assert_eq!(
        attachment["attachment"]["planExists"], false,
        "{attachment}"
    );
    s.wait_type("result");
    let (_, seen) = s.finish();
    assert!(!seen.iter().any(|v| v["type"] == "control_request"));
    let (text, is_error) = result_of(&server.requests()[1], "x");
    assert!(
        is_error && text.starts_with("No plan file found at "),
        "{text}"
    );
}

/// EnterPlanMode while planning says so; `/plan <description>` in
/// plan mode sends the description on; `catui plans export` of a name
/// that is no plan says there is none.
#[test]
fn small_answers_say_what_happened() {
    let (sb, server) = common::with_mock(
        Script::new()
            .turn(Turn::tool_use("e", "EnterPlanMode", json!({})))
            .turn(Turn::text("Planning on."))
            .turn(
                Turn::text("Planning the export too.")
                    .when(|r| last_user(r).contains("add an export")),
            ),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan");
    assert_eq!(s.wait_type("result")["result"], "Planning on.");
    s.send_user("/plan add an export");
    let r = s.wait_type("result");
    assert_eq!(r["result"], "Planning the export too.");
    let (_, seen) = s.finish();
    assert!(
        seen.iter().any(|v| v["key"] == "command-plan"
            && v["text"].as_str().unwrap().contains("sent to the model"))
    );
    let (text, is_error) = result_of(&server.requests()[1], "e");
    assert!(!is_error, "{text}");
    assert!(text.starts_with("You are already in plan mode"), "{text}");
    common::assert_lacks(&text, "Entered plan mode");

    let out = sb
        .bare()
        .args(["plans", "export", "no-such-slug"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = common::stderr(&out);
    common::assert_contains(&stderr, "there is no plan 'no-such-slug'");
    common::assert_lacks(&stderr, "never approved");
}
