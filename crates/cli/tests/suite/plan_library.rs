//! The plan library (issue 51): `catui plans list --json` states across
//! presentation, approval, progress, parking, the goal and abandoning;
//! taking a plan up later with `/plan use SLUG` and `catui --plan SLUG`
//! (unchanged: no approval, todos from the undone steps; changed: approval
//! again with the diff since approval; parked: back to planning). The real
//! binary over stream-json against the testkit mock model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{MockServer, Turn};
use common::{Sandbox, allow, deny, last_user, plans_dir, writes_plan_then_exits};
use serde_json::{Value, json};

const PLAN: &str = "# Add a --json flag\n1. Parse the flag\n2. Print json\n3. Add tests\n";

/// The plans as `catui plans list --json` gives them.
fn listed(sb: &Sandbox) -> Vec<Value> {
    let out = sb
        .bare()
        .args(["plans", "list", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

pub(super) fn row(sb: &Sandbox, slug: &str) -> Value {
    listed(sb)
        .into_iter()
        .find(|p| p["slug"] == slug)
        .unwrap_or_else(|| panic!("{slug} not listed: {:?}", listed(sb)))
}

pub(super) fn slug_of(path: &str) -> String {
    std::path::Path::new(path)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// Plans, approves and does step 1 of [`PLAN`]; returns the plan's slug.
fn approved_with_one_step_done(sb: &Sandbox) -> String {
    let server = common::mock(
        writes_plan_then_exits(&plans_dir(sb), PLAN)
            .turn(common::todo_write(
                "t",
                json!([
                    {"content": "Parse the flag", "status": "completed", "activeForm": "Parsing"},
                    {"content": "Print json", "status": "pending", "activeForm": "Printing"},
                    {"content": "Add tests", "status": "pending", "activeForm": "Testing"}
                ]),
            ))
            .turn(Turn::text("One step done.")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan the json flag");
    let ask = s.wait_type("control_request");
    let path = ask["request"]["input"]["planFilePath"]
        .as_str()
        .unwrap()
        .to_string();
    let slug = slug_of(&path);
    // Presented, not answered yet: a draft.
    let pending = row(sb, &slug);
    assert_eq!(pending["state"], "draft", "{pending}");
    assert_eq!(pending["title"], "# Add a --json flag");
    s.send(allow(&ask, json!({"mode": "acceptEdits"})));
    assert_eq!(s.wait_type("result")["result"], "One step done.");
    let (code, _) = s.finish();
    assert_eq!(code, 0);
    slug
}

#[test]
fn list_json_follows_a_plan_through_approval_progress_parking_and_abandoning() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let slug = approved_with_one_step_done(&sb);
    let p = row(&sb, &slug);
    assert_eq!(p["state"], "in_progress", "{p}");
    assert_eq!(p["steps"], json!({"done": 1, "total": 3}));
    assert_eq!(p["changed_since_approval"], false);
    assert!(p["session"].is_string(), "{p}");
    assert!(p["age_seconds"].is_u64(), "{p}");
    assert_eq!(p["approved_hash"].as_str().unwrap().len(), 64);

    // The table says the same.
    let out = sb.bare().args(["plans", "list"]).output().unwrap();
    let text = common::stdout(&out);
    let line = text.lines().find(|l| l.contains(&slug)).unwrap();
    assert!(
        line.contains("[in_progress]") && line.contains("[1/3 steps]"),
        "{text}"
    );

    // Abandoned, then listed so; an unknown plan cannot be abandoned.
    let out = sb
        .bare()
        .args(["plans", "abandon", &slug])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(row(&sb, &slug)["state"], "abandoned");
    let out = sb
        .bare()
        .args(["plans", "abandon", "no-such-plan"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(common::stderr(&out).contains("no plan 'no-such-plan'"));

    // A second plan, parked.
    let server = common::mock(writes_plan_then_exits(
        &plans_dir(&sb),
        "# Later\n1. Something\n",
    ));
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan something for later");
    let ask = s.wait_type("control_request");
    let parked = slug_of(ask["request"]["input"]["planFilePath"].as_str().unwrap());
    s.send(deny(&ask, json!({"message": "not now", "park": true})));
    s.wait_type("result");
    s.finish();
    assert_eq!(row(&sb, &parked)["state"], "parked");
    assert_eq!(row(&sb, &parked)["steps"], Value::Null);
}

#[test]
fn a_plan_whose_goal_was_met_is_done() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"planDrift": "note"}"#);
    let server = common::mock(
        writes_plan_then_exits(&plans_dir(&sb), "# Tiny\n1. Only step\n")
            .turn(common::todo_write(
                "t",
                json!([{"content": "Only step", "status": "completed", "activeForm": "Doing"}]),
            ))
            .turn(Turn::text("Finished.")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan it");
    let ask = s.wait_type("control_request");
    let slug = slug_of(ask["request"]["input"]["planFilePath"].as_str().unwrap());
    s.send(allow(&ask, json!({"mode": "acceptEdits"})));
    let result = s.wait_type("result");
    assert_eq!(result["plan_report"]["goal_met"], true, "{result}");
    s.finish();
    assert_eq!(row(&sb, &slug)["state"], "done");
}

/// The request the model got for `needle` (a user message containing it).
fn request_with(server: &MockServer, needle: &str) -> String {
    server
        .requests()
        .iter()
        .map(last_user)
        .find(|t| t.contains(needle))
        .unwrap_or_else(|| panic!("no request contains {needle:?}"))
}

fn todos_line(seen: &[Value]) -> Vec<(String, String)> {
    let line = seen
        .iter()
        .rev()
        .find(|v| v["type"] == "system" && v["subtype"] == "todos")
        .unwrap_or_else(|| panic!("no todos line: {seen:#?}"));
    line["todos"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["content"].as_str().unwrap().to_string(),
                t["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn an_unchanged_approved_plan_is_taken_up_without_approval() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let slug = approved_with_one_step_done(&sb);

    // `/plan use SLUG` in a new session.
    let server =
        common::mock(catui_testkit::Script::new().turn(Turn::text("Carrying on with step 2.")));
    let mut s = sb.stream(&server, &[]);
    s.send_user(&format!("/plan use {slug}"));
    let result = s.wait_type("result");
    let text = result["result"].as_str().unwrap();
    assert!(
        text.starts_with(&format!("Continuing the approved plan {slug}"))
            && text.contains("1/3 steps done")
            && text.contains("No new approval needed"),
        "{text}"
    );
    assert_eq!(
        todos_line(&s.seen),
        vec![
            ("Print json".to_string(), "pending".to_string()),
            ("Add tests".to_string(), "pending".to_string())
        ],
        "the todos are the undone steps"
    );
    assert!(
        server.requests().is_empty(),
        "nothing asked of the model yet"
    );
    s.send_user("carry on");
    assert_eq!(s.wait_type("result")["result"], "Carrying on with step 2.");
    assert!(
        !s.seen.iter().any(|v| v["type"] == "control_request"),
        "no approval was asked"
    );
    let told = request_with(&server, "continuing a plan the user already approved");
    common::assert_contains(&told, "- Print json\n- Add tests");
    common::assert_contains(&told, "1 of 3 steps are done");
    s.finish();
    assert_eq!(row(&sb, &slug)["state"], "in_progress");

    // `catui --plan SLUG` does the same at the start.
    let server = common::mock(catui_testkit::Script::new().turn(Turn::text("On it.")));
    let mut s = sb.stream(&server, &["--plan", &slug]);
    s.send_user("go on");
    assert_eq!(s.wait_type("result")["result"], "On it.");
    let (code, seen) = s.finish();
    assert_eq!(code, 0);
    assert_eq!(todos_line(&seen).len(), 2);
    assert!(!seen.iter().any(|v| v["type"] == "control_request"));
    let told = request_with(&server, "continuing a plan the user already approved");
    common::assert_contains(&told, "go on");

    // A plan that does not exist is refused at the start.
    let out = sb.run(&server, ["-p", "hi", "--plan", "no-such-plan"]);
    assert!(!out.status.success(), "{out:?}");
    let err = common::stderr(&out);
    common::assert_contains(&err, "--plan: There is no plan 'no-such-plan'");
    assert_eq!(server.requests().len(), 1, "no request was made for it");
}

#[test]
fn a_changed_plan_goes_to_approval_again_and_a_parked_one_to_planning() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let slug = approved_with_one_step_done(&sb);
    let path = sb.config().join("plans").join(format!("{slug}.md"));
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace("3. Add tests\n", "3. Add tests\n4. Update the docs\n"),
    )
    .unwrap();
    assert_eq!(row(&sb, &slug)["changed_since_approval"], true);

    let server = common::mock(
        catui_testkit::Script::new()
            .turn(
                common::exit_plan("x")
                    .when(|r| last_user(r).contains("needs the user's approval again")),
            )
            .turn(Turn::text("Back to it.").when(|r| last_user(r).contains("what next"))),
    );
    let mut s = sb.stream(&server, &[]);
    s.send_user(&format!("/plan use {slug}"));
    let ask = s.wait_type("control_request");
    let input = &ask["request"]["input"];
    assert_eq!(ask["request"]["tool_name"], "ExitPlanMode");
    let diff = input["planDiff"].as_str().unwrap();
    common::assert_contains(diff, "+4. Update the docs");
    common::assert_lacks(diff, "-3. Add tests");
    assert!(
        input["plan"]
            .as_str()
            .unwrap()
            .contains("4. Update the docs")
    );
    s.send(deny(&ask, json!({"message": "later", "park": true})));
    s.wait_type("result");
    assert_eq!(row(&sb, &slug)["state"], "parked");

    // Parked: `/plan use` goes back to planning.
    s.send_user(&format!("/plan use {slug}"));
    let result = s.wait_type("result");
    assert!(
        result["result"]
            .as_str()
            .unwrap()
            .starts_with(&format!("Plan mode: continuing the parked plan {slug}")),
        "{result}"
    );
    assert_eq!(result["permission_mode"], "plan");
    s.send_user("what next");
    assert_eq!(s.wait_type("result")["result"], "Back to it.");
    let told = request_with(&server, "what next");
    common::assert_contains(&told, "it is not approved (parked)");
    s.finish();
}

#[test]
fn date_topic_names_a_new_plan_by_its_heading() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"planNames": "date-topic", "planGoal": false, "planDrift": "note"}"#);
    let server = common::mock(
        writes_plan_then_exits(
            &plans_dir(&sb),
            "# Add a --json flag to `todo list`\n1. Parse it\n",
        )
        .turn(Turn::text("Approved, working.")),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    let words = s.wait_type("system")["plan_file"]
        .as_str()
        .unwrap()
        .to_string();
    s.send_user("add a json flag");
    let ask = s.wait_type("control_request");
    let path = ask["request"]["input"]["planFilePath"]
        .as_str()
        .unwrap()
        .to_string();
    let name = slug_of(&path);
    let (date, topic) = name.split_at(11);
    assert!(
        date.len() == 11
            && date.chars().filter(|c| *c == '-').count() == 3
            && date[..10].chars().all(|c| c.is_ascii_digit() || c == '-'),
        "{name}"
    );
    assert_eq!(topic, "add-json-flag-todo-list", "{name}");
    assert!(std::path::Path::new(&path).is_file());
    assert!(
        !std::path::Path::new(&words).exists(),
        "the words-named file was renamed"
    );
    s.send(allow(&ask, json!({"mode": "acceptEdits"})));
    assert_eq!(s.wait_type("result")["result"], "Approved, working.");
    s.finish();
    let p = row(&sb, &name);
    assert_eq!(p["state"], "approved", "{p}");
    assert!(
        p["session"].is_string(),
        "the session owns the renamed plan: {p}"
    );
}

#[test]
fn move_to_project_takes_the_plans_and_their_history_along() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let slug = approved_with_one_step_done(&sb);
    let out = sb.bare().args(["plans", "move"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "--to-project is required");
    let out = sb
        .bare()
        .args(["plans", "move", "--to-project"])
        .output()
        .unwrap();
    let text = common::stdout(&out);
    assert!(out.status.success(), "{text}");
    common::assert_contains(&text, "Moved 1 plan(s)");
    common::assert_contains(&text, "\"plansDirectory\": \".catui/plans\"");
    common::assert_contains(&text, ".gitignore");
    let moved = sb.project().join(".catui/plans").join(format!("{slug}.md"));
    assert!(moved.is_file());
    assert!(
        !sb.config()
            .join("plans")
            .join(format!("{slug}.md"))
            .exists()
    );
    // With the project's folder as the plans directory, the library and
    // the history find the plan where it is now.
    sb.user_settings(
        r#"{"planGoal": false, "planDrift": "note", "plansDirectory": ".catui/plans"}"#,
    );
    assert_eq!(row(&sb, &slug)["state"], "in_progress");
    let show = sb.bare().args(["plans", "show", &slug]).output().unwrap();
    let show = common::stdout(&show);
    common::assert_contains(&show, "this is the approved revision");
    // Outside the project is refused.
    let out = sb
        .bare()
        .args(["plans", "move", "--to-project", "--to", "/tmp"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(common::stderr(&out).contains("outside the project"));
}

/// Makes `project` a git repository on `main` with one commit (a README).
pub(super) fn repo_with_one_commit(project: &std::path::Path) {
    git(project, &["init", "-q", "-b", "main"]);
    std::fs::write(project.join("README.md"), "todo\n").unwrap();
    git(project, &["add", "README.md"]);
    git(
        project,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "init",
        ],
    );
}

pub(super) fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("HOME", dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        common::stderr(&out)
    );
    common::stdout(&out)
}

#[test]
fn dispatch_carries_the_plan_out_in_a_worktree_and_leaves_the_main_tree_alone() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let project = sb.project();
    repo_with_one_commit(&project);
    let slug = approved_with_one_step_done(&sb);
    let status_before = git(&project, &["status", "--porcelain"]);
    // The background agent works towards the plan's goal.
    sb.user_settings(r#"{"planDrift": "note"}"#);
    let folder: String = project
        .file_name()
        .unwrap()
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let worktree = sb
        .config()
        .join("worktrees")
        .join(format!("{folder}-{slug}"));
    let server = common::mock(
        catui_testkit::Script::new()
            .turn(
                common::write("w", worktree.join("flag.txt"), "--json\n")
                    .when(|r| last_user(r).contains("continuing a plan the user already approved")),
            )
            .turn(common::todo_write(
                "t",
                json!([
                    {"content": "Parse the flag", "status": "completed", "activeForm": "Parsing"},
                    {"content": "Print json", "status": "completed", "activeForm": "Printing"},
                    {"content": "Add tests", "status": "completed", "activeForm": "Testing"}
                ]),
            ))
            .turn(Turn::text("All three done."))
            // The compliance note: flag.txt is not named by the plan.
            .turn(
                Turn::text("flag.txt holds the flag's fixture.")
                    .when(|r| last_user(r).contains("Before you finish")),
            ),
    );
    let out = sb.run(&server, ["plans", "dispatch", &slug, "--wait"]);
    let text = common::stdout(&out);
    assert!(
        out.status.success(),
        "{text}\n{}\n{:#?}",
        common::stderr(&out),
        server.requests().iter().map(last_user).collect::<Vec<_>>()
    );
    common::assert_contains(&text, "goal met — 3/3 steps done, verification passed");
    common::assert_contains(&text, &format!("Review: git diff main...catui/{slug}"));
    assert!(
        text.contains("flag.txt"),
        "the diff stat names the file: {text}\n{:?}",
        common::result_of(&server.requests()[1], "w")
    );
    // The branch holds the work; the main tree is as it was.
    assert!(!git(&project, &["branch", "--list", &format!("catui/{slug}")]).is_empty());
    let on_branch = git(&project, &["show", &format!("catui/{slug}:flag.txt")]);
    assert_eq!(on_branch, "--json\n");
    assert!(!project.join("flag.txt").exists());
    assert_eq!(git(&project, &["status", "--porcelain"]), status_before);
    assert!(
        worktree.starts_with(sb.config()),
        "never inside the project"
    );
    // Progress went back into the plan file; the library shows the run.
    let plan =
        std::fs::read_to_string(sb.config().join("plans").join(format!("{slug}.md"))).unwrap();
    common::assert_contains(&plan, "3/3 steps done");
    let p = row(&sb, &slug);
    assert_eq!(p["dispatch"]["branch"], format!("catui/{slug}"), "{p}");
    assert_eq!(p["dispatch"]["status"], "done", "{p}");
}

#[test]
fn dispatch_is_refused_outside_git_and_for_a_plan_not_approved() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let slug = approved_with_one_step_done(&sb);
    let out = sb
        .bare()
        .args(["plans", "dispatch", &slug])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = common::stderr(&out);
    common::assert_contains(&err, "is not inside a git repository");
    assert!(!sb.config().join("worktrees").exists());
    std::fs::write(
        sb.config().join("plans").join("draft-plan.md"),
        "# Draft\n1. x\n",
    )
    .unwrap();
    let out = sb
        .bare()
        .args(["plans", "dispatch", "draft-plan"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = common::stderr(&out);
    common::assert_contains(&err, "plan draft-plan is draft: only an approved plan");
}

#[test]
fn approving_with_dispatch_outside_git_is_refused_and_planning_goes_on() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let server = common::mock(
        writes_plan_then_exits(&plans_dir(&sb), "# Tiny\n1. Write flag.txt\n").turn(
            Turn::text("Understood.").when(|r| {
                r.tool_result("x")
                    .is_some_and(|t| t.content.contains("is not inside a git repository"))
            }),
        ),
    );
    let mut s = sb.stream(&server, &["--permission-mode", "plan"]);
    s.send_user("plan the flag file");
    let ask = s.wait_type("control_request");
    s.send(allow(&ask, json!({"dispatch": "worktree"})));
    let result = s.wait_type("result");
    assert_eq!(result["result"], "Understood.");
    assert_eq!(result["permission_mode"], "plan", "still planning");
    assert!(!sb.config().join("worktrees").exists());
    s.finish();
}
