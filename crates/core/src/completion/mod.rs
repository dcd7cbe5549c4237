//! The completion gate: the first time the main conversation's model ends
//! its work on an input, catui sends one more request with a short
//! checklist built from the task (each requirement, the exact paths and
//! names it asked for, tests run, services still needed, scratch files,
//! open todos); the model either confirms — its answer ends the run — or
//! goes on working. Once per user input.
//!
//! It takes part in the engine's one mechanism for "should this turn
//! really end" ([`EngineExtension::turn_ending`]) rather than running a
//! loop of its own, so it composes with every other participant (the
//! structured-output reminder, a plan's goal).
//!
//! Setting `completionCheck`: `auto` (the default: only when nobody is
//! here — plain `-p`, `--unattended`), `always`, `off`.
//!
//! Effort by phase lives here too: with `planEffort` (setting,
//! `--plan-effort`) requests made in plan mode and the gate's turn use that
//! effort; the session's own effort applies elsewhere.

use std::sync::{Arc, Mutex};

use catui_protocol::{Effort, PermissionMode};

use crate::engine::{AttachContext, EngineExtension, InputView, TurnEnd};
use crate::sync::lock;
use crate::tools::{TodoItem, TodoStatus};

/// When the gate asks (setting `completionCheck`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CompletionCheck {
    /// Only when nobody is here to read the answer.
    #[default]
    Auto,
    Always,
    Off,
}

impl std::str::FromStr for CompletionCheck {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "auto" => Ok(CompletionCheck::Auto),
            "always" => Ok(CompletionCheck::Always),
            "off" => Ok(CompletionCheck::Off),
            other => Err(format!(
                "completionCheck: {other:?} is not one of \"auto\", \"always\", \"off\""
            )),
        }
    }
}

/// The environment variable that sets `completionCheck` for a run (and
/// wins over the settings): `auto`, `always` or `off`.
pub const CHECK_ENV: &str = "CATUI_COMPLETION_CHECK";

/// The longest part of the task quoted back to the model, in characters.
const TASK_CHARS: usize = 1_500;
/// Paths and names the checklist lists at most.
const MAX_NAMED: usize = 12;

#[derive(Default)]
struct State {
    /// The text of the input being handled.
    task: String,
    /// The gate has asked for this input.
    asked: bool,
    /// The gate's turn is going on (its requests use the plan effort).
    checking: bool,
    /// The main conversation's todo list.
    todos: Option<Arc<Mutex<Vec<TodoItem>>>>,
}

/// The gate and the effort by phase, as a conversation extension.
pub struct CompletionGate {
    on: bool,
    plan_effort: Option<Effort>,
    state: Mutex<State>,
}

impl CompletionGate {
    /// The gate for a session where `nobody_here` says whether anyone
    /// reads the answer; `plan_effort` for plan mode and the gate's turn.
    pub fn new(check: CompletionCheck, nobody_here: bool, plan_effort: Option<Effort>) -> Self {
        CompletionGate {
            on: match check {
                CompletionCheck::Auto => nobody_here,
                CompletionCheck::Always => true,
                CompletionCheck::Off => false,
            },
            plan_effort,
            state: Mutex::new(State::default()),
        }
    }
}

impl EngineExtension for CompletionGate {
    fn attach(&self, conversation: &mut AttachContext<'_>) {
        if conversation.agent_id.is_none() {
            lock(&self.state).todos = Some(conversation.tool_ctx.todos.clone());
        }
    }

    fn input_started(&self, input: &InputView<'_>) {
        let mut state = lock(&self.state);
        state.task = input.text.to_string();
        state.asked = false;
        state.checking = false;
    }

    fn turn_ending(&self) -> TurnEnd {
        if !self.on {
            return TurnEnd::Accept;
        }
        let mut state = lock(&self.state);
        // A slash command's own text or an empty input has no task.
        if state.asked || state.task.trim().is_empty() {
            return TurnEnd::Accept;
        }
        state.asked = true;
        state.checking = true;
        let todos = state
            .todos
            .as_ref()
            .map(|t| lock(t).clone())
            .unwrap_or_default();
        TurnEnd::Continue(crate::engine::attachments::wrap(&checklist(
            &state.task,
            &todos,
        )))
    }

    fn request_effort(&self, agent_id: Option<&str>, mode: PermissionMode) -> Option<Effort> {
        let effort = self.plan_effort?;
        let checking = agent_id.is_none() && lock(&self.state).checking;
        (mode == PermissionMode::Plan || checking).then_some(effort)
    }
}

/// The gate's request: the task, what to check in it, and the open todos.
pub fn checklist(task: &str, todos: &[TodoItem]) -> String {
    let mut quoted: String = task.trim().chars().take(TASK_CHARS).collect();
    if quoted.chars().count() < task.trim().chars().count() {
        quoted.push('…');
    }
    let quoted = quoted
        .lines()
        .map(|l| format!("> {l}"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = format!(
        "Before this run ends, check your work against the task. Nobody will look at it before \
         the run's result is used. The task was:\n{quoted}\n\nGo through it point by point:\n\
         - Every requirement in it: done, in full, not only started or planned?\n"
    );
    let named = named_things(task);
    if named.is_empty() {
        out.push_str(
            "- Every file, name and output format it asks for: exactly as asked (path, spelling, \
             format)?\n",
        );
    } else {
        out.push_str(&format!(
            "- What it names exactly — {} — exists and is exactly as asked (path, spelling, \
             format)?\n",
            named.join(", ")
        ));
    }
    out.push_str(
        "- Tests, builds or checks: run after your last change, and passing? If none exist, \
         did you check the result another way?\n\
         - Services the task needs afterwards still running (started with `keep_running`), \
         and nothing else left running?\n\
         - Scratch files and debugging output you added: removed?\n",
    );
    let open: Vec<String> = todos
        .iter()
        .filter(|t| t.status != TodoStatus::Completed)
        .map(|t| format!("\"{}\" ({})", t.content, status_name(t.status)))
        .collect();
    if !open.is_empty() {
        out.push_str(&format!(
            "- Open items of your todo list: {}. Finish them, or say why not.\n",
            open.join(", ")
        ));
    }
    out.push_str(
        "\nIf anything is missing or unverified, carry on working now. If everything holds, \
         reply with your final answer: what you did, what you assumed, and how you verified it.",
    );
    out
}

fn status_name(status: TodoStatus) -> &'static str {
    match status {
        TodoStatus::Pending => "pending",
        TodoStatus::InProgress => "in progress",
        TodoStatus::Completed => "completed",
    }
}

/// Paths, file names and quoted names in the task, in order, each once:
/// backticked or quoted text, and words that look like paths or files.
fn named_things(task: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut add = |s: &str| {
        let s = s.trim_matches(|c: char| ",.;:()[]{}<>!?".contains(c));
        if !s.is_empty() && s.len() <= 120 && !found.iter().any(|f| f == s) {
            found.push(s.to_string());
        }
    };
    for (i, part) in task.split('`').enumerate() {
        if i % 2 == 1 && !part.contains('\n') {
            add(part);
        }
    }
    for word in task.split_whitespace() {
        let word = word.trim_matches(|c: char| "\"'`,.;:()[]{}<>!?".contains(c));
        let looks_like_path = word.contains('/')
            && !word.starts_with("http")
            && word.chars().any(char::is_alphanumeric);
        let looks_like_file = word.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
                && ext.chars().any(|c| c.is_ascii_alphabetic())
        });
        if looks_like_path || looks_like_file {
            add(word);
        }
    }
    found.truncate(MAX_NAMED);
    found.into_iter().map(|s| format!("`{s}`")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checklist_names_the_paths_and_open_todos_of_the_task() {
        let todos = vec![
            TodoItem {
                content: "write the parser".into(),
                status: TodoStatus::Completed,
                active_form: "writing".into(),
            },
            TodoItem {
                content: "run the tests".into(),
                status: TodoStatus::Pending,
                active_form: "running".into(),
            },
        ];
        let text = checklist(
            "Write the totals to out/report.json as JSON and add `--summary` to main.py.",
            &todos,
        );
        assert!(text.contains("> Write the totals"), "{text}");
        assert!(text.contains("`out/report.json`"), "{text}");
        assert!(text.contains("`main.py`"), "{text}");
        assert!(text.contains("`--summary`"), "{text}");
        assert!(text.contains("\"run the tests\" (pending)"), "{text}");
        assert!(!text.contains("write the parser"), "{text}");
    }

    #[test]
    fn auto_asks_only_when_nobody_is_here_and_once_per_input() {
        let gate = CompletionGate::new(CompletionCheck::Auto, false, None);
        gate.input_started(&InputView {
            uuid: "u",
            text: "do it",
        });
        assert_eq!(gate.turn_ending(), TurnEnd::Accept);

        let gate = CompletionGate::new(CompletionCheck::Auto, true, Some(Effort::High));
        gate.input_started(&InputView {
            uuid: "u",
            text: "do it",
        });
        assert!(matches!(gate.turn_ending(), TurnEnd::Continue(_)));
        assert_eq!(
            gate.request_effort(None, PermissionMode::Default),
            Some(Effort::High)
        );
        assert_eq!(gate.turn_ending(), TurnEnd::Accept);
        gate.input_started(&InputView {
            uuid: "v",
            text: "again",
        });
        assert_eq!(gate.request_effort(None, PermissionMode::Default), None);
        assert_eq!(
            gate.request_effort(None, PermissionMode::Plan),
            Some(Effort::High)
        );
        assert!(matches!(gate.turn_ending(), TurnEnd::Continue(_)));

        let off = CompletionGate::new(CompletionCheck::Off, true, None);
        off.input_started(&InputView {
            uuid: "u",
            text: "do it",
        });
        assert_eq!(off.turn_ending(), TurnEnd::Accept);
    }
}
