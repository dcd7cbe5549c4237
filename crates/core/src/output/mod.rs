//! Structured output (`--json-schema`, the SDKs' `output_format`): the
//! run's final answer is data that matches a JSON schema, returned in the
//! result as `structured_output`.
//!
//! The model gives it by calling the `StructuredOutput` tool, whose input
//! schema is the caller's schema (so providers that constrain tool input
//! help it get it right); a tool call is sturdier than parsing prose for
//! JSON. This module owns the tool and the extension that answers it:
//!
//! - a call whose input matches the schema ends the run with that value;
//! - one that does not is answered with the validation errors, so the
//!   model can correct it, at most [`MAX_ATTEMPTS`] times; then the run
//!   ends as `error_max_structured_output_retries`;
//! - a model that ends its turn without calling the tool is reminded once;
//!   if it still does not, the run ends with its text and no data.
//!
//! Only the main conversation is offered the tool. The schema may be set
//! after the session started (the TypeScript SDK sends it in
//! `initialize`).

mod tool;

use std::sync::{Arc, Mutex};

use catui_protocol::stream_json::ResultSubtype;
use catui_protocol::sync::lock;
use serde_json::Value;

use crate::engine::{EngineExtension, RunEnd, ToolCallView, ToolGate, TurnEnd};
use crate::tools::registry::ToolSource;

use catui_protocol::tool_names::STRUCTURED_OUTPUT as TOOL_NAME;

/// Calls with output that does not match the schema before the run gives
/// up.
pub const MAX_ATTEMPTS: u32 = 5;

/// Why a schema cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    #[error(
        "the JSON schema must describe an object (`\"type\": \"object\"`): tool input is always an object; wrap other values in a property"
    )]
    NotAnObject,
    #[error("the JSON schema is not valid: {0}")]
    Invalid(String),
}

#[derive(Default)]
struct State {
    schema: Option<Value>,
    /// Calls this input whose output did not match.
    failed_attempts: u32,
    /// The model was reminded to call the tool this input.
    reminded: bool,
}

/// The session's output format: the schema (if any) and this input's
/// attempts. Cheap to clone; clones share.
#[derive(Clone, Default)]
pub struct OutputFormat(Arc<Mutex<State>>);

impl OutputFormat {
    /// Asks for output matching `schema` from the next request on.
    pub fn set_schema(&self, schema: Value) -> Result<(), SchemaError> {
        check_schema(&schema)?;
        lock(&self.0).schema = Some(schema);
        Ok(())
    }

    /// The schema asked for, if any.
    pub fn schema(&self) -> Option<Value> {
        lock(&self.0).schema.clone()
    }

    /// The extension that answers the tool and reminds the model.
    pub fn extension(&self) -> Arc<dyn EngineExtension> {
        Arc::new(self.clone())
    }

    /// Offers the tool while a schema is set (for the main conversation's
    /// registry only).
    pub fn tool_source(&self) -> Arc<dyn ToolSource> {
        Arc::new(tool::OutputTools(self.clone()))
    }

    fn reset(&self) {
        let mut state = lock(&self.0);
        state.failed_attempts = 0;
        state.reminded = false;
    }
}

/// Checks that `schema` is an object schema the validator accepts.
pub fn check_schema(schema: &Value) -> Result<(), SchemaError> {
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err(SchemaError::NotAnObject);
    }
    compile(schema).map(|_| ())
}

fn compile(schema: &Value) -> Result<(boon::Schemas, boon::SchemaIndex), SchemaError> {
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    // Only the schema itself: no `$ref` reaches files or the network.
    compiler.use_loader(Box::new(NoLoader));
    const LOCATION: &str = "urn:catui:output-schema";
    compiler
        .add_resource(LOCATION, schema.clone())
        .map_err(|e| SchemaError::Invalid(e.to_string()))?;
    let index = compiler
        .compile(LOCATION, &mut schemas)
        .map_err(|e| SchemaError::Invalid(e.to_string()))?;
    Ok((schemas, index))
}

struct NoLoader;

impl boon::UrlLoader for NoLoader {
    fn load(&self, url: &str) -> Result<Value, Box<dyn std::error::Error>> {
        Err(format!("{url}: an output schema cannot refer to other documents").into())
    }
}

/// Why a value was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValidationError {
    /// The schema itself is unusable: no value would be accepted.
    #[error(transparent)]
    Schema(#[from] SchemaError),
    /// The value does not match: what does not, one line each.
    #[error("{0}")]
    Mismatch(String),
}

/// Whether `value` matches `schema`; the error lists what does not.
pub fn validate(schema: &Value, value: &Value) -> Result<(), ValidationError> {
    let (schemas, index) = compile(schema)?;
    if !schemas.contains(index) {
        return Err(SchemaError::Invalid("the schema could not be compiled".into()).into());
    }
    schemas
        .validate(value, index)
        .map_err(|e| ValidationError::Mismatch(e.to_string()))
}

impl EngineExtension for OutputFormat {
    fn before_tool(&self, call: &ToolCallView<'_>) -> ToolGate {
        if call.name != TOOL_NAME || call.agent_id.is_some() {
            return ToolGate::Continue;
        }
        let Some(schema) = self.schema() else {
            return ToolGate::Continue;
        };
        match validate(&schema, call.input) {
            Ok(()) => ToolGate::Answer {
                content: "The structured output was accepted.".into(),
                display: "Structured output accepted".into(),
                is_error: false,
                end_run: Some(RunEnd {
                    subtype: ResultSubtype::Success,
                    result: call.input.to_string(),
                    structured_output: Some(call.input.clone()),
                }),
            },
            Err(why) => {
                let why = why.to_string();
                let attempts = {
                    let mut state = lock(&self.0);
                    state.failed_attempts += 1;
                    state.failed_attempts
                };
                let content = format!(
                    "The output does not match the required schema:\n{why}\nCall {TOOL_NAME} again with output that matches the schema."
                );
                let end_run = (attempts >= MAX_ATTEMPTS).then(|| {
                    RunEnd::new(
                        ResultSubtype::ErrorMaxStructuredOutputRetries,
                        format!(
                            "No valid structured output after {attempts} attempts; the last one failed with: {why}"
                        ),
                    )
                });
                ToolGate::Answer {
                    content,
                    display: format!("Structured output refused: {}", first_line(&why)),
                    is_error: true,
                    end_run,
                }
            }
        }
    }

    fn turn_ending(&self) -> TurnEnd {
        let mut state = lock(&self.0);
        if state.schema.is_none() || state.reminded {
            return TurnEnd::Accept;
        }
        state.reminded = true;
        TurnEnd::Continue(format!(
            "This run must end with a call to the {TOOL_NAME} tool, whose input is your final \
             answer in the required format. Call {TOOL_NAME} now."
        ))
    }

    fn input_handled(&self) -> Vec<crate::engine::Notice> {
        self.reset();
        Vec::new()
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or(text)
}

#[cfg(test)]
#[path = "output_tests.rs"]
mod tests;
