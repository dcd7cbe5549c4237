//! [`PlanRoute`]: how a conversation that has no local user (a teammate)
//! gets its plan approved — the approval sends it to whoever approves
//! instead of asking; teams provide the route.

use std::path::Path;
use std::sync::Arc;

use crate::tools::{ToolContext, ToolError};

/// Where the plan of a conversation without a local user goes for
/// approval (a teammate's team lead).
pub trait PlanApprovalRoute: Send + Sync {
    /// The caller has no local user to ask (it is a teammate).
    fn is_teammate(&self) -> bool;
    /// Sends the plan for approval when the caller needs someone else's;
    /// returns the tool result telling it to wait. `None`: the caller exits
    /// plan mode as usual.
    fn submit(&self, plan_file: &Path, plan: Option<&str>) -> Option<Result<String, ToolError>>;
}

/// A conversation's [`PlanApprovalRoute`], in its tool context's values.
#[derive(Clone)]
pub struct PlanRoute(pub Arc<dyn PlanApprovalRoute>);

impl PlanRoute {
    pub fn of(ctx: &ToolContext) -> Option<&PlanRoute> {
        ctx.values.get::<PlanRoute>()
    }

    /// Whether the conversation running this call is a teammate.
    pub fn is_teammate(ctx: &ToolContext) -> bool {
        Self::of(ctx).is_some_and(|r| r.0.is_teammate())
    }
}
