//! The session's counters, as OTLP cumulative sums: tokens by model and
//! kind, cost by model, tool decisions by tool and decision, lines of code
//! added and removed by Edit and Write.

use std::collections::BTreeMap;

use catui_protocol::{ModelUsage, Usage};

use super::proto::{Counter, Number, Point, Value};

/// What the session counted so far.
#[derive(Default)]
pub struct Counts {
    /// (model, kind) → tokens.
    tokens: BTreeMap<(String, &'static str), u64>,
    /// model → US dollars, the session's total (the ledger's figure).
    cost: BTreeMap<String, f64>,
    /// (tool, decision) → calls.
    decisions: BTreeMap<(String, &'static str), u64>,
    added: i64,
    removed: i64,
}

impl Counts {
    pub fn tokens(&mut self, model: &str, usage: &Usage) {
        for (kind, n) in [
            ("input", usage.input_tokens),
            ("output", usage.output_tokens),
            ("cacheRead", usage.cache_read_input_tokens),
            ("cacheCreation", usage.cache_creation_input_tokens),
        ] {
            *self.tokens.entry((model.to_string(), kind)).or_default() += n;
        }
    }

    /// The session's cost per model so far (cumulative already).
    pub fn cost(&mut self, usage: &BTreeMap<String, ModelUsage>) {
        for (model, u) in usage {
            self.cost.insert(model.clone(), u.cost_usd);
        }
    }

    pub fn decision(&mut self, tool: &str, decision: &'static str) {
        *self
            .decisions
            .entry((tool.to_string(), decision))
            .or_default() += 1;
    }

    pub fn lines(&mut self, added: i64, removed: i64) {
        self.added += added;
        self.removed += removed;
    }

    /// The counters to export, each with `session.id` on its points.
    pub fn counters(&self, session_id: &str) -> Vec<Counter> {
        let session = || ("session.id", Value::Str(session_id.to_string()));
        let int = |v: u64| Number::Int(i64::try_from(v).unwrap_or(i64::MAX));
        let tokens = self
            .tokens
            .iter()
            .map(|((model, kind), n)| Point {
                attrs: vec![
                    session(),
                    ("model", Value::Str(model.clone())),
                    ("type", Value::Str((*kind).into())),
                ],
                value: int(*n),
            })
            .collect();
        let cost = self
            .cost
            .iter()
            .map(|(model, usd)| Point {
                attrs: vec![session(), ("model", Value::Str(model.clone()))],
                value: Number::Double(*usd),
            })
            .collect();
        let decisions = self
            .decisions
            .iter()
            .map(|((tool, decision), n)| Point {
                attrs: vec![
                    session(),
                    ("tool_name", Value::Str(tool.clone())),
                    ("decision", Value::Str((*decision).into())),
                ],
                value: int(*n),
            })
            .collect();
        let lines = [("added", self.added), ("removed", self.removed)]
            .into_iter()
            .map(|(kind, n)| Point {
                attrs: vec![session(), ("type", Value::Str(kind.into()))],
                value: Number::Int(n),
            })
            .collect();
        vec![
            Counter {
                name: "catui.token.usage",
                description: "Tokens used by model requests",
                unit: "tokens",
                points: tokens,
            },
            Counter {
                name: "catui.cost.usage",
                description: "Cost of the session's model requests",
                unit: "USD",
                points: cost,
            },
            Counter {
                name: "catui.tool.decision",
                description: "Tool calls by permission decision",
                unit: "1",
                points: decisions,
            },
            Counter {
                name: "catui.lines_of_code.count",
                description: "Lines of code added and removed by Edit and Write",
                unit: "1",
                points: lines,
            },
        ]
    }
}
