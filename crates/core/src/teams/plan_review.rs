//! What a teammate's plan approval request looks like to whoever reviews
//! it (the lead model, a front end's dialog, the person through the
//! permission prompt) and what they answer: shared by the team manager,
//! which routes requests, and [`super::user_review`], which asks the person.

use async_trait::async_trait;

/// A plan approval request as shown to whoever reviews it.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanReviewRequest {
    pub team: String,
    pub from: String,
    pub request_id: String,
    pub plan_file_path: String,
    pub plan: String,
    /// Files this plan shares with other teammates' live plans.
    pub conflicts: Vec<super::plan_conflicts::PlanConflict>,
}

/// The lead's answer to a plan.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanDecision {
    pub approved: bool,
    pub feedback: Option<String>,
}

/// A front end that can put plan approval requests to the user (a
/// headless client's `plan_approval` control request, a TUI dialog).
#[async_trait]
pub trait PlanReviewer: Send + Sync {
    /// `None`: the front end declined; the lead model is asked instead.
    async fn review(&self, request: PlanReviewRequest) -> Option<PlanDecision>;
}
