use super::*;
use crate::page::{Decisions, ReviewPage};
use catui_core::plan::approval::decision::ApprovalVerdict;
use serde_json::json;

const PLAN: &str = "# Plan\n\n1. Parse --json\n2. Serialise\n3. Test\n";

fn page() -> ReviewPage {
    let mut page = ReviewPage::new(PLAN, "/plans/p.md", Decisions::All, None);
    page.model = Some("big-model".into());
    page
}

fn read(page: &ReviewPage, body: serde_json::Value) -> Result<ApprovalDecision, String> {
    read_decision(page, body.to_string().as_bytes())
}

#[test]
fn an_approval_carries_mode_fresh_start_skipped_steps_and_model() {
    let p = page();
    let d = read(
        &p,
        json!({"verdict": "approve", "planHash": p.hash, "mode": "acceptEdits", "clearContext": true,
               "skipSteps": [3, 2, 3], "model": "small-model"}),
    )
    .unwrap();
    assert_eq!(d.verdict, ApprovalVerdict::Approve);
    assert_eq!(d.mode, Some(PermissionMode::AcceptEdits));
    assert!(d.clear_context);
    assert_eq!(d.skip_steps, [2, 3]);
    assert_eq!(d.model.as_deref(), Some("small-model"));
    assert_eq!(d.plan_hash.as_deref(), Some(p.hash.as_str()));
    // The model shown, or none, is no change; null mode = the mode before.
    let d = read(
        &p,
        json!({"verdict": "approve", "planHash": p.hash, "mode": null, "model": "big-model"}),
    )
    .unwrap();
    assert_eq!((d.mode, d.model), (None, None));
}

#[test]
fn sending_back_keeps_comments_anchored_to_lines_and_passages() {
    let p = page();
    let d = read(
        &p,
        json!({"verdict": "keep_planning", "planHash": p.hash, "feedback": " Close. ",
               "comments": [{"line": 4, "text": "orjson", "passage": "Serialise"}, {"line": 3, "text": " "}]}),
    )
    .unwrap();
    assert_eq!(d.verdict, ApprovalVerdict::KeepPlanning);
    assert_eq!(d.feedback, "Close.");
    assert_eq!(d.comments.len(), 1, "an empty comment is dropped");
    let answer = d.into_answer(&json!({"plan": PLAN}));
    let catui_core::engine::PermissionAnswer::Deny { message } = answer else {
        panic!("keep planning is a denial");
    };
    assert_eq!(
        message,
        "Close.\n\nComments on lines of the plan:\n\n> line 4: 2. Serialise\nAbout \"Serialise\":\norjson"
    );
}

#[test]
fn anything_that_is_not_this_page_s_decision_is_refused() {
    let p = page();
    let h = p.hash.clone();
    for (body, says) in [
        (
            json!({"verdict": "approve", "planHash": "0".repeat(64)}),
            "another revision",
        ),
        (
            json!({"verdict": "approve", "planHash": h, "skipSteps": [4]}),
            "Step 4 is not a step",
        ),
        (
            json!({"verdict": "approve", "planHash": h, "skipSteps": [1, 2, 3]}),
            "Skipping every step",
        ),
        (
            json!({"verdict": "approve", "planHash": h, "mode": "plan"}),
            "leaves plan mode",
        ),
        (
            json!({"verdict": "approve", "planHash": h, "mode": "sideways"}),
            "Unknown mode",
        ),
        (
            json!({"verdict": "keep_planning", "planHash": h, "comments": [{"line": 9, "text": "x"}]}),
            "Line 9 is not a line",
        ),
        (
            json!({"verdict": "maybe", "planHash": h}),
            "Unknown decision",
        ),
        (
            json!({"verdict": "approve", "planHash": h, "extra": 1}),
            "could not be read",
        ),
    ] {
        let err = read(&p, body.clone()).unwrap_err();
        assert!(err.contains(says), "{body}: {err}");
    }
    assert!(
        read_decision(&p, b"not json")
            .unwrap_err()
            .contains("could not be read")
    );
    // Without a pending prompt only sending back is possible.
    let open = ReviewPage::new(PLAN, "/plans/p.md", Decisions::SendBackOnly, None);
    let err = read(&open, json!({"verdict": "approve", "planHash": open.hash})).unwrap_err();
    assert!(err.contains("Nothing asks for approval"), "{err}");
    assert!(
        read(
            &open,
            json!({"verdict": "keep_planning", "planHash": open.hash})
        )
        .is_ok()
    );
}
