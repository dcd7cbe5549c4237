//! How the handling of an input ends, as a [`TurnOutcome`]: the subtype and
//! text, the input's usage and model time, the session's cost, and the
//! data an extension ended the run with (structured output).

use std::time::{Duration, Instant};

use catui_protocol::Usage;
use catui_protocol::stream_json::{LeftRunning, ResultSubtype};

use super::{Engine, RunEnd, SessionCost, TurnEnd, TurnOutcome};

impl Engine {
    pub(super) fn interrupted(
        &self,
        num_turns: u32,
        usage: Usage,
        started: Instant,
    ) -> TurnOutcome {
        self.outcome(
            ResultSubtype::ErrorDuringExecution,
            "Interrupted by the user.".into(),
            num_turns,
            usage,
            started,
        )
    }

    pub(super) fn outcome(
        &self,
        subtype: ResultSubtype,
        result: String,
        num_turns: u32,
        usage: Usage,
        started: Instant,
    ) -> TurnOutcome {
        TurnOutcome {
            is_error: !matches!(subtype, ResultSubtype::Success | ResultSubtype::PlanReady),
            subtype,
            result,
            num_turns,
            duration_ms: started.elapsed().as_millis() as u64,
            usage,
            cost: self.cost(),
            permission_mode: self.permission_mode(),
            plan_file: self.plan_file(),
            view: None,
            structured_output: None,
            left_running: self.left_running(),
            goal: None,
            plan_report: None,
        }
    }

    /// The session's background commands that will outlive it.
    fn left_running(&self) -> Vec<LeftRunning> {
        let Some(shells) = self
            .tool_ctx
            .values
            .get::<std::sync::Arc<crate::tools::bash::BackgroundShells>>()
        else {
            return Vec::new();
        };
        shells
            .left_running()
            .iter()
            .filter_map(|shell| {
                Some(LeftRunning {
                    pid: shell.pid()?,
                    command: shell.command.clone(),
                })
            })
            .collect()
    }

    /// The outcome of a run an extension or a hook ended.
    pub(super) fn ended(
        &self,
        end: RunEnd,
        num_turns: u32,
        usage: Usage,
        started: Instant,
    ) -> TurnOutcome {
        TurnOutcome {
            structured_output: end.structured_output,
            ..self.outcome(end.subtype, end.result, num_turns, usage, started)
        }
    }

    /// Time the session's model requests have taken so far.
    pub(super) fn api_time(&self) -> Duration {
        self.client
            .ledger()
            .map(|l| l.api_time())
            .unwrap_or_default()
    }

    /// The session's cost so far and this input's model time.
    pub fn cost(&self) -> SessionCost {
        let Some(ledger) = self.client.ledger() else {
            return SessionCost::default();
        };
        SessionCost {
            api_duration_ms: ledger
                .api_time()
                .saturating_sub(self.api_time_at_input)
                .as_millis() as u64,
            total_cost_usd: ledger.total_cost_usd(),
            model_usage: ledger.models(),
        }
    }

    /// The usage ledger the session's client keeps, if any.
    pub fn ledger(&self) -> Option<&catui_providers::UsageLedger> {
        self.client.ledger()
    }

    /// What the extensions say as the main conversation's model ends its
    /// turn: an end of the run wins over sending the model back.
    pub(super) fn turn_end_verdict(&self) -> TurnEnd {
        let verdicts: Vec<TurnEnd> = self
            .shared
            .extensions
            .iter()
            .map(|e| e.turn_ending())
            .collect();
        let end = verdicts
            .iter()
            .find(|v| matches!(v, TurnEnd::End(_)))
            .or_else(|| verdicts.iter().find(|v| matches!(v, TurnEnd::Continue(_))));
        end.cloned().unwrap_or(TurnEnd::Accept)
    }
}
