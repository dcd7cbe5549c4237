//! The terminal UI as a team lead, end to end: the real binary in tmux, the
//! mock model playing both the lead and a `planModeRequired` teammate.
//!
//! The lead starts amy; the team panel shows her; her plan opens the review
//! dialog; the user rejects it with feedback, amy revises, the user approves;
//! amy edits the project file and reports; her message shows in the
//! transcript and the lead model answers it; `/team` lists her; quitting
//! stops her and leaves the mailboxes on disk.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use catui_testkit::{Script, Turn};
use common::team_plan::{amy_plans_then_revises, approved};
use common::tmux::*;
use common::{is_teammate, last_user};
use serde_json::json;

fn team_script(plans_dir: &str, main_rs: &str) -> Script {
    let main = main_rs.to_string();
    let main_for_edit = main.clone();
    let lead = Script::new()
        .turn(
            common::team_create("tc", json!([{"name": "amy", "prompt": "Please change the greeting", "mode": "acceptEdits", "planModeRequired": true}]))
            .when(|r| !is_teammate(r, "amy") && last_user(r).contains("start a team")),
        )
        .turn(Turn::text("Team started; amy is planning.").when(|r| !is_teammate(r, "amy") && r.has_tool_result("tc")))
        .turn(
            Turn::text("Thanks, amy: greeting confirmed.")
                .when(|r| !is_teammate(r, "amy") && last_user(r).contains("done: greeting changed")),
        );
    amy_plans_then_revises(
        lead,
        plans_dir,
        "# Greeting plan\n\n1. Change the greeting\n",
        "# Greeting plan v2\n\n1. Change the greeting\n2. Run the binary to check it\n",
    )
    .turn(
        common::read("r1", &main)
            .when(move |r| is_teammate(r, "amy") && approved(r) && !r.has_tool_result("r1")),
    )
    .turn(
        common::edit("e1", &main_for_edit, "hello", "hello, team").when(move |r| {
            is_teammate(r, "amy") && r.has_tool_result("r1") && !r.has_tool_result("e1")
        }),
    )
    .turn(
        common::send_message("s1", "team-lead", "done: greeting changed")
            .when(|r| is_teammate(r, "amy") && r.has_tool_result("e1") && !r.has_tool_result("s1")),
    )
    .turn(Turn::text("Reported.").when(|r| is_teammate(r, "amy") && r.has_tool_result("s1")))
}

#[test]
fn the_lead_reviews_a_teammates_plan_in_the_terminal_ui() {
    require_tmux();
    let s = setup(
        |_, dir, main| team_script(dir, &main.display().to_string()),
        None,
    );
    launch(&s);
    s.tmux.submit("start a team for the greeting");

    // Amy would work in acceptEdits, wider than the lead's default mode:
    // the user agrees first.
    s.tmux
        .wait_text("TeamCreate would start a teammate in acceptEdits mode");
    s.tmux.keys(&["1"]);

    // Amy's first plan opens the review dialog.
    s.tmux.wait_text("Plan approval · amy@core");
    let dialog = s.tmux.wait_text("Reject, and tell amy what to change");
    common::assert_contains(&dialog, "Greeting plan");
    let original = "fn main() {\n    println!(\"hello\");\n}\n";
    assert_eq!(std::fs::read_to_string(&s.main_rs).unwrap(), original);

    // Reject with feedback; amy revises and asks again.
    s.tmux.keys(&["2"]);
    s.tmux.wait_text("What should change?");
    s.tmux.type_text("Add a step that runs the binary.");
    s.tmux.wait_text("runs the binary.");
    s.tmux.keys(&["Enter"]);
    // (The "Rejected ..." note may already be hidden behind the next dialog.)
    let revised = s
        .tmux
        .wait_screen("the revised plan in the dialog", |screen| {
            screen.contains("Plan approval · amy@core") && screen.contains("Run the binary")
        });
    common::assert_contains(&revised, "Greeting plan v2");
    assert_eq!(
        std::fs::read_to_string(&s.main_rs).unwrap(),
        original,
        "nothing changes before approval"
    );

    // Approve: amy leaves plan mode, edits, and reports to the lead.
    s.tmux.keys(&["1"]);
    s.tmux.wait_text("Approved amy@core's plan");
    wait_for("amy's edit of src/main.rs", &s.tmux, || {
        std::fs::read_to_string(&s.main_rs)
            .ok()
            .filter(|t| t.contains("hello, team"))
    });
    s.tmux.wait_text("✉ amy@core");
    s.tmux.wait_text("done: greeting changed");
    s.tmux.wait_text("Thanks, amy: greeting confirmed.");
    // The team panel above the input follows her status.
    s.tmux.wait_text("◇ amy@core idle");

    // `/team` lists her and what she is doing.
    s.tmux.type_text("/team");
    s.tmux.keys(&["Escape", "Enter"]);
    let listing = s.tmux.wait_text("Team core");
    common::assert_contains(&listing, "amy");

    let reqs = s.server.requests();
    let feedback_seen = reqs.iter().any(|r| {
        is_teammate(r, "amy")
            && last_user(r).contains("rejected your plan")
            && last_user(r).contains("Add a step that runs the binary.")
    });
    assert!(feedback_seen, "amy never saw the feedback");
    let lead_saw_report = reqs.iter().any(|r| {
        !is_teammate(r, "amy")
            && last_user(r).contains("teammate-message")
            && last_user(r).contains("done: greeting changed")
    });
    assert!(lead_saw_report, "the lead model never got amy's report");

    quit_and_check_terminal(&s);
    let inbox = s.sb.config().join("teams/core/inboxes/team-lead.json");
    let mail = std::fs::read_to_string(&inbox).unwrap();
    common::assert_contains(&mail, "plan_approval_request");
    common::assert_contains(&mail, "done: greeting changed");
}
