//! The session's contract (`crate::contract`) from its settings and front
//! end: `planDrift` (default: ask where someone can answer), `planGoal`
//! (default on), `--goal` or the resumed session's goal, and AmendPlan
//! offered only where someone can answer it.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use crate::checkpoints::Checkpoints;
use crate::contract::{Contract, ContractExtension, ContractSetup, PlanDrift};
use crate::engine::{EngineEvent, EngineExtension, Recorder};
use crate::plan::PlanSession;
use crate::settings::Settings;
use crate::tools::registry::ToolSource;

/// What the contract is made from.
pub(super) struct ContractInputs<'a> {
    pub plan: &'a Arc<PlanSession>,
    pub checkpoints: Option<Arc<Checkpoints>>,
    pub recorder: Arc<dyn Recorder>,
    pub events: UnboundedSender<EngineEvent>,
    pub project: PathBuf,
    pub settings: &'a Settings,
    pub nobody_here: bool,
    pub goal: Option<String>,
    pub restored_goal: Option<String>,
}

/// The session's contract, as the builder plugs it in.
pub(super) struct SessionContract {
    pub extension: Arc<dyn EngineExtension>,
    pub amend_tools: Arc<dyn ToolSource>,
}

pub(super) fn contract(inputs: ContractInputs<'_>) -> SessionContract {
    let ContractInputs {
        plan,
        checkpoints,
        recorder,
        events,
        project,
        settings,
        nobody_here,
        goal,
        restored_goal,
    } = inputs;
    let contract = Contract::new(ContractSetup {
        plan: plan.clone(),
        checkpoints,
        recorder,
        events,
        project,
        drift: settings
            .plan_drift
            .unwrap_or_else(|| PlanDrift::default_for(nobody_here)),
        plan_goal: settings.plan_goal.unwrap_or(true),
        can_amend: !nobody_here,
        goal,
        restored_goal,
    });
    SessionContract {
        extension: Arc::new(ContractExtension {
            contract: contract.clone(),
            max_continuations: settings.goal_max_continuations,
        }),
        amend_tools: Arc::new(crate::contract::extension::AmendTools(contract)),
    }
}
