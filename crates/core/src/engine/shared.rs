//! State the engine shares with its controls and with the tools it runs:
//! the permission context, the event channel, the recorder, the running
//! turn's cancellation token and the conversation's extensions. Mode
//! changes go through [`set_mode`], the engine's side of the one
//! transition function.

use crate::permissions::{ModeChange, ModeError};
use crate::sync::lock;
use std::sync::{Arc, Mutex};

use catui_protocol::PermissionMode;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use super::{EngineEvent, EngineExtension, Record, Recorder, RunEnd};
use crate::permissions::PermissionContext;
use crate::permissions::sandbox::SandboxPolicy;

/// State shared between the engine and its controls.
pub(super) struct Shared {
    pub(super) permissions: Mutex<PermissionContext>,
    pub(super) events: UnboundedSender<EngineEvent>,
    pub(super) recorder: Arc<dyn Recorder>,
    /// The token of the running turn; replaced at the start of each turn.
    pub(super) cancel: Mutex<CancellationToken>,
    pub(super) extensions: Vec<Arc<dyn EngineExtension>>,
    /// Bash's confinement, switched with the mode.
    pub(super) sandbox: Arc<Mutex<SandboxPolicy>>,
    /// Confinement outside plan mode (the `sandbox` setting).
    pub(super) default_sandbox: SandboxPolicy,
    /// Confinement in plan mode: writes only to a private temp dir.
    pub(super) plan_sandbox: SandboxPolicy,
    /// The session's dry runs, discarded when plan mode ends (the main
    /// conversation's only: a sub-agent's mode does not end planning).
    pub(super) dry_run: Option<Arc<crate::permissions::dry_run::DryRunArea>>,
    /// Set by a tool hook that ends the handling of the current input.
    pub(super) run_end: Mutex<Option<RunEnd>>,
    /// Set by a tool that asks for the conversation to start over with
    /// this prompt once its tool round is done.
    pub(super) fresh_start: Mutex<Option<String>>,
    /// A model the client asked for; the engine switches before its next
    /// request.
    pub(super) requested_model: Mutex<Option<String>>,
    /// The conversation's model (what its requests use outside plan mode).
    pub(super) model: Mutex<String>,
    /// A conversation to continue from at the next input (a rewind of
    /// the conversation, made while no turn runs).
    pub(super) replaced_conversation: Mutex<Option<Vec<catui_protocol::Message>>>,
    /// A system prompt the client set after the session started (the
    /// TypeScript SDK's `initialize`); used from the next request on.
    pub(super) requested_system_prompt: Mutex<Option<String>>,
    /// What the engine last reported: its model and the prompt size of its
    /// last request.
    pub(super) usage_view: Mutex<ContextUsage>,
    /// Ends a wait for tools still starting (the user goes on without them).
    pub(super) skip_wait: tokio::sync::Notify,
    /// What this input's calls changed (the continuation loop's measure
    /// of progress).
    pub(super) work: Mutex<super::turn_end::WorkSeen>,
}

/// How full the conversation's context window is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContextUsage {
    pub model: String,
    /// Prompt tokens of the last request (0 before the first).
    pub tokens: u64,
    /// The model's context window.
    pub window: u64,
}

impl Shared {
    pub(super) fn set_run_end(&self, end: RunEnd) {
        *lock(&self.run_end) = Some(end)
    }

    pub(super) fn take_run_end(&self) -> Option<RunEnd> {
        lock(&self.run_end).take()
    }

    pub(super) fn take_fresh_start(&self) -> Option<String> {
        lock(&self.fresh_start).take()
    }

    pub(super) fn take_replaced_conversation(&self) -> Option<Vec<catui_protocol::Message>> {
        lock(&self.replaced_conversation).take()
    }

    pub(super) fn take_requested_model(&self) -> Option<String> {
        lock(&self.requested_model).take()
    }

    pub(super) fn take_requested_system_prompt(&self) -> Option<String> {
        lock(&self.requested_system_prompt).take()
    }

    pub(super) fn report_usage(&self, model: &str, tokens: u64) {
        *lock(&self.usage_view) = ContextUsage {
            model: model.to_string(),
            tokens,
            window: super::context_window::context_window(model),
        };
    }

    pub(super) fn emit(&self, event: EngineEvent) {
        // A front end that stopped listening is not an engine error.
        let _ = self.events.send(event);
    }

    pub(super) fn permissions(&self) -> std::sync::MutexGuard<'_, PermissionContext> {
        lock(&self.permissions)
    }
}

/// A cloneable handle for controls that arrive while a turn runs.
#[derive(Clone)]
pub struct EngineControl {
    pub(super) shared: Arc<Shared>,
}

impl std::fmt::Debug for WeakEngineControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WeakEngineControl")
    }
}

/// An [`EngineControl`] that does not keep the conversation alive (for
/// front-end pieces the conversation itself holds).
#[derive(Clone, Default)]
pub struct WeakEngineControl(std::sync::Weak<Shared>);

impl WeakEngineControl {
    /// [`EngineControl::interrupt`], while the conversation lives.
    pub fn interrupt(&self) {
        if let Some(control) = self.upgrade() {
            control.interrupt();
        }
    }

    /// The conversation's permission mode, while it lives.
    pub fn permission_mode(&self) -> Option<PermissionMode> {
        self.0.upgrade().map(|shared| shared.permissions().mode)
    }

    /// The controls, while the conversation lives.
    pub fn upgrade(&self) -> Option<EngineControl> {
        self.0.upgrade().map(|shared| EngineControl { shared })
    }
}

impl EngineControl {
    /// A handle that does not keep the conversation alive.
    pub fn downgrade(&self) -> WeakEngineControl {
        WeakEngineControl(Arc::downgrade(&self.shared))
    }

    /// Stops the running turn: the model request and tools are cancelled and
    /// every started tool call still gets a result.
    pub fn interrupt(&self) {
        let token = lock(&self.shared.cancel).clone();
        token.cancel();
    }

    /// Changes the permission mode through the one transition function.
    pub fn set_permission_mode(&self, mode: PermissionMode) -> Result<(), ModeError> {
        set_mode(&self.shared, mode)
    }

    /// Sends the request that waits for tools still starting (see
    /// [`EngineEvent::AwaitingTools`]) without them.
    pub fn stop_waiting_for_tools(&self) {
        self.shared.skip_wait.notify_waiters();
    }

    pub fn permission_mode(&self) -> PermissionMode {
        self.shared.permissions().mode
    }

    /// The conversation continues from `messages` at the next input (a
    /// rewind of the conversation; the caller records it in the
    /// transcript).
    pub fn replace_conversation(&self, messages: Vec<catui_protocol::Message>) {
        *lock(&self.shared.replaced_conversation) = Some(messages);
    }

    /// Tells the front end something outside the conversation.
    pub fn emit(&self, event: EngineEvent) {
        self.shared.emit(event);
    }

    /// Switches the model from the next request on.
    pub fn set_model(&self, model: &str) {
        *lock(&self.shared.requested_model) = Some(model.to_string());
    }

    /// Replaces the conversation's system prompt from the next request on.
    pub fn set_system_prompt(&self, prompt: String) {
        *lock(&self.shared.requested_system_prompt) = Some(prompt);
    }

    /// The user edited `path` in an editor the front end ran itself (the
    /// plan file through `/plan open` or Ctrl+G in the terminal UI): the
    /// extensions keep what changed (a plan snapshot).
    pub fn user_edited(&self, path: &std::path::Path) {
        for extension in &self.shared.extensions {
            extension.user_edited(path, self.shared.as_ref());
        }
    }

    /// The model in use (a requested switch included) and how full its
    /// context window was at the last request.
    pub fn context_usage(&self) -> ContextUsage {
        let mut usage = lock(&self.shared.usage_view).clone();
        if let Some(model) = lock(&self.shared.requested_model).clone() {
            usage.window = super::context_window::context_window(&model);
            usage.model = model;
        }
        usage
    }
}

impl crate::tools::SessionHooks for Shared {
    fn permission_mode(&self) -> PermissionMode {
        self.permissions().mode
    }

    fn pre_plan_mode(&self) -> Option<PermissionMode> {
        self.permissions().pre_plan_mode
    }

    fn permission_context(&self) -> PermissionContext {
        self.permissions().clone()
    }

    fn set_permission_mode(&self, to: PermissionMode) -> Result<(), ModeError> {
        set_mode(self, to)
    }

    fn start_fresh(&self, prompt: String) {
        *lock(&self.fresh_start) = Some(prompt);
    }

    fn end_run(&self, subtype: catui_protocol::stream_json::ResultSubtype, result: String) {
        self.set_run_end(RunEnd::new(subtype, result));
    }

    fn model(&self) -> String {
        lock(&self.requested_model)
            .clone()
            .unwrap_or_else(|| lock(&self.model).clone())
    }

    fn set_model(&self, model: &str) {
        *lock(&self.requested_model) = Some(model.to_string());
    }

    fn snapshot_file(&self, key: &str, path: &str, content: &str) {
        self.recorder.record(Record::FileSnapshot {
            key: key.to_string(),
            path: path.to_string(),
            content: content.to_string(),
        });
    }

    fn todos_set(&self, todos: &[crate::tools::TodoItem]) {
        self.emit(EngineEvent::Todos {
            todos: todos.to_vec(),
        });
    }

    fn notify(&self, key: &str, text: &str) {
        self.emit(EngineEvent::Notification {
            key: key.to_string(),
            text: text.to_string(),
        });
    }
}

pub(super) fn set_mode(shared: &Shared, mode: PermissionMode) -> Result<(), ModeError> {
    let change = {
        let mut perms = shared.permissions();
        crate::permissions::transition_permission_mode(&mut perms, mode)?
    };
    announce_mode_change(shared, change);
    Ok(())
}

/// Lets every extension bring the permission state up to date
/// ([`EngineExtension::refresh`]) and announces what that changed.
pub(super) fn refresh(shared: &Shared) {
    for extension in &shared.extensions {
        let refresh = {
            let mut perms = shared.permissions();
            extension.refresh(&mut perms)
        };
        if let Some(change) = refresh.mode_change {
            announce_mode_change(shared, change);
        }
        for notice in refresh.notices {
            let (key, text) = (notice.key, notice.text);
            shared.emit(if notice.essential {
                EngineEvent::Advice { key, text }
            } else {
                EngineEvent::Notification { key, text }
            });
        }
    }
}

/// Tells the extensions, the sandbox, the transcript and the front end
/// about a mode change made on the permission state.
fn announce_mode_change(shared: &Shared, change: ModeChange) {
    for extension in &shared.extensions {
        extension.mode_changed(&change);
    }
    let (changed, from, pre_plan_mode) = (change.changed(), change.from, change.pre_plan_mode);
    let mode = change.to;
    if changed {
        if mode == PermissionMode::Plan {
            set_sandbox(&shared.sandbox, shared.plan_sandbox.clone());
        } else if from == PermissionMode::Plan {
            set_sandbox(&shared.sandbox, shared.default_sandbox.clone());
            // Approved, parked or left: nothing of the dry runs survives.
            if let Some(area) = &shared.dry_run {
                area.discard();
            }
        }
        shared.recorder.record(Record::PermissionMode {
            mode,
            pre_plan_mode,
        });
        shared.emit(EngineEvent::PermissionMode {
            mode,
            pre_plan_mode,
        });
    }
}

fn set_sandbox(slot: &Mutex<SandboxPolicy>, policy: SandboxPolicy) {
    *lock(slot) = policy;
}
