//! The two plan-mode tools ([`enter`]: EnterPlanMode, [`exit`]: ExitPlanMode) and the pure
//! rules ExitPlanMode applies ([`exit_rules`]: validation, mode restoration, results).

pub mod enter;
pub mod exit;
pub mod exit_rules;
