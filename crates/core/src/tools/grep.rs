//! Grep: ripgrep-style content search in-process. This file owns the tool's
//! input, validation and the model-facing rendering (ordering, paging,
//! caps); the search itself lives in [`super::grep_search`].

use catui_protocol::tool_names;
use std::path::PathBuf;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::grep_search::{self, ContentReader, FileHit, Mode, SearchRequest};
use super::{ToolContext, ToolError, ToolOutput, TypedTool};
use crate::permissions::Access;

/// The answer is cut (at a line boundary) beyond this many bytes; the note
/// says how to page on.
pub const MAX_OUTPUT_BYTES: usize = 50_000;

pub struct GrepTool;

/// How Grep reports what it found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    /// Matching lines as `path:line:text` (context lines as `path-line-text`).
    Content,
    /// Paths of the files that match, most recently modified first.
    #[default]
    FilesWithMatches,
    /// `path:count` of matching lines per file.
    Count,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrepInput {
    /// The regular expression to search for (Rust regex syntax, as ripgrep).
    pub pattern: String,
    /// File or directory to search (default: the project root).
    #[serde(default)]
    pub path: Option<String>,
    /// Only search files matching this glob, e.g. "*.rs", "*.{ts,tsx}" or "src/**/*.py".
    #[serde(default)]
    pub glob: Option<String>,
    /// Only search files of this ripgrep type, e.g. "rust", "py", "js". Faster than glob for standard types.
    #[serde(default, rename = "type")]
    pub file_type: Option<String>,
    /// Case-insensitive search.
    #[serde(default, rename = "-i")]
    pub case_insensitive: Option<bool>,
    /// Show line numbers (content mode only; default true).
    #[serde(default, rename = "-n")]
    pub line_numbers: Option<bool>,
    /// Lines of context to show after each match (content mode only).
    #[serde(default, rename = "-A")]
    pub after: Option<u32>,
    /// Lines of context to show before each match (content mode only).
    #[serde(default, rename = "-B")]
    pub before: Option<u32>,
    /// Lines of context to show before and after each match (content mode only).
    #[serde(default, rename = "-C")]
    pub context: Option<u32>,
    /// Let the pattern span lines: `.` also matches newlines. Slower; use only when needed.
    #[serde(default)]
    pub multiline: Option<bool>,
    /// "files_with_matches" (default): matching file paths; "content": matching lines; "count": matches per file.
    #[serde(default)]
    pub output_mode: Option<OutputMode>,
    /// Show at most this many entries (lines in content mode, files otherwise).
    #[serde(default)]
    pub head_limit: Option<usize>,
    /// Skip this many entries first; use with head_limit to page through results.
    #[serde(default)]
    pub offset: Option<usize>,
}

#[async_trait]
impl TypedTool for GrepTool {
    type Input = GrepInput;
    fn name(&self) -> &'static str {
        tool_names::GREP
    }
    fn description(&self) -> String {
        "Searches file contents with regular expressions, using ripgrep's engine in-process.\n\
         \n\
         - Always use this tool for content search; do not run `grep` or `rg` through Bash.\n\
         - `pattern` is a Rust regex (as in ripgrep): `fn\\s+main`, `log.*Error`. Escape literal \
           braces and other special characters: to find `interface{}` search `interface\\{\\}`.\n\
         - Narrow the files with `glob` (\"*.rs\", \"*.{ts,tsx}\") or `type` (\"rust\", \"py\", \
           \"js\"). .gitignore'd, hidden and binary files are skipped.\n\
         - `output_mode`: \"files_with_matches\" (default) lists matching files, newest first; \
           \"content\" shows matching lines as path:line:text, with `-A`/`-B`/`-C` context lines \
           and `-n` line numbers (on by default); \"count\" shows matches per file.\n\
         - `-i` makes the search case-insensitive. By default a match stays within one line; set \
           `multiline` for patterns that span lines (e.g. `struct Foo \\{[\\s\\S]*?\\}`).\n\
         - `head_limit` and `offset` page through long results.\n\
         - For open-ended searches that need several rounds, consider the Agent tool."
            .into()
    }
    fn is_read_only(&self, _: &GrepInput) -> bool {
        true
    }
    fn is_concurrency_safe(&self, _: &GrepInput) -> bool {
        true
    }
    async fn validate_input(&self, input: &GrepInput, _: &ToolContext) -> Result<(), ToolError> {
        if input.pattern.is_empty() {
            return Err(ToolError::invalid(
                "pattern is empty: give a regular expression to search for.",
            ));
        }
        if input.head_limit == Some(0) {
            return Err(ToolError::invalid(
                "head_limit must be at least 1 (or left out for no limit).",
            ));
        }
        Ok(())
    }
    fn access(&self, input: &GrepInput, ctx: &ToolContext) -> Access {
        Access::Read {
            paths: vec![search_root(input, ctx)],
        }
    }
    fn summary(&self, input: &GrepInput) -> String {
        match &input.path {
            Some(p) => format!("Grep({} in {p})", input.pattern),
            None => format!("Grep({})", input.pattern),
        }
    }
    async fn call(&self, input: GrepInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let root = search_root(&input, ctx);
        ctx.with_dry_run_note(&root, grep(input, ctx).await)
    }
}

/// Runs the search `input` asks for and renders its page of hits.
async fn grep(input: GrepInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    let req = request(&input, ctx);
    let page = Page {
        offset: input.offset.unwrap_or(0),
        limit: input.head_limit,
    };
    let cancel = ctx.cancel.clone();
    let text = tokio::task::spawn_blocking(move || {
        grep_search::search(&req, &cancel).map(|hits| {
            let mut text = render(&req, hits, page);
            if let Some(note) = req.secrets.as_ref().and_then(|s| s.note()) {
                text.push('\n');
                text.push_str(&note);
            }
            text
        })
    })
    .await
    .map_err(|e| ToolError::failed(format!("the search task failed: {e}")))??;
    if ctx.cancel.is_cancelled() {
        return Err(ToolError::Cancelled);
    }
    Ok(ToolOutput::text(text))
}

fn search_root(input: &GrepInput, ctx: &ToolContext) -> PathBuf {
    match &input.path {
        Some(p) if !p.trim().is_empty() => ctx.resolve(p),
        _ => ctx.project_root.clone(),
    }
}

/// The search the input asks for.
pub fn request(input: &GrepInput, ctx: &ToolContext) -> SearchRequest {
    let mode = match input.output_mode.unwrap_or_default() {
        OutputMode::Content => Mode::Content,
        OutputMode::FilesWithMatches => Mode::FilesWithMatches,
        OutputMode::Count => Mode::Count,
    };
    let around = input.context.unwrap_or(0) as usize;
    let root = search_root(input, ctx);
    SearchRequest {
        pattern: input.pattern.clone(),
        secrets: ctx.secret_walk(tool_names::GREP, &root),
        root,
        glob: input.glob.clone(),
        file_type: input.file_type.clone(),
        case_insensitive: input.case_insensitive.unwrap_or(false),
        line_numbers: input.line_numbers.unwrap_or(true),
        before: input.before.map_or(around, |b| b as usize),
        after: input.after.map_or(around, |a| a as usize),
        multiline: input.multiline.unwrap_or(false),
        mode,
    }
}

/// Which entries to show.
#[derive(Debug, Clone, Copy, Default)]
pub struct Page {
    pub offset: usize,
    pub limit: Option<usize>,
}

/// Orders the hits and renders the page the model asked for.
pub fn render(req: &SearchRequest, mut hits: Vec<FileHit>, page: Page) -> String {
    if hits.is_empty() {
        return match req.mode {
            Mode::FilesWithMatches => "No files found".to_string(),
            _ => "No matches found".to_string(),
        };
    }
    match req.mode {
        Mode::FilesWithMatches => {
            hits.sort_unstable_by(|a, b| b.mtime.cmp(&a.mtime).then_with(|| by_bytes(a, b)));
            let total = hits.len();
            let entries = hits.iter().map(|h| h.path.to_string_lossy());
            let (body, note) = paginate(entries, total, page, "files");
            let noun = if total == 1 { "file" } else { "files" };
            format!("Found {total} {noun}\n{body}{note}")
        }
        Mode::Count => {
            hits.sort_unstable_by(by_bytes);
            let total = hits.len();
            let matches: u64 = hits.iter().map(|h| h.count).sum();
            let entries = hits
                .iter()
                .map(|h| format!("{}:{}", h.path.display(), h.count).into());
            let (body, note) = paginate(entries, total, page, "files");
            format!(
                "{body}{note}\n\nFound {matches} matching line{} in {total} file{}.",
                if matches == 1 { "" } else { "s" },
                if total == 1 { "" } else { "s" }
            )
        }
        Mode::Content => {
            hits.sort_unstable_by(by_bytes);
            let separate = req.before > 0 || req.after > 0;
            let total = hits.iter().map(|h| h.count as usize).sum::<usize>()
                + if separate { hits.len() - 1 } else { 0 };
            // Only the page's lines are formatted; the ones before it are
            // counted, not read.
            let lines = page_lines(&hits, separate, page, &mut ContentReader::new(req));
            let entries =
                std::iter::repeat_n(std::borrow::Cow::Borrowed(""), page.offset.min(total))
                    .chain(lines.into_iter().map(std::borrow::Cow::Owned));
            let (body, note) = paginate(entries, total, page, "lines");
            format!("{body}{note}")
        }
    }
}

/// Path order by raw bytes: much cheaper than `Path`'s component-wise
/// comparison on tens of thousands of hits, and just as deterministic.
fn by_bytes(a: &FileHit, b: &FileHit) -> std::cmp::Ordering {
    a.path.as_os_str().cmp(b.path.as_os_str())
}

/// The output lines of content mode from line `page.offset` on, as many as
/// the page can show (its limit, or just past [`MAX_OUTPUT_BYTES`]), with
/// `--` between files when context is shown (as rg does). Files before the
/// page are skipped by their line counts; only the page's files are read.
fn page_lines(
    hits: &[FileHit],
    separate: bool,
    page: Page,
    reader: &mut ContentReader<'_>,
) -> Vec<String> {
    let limit = page.limit.unwrap_or(usize::MAX);
    let mut skip = page.offset;
    let mut out = Vec::new();
    let mut bytes = 0usize;
    for (i, hit) in hits.iter().enumerate() {
        let sep = separate && i > 0;
        let lines = hit.count as usize + usize::from(sep);
        if skip >= lines {
            skip -= lines;
            continue;
        }
        let text = reader.text(&hit.path);
        let text = text.strip_suffix(b"\n").unwrap_or(&text);
        let file_lines = sep.then(|| "--".to_string()).into_iter().chain(
            text.split(|&b| b == b'\n')
                .filter(|_| !text.is_empty())
                .map(|l| String::from_utf8_lossy(l).into_owned()),
        );
        for line in file_lines.skip(skip) {
            if out.len() >= limit || bytes > MAX_OUTPUT_BYTES {
                return out;
            }
            bytes += line.len() + 1;
            out.push(line);
        }
        skip = 0;
    }
    out
}

/// Joins the entries of the requested page (and no more than
/// [`MAX_OUTPUT_BYTES`]); the note says how to see the rest.
fn paginate<'a>(
    entries: impl Iterator<Item = std::borrow::Cow<'a, str>>,
    total: usize,
    page: Page,
    noun: &str,
) -> (String, String) {
    let limit = page.limit.unwrap_or(usize::MAX);
    let mut body = String::new();
    let mut shown = 0usize;
    let mut capped = false;
    for entry in entries.skip(page.offset).take(limit) {
        if !body.is_empty() && body.len() + entry.len() + 1 > MAX_OUTPUT_BYTES {
            capped = true;
            break;
        }
        if !body.is_empty() {
            body.push('\n');
        }
        body.push_str(&entry);
        shown += 1;
    }
    let end = page.offset + shown;
    if page.offset >= total {
        return (
            String::new(),
            format!(
                "(offset {} is past the end: there are {total} {noun}.)",
                page.offset
            ),
        );
    }
    if end >= total {
        return (body, String::new());
    }
    let why = if capped {
        ", output size limit reached"
    } else {
        ""
    };
    let note = format!(
        "\n(Showing {noun} {}-{end} of {total}{why}. Pass offset={end} to see more, or narrow the \
         search.)",
        page.offset + 1
    );
    (body, note)
}

#[cfg(test)]
#[path = "grep_tests.rs"]
mod tests;
