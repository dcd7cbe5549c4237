//! The hook engine: one place that runs the hooks of an event, whoever
//! wrote them — command hooks from settings (`hooks` in every settings
//! layer, see [`config`]) and an SDK client's callback hooks (run by the
//! front end's [`Approver`](crate::engine::Approver)). Both answer in the
//! same JSON shape and are merged into one [`HookVerdict`], where a deny
//! wins over any allow. The engine calls it at each event (see
//! `engine::hook_points`); the headless front end keeps an SDK client's callback
//! registrations (`crates/cli/src/headless/sdk_hooks.rs`).
//!
//! Hooks never widen what the permission layer allows: a `PreToolUse`
//! allow only skips a prompt, and in plan mode not even that — a hook may
//! deny there, never allow a write. A project's own hooks
//! (`.catui/settings*.json`) reach the engine only once the user trusts the
//! project (the settings layer holds them back until then).

pub mod command;
pub mod config;
pub mod matcher;
mod verdict;

use catui_sandbox::child_env::EnvPolicy;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

pub use command::CommandAnswer;

/// A hook that could not give an answer: it did not start, timed out, or
/// its client went away. Where it matters the caller fails closed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct HookFailure(pub String);

/// A `hooks` settings value that cannot be used, said plainly.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct HookConfigError(pub String);
pub use config::CommandHook;
pub use verdict::{HookCall, HookDecision, HookVerdict};

/// Every hook event catui calls.
pub const EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "PreCompact",
    "SessionStart",
    "SessionEnd",
    "Notification",
];

/// The command hooks of a session, and the fields every hook's input
/// carries.
#[derive(Debug, Default)]
pub struct HookEngine {
    commands: Vec<CommandHook>,
    project_root: PathBuf,
    /// `session_id`, `cwd`, `transcript_path`.
    base: Map<String, Value>,
    /// What the settings add to a hook's environment (built from the
    /// allow-list of commands someone allowed).
    env: EnvPolicy,
}

/// What the command hooks of one event answered.
#[derive(Debug, Default)]
pub struct CommandRun {
    pub outputs: Vec<Value>,
    /// Reported, otherwise ignored (exit codes other than 0 and 2).
    pub problems: Vec<String>,
    /// Hooks that could not run or timed out.
    pub failures: Vec<String>,
}

impl HookEngine {
    /// The session's hooks from settings.
    pub fn new(commands: Vec<CommandHook>, project_root: &Path, base: Map<String, Value>) -> Self {
        HookEngine {
            commands,
            project_root: project_root.to_path_buf(),
            base,
            env: EnvPolicy::default(),
        }
    }

    /// With the settings' additions to the hooks' environment (`env`,
    /// `passEnv`).
    pub fn with_environment(mut self, env: EnvPolicy) -> Self {
        self.env = env;
        self
    }

    /// The hooks of a session of `project_root`, with the session's
    /// fields (`session_id`, `cwd`, `transcript_path`).
    pub fn for_session(
        commands: Vec<CommandHook>,
        project_root: &Path,
        transcript: &Path,
        session_id: &str,
    ) -> HookEngine {
        let mut base = Map::new();
        base.insert("session_id".into(), session_id.into());
        base.insert("cwd".into(), project_root.display().to_string().into());
        base.insert(
            "transcript_path".into(),
            transcript.display().to_string().into(),
        );
        HookEngine::new(commands, project_root, base)
    }

    /// The event's input as hooks get it: the session's fields, then the
    /// event's.
    pub fn input(&self, call: &HookCall) -> Value {
        let mut input = self.base.clone();
        if let Value::Object(fields) = &call.input {
            input.extend(fields.clone());
        }
        Value::Object(input)
    }

    /// Whether any command hook listens to `event`.
    pub fn listens(&self, event: &str) -> bool {
        self.commands.iter().any(|h| h.event == event)
    }

    /// Runs the command hooks `call` selects, all at once, with `input`
    /// (see [`HookEngine::input`]); outputs in the settings' order.
    pub async fn run_commands(&self, call: &HookCall, input: &Value) -> CommandRun {
        let selected = self.commands.iter().filter(|h| {
            h.event == call.event
                && matcher::matches(h.matcher.as_deref(), call.tool_name.as_deref())
        });
        let runs = selected.map(|h| command::run(h, input, &self.project_root, &self.env));
        let mut run = CommandRun::default();
        for answer in futures::future::join_all(runs).await {
            match answer {
                Ok(a) => {
                    run.outputs.push(a.output);
                    run.problems.extend(a.problem);
                }
                Err(e) => run.failures.push(e.0),
            }
        }
        run
    }
}
