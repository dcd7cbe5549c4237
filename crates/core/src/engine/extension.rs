//! The engine's extension points. Features that are not the conversation
//! loop itself — plan mode, the `/team` command, later hooks and MCP —
//! plug in here instead of being named by the engine:
//!
//! - [`EngineExtension`]: attached to a conversation when it is built and
//!   inherited by its sub-agents. It may adjust the conversation's
//!   permission state and tool context, provide attachments, observe mode
//!   changes, answer slash commands, keep a document across compaction,
//!   report notices once an input is handled, act on each tool call
//!   before the permission check ([`ToolGate`]), take part in the
//!   continuation loop ([`super::turn_end`]) and say which step of a plan
//!   the work is on.
//! - [`Compactor`]: how the conversation is summarised (`/compact` and
//!   automatic compaction); the session layer provides it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use catui_protocol::stream_json::ResultSubtype;
use catui_protocol::transcript::EntryBody;
use catui_protocol::{Message, PermissionMode, Usage};
use catui_providers::ModelClient;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::attachments::AttachmentProvider;
use super::slash_commands::{CommandOutput, SlashCommand};
use crate::permissions::{ModeChange, PermissionContext};
use crate::tools::{PreparedCall, SessionHooks, ToolContext};

/// What an extension may set up when a conversation is built.
pub struct AttachContext<'a> {
    /// `None` for the main conversation.
    pub agent_id: Option<&'a str>,
    pub permissions: &'a mut PermissionContext,
    pub tool_ctx: &'a mut ToolContext,
    /// The names of the tools the conversation has.
    pub tools: &'a [String],
}

/// A tool call after its input parsed and validated, before the permission
/// check.
pub struct ToolCallView<'a> {
    pub id: &'a str,
    pub name: &'a str,
    /// The input as the model sent it.
    pub input: &'a Value,
    pub call: &'a dyn PreparedCall,
    pub ctx: &'a ToolContext,
    /// `None` in the main conversation.
    pub agent_id: Option<&'a str>,
}

/// A call the permission layer allowed, just before it runs (in the main
/// conversation or a sub-agent).
pub struct ToolRunView<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub call: &'a dyn PreparedCall,
    /// The call's own context (its grant set).
    pub ctx: &'a ToolContext,
    /// `None` in the main conversation.
    pub agent_id: Option<&'a str>,
}

/// A user's input as the main conversation starts handling it.
pub struct InputView<'a> {
    /// The id its transcript entry gets (the client's, or a fresh one).
    pub uuid: &'a str,
    /// Its text.
    pub text: &'a str,
}

/// What a tool lifecycle hook decided about a call.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolGate {
    /// Carry on: permission check, then the tool.
    Continue,
    /// Ask the user about this call whatever the permission mode would do
    /// (acceptEdits included), with `reason` as the question's reason; a
    /// call the permission layer denies stays denied. (A change outside an
    /// approved plan, under `planDrift: "ask"`.) `declined` is what the
    /// model reads when the user says no.
    Ask { reason: String, declined: String },
    /// Do not run the tool: this is its result. With `end_run`, the
    /// handling of the current input ends after this batch of calls.
    Answer {
        /// What the model reads.
        content: String,
        /// What the user sees in place of the tool's output.
        display: String,
        is_error: bool,
        end_run: Option<RunEnd>,
    },
}

/// How a hook ends the handling of the current input.
#[derive(Debug, Clone, PartialEq)]
pub struct RunEnd {
    pub subtype: ResultSubtype,
    pub result: String,
    /// The run's answer as data (structured output).
    pub structured_output: Option<Value>,
}

impl RunEnd {
    /// An end with this subtype and text, and no data.
    pub fn new(subtype: ResultSubtype, result: impl Into<String>) -> Self {
        RunEnd {
            subtype,
            result: result.into(),
            structured_output: None,
        }
    }
}

/// What an extension says when the main conversation's model ends its turn
/// (answers without calling a tool).
#[derive(Debug, Clone, PartialEq)]
pub enum TurnEnd {
    /// Let it end.
    Accept,
    /// Send the model back to work with this message.
    Continue(String),
    /// End the run this way instead.
    End(RunEnd),
}

/// Something to show the user after an input was handled.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub key: String,
    pub text: String,
    /// Shown even in quiet output ([`EngineEvent::Advice`](super::EngineEvent::Advice)).
    pub essential: bool,
}

/// A plug-in to a conversation. Every method has a do-nothing default.
pub trait EngineExtension: Send + Sync {
    /// Called once as a conversation (main, sub-agent or teammate) is built.
    fn attach(&self, _conversation: &mut AttachContext<'_>) {}

    /// Context to inject before model requests.
    fn attachment_provider(&self) -> Option<Arc<dyn AttachmentProvider>> {
        None
    }

    /// The permission mode changed (or an auto-mode state was left).
    fn mode_changed(&self, _change: &ModeChange) {}

    /// A tool lifecycle hook: runs for each call before the permission
    /// check and may answer the call itself.
    fn before_tool(&self, _call: &ToolCallView<'_>) -> ToolGate {
        ToolGate::Continue
    }

    /// A tool lifecycle hook: a call the permission layer allowed is about
    /// to run. The call waits until this returns (checkpoints are taken
    /// here, before the first change of a turn).
    fn before_run(&self, _call: &ToolRunView<'_>) {}

    /// The main conversation starts handling a user's input.
    fn input_started(&self, _input: &InputView<'_>) {}

    /// The model is about to end the main conversation's turn (an answer
    /// without tool calls). A text returned here is given to the model as
    /// a note from catui and the turn goes on; an extension says each thing
    /// once per turn (it is a reminder, not a loop).
    fn before_turn_end(&self) -> Option<String> {
        None
    }

    /// Commands this extension adds beyond [`super::slash_commands::COMMANDS`]
    /// (custom commands), `(name, help)`, for `/help`.
    fn listed_commands(&self) -> Vec<(String, String)> {
        Vec::new()
    }

    /// Answers a slash command this extension owns; `None`: not its command.
    fn command(
        &self,
        _command: &SlashCommand,
        _session: &dyn SessionHooks,
    ) -> Option<CommandOutput> {
        None
    }

    /// Answers a slash command whose answer has to be waited for (an MCP
    /// server's prompt); `None`: not its command. Asked before
    /// [`EngineExtension::command`].
    fn command_later(
        &self,
        _command: &SlashCommand,
    ) -> Option<futures::future::BoxFuture<'static, CommandOutput>> {
        None
    }

    /// A document to attach again after compaction (the plan).
    fn kept_document(&self, _agent_id: Option<&str>) -> Option<KeptDocument> {
        None
    }

    /// `/clear` started a new conversation: forget what belonged to the old
    /// one. `recorder` is the conversation's transcript. Returns the new
    /// plan file (the one file writable in plan mode) when it changed.
    fn conversation_cleared(&self, _recorder: &dyn super::Recorder) -> Option<PathBuf> {
        None
    }

    /// Text the model reads before the next input to the main conversation
    /// (the outcome of a plan decision carried out while no conversation
    /// ran), taken once.
    fn input_preamble(&self) -> Option<String> {
        None
    }

    /// Notices for the user once an input of the main conversation has
    /// been handled.
    fn input_handled(&self) -> Vec<Notice> {
        Vec::new()
    }

    /// The main conversation's model ended its turn: the extension may send
    /// it back (structured output not given yet) or end the run its way.
    /// A quick, synchronous verdict; a condition that needs work to judge
    /// (a goal, a checklist) is a [`Self::turn_end_checks`] participant.
    fn turn_ending(&self) -> TurnEnd {
        TurnEnd::Accept
    }

    /// Participants in the main conversation's continuation loop (see
    /// [`super::turn_end`]): each is asked whether the turn really ends,
    /// and what reminder continues it if not. Collected once, as the
    /// conversation is built, in extension order.
    fn turn_end_checks(&self) -> Vec<Arc<dyn super::turn_end::TurnEndCheck>> {
        Vec::new()
    }

    /// The step of an approved plan the work is on, if any: the engine
    /// reports it when it changes ([`super::EngineEvent::WorkStep`]), so
    /// front ends can attribute tool calls to it.
    fn current_step(&self) -> Option<catui_protocol::contract::WorkStep> {
        None
    }

    /// Called with the main conversation's permission state as an input
    /// arrives and before each of its model requests: an extension may
    /// bring it up to date (settings files that changed).
    fn refresh(&self, _permissions: &mut PermissionContext) -> Refresh {
        Refresh::default()
    }

    /// The front end let the user edit this file outside the engine (the
    /// terminal UI runs the editor on its own terminal): keep what changed.
    fn user_edited(&self, _path: &Path, _session: &dyn SessionHooks) {}

    /// The reasoning effort of the conversation's next request while in
    /// `mode`, instead of the session's (`planEffort` in plan mode and
    /// for the completion gate's turn); `None`: the session's.
    fn request_effort(
        &self,
        _agent_id: Option<&str>,
        _mode: PermissionMode,
    ) -> Option<catui_protocol::Effort> {
        None
    }

    /// The model the conversation's next request uses instead of its own
    /// while in `mode` (plan mode's planning model); `None`: its own.
    fn request_model(&self, _agent_id: Option<&str>, _mode: PermissionMode) -> Option<String> {
        None
    }

    /// The model ended its turn with a text answer: an extension may end
    /// the input another way (a headless planning run whose model wrote a
    /// plan ends with that plan). `None`: the input ends with the answer.
    fn final_answer(&self, _agent_id: Option<&str>, _session: &dyn SessionHooks) -> Option<RunEnd> {
        None
    }
}

/// A document kept across compaction: attached again after the summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptDocument {
    pub path: PathBuf,
    pub content: String,
    /// `content` is the revision the user approved, which the file may no
    /// longer hold (the plan while it is being carried out).
    pub approved: bool,
    /// The file's text is no longer `content`.
    pub file_changed: bool,
}

/// What [`EngineExtension::refresh`] changed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Refresh {
    pub notices: Vec<Notice>,
    /// A mode change made on the permission state, for the engine to
    /// announce (record, tell the front end and the other extensions).
    pub mode_change: Option<ModeChange>,
}

/// The extensions of a conversation; kept in its tool context's values so
/// that the sub-agents it starts inherit them.
#[derive(Clone, Default)]
pub struct Extensions(pub Vec<Arc<dyn EngineExtension>>);

/// A compacted conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct Compaction {
    /// The new conversation.
    pub messages: Vec<Message>,
    /// What to append to the transcript, in order.
    pub entries: Vec<EntryBody>,
    /// How many messages the summary replaced.
    pub summarized: usize,
    /// How many trailing messages were kept verbatim.
    pub kept: usize,
    /// Tokens spent on the summary request.
    pub usage: Usage,
}

/// Why the conversation could not be compacted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompactError {
    /// This session was built without a compactor.
    #[error("Compaction is not available in this session.")]
    Unavailable,
    /// There is no older turn to summarise: everything would be kept.
    #[error(
        "Nothing to compact yet: the conversation is only {messages} message(s), all of which are kept."
    )]
    NothingToCompact { messages: usize },
    /// The summary request failed; the conversation is unchanged.
    #[error("Could not compact the conversation: {0}")]
    Failed(String),
}

/// Summarises a conversation so it fits the context window again.
#[async_trait]
pub trait Compactor: Send + Sync {
    /// `kept_document` is attached again after the summary.
    async fn compact(
        &self,
        client: &dyn ModelClient,
        model: &str,
        messages: &[Message],
        instructions: Option<&str>,
        kept_document: Option<&KeptDocument>,
        cancel: &CancellationToken,
    ) -> Result<Compaction, CompactError>;
}
