//! What a client may still choose after the session started. The Agent
//! SDKs start catui first and send part of their options afterwards, in
//! the `initialize` control request (the TypeScript SDK: system prompt,
//! appended prompt, output schema and MCP servers; both SDKs: agents).
//! [`LateSetup`] applies each to the running session exactly as the
//! matching command-line flag would have at the start; the first model
//! request sees them all, because `initialize` is answered before the
//! first user message is read.

use catui_protocol::Message;

use crate::agents::{AgentCatalog, AgentDefinition};
use crate::engine::WeakEngineControl;
use crate::mcp::McpManager;
use crate::mcp::config::ServerSpec;
use crate::output::{OutputFormat, SchemaError};
use crate::prompt::{MemoryFile, PromptOptions, SystemPromptChoice};
use crate::session::ResumedSession;
use catui_protocol::sync::lock;

/// What [`LateSetup`] is made of (gathered by the builder).
pub(super) struct Parts {
    pub prompt: SystemPromptChoice,
    pub prompt_options: PromptOptions,
    pub memory: Vec<MemoryFile>,
    pub control: WeakEngineControl,
    pub agents: AgentCatalog,
    pub output: OutputFormat,
    pub mcp: McpManager,
}

/// The running session's options a client may set late. Cheap to clone.
#[derive(Clone)]
pub struct LateSetup {
    prompt: std::sync::Arc<std::sync::Mutex<SystemPromptChoice>>,
    prompt_options: std::sync::Arc<PromptOptions>,
    memory: std::sync::Arc<Vec<MemoryFile>>,
    /// Weak: front ends keep this handle, and it must not keep the
    /// conversation (and its event stream) alive after it ended.
    control: WeakEngineControl,
    agents: AgentCatalog,
    output: OutputFormat,
    mcp: McpManager,
}

impl LateSetup {
    pub(super) fn new(parts: Parts) -> Self {
        LateSetup {
            prompt: std::sync::Arc::new(std::sync::Mutex::new(parts.prompt)),
            prompt_options: std::sync::Arc::new(parts.prompt_options),
            memory: std::sync::Arc::new(parts.memory),
            control: parts.control,
            agents: parts.agents,
            output: parts.output,
            mcp: parts.mcp,
        }
    }

    /// Replaces the base of the main conversation's system prompt
    /// (`Some`: the client's text, as `--system-prompt`) and/or what is
    /// appended to it (as `--append-system-prompt`); `None` leaves that part
    /// as it is.
    pub fn set_system_prompt(&self, base: Option<String>, append: Option<String>) {
        let rendered = {
            let mut choice = lock(&self.prompt);
            if base.is_some() {
                choice.base = base;
            }
            if append.is_some() {
                choice.append = append;
            }
            choice.render(&self.prompt_options, &self.memory)
        };
        if let Some(control) = self.control.upgrade() {
            control.set_system_prompt(rendered);
        }
    }

    /// Adds agent types (as `--agents`).
    pub fn add_agents(&self, agents: Vec<AgentDefinition>) {
        self.agents.add(agents);
    }

    /// The session's agent types, by name.
    pub fn agent_names(&self) -> Vec<String> {
        self.agents.names()
    }

    /// The session's agent types.
    pub fn agents(&self) -> Vec<AgentDefinition> {
        self.agents.all()
    }

    /// Asks for structured output matching `schema` (as `--json-schema`).
    pub fn set_output_schema(&self, schema: serde_json::Value) -> Result<(), SchemaError> {
        self.output.set_schema(schema)
    }

    /// Starts more MCP servers (as `--mcp-config`).
    pub fn add_mcp_servers(&self, servers: Vec<ServerSpec>) {
        self.mcp.add(servers);
    }
}

/// Where `--resume-session-at` points in the session being resumed: the
/// position of entry `at` among its known entries (a fork copies them in
/// order under new uuids, so the position survives it).
pub(super) fn resume_point(resumed: &ResumedSession, at: &str) -> Result<usize, String> {
    known_entries(resumed)
        .position(|e| e.uuid == at.trim())
        .ok_or_else(|| not_a_message(resumed, at))
}

fn known_entries(
    resumed: &ResumedSession,
) -> impl Iterator<Item = &crate::session::TranscriptEntry> {
    resumed
        .entries
        .iter()
        .filter(|e| !matches!(e.body, crate::session::EntryBody::Unknown))
}

fn not_a_message(resumed: &ResumedSession, at: &str) -> String {
    format!(
        "--resume-session-at: session {} has no message {at} (give the uuid of one of its \
         messages, as the SDK reports it)",
        resumed.session_id
    )
}

/// The conversation a resumed session continues: all of it, or only up to
/// the message at `point` (see [`resume_point`]), and that message's uuid
/// in this session's transcript.
pub(super) fn resumed_messages(
    resumed: &ResumedSession,
    point: Option<usize>,
) -> Result<(Vec<Message>, Option<String>), String> {
    let Some(point) = point else {
        return Ok((resumed.messages.clone(), None));
    };
    let uuid = known_entries(resumed)
        .nth(point)
        .map(|e| e.uuid.clone())
        .ok_or_else(|| not_a_message(resumed, &point.to_string()))?;
    let messages = crate::session::rebuild::rebuild_messages_up_to(&resumed.entries, &uuid)
        .ok_or_else(|| not_a_message(resumed, &uuid))?;
    Ok((messages, Some(uuid)))
}
