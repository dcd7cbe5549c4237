//! The plan as a contract while it runs (docs/PLAN_MODE.md, "After
//! approval: the plan is a contract"): what holds the work to what was
//! agreed, once a plan is approved or a goal is set.
//!
//! - [`Contract`] (this file): the session's service — the free-text goal,
//!   the approved plan's goal state (its last verification, whether it is
//!   met), the `planDrift` and `planGoal` settings.
//! - [`plan_goal`]: the approved plan's goal as a participant of the
//!   engine's continuation loop (`engine::turn_end`): every non-skipped
//!   step done and the plan's verification commands passed, run by catui.
//! - [`goal`]: a free-text goal (`/goal`, `--goal`) judged by the small
//!   model ([`judge`]), and the `/goal` command.
//! - [`drift`]: a change to a file the plan does not name, under
//!   `planDrift: "ask"`, becomes a question to the user.
//! - [`report`]: the end report (`plan_report`).
//! - [`extension`]: how it plugs into the engine.

pub mod drift;
pub mod extension;
pub mod goal;
pub mod judge;
pub mod plan_goal;
pub mod report;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use catui_protocol::contract::PlanVerification;
use catui_protocol::transcript::EntryBody;
use tokio::sync::mpsc::UnboundedSender;

use crate::checkpoints::Checkpoints;
use crate::engine::{EngineEvent, Record, Recorder};
use crate::plan::PlanSession;
use crate::sync::lock;

pub use extension::ContractExtension;

/// What a change to a file the approved plan does not name does while the
/// plan is carried out (setting `planDrift`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PlanDrift {
    /// It is an amendment: the user is asked, even in acceptEdits.
    Ask,
    /// It runs; the end-of-turn comparison and one note tell of it.
    Note,
    /// Nothing is said.
    Off,
}

impl PlanDrift {
    /// The default: asking where someone can answer (the terminal UI, ACP,
    /// stream-json clients), noting where nobody can (plain `-p`,
    /// `--unattended`).
    pub fn default_for(nobody_here: bool) -> Self {
        if nobody_here {
            PlanDrift::Note
        } else {
            PlanDrift::Ask
        }
    }
}

/// What the contract needs from its session.
pub struct ContractSetup {
    pub plan: Arc<PlanSession>,
    /// The comparison of the work with the approved plan (unplanned files
    /// for the report).
    pub checkpoints: Option<Arc<Checkpoints>>,
    /// The main conversation's transcript.
    pub recorder: Arc<dyn Recorder>,
    pub events: UnboundedSender<EngineEvent>,
    pub project: PathBuf,
    pub drift: PlanDrift,
    /// `planGoal`: an approved plan's goal keeps the work going.
    pub plan_goal: bool,
    /// Someone can answer AmendPlan (it is offered only then).
    pub can_amend: bool,
    /// `--goal`: a goal given on the command line.
    pub goal: Option<String>,
    /// The goal a resumed or forked session had ([`goal::restored`]).
    pub restored_goal: Option<String>,
}

/// One session's contract (see the module documentation).
pub struct Contract {
    pub(crate) plan: Arc<PlanSession>,
    pub(crate) checkpoints: Option<Arc<Checkpoints>>,
    recorder: Arc<dyn Recorder>,
    events: UnboundedSender<EngineEvent>,
    pub(crate) project: PathBuf,
    pub(crate) drift: PlanDrift,
    pub(crate) plan_goal: bool,
    pub(crate) can_amend: bool,
    /// The free-text goal.
    goal: Mutex<Option<String>>,
    /// The approved plan's goal: its last verification run.
    verification: Mutex<Option<PlanVerification>>,
    /// The approved plan's goal was met (it is not checked again).
    plan_done: AtomicBool,
    /// Something changed since the approval (a plan without steps is
    /// verified once there is work).
    worked: AtomicBool,
    /// Continuations made for the approved plan so far.
    continuations: AtomicU32,
}

impl Contract {
    pub fn new(setup: ContractSetup) -> Arc<Self> {
        let ContractSetup {
            plan,
            checkpoints,
            recorder,
            events,
            project,
            drift,
            plan_goal,
            can_amend,
            goal,
            restored_goal,
        } = setup;
        let contract = Arc::new(Contract {
            plan,
            checkpoints,
            recorder,
            events,
            project,
            drift,
            plan_goal,
            can_amend,
            goal: Mutex::new(restored_goal),
            verification: Mutex::new(None),
            plan_done: AtomicBool::new(false),
            worked: AtomicBool::new(false),
            continuations: AtomicU32::new(0),
        });
        if let Some(text) = goal.filter(|g| !g.trim().is_empty()) {
            contract.set_goal(Some(text));
        }
        // Each approval starts the plan's goal afresh.
        let weak = Arc::downgrade(&contract);
        contract.plan.on_approved(Arc::new(move |_| {
            if let Some(c) = weak.upgrade() {
                c.plan_approved();
            }
        }));
        contract
    }

    /// A plan was approved: its goal starts.
    fn plan_approved(&self) {
        *lock(&self.verification) = None;
        self.plan_done.store(false, Ordering::SeqCst);
        self.worked.store(false, Ordering::SeqCst);
        self.continuations.store(0, Ordering::SeqCst);
    }

    /// The free-text goal, if one is set.
    pub fn goal(&self) -> Option<String> {
        lock(&self.goal).clone()
    }

    /// Sets (or with `None` clears) the free-text goal, and keeps it in the
    /// transcript for resume and fork.
    pub fn set_goal(&self, text: Option<String>) {
        let text = text.map(|t| t.trim().to_string()).filter(|t| !t.is_empty());
        *lock(&self.goal) = text.clone();
        self.recorder
            .record(Record::Entry(EntryBody::Goal { text }));
    }

    /// Whether the approved plan's goal is being pursued now.
    pub fn plan_goal_active(&self) -> bool {
        self.plan_goal && !self.plan_done.load(Ordering::SeqCst) && self.carrying_out()
    }

    /// Whether an approved plan is being carried out.
    pub fn carrying_out(&self) -> bool {
        self.plan.approved_text().is_some() && self.plan.steps.is_bound()
    }

    /// The plan's last verification run.
    pub fn last_verification(&self) -> Option<PlanVerification> {
        lock(&self.verification).clone()
    }

    fn emit(&self, event: EngineEvent) {
        let _ = self.events.send(event);
    }

    fn record(&self, body: EntryBody) {
        self.recorder.record(Record::Entry(body));
    }
}

#[cfg(test)]
#[path = "contract_tests.rs"]
mod tests;
