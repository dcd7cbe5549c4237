//! Tests of the user's decision on a plan: what each front end's answer
//! becomes, and what reaches ExitPlanMode's call.

use catui_protocol::control::{PermissionResponse, PlanLineComment};
use serde_json::json;

use super::*;
use crate::plan::approval::exit_input::ExitPlanModeInput;

fn shown() -> Value {
    json!({"plan": "# P\n1. a\n2. b\n", "planFilePath": "/p.md", "planDiff": null,
        "planHash": "h1", "model": "big-model"})
}

fn allow(input: Value) -> PermissionResponse {
    PermissionResponse::Allow {
        updated_input: Some(input),
        updated_permissions: None,
        dry_run: false,
    }
}

fn tool_input(answer: PermissionAnswer) -> ExitPlanModeInput {
    let PermissionAnswer::Allow {
        updated_input: Some(input),
        ..
    } = answer
    else {
        panic!("expected an allow: {answer:?}");
    };
    serde_json::from_value(input).unwrap()
}

#[test]
fn an_echoed_presentation_approves_it_unchanged() {
    // What the SDKs send when the callback allows without changes.
    let d = ApprovalDecision::from_response(&allow(shown()), &shown()).unwrap();
    assert_eq!(d.verdict, ApprovalVerdict::Approve);
    assert_eq!(d.mode, None);
    assert_eq!(d.edited_plan, None, "the shown plan echoed back is no edit");
    assert_eq!(d.model, None, "the shown model echoed back is no choice");
    assert_eq!(d.plan_hash.as_deref(), Some("h1"));
    let back = ApprovalDecision::from_input(&tool_input(d.into_answer(&shown())));
    assert_eq!(back.verdict, ApprovalVerdict::Approve);
    assert_eq!(
        (back.mode, back.model, back.clear_context),
        (None, None, false)
    );
    assert!(back.skip_steps.is_empty());
    assert_eq!(back.plan_hash.as_deref(), Some("h1"));
    // The shown text rides along; the approval step sees it is no edit.
    assert_eq!(back.edited_plan.as_deref(), Some("# P\n1. a\n2. b\n"));
}

#[test]
fn every_choice_survives_the_trip_to_the_tool() {
    let mut answer = shown();
    answer["mode"] = json!("acceptEdits");
    answer["clearContext"] = json!(true);
    answer["skip_steps"] = json!([2]);
    answer["model"] = json!("small-model");
    answer["plan"] = json!("# P\n1. a, edited\n2. b\n");
    let d = ApprovalDecision::from_response(&allow(answer), &shown()).unwrap();
    assert_eq!(d.mode, Some(PermissionMode::AcceptEdits));
    assert!(d.clear_context);
    assert_eq!(d.skip_steps, [2]);
    assert_eq!(d.model.as_deref(), Some("small-model"));
    assert_eq!(d.edited_plan.as_deref(), Some("# P\n1. a, edited\n2. b\n"));
    let back = ApprovalDecision::from_input(&tool_input(d.clone().into_answer(&shown())));
    assert_eq!(back, d);
}

#[test]
fn a_park_is_a_deny_with_park_and_reaches_the_tool_as_such() {
    let response = PermissionResponse::Deny {
        message: "after the release".into(),
        interrupt: false,
        comments: vec![],
        park: true,
    };
    let d = ApprovalDecision::from_response(&response, &shown()).unwrap();
    assert_eq!(d.verdict, ApprovalVerdict::Park);
    let input = tool_input(d.into_answer(&shown()));
    assert_eq!(input.park, Some(true));
    assert_eq!(input.note.as_deref(), Some("after the release"));
    assert_eq!(input.mode, None, "a park picks no mode");
    assert_eq!(
        ApprovalDecision::from_input(&input).verdict,
        ApprovalVerdict::Park
    );
}

#[test]
fn keep_planning_is_the_denial_with_the_comments_quoted() {
    let response = PermissionResponse::Deny {
        message: "Close.".into(),
        interrupt: false,
        comments: vec![PlanLineComment {
            line: 3,
            text: "Drop this.".into(),
            passage: None,
        }],
        park: false,
    };
    let d = ApprovalDecision::from_response(&response, &shown()).unwrap();
    assert_eq!(d.verdict, ApprovalVerdict::KeepPlanning);
    assert_eq!(
        d.into_answer(&shown()),
        PermissionAnswer::Deny {
            message: "Close.\n\nComments on lines of the plan:\n\n> line 3: 2. b\nDrop this."
                .into()
        }
    );
}

#[test]
fn unreadable_choices_are_named() {
    for (field, value, says) in [
        ("skip_steps", json!([0]), "skip_steps"),
        ("skip_steps", json!("2"), "skip_steps"),
        ("skip_steps", json!([1.5]), "skip_steps"),
        ("mode", json!("sideways"), "mode"),
        ("mode", json!(3), "mode"),
        ("model", json!(7), "model"),
    ] {
        let mut answer = shown();
        answer[field] = value;
        let err = ApprovalDecision::from_response(&allow(answer), &shown()).unwrap_err();
        assert_eq!(err.field(), says, "{field}: {err}");
        // The text names the field as the client sent it.
        assert!(
            err.to_string().starts_with(&format!("updatedInput.{says}")),
            "{field}: {err}"
        );
    }
}

#[test]
fn fields_of_the_presentation_are_not_taken_for_choices() {
    // A presentation never carries a choice, but an encoded answer must
    // not inherit one from it either.
    let mut presented = shown();
    presented["park"] = json!(true);
    presented["skip_steps"] = json!([1]);
    let input = tool_input(ApprovalDecision::approve(None).into_answer(&presented));
    assert_eq!(input.park, None);
    assert_eq!(input.skip_steps, None);
    assert_eq!(input.model, None);
    assert_eq!(input.plan_hash.as_deref(), Some("h1"));
}
