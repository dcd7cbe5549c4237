//! Edit: replaces an exact string in a file the model has read, keeping the
//! file's line endings (LF or CRLF) and its trailing newline, atomically.

use catui_protocol::tool_names;
use std::path::Path;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::editor_files::{EditorFs, write_text};
use super::fs_atomic::write_atomic;
use super::read::numbered_snippet;
use super::write::{
    MAX_EDIT_FILE_BYTES, ensure_fresh, refuse_special_file, unified_diff, write_error,
};
use super::{ToolContext, ToolError, ToolOutput, TypedTool};
use crate::permissions::Access;
use crate::safe_fs::{self, SafeReadError};

/// Lines of context around the change in the snippet the model gets back.
const SNIPPET_CONTEXT: usize = 4;

pub struct EditTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditInput {
    /// Path of the file to change: absolute, or relative to the project root.
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
        tool_names::EDIT
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
           with `new_string` as its content.\n\
         - The result shows the changed lines with their line numbers as the file now reads, \
           so there is no need to Read the file again to check an edit."
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
        refuse_special_file(&path, tool_names::EDIT)?;
        let bytes = match safe_fs::read_bounded(&path, MAX_EDIT_FILE_BYTES) {
            Ok(b) => b,
            Err(e) if e.is_not_found() => {
                return create_with_empty_old(&path, &input, ctx);
            }
            Err(SafeReadError::NotRegular { kind, .. }) => {
                return Err(ToolError::failed(format!(
                    "{} is {kind}, not a file.",
                    path.display()
                )));
            }
            Err(SafeReadError::TooLarge { size, .. }) => {
                return Err(ToolError::failed(format!(
                    "{} is too large for Edit ({}; Edit loads whole files up to {}). Use Bash \
                     with a streaming tool such as `sed` for a file this large.",
                    path.display(),
                    super::media::human_size(size),
                    super::media::human_size(MAX_EDIT_FILE_BYTES)
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
        let editor = ctx.values.get::<EditorFs>();
        // The editor's buffer, unsaved changes included, when it has one.
        let bytes = match editor {
            Some(EditorFs(files)) => match files.read(&path).await {
                Some(text) => text.into_bytes(),
                None => bytes,
            },
            None => bytes,
        };
        let Ok(original) = String::from_utf8(bytes) else {
            return Err(ToolError::failed(format!(
                "{} is not valid UTF-8 text, and Edit only changes UTF-8 files (to keep the \
                 encoding intact). Use Bash with a tool that understands its encoding.",
                path.display()
            )));
        };
        let applied = apply_edit(&original, &input)?;
        write_text(editor, &path, &applied.content)
            .await
            .map_err(|e| write_error(&path, &e))?;
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
    let file_eol = if crlf { "\r\n" } else { "\n" };
    // The model sees lines without `\r` (Read strips it), so its line
    // breaks match either ending: that is what lets an edit span the lines
    // of a file with mixed LF and CRLF endings.
    let old = input.old_string.replace("\r\n", "\n");

    if old.is_empty() {
        if !original.is_empty() {
            return Err(ToolError::failed(
                "old_string is empty, but the file is not. Give the exact text to replace, or \
                 use Write to replace the whole file.",
            ));
        }
        let new = with_line_endings(&input.new_string, file_eol);
        return Ok(Applied {
            replacements: 1,
            first_line: 0,
            new_lines: new.lines().count().max(1),
            content: new,
        });
    }
    let found = find_matches(original, &old);
    let count = found.len();
    let Some(&(first_at, first_end)) = found.first() else {
        return Err(ToolError::failed(
            "old_string was not found in the file. It must match exactly, including whitespace, \
             indentation and line breaks, and must not include Read's line-number prefixes. Read \
             the file again to copy the current text.",
        ));
    };
    if count > 1 && !input.replace_all {
        // Where they are, so that the model knows which lines to widen
        // its context from.
        let lines: Vec<String> = found
            .iter()
            .take(10)
            .map(|&(at, _)| (original[..at].matches('\n').count() + 1).to_string())
            .collect();
        return Err(ToolError::failed(format!(
            "old_string occurs {count} times in the file (at lines {}), but replace_all is \
             false. Widen the context: include more surrounding lines in old_string so that it \
             matches exactly one place, or set replace_all to true to change all {count}.",
            lines.join(", ")
        )));
    }
    let used = if input.replace_all {
        &found[..]
    } else {
        &found[..1]
    };
    let mut content = String::with_capacity(original.len() + input.new_string.len());
    let mut done = 0;
    for &(start, end) in used {
        content.push_str(&original[done..start]);
        // Each replacement takes the line ending of the text it replaces.
        let eol = line_ending_in(&original[start..end]).unwrap_or(file_eol);
        content.push_str(&with_line_endings(&input.new_string, eol));
        done = end;
    }
    content.push_str(&original[done..]);
    let first_eol = line_ending_in(&original[first_at..first_end]).unwrap_or(file_eol);
    let new_first = with_line_endings(&input.new_string, first_eol);

    let mut adjusted = content.clone();
    keep_trailing_newline(original, &mut adjusted, crlf);
    // Adding or removing the final newline on purpose (the adjustment
    // would undo the whole edit) is the model's call.
    if adjusted != original {
        content = adjusted;
    }
    if content == original {
        return Err(ToolError::failed(
            "The edit would leave the file unchanged (old_string and new_string differ only in \
             line endings, which Edit keeps as the file has them). Nothing was written.",
        ));
    }
    Ok(Applied {
        replacements: count,
        first_line: original[..first_at].matches('\n').count(),
        new_lines: new_first.matches('\n').count() + 1,
        content,
    })
}

/// Every non-overlapping place where `old` (LF line breaks) occurs in
/// `text`, each `\n` of `old` matching `\n` or `\r\n`; as byte ranges.
fn find_matches(text: &str, old: &str) -> Vec<(usize, usize)> {
    let segments: Vec<&str> = old.split('\n').collect();
    let first = segments[0];
    let mut found = Vec::new();
    let mut from = 0;
    while from <= text.len() {
        let Some(start) = next_candidate(text, from, first) else {
            break;
        };
        match match_rest(text, start + first.len(), &segments[1..]) {
            Some(end) if end > start => {
                found.push((start, end));
                from = end;
            }
            _ => {
                // Try the next position (char boundaries only).
                from = start + text[start..].chars().next().map_or(1, char::len_utf8);
            }
        }
    }
    found
}

/// The next position at or after `from` where `first` occurs (any position
/// when `first` is empty, i.e. `old` starts with a line break).
fn next_candidate(text: &str, from: usize, first: &str) -> Option<usize> {
    if first.is_empty() {
        return text[from..].find('\n').map(|i| {
            let at = from + i;
            // Start before a `\r` that belongs to this line break.
            if at > from && text.as_bytes()[at - 1] == b'\r' {
                at - 1
            } else {
                at
            }
        });
    }
    text[from..].find(first).map(|i| from + i)
}

/// Matches `\n`/`\r\n` + segment for each of `rest` from `at`; the end of
/// the match.
fn match_rest(text: &str, mut at: usize, rest: &[&str]) -> Option<usize> {
    for segment in rest {
        let tail = &text[at..];
        let eol = if tail.starts_with("\r\n") {
            2
        } else if tail.starts_with('\n') {
            1
        } else {
            return None;
        };
        at += eol;
        if !text[at..].starts_with(segment) {
            return None;
        }
        at += segment.len();
    }
    Some(at)
}

/// Whether the file's first line ending is CRLF.
fn uses_crlf(text: &str) -> bool {
    text.find('\n')
        .is_some_and(|i| i > 0 && text.as_bytes()[i - 1] == b'\r')
}

/// The first line ending in `text`, if it has one.
fn line_ending_in(text: &str) -> Option<&'static str> {
    let i = text.find('\n')?;
    Some(if i > 0 && text.as_bytes()[i - 1] == b'\r' {
        "\r\n"
    } else {
        "\n"
    })
}

/// Converts the model's text to the line ending `eol`.
fn with_line_endings(s: &str, eol: &str) -> String {
    let lf = s.replace("\r\n", "\n");
    if eol == "\n" {
        lf
    } else {
        lf.replace('\n', eol)
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
