//! NotebookEdit: replaces, inserts or deletes one cell of a Jupyter
//! notebook (`.ipynb`), editing the JSON in place so every other field is
//! kept and the file stays a valid notebook. Written atomically.

use catui_protocol::tool_names;
use std::path::Path;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::fs_atomic::write_atomic;
use super::write::{MAX_EDIT_FILE_BYTES, refuse_special_file, write_error};
use super::{ToolContext, ToolError, ToolOutput, TypedTool};
use crate::permissions::Access;

pub struct NotebookEditTool;

/// The kind of a notebook cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    Code,
    Markdown,
}

impl CellType {
    fn as_str(self) -> &'static str {
        match self {
            CellType::Code => "code",
            CellType::Markdown => "markdown",
        }
    }
}

/// What to do with the cell.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EditMode {
    #[default]
    Replace,
    Insert,
    Delete,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotebookEditInput {
    /// Path of the .ipynb file: absolute, or relative to the project root.
    pub notebook_path: String,
    /// The cell to act on: its `id`, or its 0-based position. With insert, the new cell goes after it (at the start when omitted).
    #[serde(default)]
    pub cell_id: Option<String>,
    /// The new source of the cell (ignored for delete).
    #[serde(default)]
    pub new_source: String,
    /// code or markdown. Required for insert; for replace it defaults to the cell's current type.
    #[serde(default)]
    pub cell_type: Option<CellType>,
    /// replace (default), insert or delete.
    #[serde(default)]
    pub edit_mode: EditMode,
}

#[async_trait]
impl TypedTool for NotebookEditTool {
    type Input = NotebookEditInput;
    fn name(&self) -> &'static str {
        tool_names::NOTEBOOK_EDIT
    }
    fn description(&self) -> String {
        "Changes one cell of a Jupyter notebook (.ipynb file).\n\
         \n\
         - `edit_mode` replace (default) sets the source of the cell named by `cell_id`; insert \
           adds a new cell after `cell_id` (or at the start when `cell_id` is omitted) and needs \
           `cell_type`; delete removes the cell.\n\
         - `cell_id` is the cell's id from the notebook, or its 0-based position.\n\
         - Replacing a code cell clears its outputs and execution count. Other cells and notebook \
           metadata are left as they are.\n\
         - Use Read to see the notebook first; use Edit or Write only for non-notebook files."
            .into()
    }
    fn is_read_only(&self, _: &NotebookEditInput) -> bool {
        false
    }
    fn is_concurrency_safe(&self, _: &NotebookEditInput) -> bool {
        false
    }
    async fn validate_input(
        &self,
        input: &NotebookEditInput,
        _: &ToolContext,
    ) -> Result<(), ToolError> {
        let is_ipynb = Path::new(&input.notebook_path)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("ipynb"));
        if !is_ipynb {
            return Err(ToolError::invalid(format!(
                "{} is not a Jupyter notebook (.ipynb). Use Edit or Write for other files.",
                input.notebook_path
            )));
        }
        if input.edit_mode == EditMode::Insert && input.cell_type.is_none() {
            return Err(ToolError::invalid(
                "cell_type is required when inserting a cell: give \"code\" or \"markdown\".",
            ));
        }
        if input.edit_mode != EditMode::Insert && input.cell_id.is_none() {
            return Err(missing_cell_id());
        }
        Ok(())
    }
    fn access(&self, input: &NotebookEditInput, ctx: &ToolContext) -> Access {
        Access::Write {
            path: ctx.resolve(&input.notebook_path),
        }
    }
    fn summary(&self, input: &NotebookEditInput) -> String {
        format!("NotebookEdit({})", input.notebook_path)
    }
    async fn call(
        &self,
        input: NotebookEditInput,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let path = ctx.resolve(&input.notebook_path);
        refuse_special_file(&path, tool_names::NOTEBOOK_EDIT)?;
        let text = crate::safe_fs::read_text_bounded(&path, MAX_EDIT_FILE_BYTES)
            .map_err(|e| ToolError::failed(format!("Could not read the notebook: {e}.")))?;
        let mut notebook: Value = serde_json::from_str(&text).map_err(|e| {
            ToolError::failed(format!(
                "{} is not valid notebook JSON ({e}); fix the file before editing cells.",
                path.display()
            ))
        })?;
        let message = apply(&mut notebook, &input)?;
        let mut bytes = to_notebook_json(&notebook)?;
        bytes.push(b'\n');
        write_atomic(&path, &bytes).map_err(|e| write_error(&path, &e))?;
        ctx.record_read(&path);
        Ok(ToolOutput::text(format!(
            "{message} in {}.",
            path.display()
        )))
    }
}

/// Applies the edit to the parsed notebook; returns what was done.
fn apply(notebook: &mut Value, input: &NotebookEditInput) -> Result<String, ToolError> {
    let with_ids = supports_cell_ids(notebook);
    let Some(cells) = notebook.get_mut("cells").and_then(Value::as_array_mut) else {
        return Err(ToolError::failed(
            "The notebook has no \"cells\" list, so it is not a valid Jupyter notebook.",
        ));
    };
    let index = match &input.cell_id {
        Some(id) => Some(find_cell(cells, id)?),
        None => None,
    };
    match input.edit_mode {
        EditMode::Delete => {
            let i = index.ok_or_else(missing_cell_id)?;
            cells.remove(i);
            Ok(format!("Deleted cell {}", describe_cell(input, i)))
        }
        EditMode::Insert => {
            let at = index.map_or(0, |i| i + 1);
            let kind = input.cell_type.unwrap_or(CellType::Code);
            let cell = new_cell(kind, &input.new_source, with_ids);
            let id = cell.get("id").and_then(Value::as_str).map(str::to_owned);
            cells.insert(at, cell);
            Ok(match id {
                Some(id) => format!(
                    "Inserted a {} cell (id {id}) at position {at}",
                    kind.as_str()
                ),
                None => format!("Inserted a {} cell at position {at}", kind.as_str()),
            })
        }
        EditMode::Replace => {
            let i = index.ok_or_else(missing_cell_id)?;
            let Some(cell) = cells[i].as_object_mut() else {
                return Err(ToolError::failed(format!(
                    "Cell {i} of the notebook is not a JSON object; the notebook is malformed."
                )));
            };
            let current = cell
                .get("cell_type")
                .and_then(Value::as_str)
                .unwrap_or("code");
            let kind = input
                .cell_type
                .map_or(current.to_string(), |k| k.as_str().to_string());
            cell.insert("cell_type".into(), Value::String(kind.clone()));
            cell.insert("source".into(), source_lines(&input.new_source));
            if kind == "code" {
                cell.insert("execution_count".into(), Value::Null);
                cell.insert("outputs".into(), Value::Array(Vec::new()));
            } else {
                cell.remove("execution_count");
                cell.remove("outputs");
            }
            cell.entry("metadata").or_insert_with(|| json!({}));
            Ok(format!("Replaced cell {}", describe_cell(input, i)))
        }
    }
}

fn missing_cell_id() -> ToolError {
    ToolError::invalid(
        "cell_id is required to replace or delete a cell: give the cell's id or its 0-based \
         position.",
    )
}

fn describe_cell(input: &NotebookEditInput, index: usize) -> String {
    match &input.cell_id {
        Some(id) if id.parse::<usize>().ok() != Some(index) => format!("{id} (position {index})"),
        _ => format!("at position {index}"),
    }
}

/// Finds a cell by its `id`, else by a numeric position.
fn find_cell(cells: &[Value], id: &str) -> Result<usize, ToolError> {
    if let Some(i) = cells
        .iter()
        .position(|c| c.get("id").and_then(Value::as_str) == Some(id))
    {
        return Ok(i);
    }
    match id.trim().parse::<usize>() {
        Ok(i) if i < cells.len() => Ok(i),
        Ok(i) => Err(ToolError::failed(format!(
            "Cell position {i} is out of range: the notebook has {} cells (positions 0 to {}).",
            cells.len(),
            cells.len().saturating_sub(1)
        ))),
        Err(_) => Err(ToolError::failed(format!(
            "No cell has the id \"{id}\". Read the notebook to see the cell ids, or give a 0-based \
             position."
        ))),
    }
}

/// Cell ids exist from nbformat 4.5 on.
fn supports_cell_ids(notebook: &Value) -> bool {
    let major = notebook
        .get("nbformat")
        .and_then(Value::as_u64)
        .unwrap_or(4);
    let minor = notebook
        .get("nbformat_minor")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    major > 4 || (major == 4 && minor >= 5)
}

fn new_cell(kind: CellType, source: &str, with_id: bool) -> Value {
    let mut cell = Map::new();
    cell.insert("cell_type".into(), Value::String(kind.as_str().into()));
    if with_id {
        let id = uuid::Uuid::new_v4().simple().to_string();
        cell.insert("id".into(), Value::String(id[..8].to_string()));
    }
    cell.insert("metadata".into(), json!({}));
    if kind == CellType::Code {
        cell.insert("execution_count".into(), Value::Null);
        cell.insert("outputs".into(), Value::Array(Vec::new()));
    }
    cell.insert("source".into(), source_lines(source));
    Value::Object(cell)
}

/// Jupyter stores source as a list of lines, each keeping its `\n`.
fn source_lines(source: &str) -> Value {
    Value::Array(
        source
            .split_inclusive('\n')
            .map(|l| Value::String(l.to_string()))
            .collect(),
    )
}

/// Serialises like Jupyter does: one-space indentation.
fn to_notebook_json(notebook: &Value) -> Result<Vec<u8>, ToolError> {
    let mut out = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(b" ");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
    notebook
        .serialize(&mut ser)
        .map_err(|e| ToolError::failed(format!("Could not serialise the notebook: {e}.")))?;
    Ok(out)
}

#[cfg(test)]
#[path = "notebook_edit_tests.rs"]
mod tests;
