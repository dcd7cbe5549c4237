//! The plan library in the terminal UI (issue 51): the approval dialog's
//! fifth choice, "Yes, implement in the background", hands the plan to a
//! background agent in a git worktree while the session goes on; the
//! `/plans` picker reads a plan, marks one abandoned and continues one in
//! the session, by keyboard only. The real
//! `catui` binary in a tmux pane against the testkit mock model; the
//! background agent is a second real catui.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::tmux::*;
use serde_json::json;

use super::plan_dispatch::writes_flag_in_worktree;
use super::plan_library::{git, repo_with_one_commit};

/// The one plan file of the session's plans folder, by its slug.
fn the_plan_slug(plans_dir: &str) -> String {
    std::fs::read_dir(plans_dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "md"))
        .expect("a plan file")
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// How many requests the main session sent (the background agent's name
/// its worktree, under the catui home's `worktrees`, as their directory).
fn main_requests(s: &Setup) -> usize {
    let worktrees = s.sb.config().join("worktrees");
    let worktrees = worktrees.to_str().unwrap();
    s.server
        .requests()
        .iter()
        .filter(|r| !r.system_text().contains(worktrees))
        .count()
}

#[test]
fn the_fifth_choice_hands_the_plan_to_a_background_agent() {
    require_tmux();
    let s = setup(
        |sb, dir, _| {
            common::writes_and_presents(dir, "# Tiny\n\n1. Write flag.txt\n")
                .turn(Turn::text("It runs in the background.").when(|r| {
                    r.tool_result("x1")
                        .is_some_and(|t| t.content.contains("handed it to a background agent"))
                }))
                .turn(writes_flag_in_worktree(sb.config().join("worktrees")))
                .turn(common::todo_write("t", json!([{"content": "Write flag.txt", "status": "completed", "activeForm": "Writing"}])).when(|r| r.has_tool_result("w")))
                .turn(Turn::text("Done in the background.").when(|r| r.has_tool_result("t")))
        },
        None,
    );
    s.sb.user_settings(r#"{"planDrift": "note"}"#);
    let project = s.sb.project();
    repo_with_one_commit(&project);
    // The background agent is a headless run: no end-of-run self-check
    // (the mock model has no turn for it).
    launch_with(&s, "CATUI_COMPLETION_CHECK=off ");
    cycle_mode_to(&s.tmux, "acceptEdits");
    cycle_mode_to(&s.tmux, "plan");
    s.tmux.submit("plan the flag file");
    s.tmux.wait_text("Yes, implement in the background");
    s.tmux.keys(&["5"]);
    let screen = s.tmux.wait_text("Plan handed to a background agent");
    assert_eq!(mode_on_screen(&screen), "acceptEdits", "{screen}");
    s.tmux.wait_text("It runs in the background.");
    let slug = the_plan_slug(&s.plans_dir);
    let asked_before_the_end = main_requests(&s);
    // The background agent's end, told in the transcript while the session
    // is idle: its summary in full, with the branch, the diff stat and the
    // commands to review and merge.
    let screen = s.tmux.wait_text(&format!("Merge:  git merge catui/{slug}"));
    let log = std::fs::read_to_string(
        s.sb.config()
            .join("worktrees")
            .join(format!("project-{slug}.log")),
    )
    .unwrap_or_default();
    common::assert_contains(&screen, &format!("Plan {slug}"));
    assert!(
        screen.contains(&format!("Branch catui/{slug} (worktree")),
        "{screen}"
    );
    assert!(screen.contains("flag.txt | 1 +"), "the diff stat: {screen}");
    common::assert_contains(&screen, &format!("Review: git diff main...catui/{slug}"));
    common::assert_contains(&screen, "1/1 steps done");
    // Shown, not sent: in the terminal UI a background task's end waits
    // for the next request (as a background command's does).
    common::assert_contains(
        &screen,
        "ended; the model gets its report with the next request.",
    );
    assert_eq!(main_requests(&s), asked_before_the_end);
    assert!(
        screen.contains("goal met"),
        "{screen}\n{log}\n{:#?}",
        s.server
            .requests()
            .iter()
            .map(common::last_user)
            .collect::<Vec<_>>()
    );
    assert_eq!(
        git(&project, &["show", &format!("catui/{slug}:flag.txt")]),
        "x\n"
    );
    assert!(
        !project.join("flag.txt").exists(),
        "the main tree is unchanged"
    );
    quit_and_check_terminal(&s);
}

#[test]
fn the_plans_picker_reads_abandons_and_continues_a_plan() {
    let s = tmux_session(Script::new());
    let plans = s.sb.config().join("plans");
    std::fs::create_dir_all(&plans).unwrap();
    std::fs::write(
        plans.join("quiet-green-owl.md"),
        "# Split the parser\n\n1. Move the lexer out\n2. Add tests\n",
    )
    .unwrap();
    launch(&s);
    s.tmux.submit("/plans");
    let screen = s.tmux.wait_text("quiet-green-owl");
    common::assert_contains(&screen, "Split the parser");
    common::assert_contains(&screen, "draft");
    // Enter reads it; Esc goes back to the list.
    s.tmux.keys(&["Enter"]);
    s.tmux.wait_text("1. Move the lexer out");
    s.tmux.keys(&["Escape"]);
    s.tmux.wait_screen("the list again", |screen| {
        screen.contains("Enter read") && !screen.contains("1. Move the lexer out")
    });
    // a: abandoned, in the library and in the list.
    s.tmux.keys(&["a"]);
    s.tmux.wait_text("Marked quiet-green-owl abandoned");
    s.tmux.wait_text("abandoned");
    let listed =
        s.sb.bare()
            .args(["plans", "list", "--json"])
            .output()
            .unwrap();
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed[0]["state"], "abandoned", "{listed}");
    // u: continued in this session (back to planning, nothing approved).
    s.tmux.keys(&["u"]);
    let screen = s
        .tmux
        .wait_text("Plan mode: continuing the abandoned plan quiet-green-owl");
    assert_eq!(mode_on_screen(&screen), "plan", "{screen}");
    assert!(
        !screen.contains("Enter read"),
        "the picker closed: {screen}"
    );
    quit_and_check_terminal(&s);
}
