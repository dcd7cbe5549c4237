//! The TUI as a team lead: a teammate's plan opens the review dialog (and
//! waits its turn behind other prompts), the answers become review actions,
//! teammates' messages show as their own entries and take a place in the
//! input queue, and the team panel lists who is doing what.

mod common;

use catui_core::engine::EngineEvent;
use catui_core::teams::manager::PlanReviewRequest;
use catui_core::teams::{PlanDecision, TeammateStatus};
use catui_protocol::PermissionMode;
use catui_tui::dialogs::Dialog;
use catui_tui::{Action, TeammateRow};
use common::*;
use crossterm::event::KeyCode;
use serde_json::json;

fn review(from: &str) -> PlanReviewRequest {
    PlanReviewRequest {
        team: "core".into(),
        from: from.into(),
        request_id: format!("plan_approval-1700000000000-a1b2c3-{from}@core"),
        plan_file_path: format!("/home/dev/.catui/plans/brave-quiet-otter-agent-{from}@core.md"),
        plan: "# Add a --json flag\n\n1. Parse `--json` in `cli.rs`\n2. Print the list with `serde_json`\n\n## Verification\n\n- `cargo test list_json`".into(),
        conflicts: Vec::new(),
    }
}

fn rows() -> Vec<TeammateRow> {
    vec![
        TeammateRow {
            agent_id: "amy@core".into(),
            status: TeammateStatus::AwaitingApproval,
            activity: None,
        },
        TeammateRow {
            agent_id: "bob@core".into(),
            status: TeammateStatus::Working,
            activity: Some("Edit(src/report.rs)".into()),
        },
        TeammateRow {
            agent_id: "cy@core".into(),
            status: TeammateStatus::Idle,
            activity: None,
        },
    ]
}

#[test]
fn a_teammates_plan_waits_behind_a_prompt_then_is_approved() {
    let mut s = state();
    s.push_request(request("Bash", json!({"command": "cargo build"})));
    s.push_review(&review("amy"));
    assert!(
        !s.dialog.as_ref().is_some_and(Dialog::is_review),
        "the open prompt keeps the screen"
    );
    press(&mut s, key(KeyCode::Esc));
    let Some(Dialog::Plan(d)) = &s.dialog else {
        panic!("the review should open next: {:?}", s.dialog);
    };
    assert_eq!(d.teammate.as_deref(), Some("amy@core"));
    assert_eq!(
        press(&mut s, key(KeyCode::Char('1'))),
        [Action::Review {
            request_id: "plan_approval-1700000000000-a1b2c3-amy@core".into(),
            decision: Some(PlanDecision {
                approved: true,
                feedback: None
            }),
        }]
    );
    assert!(s.dialog.is_none());
}

#[test]
fn rejecting_sends_feedback_and_ctrl_c_rejects_without() {
    let mut s = state();
    s.push_review(&review("amy"));
    press(&mut s, key(KeyCode::Char('2')));
    type_text(&mut s, "keep the old flag working");
    assert_eq!(
        press(&mut s, key(KeyCode::Enter)),
        [Action::Review {
            request_id: "plan_approval-1700000000000-a1b2c3-amy@core".into(),
            decision: Some(PlanDecision {
                approved: false,
                feedback: Some("keep the old flag working".into())
            }),
        }]
    );

    s.push_review(&review("bob"));
    let actions = press(&mut s, ctrl('c'));
    assert_eq!(
        actions,
        [Action::Review {
            request_id: "plan_approval-1700000000000-a1b2c3-bob@core".into(),
            decision: Some(PlanDecision {
                approved: false,
                feedback: None
            }),
        }]
    );
    assert!(s.dialog.is_none());
}

#[test]
fn a_review_whose_teammate_stopped_closes() {
    let mut s = state();
    s.push_review(&review("amy"));
    s.drop_request("plan_approval-1700000000000-a1b2c3-amy@core");
    assert!(s.dialog.is_none());
}

#[test]
fn teammate_messages_are_shown_and_their_turns_are_queued() {
    let mut s = state();
    s.apply(EngineEvent::TeammateMessage {
        from: "amy@core".into(),
        text: "done: `--json` added, tests pass".into(),
    });
    let screen_text = format!("{:?}", screen(&s, 80, 16).backend());
    assert!(screen_text.contains("✉ amy@core"), "{screen_text}");
    assert!(screen_text.contains("tests pass"), "{screen_text}");

    // The lead model's turn for it keeps the interface busy until its
    // result, and the result does not eat a typed message's slot.
    s.push_team_turn();
    assert!(s.busy());
    // A message typed meanwhile waits in the queue for that turn's end.
    assert!(s.submit_text("and now the docs".into()).is_empty());
    s.apply(result("Thanks, amy.", 1, false, PermissionMode::Default));
    assert_eq!(
        s.take_due_input(),
        [catui_tui::Action::Submit("and now the docs".into())]
    );
    assert!(s.busy(), "the typed message is still waiting");
    s.apply(result("Docs updated.", 1, false, PermissionMode::Default));
    assert!(!s.busy());
}

#[test]
fn the_team_panel_follows_the_members() {
    let mut s = state();
    assert!(s.set_teammates(rows()));
    assert!(!s.set_teammates(rows()), "no change, no redraw");
    let text = format!("{:?}", screen(&s, 80, 16).backend());
    assert!(
        text.contains("bob@core working · Edit(src/report.rs)"),
        "{text}"
    );
    assert!(text.contains("amy@core awaiting approval"), "{text}");
    assert!(s.set_teammates(Vec::new()));
    let text = format!("{:?}", screen(&s, 80, 16).backend());
    assert!(!text.contains("bob@core"), "{text}");
}

#[test]
fn team_panel_snapshot() {
    let mut s = state();
    s.set_teammates(rows());
    s.apply(EngineEvent::TeammateMessage {
        from: "bob@core".into(),
        text: "The report command now streams rows; 12 tests pass.".into(),
    });
    insta::assert_snapshot!(screen(&s, 80, 16).backend());
}

#[test]
fn teammate_plan_review_snapshot() {
    let mut s = state();
    s.set_teammates(rows());
    s.push_review(&review("amy"));
    press(&mut s, key(KeyCode::Char('2')));
    type_text(&mut s, "keep the old flag");
    insta::assert_snapshot!(screen(&s, 80, 26).backend());
}
