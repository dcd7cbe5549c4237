//! Edit: replaces an exact string in a file the model has read, keeping the
//! file's line endings (LF or CRLF) and its trailing newline, atomically.

use std::path::Path;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::fs_atomic::write_atomic;
use super::read::numbered_snippet;
use super::write::{ensure_fresh, unified_diff, write_error};
use super::{ToolContext, ToolError, ToolOutput, TypedTool};
use crate::permissions::Access;

/// Lines of context around the change in the snippet the model gets back.
const SNIPPET_CONTEXT: usize = 4;

pub struct EditTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditInput {
    /// Path of the file to change: absolute, or relative to the working directory.
    pub file_path: String,
    /// The exact text to replace, as it appears in the file (without Read's line-number prefixes).
    pub old_string: String,
    /// The text to put in its place; must differ from old_string.
    pub new_string: String,
    /// Replace every occurrence of old_string instead of requiring exactly one (default false).
    #[serde(default)]
    pub replace_all: bool,
}

#[async_trait]
impl TypedTool for EditTool {
    type Input = EditInput;
    fn name(&self) -> &'static str {
        "Edit"
    }
    fn description(&self) -> String {
        "Replaces exact text in a file.\n\
         \n\
         - Read the file first in this conversation; edits to unread files, or to files that \
           changed since you read them, are refused.\n\
         - `old_string` must match the file exactly, whitespace and indentation included. Copy it \
           from Read's output without the line-number prefix (the number and the tab before the \
           text).\n\
         - By default `old_string` must occur exactly once. If it occurs several times, include \
           more surrounding lines to make it unique, or set `replace_all` to change every \
           occurrence (useful for renaming).\n\
         - The file's line endings (LF or CRLF) and final newline are kept.\n\
         - With an empty `old_string` and a file that does not exist yet, the file is created \
           with `new_string` as its content."
            .into()
    }
    fn is_read_only(&self, _: &EditInput) -> bool {
        false
    }
    fn is_concurrency_safe(&self, _: &EditInput) -> bool {
        false
    }
    async fn validate_input(&self, input: &EditInput, _: &ToolContext) -> Result<(), ToolError> {
        if input.file_path.trim().is_empty() {
            return Err(ToolError::invalid(
                "file_path is empty: give the path of the file to edit.",
            ));
        }
        if input.old_string == input.new_string {
            return Err(ToolError::invalid(
                "old_string and new_string are identical, so the edit would change nothing. \
                 Give the new text in new_string.",
            ));
        }
        Ok(())
    }
    fn access(&self, input: &EditInput, ctx: &ToolContext) -> Access {
        Access::Write {
            path: ctx.resolve(&input.file_path),
        }
    }
    fn summary(&self, input: &EditInput) -> String {
        format!("Edit({})", input.file_path)
    }
    async fn call(&self, input: EditInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let path = ctx.resolve(&input.file_path);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return create_with_empty_old(&path, &input, ctx);
            }
            Err(e) if path.is_dir() => {
                return Err(ToolError::failed(format!(
                    "{} is a directory, not a file ({e}).",
                    path.display()
                )));
            }
            Err(e) => {
                return Err(ToolError::failed(format!(
                    "Could not read {}: {e}.",
                    path.display()
                )));
            }
        };
        ensure_fresh(ctx, &path)?;
        let Ok(original) = String::from_utf8(bytes) else {
            return Err(ToolError::failed(format!(
                "{} is not valid UTF-8 text, and Edit only changes UTF-8 files (to keep the \
                 encoding intact). Use Bash with a tool that understands its encoding.",
                path.display()
            )));
        };
        let applied = apply_edit(&original, &input)?;
        write_atomic(&path, applied.content.as_bytes()).map_err(|e| write_error(&path, &e))?;
        ctx.record_read(&path);

        let what = if applied.replacements == 1 {
            format!("Edited {}.", path.display())
        } else {
            format!(
                "Edited {}: replaced {} occurrences.",
                path.display(),
                applied.replacements
            )
        };
        let content = format!(
            "{what} The lines around the {}change now read:\n{}",
            if applied.replacements > 1 {
                "first "
            } else {
                ""
            },
            snippet(&applied.content, applied.first_line, applied.new_lines)
        );
        Ok(
            ToolOutput::text(content).with_display(unified_diff(
                &path,
                &original,
                &applied.content,
            )),
        )
    }
}

/// The convention that an empty `old_string` on a missing file creates it.
fn create_with_empty_old(
    path: &Path,
    input: &EditInput,
    ctx: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    if !input.old_string.is_empty() {
        return Err(ToolError::failed(format!(
            "File does not exist: {}. Check the path (Glob can find it), or use Write to create \
             a new file.",
            path.display()
        )));
    }
    write_atomic(path, input.new_string.as_bytes()).map_err(|e| write_error(path, &e))?;
    ctx.record_read(path);
    let lines = input.new_string.lines().count();
    Ok(
        ToolOutput::text(format!("Created {} ({lines} lines).", path.display()))
            .with_display(unified_diff(path, "", &input.new_string)),
    )
}

/// The result of applying an edit to a file's text.
#[derive(Debug)]
struct Applied {
    content: String,
    replacements: usize,
    /// 0-based line of the first replacement in the new content.
    first_line: usize,
    /// Lines the first replacement spans in the new content.
    new_lines: usize,
}

fn apply_edit(original: &str, input: &EditInput) -> Result<Applied, ToolError> {
    let crlf = uses_crlf(original);
    let old = with_line_endings(&input.old_string, crlf);
    let new = with_line_endings(&input.new_string, crlf);

    if old.is_empty() {
        if !original.is_empty() {
            return Err(ToolError::failed(
                "old_string is empty, but the file is not. Give the exact text to replace, or \
                 use Write to replace the whole file.",
            ));
        }
        return Ok(Applied {
            replacements: 1,
            first_line: 0,
            new_lines: new.lines().count().max(1),
            content: new,
        });
    }
    let count = original.matches(old.as_str()).count();
    if count == 0 {
        return Err(ToolError::failed(
            "old_string was not found in the file. It must match exactly, including whitespace, \
             indentation and line breaks, and must not include Read's line-number prefixes. Read \
             the file again to copy the current text.",
        ));
    }
    if count > 1 && !input.replace_all {
        return Err(ToolError::failed(format!(
            "old_string occurs {count} times in the file, but replace_all is false. Include more \
             surrounding lines in old_string so that it matches exactly one place, or set \
             replace_all to true to change all {count}."
        )));
    }
    let first_at = original.find(old.as_str()).unwrap_or(0);
    let mut content = if input.replace_all {
        original.replace(old.as_str(), &new)
    } else {
        original.replacen(old.as_str(), &new, 1)
    };
    keep_trailing_newline(original, &mut content, crlf);
    Ok(Applied {
        replacements: count,
        first_line: original[..first_at].matches('\n').count(),
        new_lines: new.matches('\n').count() + 1,
        content,
    })
}

/// Whether the file's first line ending is CRLF.
fn uses_crlf(text: &str) -> bool {
    text.find('\n')
        .is_some_and(|i| i > 0 && text.as_bytes()[i - 1] == b'\r')
}

/// Converts the model's text to the file's line endings (the model sees
/// CRLF files through Read without the `\r`).
fn with_line_endings(s: &str, crlf: bool) -> String {
    if crlf {
        s.replace("\r\n", "\n").replace('\n', "\r\n")
    } else {
        s.to_string()
    }
}

/// Keeps the presence or absence of a final newline as the file had it.
fn keep_trailing_newline(original: &str, content: &mut String, crlf: bool) {
    if content.is_empty() {
        return;
    }
    let eol = if crlf { "\r\n" } else { "\n" };
    let had = original.ends_with('\n');
    let has = content.ends_with('\n');
    if had && !has {
        content.push_str(eol);
    } else if !had && has {
        // Drop only the one line ending the edit added, not blank lines.
        let cut = if content.ends_with("\r\n") { 2 } else { 1 };
        content.truncate(content.len() - cut);
    }
}

fn snippet(content: &str, first_line: usize, span: usize) -> String {
    let start = first_line.saturating_sub(SNIPPET_CONTEXT);
    let end = first_line + span + SNIPPET_CONTEXT;
    numbered_snippet(
        start as u64 + 1,
        content.lines().skip(start).take(end - start),
    )
}

#[cfg(test)]
#[path = "edit_tests.rs"]
mod tests;
