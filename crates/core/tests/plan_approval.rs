//! The approval point of plan mode as other parts of catui see it: a front
//! end answers with an `ApprovalDecision`, ExitPlanMode carries it out, and
//! `PlanSession::on_approved` observers learn what was approved — the
//! session built by the production builder against the mock model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use catui_core::engine::{Approver, PermissionAnswer, PermissionRequest};
use catui_core::plan::ApprovedPlan;
use catui_core::plan::approval::decision::ApprovalDecision;
use catui_protocol::{ContentBlock, PermissionMode};
use catui_testkit::{MockServer, Script, Turn};
use common::TestSession;
use serde_json::json;

/// Approves every plan without step 2, for another model, editing nothing.
struct PartialApproval;

#[async_trait]
impl Approver for PartialApproval {
    async fn ask(&self, request: PermissionRequest) -> PermissionAnswer {
        let decision = ApprovalDecision {
            skip_steps: vec![2],
            model: Some("builder".into()),
            ..ApprovalDecision::approve(Some(PermissionMode::AcceptEdits))
        };
        decision.into_answer(&request.input)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn observers_of_approvals_see_the_approved_plan() {
    // The plan file is known once the session exists.
    let plan_file: Arc<Mutex<String>> = Arc::default();
    let path = plan_file.clone();
    let server = MockServer::start(
        Script::new()
            .turn(Turn::respond(move |_| {
                Turn::tool_use(
                    "w",
                    "Write",
                    json!({"file_path": *path.lock().unwrap(), "content": "# P\n1. a\n2. b\n3. c\n"}),
                )
            }))
            .turn(Turn::tool_use("x", "ExitPlanMode", json!({})))
            .turn(Turn::text("done")),
    )
    .await
    .unwrap();
    let mut started = TestSession::new(&server)
        .approver(Arc::new(PartialApproval))
        .mode(PermissionMode::Plan)
        // Not about the plan contract: no goal loop after approval.
        .settings(r#"{"planGoal": false}"#)
        .start();
    *plan_file.lock().unwrap() = started.engine.plan_file().unwrap();
    let seen: Arc<Mutex<Vec<ApprovedPlan>>> = Arc::default();
    let into = seen.clone();
    started.plan.on_approved(Arc::new(move |p: &ApprovedPlan| {
        into.lock().unwrap().push(p.clone())
    }));
    let outcome = started
        .engine
        .handle_input(vec![ContentBlock::text("plan it")])
        .await;
    assert_eq!(outcome.result, "done");
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1, "one approval");
    let approved = &seen[0];
    assert_eq!(
        approved.text,
        "# P\n1. a\n2. ~~b~~ (skipped by the user)\n3. c\n"
    );
    assert_eq!(approved.skipped_steps, ["b"]);
    assert_eq!(approved.mode, PermissionMode::AcceptEdits);
    assert_eq!(approved.model, "builder");
    assert_eq!(approved.hash, catui_core::plan::plan_hash(&approved.text));
    assert_eq!(
        started.plan.approved_text().as_deref(),
        Some(approved.text.as_str())
    );
    // The next request used the model picked at approval.
    assert_eq!(server.requests().last().unwrap().model(), "builder");
}
