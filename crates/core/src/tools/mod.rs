//! Tools the model can call. Each tool is one file implementing
//! [`TypedTool`] (a typed input struct with a strict schema); the blanket
//! impl turns it into the object-safe [`Tool`] the engine and registry use.
//!
//! A tool never decides whether it may run: it describes what it would touch
//! through [`Tool::access`], and the permission layer decides.

pub mod ask_user_question;
pub mod bash;
pub mod context;
pub mod edit;
pub mod editor_files;
pub mod fs_atomic;
pub mod glob;
mod glob_select;
pub mod grep;
pub mod grep_search;
pub mod live;
pub mod media;
pub mod notebook_edit;
pub mod pdf_text;
pub mod read;
pub mod registry;
pub mod shells;
#[cfg(test)]
mod test_support;
pub mod todo_write;
mod walk;
pub mod web_fetch;
pub mod write;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use context::{
    CallingMessageCalls, CallingMessageText, ContextValues, FileStamp, ReadOnlyAgent,
    SessionHandle, SessionHooks, TodoObserver, ToolContext,
};
pub use registry::ToolRegistry;
pub use todo_write::{TodoItem, TodoStatus};

use crate::permissions::Access;

/// What a tool call produced.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The text the model receives in the tool_result.
    pub content: String,
    /// An optional richer rendering for the user (a diff, a summary line).
    pub display: Option<String>,
    /// The call completed but reports a failure the model should see as an
    /// error (e.g. a non-zero exit code is *not* this; a refused write is).
    pub is_error: bool,
    /// The call ran but did not succeed in the user's eyes (a command that
    /// exited non-zero or was killed): front ends show it as failed even
    /// though the model receives an ordinary result.
    pub failed: bool,
    /// Images and documents the model receives after `content` (Read of
    /// a PNG or a PDF).
    pub media: Vec<catui_protocol::ContentBlock>,
}

impl ToolOutput {
    pub fn text(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            display: None,
            is_error: false,
            failed: false,
            media: Vec::new(),
        }
    }

    pub fn with_display(mut self, display: impl Into<String>) -> Self {
        self.display = Some(display.into());
        self
    }
}

/// Why a tool call failed. The message goes to the model as an error
/// tool_result, so it says what was wrong and what to do instead.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ToolError {
    /// The input does not match the schema or fails validation.
    #[error("{0}")]
    InvalidInput(String),
    /// The call ran and failed.
    #[error("{0}")]
    Failed(String),
    /// The call failed, with advice meant for the model only (what to try
    /// instead). The model receives both; the user is shown `message`.
    #[error("{message} {advice}")]
    Advised { message: String, advice: String },
    /// The call was interrupted.
    #[error("interrupted by the user")]
    Cancelled,
}

impl ToolError {
    pub fn failed(msg: impl Into<String>) -> Self {
        ToolError::Failed(msg.into())
    }
    pub fn invalid(msg: impl Into<String>) -> Self {
        ToolError::InvalidInput(msg.into())
    }
    pub fn advised(message: impl Into<String>, advice: impl Into<String>) -> Self {
        ToolError::Advised {
            message: message.into(),
            advice: advice.into(),
        }
    }
    /// The text shown to the user: the error without advice for the model.
    pub fn user_text(&self) -> String {
        match self {
            ToolError::Advised { message, .. } => message.clone(),
            other => other.to_string(),
        }
    }
}

/// A tool with a typed input. Implement this; the engine sees [`Tool`].
#[async_trait]
pub trait TypedTool: Send + Sync + 'static {
    /// Input struct: `#[derive(Deserialize, JsonSchema)]` with
    /// `#[serde(deny_unknown_fields)]` so the schema is strict.
    type Input: DeserializeOwned + JsonSchema + Send + Sync;

    /// The model-facing name (`Read`, `Grep`, ...).
    fn name(&self) -> &'static str;
    /// The model-facing description.
    fn description(&self) -> String;
    /// Whether this call only reads.
    fn is_read_only(&self, input: &Self::Input) -> bool;
    /// Whether this call may run at the same time as other safe calls.
    fn is_concurrency_safe(&self, input: &Self::Input) -> bool;
    /// Checks beyond the schema (ranges, mutually exclusive fields, paths).
    async fn validate_input(
        &self,
        _input: &Self::Input,
        _ctx: &ToolContext,
    ) -> Result<(), ToolError> {
        Ok(())
    }
    /// What this call would touch, for the permission layer.
    fn access(&self, input: &Self::Input, ctx: &ToolContext) -> Access;
    /// Runs the call.
    async fn call(&self, input: Self::Input, ctx: &ToolContext) -> Result<ToolOutput, ToolError>;
    /// A one-line summary for the user, e.g. `Read(src/main.rs)`.
    fn summary(&self, _input: &Self::Input) -> String {
        self.name().to_string()
    }
    /// The input shown to the user when asking permission, when it should
    /// carry more than the model sent (ExitPlanMode adds the plan).
    fn permission_input(&self, _input: &Self::Input, _ctx: &ToolContext) -> Option<Value> {
        None
    }
    /// The tool result when the user declines the call, when the tool has a
    /// more precise one than the generic text.
    fn denied_result(
        &self,
        _input: &Self::Input,
        _feedback: &str,
        _ctx: &ToolContext,
    ) -> Option<String> {
        None
    }
    /// The one-line summary shown to the user for a declined call, when
    /// the tool words it better than "Declined · feedback".
    fn denied_summary(&self, _input: &Self::Input, _feedback: &str) -> Option<String> {
        None
    }
    /// The tool result when no decision came back for the call (see
    /// [`crate::engine::PermissionAnswer::Unanswered`]), when the tool has a
    /// more precise one than the generic text.
    fn unanswered_result(
        &self,
        _input: &Self::Input,
        _reason: &str,
        _ctx: &ToolContext,
    ) -> Option<String> {
        None
    }
    /// True when the call itself sets the permission mode once approved
    /// (its input's `mode`): a mode change that comes with the approval is
    /// handed to it instead of being made before it runs.
    fn takes_mode_in_input(&self) -> bool {
        false
    }
    /// True when the call could run as a dry run in a throwaway copy of
    /// the project, were the user to choose it at the prompt (a
    /// foreground shell command).
    fn can_run_dry(&self, _input: &Self::Input) -> bool {
        false
    }
    /// The user allowed the call with `answer` (the input they approved),
    /// but what they were shown has changed since: why they are asked
    /// again. `None`: the answer stands.
    fn stale_answer(
        &self,
        _input: &Self::Input,
        _answer: &Value,
        _ctx: &ToolContext,
    ) -> Option<String> {
        None
    }
}

/// The object-safe view of a tool, over JSON input.
#[async_trait]
pub trait Tool: Send + Sync {
    fn name(&self) -> &str;
    fn description(&self) -> String;
    /// Strict JSON schema of the input (`additionalProperties: false`).
    fn input_schema(&self) -> Value;
    /// Parses the input against the schema; the error says what is wrong.
    fn parse(&self, input: &Value) -> Result<ParsedCall, ToolError>;
}

/// A call whose input parsed: everything the engine needs to ask, check and
/// run it.
#[async_trait]
pub trait PreparedCall: Send + Sync {
    fn is_read_only(&self) -> bool;
    fn is_concurrency_safe(&self) -> bool;
    fn access(&self, ctx: &ToolContext) -> Access;
    fn summary(&self) -> String;
    async fn validate(&self, ctx: &ToolContext) -> Result<(), ToolError>;
    fn permission_input(&self, ctx: &ToolContext) -> Option<Value>;
    fn denied_result(&self, feedback: &str, ctx: &ToolContext) -> Option<String>;
    fn denied_summary(&self, _feedback: &str) -> Option<String> {
        None
    }
    fn unanswered_result(&self, _reason: &str, _ctx: &ToolContext) -> Option<String> {
        None
    }
    fn takes_mode_in_input(&self) -> bool;
    fn can_run_dry(&self) -> bool {
        false
    }
    fn stale_answer(&self, _answer: &Value, _ctx: &ToolContext) -> Option<String> {
        None
    }
    async fn call(self: Box<Self>, ctx: &ToolContext) -> Result<ToolOutput, ToolError>;
}

pub type ParsedCall = Box<dyn PreparedCall>;

struct Typed<T: TypedTool> {
    tool: std::sync::Arc<T>,
    input: T::Input,
}

#[async_trait]
impl<T: TypedTool> PreparedCall for Typed<T> {
    fn is_read_only(&self) -> bool {
        self.tool.is_read_only(&self.input)
    }
    fn is_concurrency_safe(&self) -> bool {
        self.tool.is_concurrency_safe(&self.input)
    }
    fn access(&self, ctx: &ToolContext) -> Access {
        self.tool.access(&self.input, ctx)
    }
    fn summary(&self) -> String {
        self.tool.summary(&self.input)
    }
    async fn validate(&self, ctx: &ToolContext) -> Result<(), ToolError> {
        self.tool.validate_input(&self.input, ctx).await
    }
    fn permission_input(&self, ctx: &ToolContext) -> Option<Value> {
        self.tool.permission_input(&self.input, ctx)
    }
    fn denied_result(&self, feedback: &str, ctx: &ToolContext) -> Option<String> {
        self.tool.denied_result(&self.input, feedback, ctx)
    }
    fn denied_summary(&self, feedback: &str) -> Option<String> {
        self.tool.denied_summary(&self.input, feedback)
    }
    fn unanswered_result(&self, reason: &str, ctx: &ToolContext) -> Option<String> {
        self.tool.unanswered_result(&self.input, reason, ctx)
    }
    fn takes_mode_in_input(&self) -> bool {
        self.tool.takes_mode_in_input()
    }
    fn can_run_dry(&self) -> bool {
        self.tool.can_run_dry(&self.input)
    }
    fn stale_answer(&self, answer: &Value, ctx: &ToolContext) -> Option<String> {
        self.tool.stale_answer(&self.input, answer, ctx)
    }
    async fn call(self: Box<Self>, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let this = *self;
        this.tool.call(this.input, ctx).await
    }
}

/// Adapts a [`TypedTool`] to [`Tool`].
pub struct Adapter<T: TypedTool>(pub std::sync::Arc<T>);

#[async_trait]
impl<T: TypedTool> Tool for Adapter<T> {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn description(&self) -> String {
        self.0.description()
    }
    fn input_schema(&self) -> Value {
        strict_schema::<T::Input>()
    }
    fn parse(&self, input: &Value) -> Result<ParsedCall, ToolError> {
        if !input.is_object() {
            let shown = match input {
                Value::String(raw) => raw.clone(),
                other => other.to_string(),
            };
            return Err(ToolError::invalid(format!(
                "The input for {} must be a JSON object, but it was not valid JSON object text: {}",
                self.0.name(),
                truncate_for_error(&shown)
            )));
        }
        let parsed: T::Input = serde_json::from_value(input.clone()).map_err(|e| {
            ToolError::invalid(format!(
                "Invalid input for {}: {e}. Check the tool's input schema.",
                self.0.name()
            ))
        })?;
        Ok(Box::new(Typed {
            tool: self.0.clone(),
            input: parsed,
        }))
    }
}

/// The JSON schema of `T` as a plain object schema with no `$schema` or
/// `title` noise and `additionalProperties: false`. The input type's own doc
/// comment is for developers and is left out (the tool's description speaks
/// to the model), and doc-comment line breaks inside a sentence become
/// spaces. Generated once per type and process: every model request lists
/// every tool's schema, for every agent.
pub fn strict_schema<T: JsonSchema + 'static>() -> Value {
    use std::any::TypeId;
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static CACHE: OnceLock<Mutex<HashMap<TypeId, Value>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(schema) = crate::sync::lock(cache).get(&TypeId::of::<T>()) {
        return schema.clone();
    }
    let schema = generate_strict_schema::<T>();
    crate::sync::lock(cache).insert(TypeId::of::<T>(), schema.clone());
    schema
}

fn generate_strict_schema<T: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    let schema = generator.into_root_schema_for::<T>();
    let mut value = schema.to_value();
    unwrap_doc_lines(&mut value);
    if let Some(obj) = value.as_object_mut() {
        obj.remove("$schema");
        obj.remove("title");
        obj.remove("description");
        obj.entry("additionalProperties")
            .or_insert(Value::Bool(false));
        obj.entry("properties")
            .or_insert_with(|| Value::Object(Default::default()));
    }
    value
}

/// Joins the lines of every `description` that a doc comment wrapped: a
/// line break stays only before a blank line or a list item.
fn unwrap_doc_lines(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match v {
                    Value::String(text) if key == "description" => *text = unwrap_lines(text),
                    _ => unwrap_doc_lines(v),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(unwrap_doc_lines),
        _ => {}
    }
}

fn unwrap_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        out.push_str(line.trim_end());
        if let Some(next) = lines.peek() {
            let keep = line.trim().is_empty() || next.trim().is_empty() || next.starts_with("- ");
            out.push(if keep { '\n' } else { ' ' });
        }
    }
    out
}

fn truncate_for_error(s: &str) -> String {
    const MAX: usize = 300;
    if s.len() <= MAX {
        return s.to_string();
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes in all)", &s[..end], s.len())
}
