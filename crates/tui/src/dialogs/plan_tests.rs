//! Tests of the plan approval dialog.

use super::*;
use crossterm::event::KeyModifiers;

fn dialog() -> PlanDialog {
    PlanDialog::new(PermissionRequest {
        tool_use_id: "t1".into(),
        tool_name: "ExitPlanMode".into(),
        input: json!({"plan": "# Plan\n1. do it", "planFilePath": "/p/plan.md", "planDiff": "-old\n+new"}),
        reason: String::new(),
        agent_id: None,
        suggestion: None,
        dry_run: false,
    })
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn allowed_input(outcome: DialogOutcome) -> Value {
    match outcome {
        DialogOutcome::Answer(PermissionAnswer::Allow {
            updated_input: Some(v),
            ..
        }) => v,
        other => panic!("expected allow, got {other:?}"),
    }
}

#[test]
fn approval_options_set_the_mode_to_restore() {
    let v = allowed_input(dialog().handle_key(key(KeyCode::Char('1'))));
    assert_eq!(v["mode"], "acceptEdits");
    assert_eq!(v["plan"], "# Plan\n1. do it");
    assert_eq!(v["planFilePath"], "/p/plan.md");
    let mut d = dialog();
    d.handle_key(key(KeyCode::Down));
    let v = allowed_input(d.handle_key(key(KeyCode::Enter)));
    assert_eq!(v["mode"], Value::Null);
}

#[test]
fn keep_planning_sends_feedback() {
    let mut d = dialog();
    assert_eq!(
        d.handle_key(key(KeyCode::Char('3'))),
        DialogOutcome::Pending
    );
    for c in "add tests".chars() {
        d.handle_key(key(KeyCode::Char(c)));
    }
    assert_eq!(
        d.handle_key(key(KeyCode::Enter)),
        DialogOutcome::Answer(PermissionAnswer::Deny {
            message: "add tests".into()
        })
    );
}

#[test]
fn edited_plan_is_what_gets_approved_and_d_toggles_the_diff() {
    let mut d = dialog();
    d.handle_key(key(KeyCode::Char('d')));
    assert!(d.show_diff);
    assert_eq!(
        d.handle_key(KeyEvent::new(KeyCode::Char('g'), KeyModifiers::CONTROL)),
        DialogOutcome::EditPlan
    );
    d.set_edited_plan("# Plan\n1. do it better".into());
    assert!(d.edited && !d.show_diff);
    let v = allowed_input(d.handle_key(key(KeyCode::Char('2'))));
    assert_eq!(v["plan"], "# Plan\n1. do it better");
    d.set_edited_plan("  ".into());
    assert!(d.error.is_some());
}

fn teammate_dialog() -> PlanDialog {
    PlanDialog::for_teammate(&PlanReviewRequest {
        team: "core".into(),
        from: "amy".into(),
        request_id: "plan_approval-7-amy@core".into(),
        plan_file_path: "/p/amy.md".into(),
        plan: "# Amy's plan".into(),
        conflicts: Vec::new(),
    })
}

#[test]
fn a_teammates_plan_is_approved_rejected_with_feedback_or_handed_on() {
    let mut d = teammate_dialog();
    assert_eq!(d.request.tool_use_id, "plan_approval-7-amy@core");
    assert_eq!(d.plan, "# Amy's plan");
    assert_eq!(
        d.options()[0],
        "Approve: amy leaves plan mode and carries it out"
    );
    assert_eq!(
        d.handle_key(key(KeyCode::Enter)),
        DialogOutcome::Review(Some(LeadDecision {
            approved: true,
            feedback: None
        }))
    );

    let mut d = teammate_dialog();
    assert_eq!(
        d.handle_key(key(KeyCode::Char('2'))),
        DialogOutcome::Pending
    );
    for c in "split step 2".chars() {
        d.handle_key(key(KeyCode::Char(c)));
    }
    assert_eq!(
        d.handle_key(key(KeyCode::Enter)),
        DialogOutcome::Review(Some(LeadDecision {
            approved: false,
            feedback: Some("split step 2".into())
        }))
    );

    let mut d = teammate_dialog();
    assert_eq!(
        d.handle_key(key(KeyCode::Char('3'))),
        DialogOutcome::Review(None)
    );
    // Esc rejects; Ctrl+G does not edit someone else's plan.
    assert_eq!(
        d.handle_key(KeyEvent::new(KeyCode::Char('g'), KeyModifiers::CONTROL)),
        DialogOutcome::Pending
    );
    assert_eq!(
        d.handle_key(key(KeyCode::Esc)),
        DialogOutcome::Review(Some(LeadDecision {
            approved: false,
            feedback: None
        }))
    );
}

#[test]
fn park_skipped_steps_and_the_model_are_part_of_the_answer() {
    let request = |plan: &str| {
        PlanDialog::new(PermissionRequest {
            tool_use_id: "t1".into(),
            tool_name: "ExitPlanMode".into(),
            input: json!({"plan": plan, "planFilePath": "/p/plan.md", "model": "big"}),
            reason: String::new(),
            agent_id: None,
            suggestion: None,
            dry_run: false,
        })
    };
    // 5: approved, handed to a background agent.
    let v = allowed_input(request("# P\n1. a\n2. b\n").handle_key(key(KeyCode::Char('5'))));
    assert_eq!(v["dispatch"], "worktree", "{v}");
    assert_eq!(v["mode"], "acceptEdits", "{v}");
    assert!(v.get("park").is_none(), "{v}");
    // 6: park, nothing approved.
    let v = allowed_input(request("# P\n1. a\n2. b\n").handle_key(key(KeyCode::Char('6'))));
    assert_eq!(v["park"], true);
    assert!(v.get("mode").is_none(), "{v}");

    // s: step 2 left out; m: another model; then approve.
    let mut d = request("# P\n1. a\n2. b\n");
    d.handle_key(key(KeyCode::Char('s')));
    d.handle_key(key(KeyCode::Down));
    d.handle_key(key(KeyCode::Char(' ')));
    d.handle_key(key(KeyCode::Esc));
    d.handle_key(key(KeyCode::Char('m')));
    d.handle_key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
    for c in "small".chars() {
        d.handle_key(key(KeyCode::Char(c)));
    }
    d.handle_key(key(KeyCode::Enter));
    let v = allowed_input(d.handle_key(key(KeyCode::Char('1'))));
    assert_eq!(v["skip_steps"], json!([2]));
    assert_eq!(v["model"], "small");
    assert_eq!(v["mode"], "acceptEdits");
    assert!(v.get("park").is_none(), "{v}");

    // Without changes the shown model is no choice.
    let v = allowed_input(request("# P\n1. a\n").handle_key(key(KeyCode::Char('2'))));
    assert!(v.get("model").is_none(), "{v}");
    assert!(v.get("skip_steps").is_none(), "{v}");
}
