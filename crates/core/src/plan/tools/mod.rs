//! The plan tools ([`enter`]: EnterPlanMode, [`exit`]: ExitPlanMode, [`amend`]:
//! AmendPlan while an approved plan is carried out) and the pure rules
//! ExitPlanMode applies ([`exit_rules`]: validation, mode restoration, results).

pub mod amend;
pub mod enter;
pub mod exit;
pub mod exit_rules;
