//! Plan mode beyond the reference (issue 22): approval bound to the plan's
//! hash, line-anchored review comments, plan steps ↔ todos with progress
//! written back, approve-and-start-clean, and `catui plans export` — the
//! real binary over stream-json against the testkit mock model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::Turn;
use common::{Sandbox, result_of, writes_plan_then_exits};
use serde_json::{Value, json};

fn run(sb: &Sandbox, args: &[&str]) -> (i32, String, String) {
    let out = sb.bare().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        common::stdout(&out),
        common::stderr(&out),
    )
}

fn slug_of(plan_file: &str) -> String {
    std::path::Path::new(plan_file)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// The plan file changes between presentation and answer: the answer is
/// not applied; catui presents the new text again at once, with its diff
/// and a note that it changed, and only the text actually approved is
/// recorded as approved; `plans show` marks it and `plans export` copies it
/// with its history.
#[test]
fn approval_is_bound_to_the_presented_text() {
    let sb = Sandbox::new();
    // Not about the plan contract: no goal loop after approval.
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let plans_dir = common::plans_dir(&sb);
    let server = common::mock(
        writes_plan_then_exits(&plans_dir, "# Plan\n\n1. Add a flag\n")
            .turn(Turn::text("Approved, implementing.")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan a flag");
    let ask1 = s.wait_type("control_request");
    let input1 = ask1["request"]["input"].clone();
    let hash1 = input1["planHash"].as_str().unwrap().to_string();
    assert_eq!(hash1.len(), 64);
    assert!(input1.get("planChanged").is_none(), "{input1}");
    let plan_file = input1["planFilePath"].as_str().unwrap().to_string();
    // Someone else rewrites the plan while the user reads it.
    std::fs::write(
        &plan_file,
        "# Plan\n\n1. Add a flag\n2. Delete the database\n",
    )
    .unwrap();
    s.send(common::allow_request(&ask1["request_id"], input1));

    // Presented again by catui itself: the new text, its diff and hash.
    let ask2 = s.wait_type("control_request");
    assert_eq!(
        ask2["request"]["tool_use_id"],
        ask1["request"]["tool_use_id"]
    );
    let input2 = ask2["request"]["input"].clone();
    assert_ne!(input2["planHash"], hash1.as_str());
    assert_eq!(input2["planChanged"], true, "{input2}");
    assert!(
        input2["planDiff"]
            .as_str()
            .unwrap()
            .contains("+2. Delete the database"),
        "{input2}"
    );
    assert!(
        ask2["request"]["decision_reason"]
            .as_str()
            .unwrap()
            .contains("changed while you were reviewing it"),
        "{ask2}"
    );
    s.send(common::allow_request(&ask2["request_id"], input2.clone()));
    let r = s.wait_type("result");
    assert_eq!(r["result"], "Approved, implementing.");
    assert_eq!(r["permission_mode"], "default");
    s.finish();

    let reqs = server.requests();
    assert_eq!(reqs.len(), 3, "the model was not asked to present it again");
    let (approved, is_error) = result_of(&reqs[2], "x");
    assert!(
        !is_error && approved.contains("2. Delete the database"),
        "{approved}"
    );

    // `plans show` marks the approved revision.
    let slug = slug_of(&plan_file);
    let (code, shown, err) = run(&sb, &["plans", "show", &slug]);
    assert_eq!(code, 0, "{err}");
    let short = &input2["planHash"].as_str().unwrap()[..12];
    assert!(
        shown.contains(&format!("Approved revision: sha256 {short}"))
            && shown.contains("this is the approved revision"),
        "{shown}"
    );

    // `plans export` copies the approved plan with its history.
    let (code, out, err) = run(&sb, &["plans", "export", &slug]);
    assert_eq!(code, 0, "{err}");
    let exported = sb.project().join(format!("docs/plans/{slug}.md"));
    common::assert_contains(&out, &exported.display().to_string());
    let text = std::fs::read_to_string(&exported).unwrap();
    assert!(
        text.starts_with("# Plan\n\n1. Add a flag\n2. Delete the database"),
        "{text}"
    );
    common::assert_contains(&text, "## Appendix: revision history");
    common::assert_contains(&text, "### Revision 1");
    assert!(
        text.contains("### Revision 2, approved") || text.contains("**Approved**"),
        "{text}"
    );
    common::assert_contains(&text, "+2. Delete the database");

    // A plan that was never approved is not exported; a name that is no
    // plan at all is said to be none.
    std::fs::write(
        sb.config().join("plans/drafted-never-shown.md"),
        "# Draft\n",
    )
    .unwrap();
    let (code, _, err) = run(&sb, &["plans", "export", "drafted-never-shown"]);
    assert_eq!(code, 2);
    common::assert_contains(&err, "never approved");
    let (code, _, err) = run(&sb, &["plans", "export", "no-such-plan"]);
    assert_eq!(code, 2);
    common::assert_contains(&err, "there is no plan 'no-such-plan'");
}

/// A plan that keeps changing under review is presented again three
/// times; a fourth stale approval is refused and the model is told.
#[test]
fn a_plan_that_keeps_changing_is_never_approved() {
    let sb = Sandbox::new();
    let plans_dir = common::plans_dir(&sb);
    let server = common::mock(
        writes_plan_then_exits(&plans_dir, "# Plan\n\n1. Add a flag\n")
            .turn(Turn::text("Still planning.")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan a flag");
    for round in 0..4 {
        let ask = s.wait_type("control_request");
        let input = ask["request"]["input"].clone();
        assert_eq!(input.get("planChanged").is_some(), round > 0, "{input}");
        let path = input["planFilePath"].as_str().unwrap().to_string();
        std::fs::write(&path, format!("# Plan\n\n1. Add a flag, take {round}\n")).unwrap();
        s.send(common::allow_request(&ask["request_id"], input));
    }
    let r = s.wait_type("result");
    assert_eq!(r["result"], "Still planning.");
    assert_eq!(r["permission_mode"], "plan");
    s.finish();
    let (refused, is_error) = result_of(&server.requests()[2], "x");
    assert!(is_error, "{refused}");
    common::assert_contains(&refused, "changed after it was shown for approval");
}

/// A deny may carry comments on lines of the plan; the model gets each
/// comment under the quoted line.
#[test]
fn review_comments_reach_the_model_under_their_lines() {
    let sb = Sandbox::new();
    let plans_dir = common::plans_dir(&sb);
    let server = common::mock(
        writes_plan_then_exits(
            &plans_dir,
            "# Plan\n1. Parse --json\n2. Serialise with json.dumps\n",
        )
        .turn(Turn::text("Revising.")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan it");
    let ask = s.wait_type("control_request");
    s.send(
        json!({"type":"control_response","response":{"subtype":"success",
        "request_id": ask["request_id"],
        "response":{"behavior":"deny","message":"Close, two notes.",
            "comments":[{"line":3,"text":"Use orjson."},{"line":2,"text":"Also accept -j."}]}}}),
    );
    s.wait_type("result");
    // Nothing approved yet: nothing to export.
    s.send_user("/plan export");
    let refused = s.wait_type("result");
    assert_eq!(refused["is_error"], true);
    assert!(
        refused["result"]
            .as_str()
            .unwrap()
            .contains("was never approved"),
        "{refused}"
    );
    s.finish();
    let (text, is_error) = result_of(&server.requests()[2], "x");
    assert!(is_error);
    assert!(
        text.contains(
            "Close, two notes.\n\nComments on lines of the plan:\n\n> line 2: 1. Parse --json\nAlso accept -j.\n\n> line 3: 2. Serialise with json.dumps\nUse orjson."
        ),
        "{text}"
    );
    common::assert_contains(&text, "still in plan mode");
}

/// On approval the plan's steps become the todo list; completing todos
/// writes a progress section into the plan file.
#[test]
fn plan_steps_seed_todos_and_progress_is_written_back() {
    let sb = Sandbox::new();
    // Not about the plan contract: no goal loop after approval.
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let plans_dir = common::plans_dir(&sb);
    let todos = |done: usize| {
        let steps = ["Parse the flag", "Print JSON", "Add tests"];
        let list: Vec<Value> = steps
            .iter()
            .enumerate()
            .map(|(i, s)| {
                json!({"content": s, "activeForm": format!("Doing: {s}"),
                    "status": if i < done { "completed" } else if i == done { "in_progress" } else { "pending" }})
            })
            .collect();
        json!({ "todos": list })
    };
    let server = common::mock(
        writes_plan_then_exits(
            &plans_dir,
            "# Plan\n\n1. Parse the flag\n2. Print JSON\n3. Add tests\n",
        )
        .turn(Turn::tool_use("t1", "TodoWrite", todos(1)))
        .turn(Turn::tool_use("t2", "TodoWrite", todos(2)))
        .turn(Turn::text("Two steps done.")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan and do it");
    let ask = s.wait_type("control_request");
    let plan_file = ask["request"]["input"]["planFilePath"]
        .as_str()
        .unwrap()
        .to_string();
    s.send(common::allow_request(
        &ask["request_id"],
        json!({"mode": "acceptEdits"}),
    ));
    assert_eq!(s.wait_type("result")["result"], "Two steps done.");
    // `/plan export` inside the session, after approval.
    s.send_user("/plan export --to design/plans");
    let exported = s.wait_type("result");
    let slug = slug_of(&plan_file);
    let target = sb.project().join(format!("design/plans/{slug}.md"));
    assert_eq!(
        exported["result"],
        format!("Exported the approved plan {slug} to {}", target.display())
    );
    assert_eq!(exported["is_error"], false);
    let text = std::fs::read_to_string(&target).unwrap();
    assert!(text.starts_with("# Plan\n\n1. Parse the flag\n"), "{text}");
    common::assert_contains(&text, "## Appendix: revision history");
    let (_, seen) = s.finish();

    let reqs = server.requests();
    let (approved, _) = result_of(&reqs[2], "x");
    common::assert_contains(
        &approved,
        "The plan's 3 numbered steps are now your todo list",
    );
    let plan = std::fs::read_to_string(&plan_file).unwrap();
    assert!(plan.starts_with("# Plan\n\n1. Parse the flag\n2. Print JSON\n3. Add tests\n"));
    common::assert_contains(&plan, "## Progress");
    common::assert_contains(&plan, "2/3 steps done");
    common::assert_contains(&plan, "- [x] 1. Parse the flag — done ");
    common::assert_contains(&plan, "- [x] 2. Print JSON — done ");
    common::assert_contains(&plan, "- [ ] 3. Add tests");
    let progress: Vec<&Value> = seen
        .iter()
        .filter(|v| v["key"] == "plan-progress")
        .collect();
    assert_eq!(progress.len(), 2, "{seen:#?}");
    assert!(
        progress[1]["text"]
            .as_str()
            .unwrap()
            .starts_with("Plan progress: 2/3 steps")
    );
    // The seeded list reaches the client before the model's first TodoWrite.
    let seeded = seen
        .iter()
        .position(|v| v["type"] == "system" && v["subtype"] == "todos")
        .expect("a todos event");
    let first_todo_write = seen
        .iter()
        .position(|v| {
            serde_json::to_string(v)
                .unwrap()
                .contains("\"name\":\"TodoWrite\"")
        })
        .unwrap();
    assert!(seeded < first_todo_write, "{seen:#?}");
    let items = seen[seeded]["todos"].as_array().unwrap();
    let contents: Vec<&str> = items
        .iter()
        .map(|t| t["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents, ["Parse the flag", "Print JSON", "Add tests"]);
    assert!(items.iter().all(|t| t["status"] == "pending"), "{items:?}");

    // `plans list` and `plans show` give the progress; the progress section
    // written back does not count as a change to the approved plan.
    let (code, listed, err) = run(&sb, &["plans", "list"]);
    assert_eq!(code, 0, "{err}");
    common::assert_contains(&listed, "[2/3 steps]");
    let (code, shown, err) = run(&sb, &["plans", "show", &slug]);
    assert_eq!(code, 0, "{err}");
    common::assert_contains(&shown, "Progress: 2/3 steps");
    common::assert_contains(&shown, "this is the approved revision");
    // A real change after approval is still reported.
    std::fs::write(&plan_file, plan.replace("Print JSON", "Print YAML")).unwrap();
    let (_, shown, _) = run(&sb, &["plans", "show", &slug]);
    common::assert_contains(&shown, "the file has changed since it was approved");
}

/// "Yes, clear the conversation and auto-accept edits": the work continues
/// in a fresh conversation holding the approved plan and the files it
/// names.
#[test]
fn approve_and_start_clean() {
    let sb = Sandbox::new();
    // Not about the plan contract: no goal loop after approval.
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    sb.write("src/cli.py", "print('hello')\n");
    let plans_dir = common::plans_dir(&sb);
    let server = common::mock(
        writes_plan_then_exits(&plans_dir, "# Plan\n\n1. Add --json to `src/cli.py`\n")
            .turn(Turn::text("Starting from the plan."))
            .turn(Turn::text("Resumed.")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("a long planning conversation about SECRET-TOPIC");
    let ask = s.wait_type("control_request");
    s.send(common::allow_request(
        &ask["request_id"],
        json!({"mode": "acceptEdits", "clearContext": true}),
    ));
    let r = s.wait_type("result");
    assert_eq!(r["result"], "Starting from the plan.");
    assert_eq!(r["permission_mode"], "acceptEdits");
    s.finish();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    let messages = reqs[2].messages();
    assert_eq!(messages.len(), 1, "{messages:#?}");
    let sent = serde_json::to_string(messages).unwrap();
    common::assert_lacks(&sent, "SECRET-TOPIC");
    common::assert_contains(&sent, "This conversation was started fresh");
    common::assert_contains(&sent, "1. Add --json to `src/cli.py`");
    common::assert_contains(&sent, "print('hello')");

    // A resume continues the fresh conversation, not the planning one.
    let session_id = r["session_id"].as_str().unwrap().to_string();
    let mut s = sb.stream(&server, &["--resume", &session_id]);
    s.send_user("go on");
    assert_eq!(s.wait_type("result")["result"], "Resumed.");
    s.finish();
    let resumed = serde_json::to_string(server.requests()[3].messages()).unwrap();
    common::assert_lacks(&resumed, "SECRET-TOPIC");
    common::assert_contains(&resumed, "This conversation was started fresh");

    // `plans export` with no slug takes this project's newest plan; `--to`
    // puts it in another directory of the project.
    let (code, out, err) = run(&sb, &["plans", "export", "--to", "design"]);
    assert_eq!(code, 0, "{err}");
    let exported = std::fs::read_dir(sb.project().join("design"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .next()
        .unwrap();
    common::assert_contains(&out, &exported.display().to_string());
    let text = std::fs::read_to_string(&exported).unwrap();
    assert!(
        text.starts_with("# Plan\n\n1. Add --json to `src/cli.py`"),
        "{text}"
    );
    common::assert_contains(&text, "## Appendix: revision history");
}
