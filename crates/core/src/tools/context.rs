//! What a running tool can see of its session.

use crate::sync::lock;
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use catui_protocol::PermissionMode;
use tokio_util::sync::CancellationToken;

use super::todo_write::TodoItem;
use super::{ToolError, ToolOutput};
use crate::permissions::dry_run::DryRunArea;
use crate::permissions::sandbox::{SandboxPolicy, SessionSandbox};
use crate::permissions::secret_search::SecretWalk;
use crate::permissions::secrets::SecretStores;
use crate::permissions::{Grant, PermissionContext};
use catui_sandbox::child_env::EnvPolicy;

/// What a file looked like when the model last read it, for the stale-write
/// guard of Write and Edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    pub mtime: Option<SystemTime>,
    pub size: u64,
}

impl FileStamp {
    /// The stamp of the file at `path` now, if it exists.
    pub fn of(path: &Path) -> Option<FileStamp> {
        let meta = std::fs::metadata(path).ok()?;
        Some(FileStamp {
            mtime: meta.modified().ok(),
            size: meta.len(),
        })
    }
}

/// Session-wide state shared by every tool call of one conversation (and
/// cloned cheaply into concurrent calls).
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// Bash's working directory, which its `cd` moves. Only Bash uses it:
    /// file tools resolve from [`Self::project_root`].
    pub cwd: Arc<Mutex<PathBuf>>,
    /// The project root (where catui was started): the working directory
    /// the system prompt names, from which every file tool resolves a
    /// relative path.
    pub project_root: PathBuf,
    /// Files read in this session, by canonical path.
    pub read_files: Arc<Mutex<HashMap<PathBuf, FileStamp>>>,
    /// What the settings add to the environment of the commands the
    /// session starts (`env`, `passEnv`): every child's environment is
    /// built from the allow-list through it (`catui_sandbox::child_env`).
    pub env: Arc<EnvPolicy>,
    /// Cancelled when the user interrupts the turn.
    pub cancel: CancellationToken,
    /// Set inside a sub-agent.
    pub agent_id: Option<String>,
    /// The id of the tool_use being run (set per call by the engine).
    pub tool_use_id: Option<String>,
    /// The engine's session controls (mode changes, notifications).
    pub session: Option<SessionHandle>,
    /// Where Bash commands may write (plan mode sets a private temp dir).
    pub sandbox: Arc<Mutex<SandboxPolicy>>,
    /// Where a Bash command allowed only because it was judged read-only
    /// may write: a private temp dir (set by the engine).
    pub read_only_sandbox: SandboxPolicy,
    /// What the session confines commands with (layers, inner stage,
    /// secret stores, network proxy); shared by its sub-agents and
    /// teammates.
    pub confiner: Arc<SessionSandbox>,
    /// The session's dry runs: the scratch area plan mode's commands
    /// write into instead of the project, and what ran there; shared by
    /// its sub-agents.
    pub dry_run: Arc<DryRunArea>,
    /// Why the call being run was allowed (set per call by the engine).
    pub grant: Grant,
    /// The session's todo list, replaced by TodoWrite.
    pub todos: Arc<Mutex<Vec<TodoItem>>>,
    /// What higher layers hand to their own tools (the plan session, the
    /// team handle, the sub-agent runner), looked up by type.
    pub values: ContextValues,
}

/// Told about each new todo list (TodoWrite); higher layers register one
/// to follow the work (plan mode writes the plan's progress).
#[derive(Clone)]
pub struct TodoObserver(pub Arc<TodoObserverFn>);

/// What a [`TodoObserver`] runs: the new list and the calling context.
pub type TodoObserverFn = dyn Fn(&[crate::tools::TodoItem], &ToolContext) + Send + Sync;

/// Set in the tool context of a read-only sub-agent (Explore, Plan): it
/// is not meant to widen what it may do, so tools do not suggest asking
/// the user for more (such as running a command unconfined).
#[derive(Debug, Clone, Copy)]
pub struct ReadOnlyAgent;

/// The prose of the assistant message whose tool calls are being run (a
/// tool may show it when asking the user, as the model's reason).
#[derive(Debug, Clone, Default)]
pub struct CallingMessageText(pub String);

/// The tool calls of the assistant message being run whose input parsed,
/// in order, as `(tool_use id, tool name)`: a tool whose calls must not be
/// repeated within one message (ExitPlanMode) finds its earlier calls here.
#[derive(Debug, Clone, Default)]
pub struct CallingMessageCalls(pub Vec<(String, String)>);

impl CallingMessageCalls {
    /// The id of the message's first call of `tool`.
    pub fn first_of(&self, tool: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(_, name)| name == tool)
            .map(|(id, _)| id.as_str())
    }
}

/// A map from a type to one value of that type, shared by clones of a
/// [`ToolContext`] until one of them inserts (copy on write). This is how
/// plan mode, teams and sub-agents reach their tools without the tools
/// layer naming them.
#[derive(Clone, Default)]
pub struct ContextValues(Arc<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>);

impl ContextValues {
    /// Sets the value of type `T` (replacing an earlier one).
    pub fn insert<T: Any + Send + Sync>(&mut self, value: T) {
        Arc::make_mut(&mut self.0).insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// The value of type `T`, if one was set.
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.0.get(&TypeId::of::<T>())?.downcast_ref::<T>()
    }

    /// Removes the value of type `T`.
    pub fn remove<T: Any + Send + Sync>(&mut self) {
        if self.0.contains_key(&TypeId::of::<T>()) {
            Arc::make_mut(&mut self.0).remove(&TypeId::of::<T>());
        }
    }
}

impl std::fmt::Debug for ContextValues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ContextValues({} values)", self.0.len())
    }
}

/// What tools may ask of the engine that runs them.
pub trait SessionHooks: Send + Sync {
    fn permission_mode(&self) -> PermissionMode;
    fn pre_plan_mode(&self) -> Option<PermissionMode>;
    /// A copy of the whole permission state (sub-agents inherit it).
    fn permission_context(&self) -> crate::permissions::PermissionContext;
    /// Changes the mode through the one transition function (events and
    /// transcript entries included).
    fn set_permission_mode(&self, to: PermissionMode) -> Result<(), crate::permissions::ModeError>;
    /// Shows the user something outside the conversation.
    fn notify(&self, key: &str, text: &str);
    /// Keeps a file's content in the transcript under `key` (e.g. each
    /// revision of a plan shown for approval).
    fn snapshot_file(&self, key: &str, path: &str, content: &str);
    /// Once the current tool calls are answered, continue in a fresh
    /// conversation that starts with `prompt` (approve-and-start-clean).
    fn start_fresh(&self, _prompt: String) {}
    /// catui replaced the todo list itself (not a TodoWrite call the front
    /// ends saw): show them the new list.
    fn todos_set(&self, _todos: &[TodoItem]) {}
    /// Once the current tool calls are answered, end the handling of the
    /// current input with this result (the user parked the plan).
    fn end_run(&self, _subtype: catui_protocol::stream_json::ResultSubtype, _result: String) {}
    /// The conversation's model: what its next request uses outside plan
    /// mode (a switch already asked for included).
    fn model(&self) -> String {
        String::new()
    }
    /// Switches the conversation's model from its next request on.
    fn set_model(&self, _model: &str) {}
}

/// A shared [`SessionHooks`] (with a `Debug` that prints nothing secret).
#[derive(Clone)]
pub struct SessionHandle(pub Arc<dyn SessionHooks>);

impl std::fmt::Debug for SessionHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SessionHandle")
    }
}

impl ToolContext {
    pub fn new(project_root: PathBuf) -> Self {
        let confiner = Arc::new(SessionSandbox::for_project(&project_root));
        Self {
            cwd: Arc::new(Mutex::new(project_root.clone())),
            project_root,
            read_files: Arc::default(),
            env: Arc::default(),
            cancel: CancellationToken::new(),
            agent_id: None,
            tool_use_id: None,
            session: None,
            sandbox: Arc::default(),
            read_only_sandbox: SandboxPolicy::ReadOnlyExceptTemp {
                temp_dir: std::env::temp_dir()
                    .join(format!("catui-readonly-{}", std::process::id())),
            },
            confiner,
            dry_run: Arc::new(DryRunArea::new(
                crate::permissions::dry_run::default_root(),
                &uuid::Uuid::new_v4().simple().to_string(),
            )),
            grant: Grant::Explicit,
            todos: Arc::default(),
            values: ContextValues::default(),
        }
    }

    /// The sandbox policy Bash commands run under now.
    pub fn sandbox_policy(&self) -> SandboxPolicy {
        lock(&self.sandbox).clone()
    }

    pub fn set_sandbox_policy(&self, policy: SandboxPolicy) {
        *lock(&self.sandbox) = policy;
    }

    /// The permission mode of the session running this call (default when
    /// the tool runs outside an engine, e.g. in unit tests).
    pub fn permission_mode(&self) -> PermissionMode {
        self.session
            .as_ref()
            .map(|s| s.0.permission_mode())
            .unwrap_or_default()
    }

    /// The session's permission state (outside an engine, e.g. in unit
    /// tests: default mode in the project root).
    pub(crate) fn permission_context(&self) -> PermissionContext {
        match &self.session {
            Some(s) => s.0.permission_context(),
            None => PermissionContext::new(self.project_root.clone()),
        }
    }

    /// The user's secret stores, as the session's permission layer knows
    /// them now (defaults plus settings `secretPaths`, reloaded with the
    /// settings): what Read and Grep ask about and what a confined command
    /// must not see. Without a session (unit tests, embedders running a
    /// tool alone): the stores the sandbox was built with.
    pub fn secret_stores(&self) -> SecretStores {
        match &self.session {
            Some(s) => s.0.permission_context().secrets,
            None => self.confiner.secrets().clone(),
        }
    }

    /// The session's working directories (the project, `--add-dir`,
    /// `additionalDirectories`), canonical: where a line acceptEdits
    /// allowed for its edits may write.
    pub fn working_dirs(&self) -> Vec<PathBuf> {
        self.permission_context()
            .working_dirs
            .iter()
            .map(|d| std::fs::canonicalize(d).unwrap_or_else(|_| d.clone()))
            .collect()
    }

    /// What a search by `tool` from `root` must leave out of its walk (see
    /// [`SecretWalk`]); `None` when nothing.
    pub fn secret_walk(&self, tool: &str, root: &Path) -> Option<Arc<SecretWalk>> {
        SecretWalk::for_search(&self.permission_context(), tool, root).map(Arc::new)
    }

    /// Bash's current working directory.
    pub fn cwd(&self) -> PathBuf {
        lock(&self.cwd).clone()
    }

    pub fn set_cwd(&self, dir: PathBuf) {
        *lock(&self.cwd) = dir;
    }

    /// Resolves a path from the model: an absolute path as it is, a
    /// relative one from the project root — never from Bash's directory,
    /// which a `cd` moves. Every file tool and its permission check go
    /// through here, so both judge the same file.
    /// `result` of a Read, Grep or Glob of `path`, with a note at its end
    /// when a dry run of this planning session changed `path` in its copy:
    /// these tools show the real project, which the model could take for
    /// the copy's build output. A call that failed (the copy added the
    /// file the project lacks) says it too.
    pub fn with_dry_run_note(
        &self,
        path: &Path,
        result: Result<ToolOutput, ToolError>,
    ) -> Result<ToolOutput, ToolError> {
        let Some(note) = self.dry_run.note_for(path) else {
            return result;
        };
        match result {
            Ok(mut out) => {
                out.content = format!("{}\n\n{note}", out.content);
                Ok(out)
            }
            Err(ToolError::Failed(message)) => Err(ToolError::advised(message, note)),
            Err(ToolError::Advised { message, advice }) => {
                Err(ToolError::advised(message, format!("{advice} {note}")))
            }
            Err(e) => Err(e),
        }
    }

    pub fn resolve(&self, path: &str) -> PathBuf {
        let p = Path::new(path);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.project_root.join(p)
        }
    }

    /// A copy of the session's todo list.
    pub fn todos(&self) -> Vec<TodoItem> {
        lock(&self.todos).clone()
    }

    /// Replaces the session's todo list.
    pub fn set_todos(&self, todos: Vec<TodoItem>) {
        *lock(&self.todos) = todos;
    }

    /// Records that `path` was read (stale-write guard).
    pub fn record_read(&self, path: &Path) {
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        if let Some(stamp) = FileStamp::of(path) {
            let mut map = lock(&self.read_files);
            map.insert(key, stamp);
        }
    }

    /// The stamp recorded when `path` was last read, if it was.
    pub fn read_stamp(&self, path: &Path) -> Option<FileStamp> {
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let map = lock(&self.read_files);
        map.get(&key).copied()
    }
}
