//! How the contract plugs into the engine: its two goals take part in the
//! continuation loop, the drift gate looks at each call before the
//! permission check, `/goal` is its command, it says which step of the
//! approved plan the work is on, and it offers `AmendPlan` where someone
//! can answer it ([`AmendTools`]).

use std::sync::Arc;

use crate::engine::slash_commands::{CommandOutput, SlashCommand};
use crate::engine::{EngineExtension, ToolCallView, ToolGate, TurnEndCheck};
use crate::tools::registry::ToolSource;
use crate::tools::{Adapter, SessionHooks, Tool};

use super::Contract;

/// The contract as an engine extension.
pub struct ContractExtension {
    pub contract: Arc<Contract>,
    /// `goalMaxContinuations`, said by `/goal`.
    pub max_continuations: Option<u32>,
}

impl EngineExtension for ContractExtension {
    fn turn_end_checks(&self) -> Vec<Arc<dyn TurnEndCheck>> {
        vec![
            Arc::new(super::plan_goal::PlanGoal(self.contract.clone())),
            Arc::new(super::goal::FreeTextGoal(self.contract.clone())),
        ]
    }

    fn before_tool(&self, call: &ToolCallView<'_>) -> ToolGate {
        super::drift::gate(&self.contract, call)
    }

    fn command(
        &self,
        command: &SlashCommand,
        _session: &dyn SessionHooks,
    ) -> Option<CommandOutput> {
        (command.name == "goal").then(|| {
            super::goal::goal_command(&self.contract, &command.args, self.max_continuations)
        })
    }

    fn current_step(&self) -> Option<catui_protocol::contract::WorkStep> {
        if !self.contract.carrying_out() {
            return None;
        }
        let (step, total, text) = self.contract.plan.steps.current()?;
        Some(catui_protocol::contract::WorkStep {
            step: step as u32,
            total: total as u32,
            text,
        })
    }
}

/// Offers `AmendPlan` wherever someone can answer it. Offered for the
/// whole session, not only once a plan is approved: a tool list that grows
/// at approval would break the prompt cache's prefix (tools come first);
/// the tool itself refuses while no approved plan is carried out.
pub struct AmendTools(pub Arc<Contract>);

impl ToolSource for AmendTools {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        if self.0.can_amend {
            vec![Arc::new(Adapter(Arc::new(crate::plan::AmendPlanTool)))]
        } else {
            Vec::new()
        }
    }
}
