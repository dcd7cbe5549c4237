//! A plan handed to a background agent at approval (issue 51: the fifth
//! choice, `updatedInput.dispatch: "worktree"`): the session that approved
//! it follows the agent as one of its background tasks (`task_started`,
//! `task_progress`, `task_notification` with the summary, and a turn of the
//! model told the summary), while the agent works in its own git worktree
//! and the main tree stays as it was. The real binary over stream-json
//! against the testkit mock model; the agent is a second real catui.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use catui_testkit::Turn;

use crate::common;
use serde_json::{Value, json};

use super::plan_library::{git, repo_with_one_commit, row, slug_of};
use crate::common::{Sandbox, StreamSession, allow, last_user, plans_dir, writes_plan_then_exits};

/// A line already seen that matches `pred`, else the next one that does.
fn seen_or_wait(s: &mut StreamSession, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
    match s.seen.iter().find(|v| pred(v)) {
        Some(v) => v.clone(),
        None => s.wait_for(what, pred),
    }
}

/// Asks in plan mode for the flag file's plan and approves it for dispatch
/// to a worktree in `mode`; returns the session and the plan's slug.
fn approve_with_dispatch(
    sb: &Sandbox,
    server: &catui_testkit::MockServer,
    mode: &str,
) -> (StreamSession, String) {
    let mut s = sb.stream(server, &["--permission-mode", "plan"]);
    s.send_user("plan the flag file");
    let ask = s.wait_type("control_request");
    let slug = slug_of(ask["request"]["input"]["planFilePath"].as_str().unwrap());
    s.send(allow(&ask, json!({"dispatch": "worktree", "mode": mode})));
    (s, slug)
}

/// Waits (at most 30 s) until the library says the dispatch ended.
fn dispatch_end(sb: &Sandbox, slug: &str) -> Value {
    let mut state = Value::Null;
    for _ in 0..300 {
        state = row(sb, slug)["dispatch"].clone();
        if state["status"] == "done" || state["status"] == "failed" {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    state
}

/// The background agent's Write of `flag.txt` in its worktree (whose
/// branch its git reminder names).
pub(super) fn writes_flag_in_worktree(worktrees: std::path::PathBuf) -> Turn {
    Turn::respond(move |r| {
        let text = last_user(r);
        let start = text.find("Current branch: catui/").unwrap() + 22;
        let slug: String = text[start..].lines().next().unwrap().to_string();
        common::write(
            "w",
            worktrees.join(format!("project-{slug}")).join("flag.txt"),
            "x\n",
        )
    })
    .when(|r| last_user(r).contains("continuing a plan the user already approved"))
}

#[test]
fn approving_with_dispatch_hands_the_plan_to_a_background_agent_followed_as_a_task() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"planDrift": "note"}"#);
    let project = sb.project();
    repo_with_one_commit(&project);
    let worktrees = sb.config().join("worktrees");
    let server = common::mock(
        writes_plan_then_exits(&plans_dir(&sb), "# Tiny\n1. Write flag.txt\n")
            .turn(Turn::text("It runs in the background; what next?").when(|r| {
                r.tool_result("x")
                    .is_some_and(|t| t.content.contains("handed it to a background agent"))
            }))
            // This session, told the background agent ended.
            .turn(
                Turn::text("The background agent carried the plan out.").when(|r| {
                    let text = last_user(r);
                    text.contains("dispatched-plan") && text.contains("has finished")
                }),
            )
            // The background agent, in its worktree.
            .turn(writes_flag_in_worktree(worktrees))
            .turn(common::todo_write("t", json!([{"content": "Write flag.txt", "status": "completed", "activeForm": "Writing"}])))
            .turn(Turn::text("Done in the background.")),
    );
    let (mut s, slug) = approve_with_dispatch(&sb, &server, "acceptEdits");
    let started = s.wait_for("task_started", |v| v["subtype"] == "task_started");
    assert_eq!(started["task_type"], "local_agent", "{started}");
    assert_eq!(started["subagent_type"], "dispatched-plan", "{started}");
    assert_eq!(
        started["tool_use_id"], "x",
        "the approved ExitPlanMode call"
    );
    assert!(
        started["description"]
            .as_str()
            .unwrap()
            .contains(&format!("plan {slug} on branch catui/{slug}")),
        "{started}"
    );
    let task_id = started["task_id"].as_str().unwrap().to_string();
    let result = seen_or_wait(&mut s, "result", |v| v["type"] == "result");
    assert_eq!(result["result"], "It runs in the background; what next?");
    assert_eq!(result["permission_mode"], "acceptEdits", "plan mode ended");
    assert!(!project.join("flag.txt").exists());

    // Its end, with the summary; the model is told and answers.
    let ended = seen_or_wait(&mut s, "task_notification", |v| {
        v["subtype"] == "task_notification"
    });
    assert_eq!(ended["task_id"], task_id.as_str(), "{ended}");
    assert_eq!(ended["status"], "completed", "{ended}");
    let summary = ended["summary"].as_str().unwrap();
    common::assert_contains(summary, "goal met — 1/1 steps done");
    common::assert_contains(summary, &format!("Review: git diff main...catui/{slug}"));
    let report = std::fs::read_to_string(ended["output_file"].as_str().unwrap()).unwrap();
    assert!(report.contains("flag.txt"), "the diff stat: {report}");
    // The line carries it too, written for the user.
    assert_eq!(ended["report"], report.as_str(), "{ended}");
    common::assert_contains(&report, &format!("Merge:  git merge catui/{slug}"));
    let told = s.wait_type("result");
    assert_eq!(told["result"], "The background agent carried the plan out.");
    assert!(
        server
            .requests()
            .iter()
            .any(|r| last_user(r).contains(&format!("Review: git diff main...catui/{slug}"))),
        "the model was given the summary"
    );

    // Progress lines in between: the agent's Write, and its step done.
    let progress: Vec<&Value> = s
        .seen
        .iter()
        .filter(|v| v["subtype"] == "task_progress" && v["task_id"] == task_id.as_str())
        .collect();
    assert!(
        progress.iter().any(|p| p["last_tool_name"] == "Write"),
        "{progress:#?}"
    );
    assert!(
        progress.iter().any(|p| p["description"]
            .as_str()
            .unwrap()
            .ends_with("(1/1 steps done)")),
        "{progress:#?}"
    );

    // The branch holds the work; the main tree is unchanged; the library
    // followed it.
    assert_eq!(dispatch_end(&sb, &slug)["status"], "done");
    assert_eq!(
        git(&project, &["show", &format!("catui/{slug}:flag.txt")]),
        "x\n"
    );
    assert!(!project.join("flag.txt").exists());
    let (code, _) = s.finish();
    assert_eq!(code, 0);
}

/// The background agent works in the mode chosen at approval: approved
/// with `mode: "default"`, its edit needs a prompt nobody in a background
/// run can answer, so it is refused and nothing is written on the branch
/// (in `acceptEdits`, the test above, the same edit lands).
#[test]
fn the_background_agent_keeps_the_mode_chosen_at_approval() {
    let sb = Sandbox::new();
    sb.user_settings(r#"{"planGoal": false, "planDrift": "note"}"#);
    let project = sb.project();
    repo_with_one_commit(&project);
    let server = common::mock(
        writes_plan_then_exits(&plans_dir(&sb), "# Tiny\n1. Write flag.txt\n")
            .turn(Turn::text("It runs in the background.").when(|r| {
                r.tool_result("x")
                    .is_some_and(|t| t.content.contains("handed it to a background agent"))
            }))
            .turn(Turn::text("Noted.").when(|r| last_user(r).contains("Background agent agent_")))
            .turn(writes_flag_in_worktree(sb.config().join("worktrees")))
            .turn(Turn::text("Could not write it.").when(|r| r.has_tool_result("w"))),
    );
    let (mut s, slug) = approve_with_dispatch(&sb, &server, "default");
    let result = s.wait_type("result");
    assert_eq!(result["result"], "It runs in the background.");
    let state = dispatch_end(&sb, &slug);
    assert!(
        state["status"] == "done" || state["status"] == "failed",
        "{state}"
    );
    let refused = server
        .requests()
        .iter()
        .filter_map(|r| r.tool_result("w"))
        .map(|t| t.content)
        .next()
        .expect("the background agent's Write ran or was refused");
    common::assert_contains(&refused, "nobody can answer permission prompts");
    git(&project, &["rev-parse", &format!("catui/{slug}")]);
    let shown = std::process::Command::new("git")
        .arg("-C")
        .arg(&project)
        .args(["show", &format!("catui/{slug}:flag.txt")])
        .output()
        .unwrap();
    assert!(!shown.status.success(), "nothing was written on the branch");
    s.wait_for("the end's task_notification", |v| {
        v["subtype"] == "task_notification"
    });
    s.finish();
    // Plan mode is no mode for carrying a plan out.
    let out = sb
        .bare()
        .args(["plans", "dispatch", &slug, "--permission-mode", "plan"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(common::stderr(&out).contains("--permission-mode plan"));
}
