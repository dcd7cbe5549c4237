//! The session's engine events as a tree of spans and a few counters
//! (pure: every event comes with the time it was seen).
//!
//! - `catui.session`: from the start to [`Tracker::end_session`];
//! - `catui.turn`: one user input, from its `UserMessage` to its `Result`;
//! - `catui.model_request`: one model answer (`Assistant`), from the
//!   moment its conversation was ready to ask (the input, the previous
//!   tool results or answer) to the answer;
//! - `catui.tool`: one tool call, from `ToolStart` to `ToolEnd` (or the
//!   `ToolEnd` alone of a call that never ran: declined or refused).
//!
//! A sub-agent's requests and calls are children of the `Agent` call that
//! started it (their `parent_tool_use_id`), so the tree follows who asked.
//! No text of a prompt, an answer or a file goes in, except the user's
//! prompt when the user asked for it (`OTEL_LOG_USER_PROMPTS=1`).

use std::collections::HashMap;

use catui_core::engine::{EngineEvent, TurnOutcome};
use catui_protocol::{Message, PermissionMode, Role, Usage, tool_names};

use super::metrics::Counts;
use super::proto::{Attrs, Span, Value};

const INTERNAL: u64 = 1;
const CLIENT: u64 = 3;

/// A span still open: what it will be when it ends.
struct Open {
    span_id: [u8; 8],
    parent: Option<[u8; 8]>,
    start_ns: u64,
    attrs: Attrs,
}

/// Builds the spans of one session from its events.
pub struct Tracker {
    trace_id: [u8; 16],
    session: Open,
    turn: Option<Open>,
    /// Running tool calls by tool_use id (an `Agent` call stays here while
    /// its sub-agent works: the parent of what it does).
    tools: HashMap<String, Open>,
    /// When each conversation (key: its parent_tool_use_id, `None` the
    /// main one) was last ready to ask the model.
    ready: HashMap<Option<String>, u64>,
    /// Lines of the content of each Write call not answered yet (its
    /// display for a new file is no diff): the count, never the text.
    written_lines: HashMap<String, i64>,
    session_id: String,
    mode: PermissionMode,
    plan_slug: Option<String>,
    log_prompts: bool,
    turns: i64,
    cost_at_turn_start: f64,
    total_cost: f64,
    pub counts: Counts,
    /// Finished spans not yet exported.
    pub done: Vec<Span>,
}

/// A fresh random span id.
fn span_id() -> [u8; 8] {
    let mut id = [0u8; 8];
    id.copy_from_slice(&uuid::Uuid::new_v4().as_bytes()[..8]);
    id
}

/// The plan's slug: its file's name without `.md`.
pub fn plan_slug(plan_file: Option<&str>) -> Option<String> {
    let name = std::path::Path::new(plan_file?).file_stem()?;
    Some(name.to_string_lossy().into_owned())
}

impl Tracker {
    pub fn new(
        session_id: &str,
        model: &str,
        mode: PermissionMode,
        plan_file: Option<&str>,
        log_prompts: bool,
        now_ns: u64,
    ) -> Tracker {
        let attrs = vec![
            ("session.id", Value::Str(session_id.to_string())),
            ("catui.agent.id", Value::Str(session_id.to_string())),
            ("gen_ai.request.model", Value::Str(model.to_string())),
        ];
        Tracker {
            trace_id: *uuid::Uuid::new_v4().as_bytes(),
            session: Open {
                span_id: span_id(),
                parent: None,
                start_ns: now_ns,
                attrs,
            },
            turn: None,
            tools: HashMap::new(),
            ready: HashMap::new(),
            written_lines: HashMap::new(),
            session_id: session_id.to_string(),
            mode,
            plan_slug: plan_slug(plan_file),
            log_prompts,
            turns: 0,
            cost_at_turn_start: 0.0,
            total_cost: 0.0,
            counts: Counts::default(),
            done: Vec::new(),
        }
    }

    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    pub fn session_start_ns(&self) -> u64 {
        self.session.start_ns
    }

    /// Takes in one event seen at `now_ns`.
    pub fn observe(&mut self, event: &EngineEvent, now_ns: u64) {
        match event {
            EngineEvent::UserMessage { content, .. } => self.turn_started(content, now_ns),
            EngineEvent::Assistant {
                message,
                parent_tool_use_id,
                response,
                ..
            } => {
                for (id, name, input) in message.tool_uses() {
                    let content = input.get("content").and_then(|c| c.as_str());
                    if let (true, Some(content)) = (name == tool_names::WRITE, content) {
                        let lines = i64::try_from(content.lines().count()).unwrap_or(i64::MAX);
                        self.written_lines.insert(id.to_string(), lines);
                    }
                }
                let model = response.model.clone();
                self.model_answered(
                    parent_tool_use_id.as_deref(),
                    &model,
                    &response.usage,
                    now_ns,
                );
            }
            EngineEvent::User {
                parent_tool_use_id, ..
            } => {
                self.ready.insert(parent_tool_use_id.clone(), now_ns);
            }
            EngineEvent::ToolStart {
                id,
                name,
                parent_tool_use_id,
                ..
            } => self.tool_started(id, name, parent_tool_use_id.as_deref(), now_ns),
            EngineEvent::ToolEnd {
                id,
                name,
                display,
                is_error,
                failed,
                parent_tool_use_id,
            } => {
                let end = ToolEnd {
                    id,
                    name,
                    display,
                    is_error: *is_error,
                    failed: *failed,
                    parent: parent_tool_use_id.as_deref(),
                };
                self.tool_ended(end, now_ns);
            }
            EngineEvent::PermissionMode { mode, .. } => self.mode = *mode,
            EngineEvent::Result(outcome) => self.turn_ended(outcome, now_ns),
            _ => {}
        }
    }

    /// The ids every span carries: the agent that did it and its parent.
    fn agent_attrs(&self, parent_tool_use_id: Option<&str>) -> Attrs {
        match parent_tool_use_id {
            None => vec![("catui.agent.id", Value::Str(self.session_id.clone()))],
            Some(agent) => vec![
                ("catui.agent.id", Value::Str(agent.to_string())),
                ("catui.agent.parent_id", Value::Str(self.session_id.clone())),
            ],
        }
    }

    /// The span a piece of work of this conversation hangs under: the
    /// `Agent` call of a sub-agent, else the turn, else the session.
    fn parent_of(&self, parent_tool_use_id: Option<&str>) -> [u8; 8] {
        parent_tool_use_id
            .and_then(|id| self.tools.get(id))
            .or(self.turn.as_ref())
            .map_or(self.session.span_id, |open| open.span_id)
    }

    fn finish(
        &mut self,
        name: &'static str,
        kind: u64,
        open: Open,
        end_ns: u64,
        error: Option<String>,
    ) {
        self.done.push(Span {
            trace_id: self.trace_id,
            span_id: open.span_id,
            parent: open.parent,
            name,
            kind,
            start_ns: open.start_ns,
            end_ns,
            attrs: open.attrs,
            error,
        });
    }

    fn turn_started(&mut self, content: &[catui_protocol::ContentBlock], now_ns: u64) {
        if let Some(open) = self.turn.take() {
            // An input that never reported its end (should not happen).
            self.finish("catui.turn", INTERNAL, open, now_ns, None);
        }
        self.turns += 1;
        self.cost_at_turn_start = self.total_cost;
        let mut attrs = vec![
            ("session.id", Value::Str(self.session_id.clone())),
            ("catui.agent.id", Value::Str(self.session_id.clone())),
            ("catui.turn.number", Value::Int(self.turns)),
        ];
        if self.log_prompts {
            let text = Message {
                role: Role::User,
                content: content.to_vec(),
            }
            .text();
            attrs.push(("catui.user_prompt", Value::Str(text)));
        }
        self.turn = Some(Open {
            span_id: span_id(),
            parent: Some(self.session.span_id),
            start_ns: now_ns,
            attrs,
        });
        self.ready.insert(None, now_ns);
    }

    fn model_answered(&mut self, parent: Option<&str>, model: &str, usage: &Usage, now_ns: u64) {
        let key = parent.map(String::from);
        let start_ns = self.ready.get(&key).copied().unwrap_or(now_ns);
        self.ready.insert(key, now_ns);
        let mut attrs = self.agent_attrs(parent);
        attrs.extend(usage_attrs(usage));
        attrs.push(("gen_ai.response.model", Value::Str(model.to_string())));
        attrs.push((
            "catui.permission_mode",
            Value::Str(self.mode.as_str().into()),
        ));
        let open = Open {
            span_id: span_id(),
            parent: Some(self.parent_of(parent)),
            start_ns,
            attrs,
        };
        self.counts.tokens(model, usage);
        self.finish("catui.model_request", CLIENT, open, now_ns, None);
    }

    fn tool_started(&mut self, id: &str, name: &str, parent: Option<&str>, now_ns: u64) {
        let mut attrs = self.agent_attrs(parent);
        attrs.push(("catui.tool.name", Value::Str(name.to_string())));
        attrs.push(("catui.tool.use_id", Value::Str(id.to_string())));
        let open = Open {
            span_id: span_id(),
            parent: Some(self.parent_of(parent)),
            start_ns: now_ns,
            attrs,
        };
        self.tools.insert(id.to_string(), open);
        if name == tool_names::AGENT || name == tool_names::TASK {
            // The sub-agent's first request starts now.
            self.ready.insert(Some(id.to_string()), now_ns);
        }
    }

    fn tool_ended(&mut self, end: ToolEnd<'_>, now_ns: u64) {
        // A call that never started was answered without running: the
        // user declined it, or a rule or its input refused it.
        let (mut open, decision) = match self.tools.remove(end.id) {
            Some(open) => (open, "allow"),
            None => {
                let mut attrs = self.agent_attrs(end.parent);
                attrs.push(("catui.tool.name", Value::Str(end.name.to_string())));
                attrs.push(("catui.tool.use_id", Value::Str(end.id.to_string())));
                let open = Open {
                    span_id: span_id(),
                    parent: Some(self.parent_of(end.parent)),
                    start_ns: now_ns,
                    attrs,
                };
                (open, if end.failed { "deny" } else { "reject" })
            }
        };
        self.ready.remove(&Some(end.id.to_string()));
        let written = self.written_lines.remove(end.id);
        open.attrs
            .push(("catui.tool.decision", Value::Str(decision.into())));
        open.attrs
            .push(("catui.tool.is_error", Value::Bool(end.is_error)));
        self.counts.decision(end.name, decision);
        if decision == "allow" && !end.is_error && is_file_edit(end.name) {
            // A diff when it changed a file; a new file's lines otherwise.
            let (added, removed) = diff_lines(end.display)
                .or(written.map(|n| (n, 0)))
                .unwrap_or((0, 0));
            open.attrs.push(("catui.lines.added", Value::Int(added)));
            open.attrs
                .push(("catui.lines.removed", Value::Int(removed)));
            self.counts.lines(added, removed);
        }
        // A refusal is a decision, not an error; a call that ran and
        // failed is.
        let error = (decision == "allow" && end.failed).then(|| format!("{} failed", end.name));
        self.finish("catui.tool", INTERNAL, open, now_ns, error);
    }

    fn turn_ended(&mut self, outcome: &TurnOutcome, now_ns: u64) {
        self.total_cost = outcome.cost.total_cost_usd;
        self.counts.cost(&outcome.cost.model_usage);
        self.plan_slug = plan_slug(outcome.plan_file.as_deref()).or(self.plan_slug.take());
        self.mode = outcome.permission_mode;
        // Calls still open belong to this input (an interrupted one).
        let open_calls: Vec<String> = self.tools.keys().cloned().collect();
        for id in open_calls {
            if let Some(open) = self.tools.remove(&id) {
                self.finish(
                    "catui.tool",
                    INTERNAL,
                    open,
                    now_ns,
                    Some("not finished".into()),
                );
            }
        }
        let Some(mut open) = self.turn.take() else {
            return;
        };
        open.attrs.extend(usage_attrs(&outcome.usage));
        open.attrs.push((
            "catui.permission_mode",
            Value::Str(self.mode.as_str().into()),
        ));
        if let Some(slug) = &self.plan_slug {
            open.attrs
                .push(("catui.plan.slug", Value::Str(slug.clone())));
        }
        open.attrs
            .push(("catui.requests", Value::Int(i64::from(outcome.num_turns))));
        let cost = (self.total_cost - self.cost_at_turn_start).max(0.0);
        open.attrs.push(("catui.cost_usd", Value::Double(cost)));
        open.attrs
            .push(("catui.result", Value::Str(subtype_name(outcome))));
        // The error's kind, never its text (it may quote the model).
        let error = outcome.is_error.then(|| subtype_name(outcome));
        self.finish("catui.turn", INTERNAL, open, now_ns, error);
    }

    /// Ends the session span (and anything still open) at `now_ns`.
    pub fn end_session(&mut self, now_ns: u64) {
        if let Some(open) = self.turn.take() {
            self.finish(
                "catui.turn",
                INTERNAL,
                open,
                now_ns,
                Some("not finished".into()),
            );
        }
        let mut session = Open {
            span_id: self.session.span_id,
            parent: None,
            start_ns: self.session.start_ns,
            attrs: std::mem::take(&mut self.session.attrs),
        };
        session.attrs.push(("catui.turns", Value::Int(self.turns)));
        session
            .attrs
            .push(("catui.cost_usd", Value::Double(self.total_cost)));
        session.attrs.push((
            "catui.permission_mode",
            Value::Str(self.mode.as_str().into()),
        ));
        if let Some(slug) = &self.plan_slug {
            session
                .attrs
                .push(("catui.plan.slug", Value::Str(slug.clone())));
        }
        self.finish("catui.session", INTERNAL, session, now_ns, None);
    }
}

/// The tools whose display is a diff of the file they changed.
fn is_file_edit(name: &str) -> bool {
    [
        tool_names::EDIT,
        tool_names::WRITE,
        tool_names::NOTEBOOK_EDIT,
    ]
    .contains(&name)
}

/// The result's subtype as the stream-json `result` line spells it.
fn subtype_name(outcome: &TurnOutcome) -> String {
    match serde_json::to_value(outcome.subtype) {
        Ok(serde_json::Value::String(name)) => name,
        _ => "unknown".into(),
    }
}

struct ToolEnd<'a> {
    id: &'a str,
    name: &'a str,
    display: &'a str,
    is_error: bool,
    failed: bool,
    parent: Option<&'a str>,
}

fn usage_attrs(usage: &Usage) -> Attrs {
    let int = |v: u64| Value::Int(i64::try_from(v).unwrap_or(i64::MAX));
    vec![
        ("gen_ai.usage.input_tokens", int(usage.input_tokens)),
        ("gen_ai.usage.output_tokens", int(usage.output_tokens)),
        (
            "catui.usage.cache_read_tokens",
            int(usage.cache_read_input_tokens),
        ),
        (
            "catui.usage.cache_creation_tokens",
            int(usage.cache_creation_input_tokens),
        ),
    ]
}

/// Lines added and removed in a unified diff (what Edit and Write show
/// for a changed file): counted, never kept. `None`: no diff.
pub fn diff_lines(diff: &str) -> Option<(i64, i64)> {
    // The `---`/`+++` header comes before the first hunk: count from there.
    let start = diff
        .find("\n@@")
        .map(|i| i + 1)
        .or(diff.starts_with("@@").then_some(0))?;
    let mut added = 0;
    let mut removed = 0;
    for line in diff[start..].lines() {
        if line.starts_with('+') {
            added += 1;
        } else if line.starts_with('-') {
            removed += 1;
        }
    }
    Some((added, removed))
}

#[cfg(test)]
#[path = "spans_tests.rs"]
mod tests;
