//! Read: shows a window of a text file with `cat -n` style line numbers,
//! describes images and PDFs instead of dumping them, refuses binary files,
//! and records what it read for the stale-write guard of Write and Edit.

use catui_protocol::tool_names;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::media::{self, MediaKind};
use super::{ToolContext, ToolError, ToolOutput, TypedTool};
use crate::permissions::Access;
use crate::safe_fs::{self, SafeReadError};

/// Lines shown when the model gives no `limit`.
pub const DEFAULT_LIMIT: u64 = 2000;
/// Longer lines are cut (in characters) so one minified line cannot flood
/// the context.
pub const MAX_LINE_CHARS: usize = 2000;
/// The whole answer is capped too; the note says where to continue.
const MAX_OUTPUT_BYTES: usize = 256 * 1024;
/// How much of a file is sniffed for NUL bytes to call it binary.
const SNIFF_BYTES: usize = 8 * 1024;
/// How much of a media file is read to find its dimensions.
const MEDIA_HEAD_BYTES: u64 = 512 * 1024;

pub struct ReadTool;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadInput {
    /// Path of the file to read: absolute, or relative to the project root.
    pub file_path: String,
    /// First line to show, counting from 1. Use it with `limit` to page through long files.
    #[serde(default)]
    pub offset: Option<u64>,
    /// How many lines to show (default 2000).
    // The number is `DEFAULT_LIMIT`'s (a derive reads only literals here);
    // read_tests.rs checks the two agree.
    #[serde(default)]
    pub limit: Option<u64>,
    /// PDFs only: the pages to read as text, e.g. "3", "1-5" or "7-" (to the end). For long documents.
    #[serde(default)]
    pub pages: Option<String>,
}

#[async_trait]
impl TypedTool for ReadTool {
    type Input = ReadInput;
    fn name(&self) -> &'static str {
        tool_names::READ
    }
    fn description(&self) -> String {
        format!(
            "Shows the contents of a file from the local filesystem.\n\
         \n\
         - `file_path` may be absolute or relative to the project root.\n\
         - Lines are numbered like `cat -n`: the line number, a tab, then the line. The number and \
           tab are not part of the file; leave them out when you quote lines in Edit.\n\
         - Up to {DEFAULT_LIMIT} lines are shown from the start of the file. For long files, pass `offset` \
           (first line, 1-based) and `limit` (line count) to read another part; the output says \
           when there is more.\n\
         - Lines longer than {MAX_LINE_CHARS} characters are cut short.\n\
         - Images (PNG, JPEG, GIF, WebP) are shown to you as images, and PDFs as documents \
           where the model can take them, else as their pages' text. For a long PDF pass \
           `pages` (\"1-5\") to read those pages' text. Other binary files are refused.\n\
         - Directories cannot be read: use Glob, or `ls` through Bash.\n\
         - You can read several files at once by calling Read several times in one message."
        )
    }
    fn is_read_only(&self, _: &ReadInput) -> bool {
        true
    }
    fn is_concurrency_safe(&self, _: &ReadInput) -> bool {
        true
    }
    async fn validate_input(&self, input: &ReadInput, _: &ToolContext) -> Result<(), ToolError> {
        if input.file_path.trim().is_empty() {
            return Err(ToolError::invalid(
                "file_path is empty: give the path of the file to read.",
            ));
        }
        if input.pages.is_some()
            && MediaKind::from_path(Path::new(&input.file_path)) != Some(MediaKind::Pdf)
        {
            return Err(ToolError::invalid(
                "pages applies to PDF files only; for a text file use offset and limit.",
            ));
        }
        if input.limit == Some(0) {
            return Err(ToolError::invalid(format!(
                "limit must be at least 1 (or left out for the default of {DEFAULT_LIMIT} lines)."
            )));
        }
        Ok(())
    }
    fn access(&self, input: &ReadInput, ctx: &ToolContext) -> Access {
        Access::Read {
            paths: vec![ctx.resolve(&input.file_path)],
        }
    }
    fn summary(&self, input: &ReadInput) -> String {
        format!("Read({})", input.file_path)
    }
    async fn call(&self, input: ReadInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let path = ctx.resolve(&input.file_path);
        ctx.with_dry_run_note(&path, read(input, ctx).await)
    }
}

/// Reads what `input` asks for: the editor's unsaved text, media for the
/// model, or the file's lines.
async fn read(input: ReadInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    let path = ctx.resolve(&input.file_path);
    let offset = input.offset.unwrap_or(1).max(1);
    let limit = input.limit.unwrap_or(DEFAULT_LIMIT).max(1);
    if let Some(text) = editor_text(ctx, &path).await {
        let cancel = ctx.cancel.clone();
        let shown = if text.is_empty() {
            format!("The file {} exists but is empty (0 bytes).", path.display())
        } else {
            let mut reader = std::io::Cursor::new(text.as_bytes());
            match render_window(&mut reader, offset, limit, &|| cancel.is_cancelled()) {
                Ok(shown) => shown,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
                    return Err(ToolError::Cancelled);
                }
                Err(e) => {
                    return Err(ToolError::failed(format!(
                        "Could not read {}: {e}.",
                        path.display()
                    )));
                }
            }
        };
        ctx.record_read(&path);
        return Ok(ToolOutput::text(shown));
    }
    let inputs = ctx.values.get::<media::ModelInputs>().copied();
    // An image the session's model cannot see: described, and said why.
    let text_only_note = match (MediaKind::from_path(&path), inputs) {
        (Some(kind), Some(inputs)) if kind != MediaKind::Pdf && !inputs.images => {
            " The model in use takes no images (settings `models`: `\"vision\": false`), \
             so it is described, not shown."
        }
        _ => "",
    };
    // A PDF's text is readable whatever the model takes.
    let media_inputs = match MediaKind::from_path(&path) {
        Some(MediaKind::Pdf) => Some(inputs.unwrap_or(media::ModelInputs {
            images: false,
            documents: false,
        })),
        _ => inputs,
    };
    if let (Some(kind), Some(inputs)) = (MediaKind::from_path(&path), media_inputs) {
        let read_path = path.clone();
        let pages = input.pages.clone();
        let shown = tokio::task::spawn_blocking(move || {
            media_for_model(&read_path, kind, inputs, pages.as_deref())
        })
        .await
        .map_err(|e| ToolError::failed(format!("the read task failed: {e}")))??;
        if let Some(out) = shown {
            ctx.record_read(&path);
            return Ok(out);
        }
    }
    let read_path = path.clone();
    let cancel = ctx.cancel.clone();
    let text = tokio::task::spawn_blocking(move || {
        read_file(&read_path, offset, limit, &|| cancel.is_cancelled())
    })
    .await
    .map_err(|e| ToolError::failed(format!("the read task failed: {e}")))??;
    ctx.record_read(&path);
    Ok(ToolOutput::text(text + text_only_note))
}

/// The text of `path` from the user's editor (unsaved changes included),
/// when an editor is attached and the path is a regular text file (media,
/// pipes and devices are read as always, by [`read_file`]).
async fn editor_text(ctx: &ToolContext, path: &Path) -> Option<String> {
    let super::editor_files::EditorFs(files) = ctx.values.get::<super::editor_files::EditorFs>()?;
    if MediaKind::from_path(path).is_some() || !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let text = files.read(path).await?;
    // A NUL byte means binary: let the disk path refuse it as usual.
    (!text.as_bytes()[..text.len().min(SNIFF_BYTES)].contains(&0)).then_some(text)
}

/// Reads `path` for the model: a numbered window of `limit` lines from
/// line `offset` (1-based), or a description for media files. Only regular
/// files are opened; memory stays bounded whatever the file holds (long
/// lines are cut while reading). `cancelled` is polled while scanning, so
/// an interrupted read of a huge file stops early.
pub fn read_file(
    path: &Path,
    offset: u64,
    limit: u64,
    cancelled: &dyn Fn() -> bool,
) -> Result<String, ToolError> {
    let (mut file, meta) = match safe_fs::open_regular(path) {
        Ok(opened) => opened,
        Err(e) if e.is_not_found() => {
            let (message, advice) = not_found_message(path);
            return Err(ToolError::advised(message, advice));
        }
        Err(SafeReadError::NotRegular {
            kind: "a directory",
            ..
        }) => {
            return Err(ToolError::failed(format!(
                "{} is a directory, not a file. To see what it contains, use Glob (e.g. pattern \"*\" \
                 with this path) or run `ls` with Bash.",
                path.display()
            )));
        }
        Err(SafeReadError::NotRegular { kind, .. }) => {
            return Err(ToolError::failed(not_regular_message(path, kind)));
        }
        Err(e) => {
            return Err(ToolError::failed(format!(
                "Could not read {}: {e}.",
                path.display()
            )));
        }
    };
    let io_err =
        |e: std::io::Error| ToolError::failed(format!("Could not read {}: {e}.", path.display()));
    let size = meta.len();

    if let Some(kind) = MediaKind::from_path(path) {
        let mut head = Vec::new();
        let cap = if kind == MediaKind::Pdf && size <= 16 * 1024 * 1024 {
            size
        } else {
            MEDIA_HEAD_BYTES
        };
        (&mut file)
            .take(cap)
            .read_to_end(&mut head)
            .map_err(io_err)?;
        return Ok(media::describe(kind, path, &head, size));
    }
    if size == 0 {
        return Ok(format!(
            "The file {} exists but is empty (0 bytes).",
            path.display()
        ));
    }

    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let head = reader.fill_buf().map_err(io_err)?;
    if head[..head.len().min(SNIFF_BYTES)].contains(&0) {
        return Err(ToolError::failed(format!(
            "{} looks like a binary file ({}; it contains NUL bytes), so Read will not print it. \
             Use Bash with a tool made for its format (e.g. `file`, `xxd | head`) if you need to \
             inspect it.",
            path.display(),
            media::human_size(size)
        )));
    }
    match render_window(&mut reader, offset, limit, cancelled) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => Err(ToolError::Cancelled),
        Err(e) => Err(io_err(e)),
    }
}

/// A media file for a model that can see it: its block, or `None` to
/// describe it instead (the model cannot take this kind).
fn media_for_model(
    path: &Path,
    kind: MediaKind,
    inputs: media::ModelInputs,
    pages: Option<&str>,
) -> Result<Option<ToolOutput>, ToolError> {
    let (file, meta) = safe_fs::open_regular(path).map_err(|e| {
        if e.is_not_found() {
            let (message, advice) = not_found_message(path);
            ToolError::advised(message, advice)
        } else {
            ToolError::failed(format!("Could not read {}: {e}.", path.display()))
        }
    })?;
    let limit = media::MAX_PDF_BYTES.max(media::MAX_IMAGE_BYTES) + 1;
    if meta.len() >= limit {
        // Too large either way: the description says so.
        return Ok(None);
    }
    let mut bytes = Vec::new();
    file.take(limit)
        .read_to_end(&mut bytes)
        .map_err(|e| ToolError::failed(format!("Could not read {}: {e}.", path.display())))?;
    media::for_model(kind, path, &bytes, inputs, pages).map_err(ToolError::failed)
}

/// The refusal for FIFOs, devices and sockets: reading one could wait
/// forever (a pipe with no writer) or never end (`/dev/zero`).
fn not_regular_message(path: &Path, kind: &str) -> String {
    format!(
        "{} is {kind}, not a regular file. Read only reads regular files: reading a pipe, device \
         or socket could wait forever or never end. If you need its contents, use Bash with a \
         command that stops on its own (e.g. `timeout 5 head -c 4096 FILE`).",
        path.display()
    )
}

/// Bytes of one line kept in memory; the rest of a longer line is counted
/// and skipped. Enough for [`MAX_LINE_CHARS`] characters of any width.
const MAX_LINE_BYTES: usize = MAX_LINE_CHARS * 4 + 4;

/// Numbers lines `offset..offset+limit` of `reader` and counts the rest so
/// the note can say how long the file is. Fails with `Interrupted` when
/// `cancelled` turns true.
fn render_window(
    reader: &mut impl BufRead,
    offset: u64,
    limit: u64,
    cancelled: &dyn Fn() -> bool,
) -> std::io::Result<String> {
    let last_wanted = offset.saturating_add(limit - 1);
    let mut out = String::new();
    let mut line = Vec::new();
    let mut line_no: u64 = 0;
    let mut shown_until: u64 = 0;
    let mut capped = false;
    let mut any_long = false;

    while line_no < last_wanted {
        let Some(skipped_chars) = read_line_capped(reader, &mut line, MAX_LINE_BYTES, cancelled)?
        else {
            break;
        };
        line_no += 1;
        if line_no < offset || capped {
            continue;
        }
        let text = String::from_utf8_lossy(trim_eol(&line));
        let start_len = out.len();
        any_long |= push_numbered_counted(&mut out, line_no, &text, skipped_chars);
        if out.len() > MAX_OUTPUT_BYTES && shown_until >= offset {
            out.truncate(start_len);
            capped = true;
            // Keep counting lines, but show no more.
            continue;
        }
        shown_until = line_no;
    }
    let total = line_no + count_remaining_lines(reader, cancelled)?;

    if offset > total {
        return Ok(format!(
            "The file has {total} line{}, so offset {offset} is past its end. Use an offset from \
             1 to {total}.",
            if total == 1 { "" } else { "s" }
        ));
    }
    if any_long {
        out.push_str(&format!(
            "\n(Some lines were longer than {MAX_LINE_CHARS} characters and were cut.)"
        ));
    }
    if shown_until < total || offset > 1 {
        let more = if shown_until < total {
            format!(
                " To read more, call Read again with offset={}.",
                shown_until + 1
            )
        } else {
            String::new()
        };
        let why = if capped {
            " (output size limit reached)"
        } else {
            ""
        };
        out.push_str(&format!(
            "\n(Showing lines {offset}-{shown_until} of {total}{why}.{more})"
        ));
    }
    Ok(out)
}

/// Reads one line (with its `\n`) into `line`, keeping at most `cap` bytes
/// of it. Returns `None` at end of input, else the number of characters
/// (UTF-8 lead bytes) skipped beyond the cap.
fn read_line_capped(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    cap: usize,
    cancelled: &dyn Fn() -> bool,
) -> std::io::Result<Option<u64>> {
    line.clear();
    let mut skipped: u64 = 0;
    let mut any = false;
    loop {
        if cancelled() {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(any.then_some(skipped));
        }
        any = true;
        let (piece, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..=i], true),
            None => (buf, false),
        };
        let room = cap.saturating_sub(line.len());
        let keep = piece.len().min(room);
        line.extend_from_slice(&piece[..keep]);
        skipped += piece[keep..]
            .iter()
            .filter(|&&b| b != b'\n' && b != b'\r' && !is_utf8_continuation(b))
            .count() as u64;
        let used = piece.len();
        reader.consume(used);
        if done {
            return Ok(Some(skipped));
        }
    }
}

fn is_utf8_continuation(b: u8) -> bool {
    b & 0b1100_0000 == 0b1000_0000
}

/// Appends one `cat -n` style line; returns whether it had to be cut.
fn push_numbered(out: &mut String, n: u64, text: &str) -> bool {
    push_numbered_counted(out, n, text, 0)
}

/// [`push_numbered`] for a line of which `skipped` more characters were
/// never read into `text`.
fn push_numbered_counted(out: &mut String, n: u64, text: &str, skipped: u64) -> bool {
    use std::fmt::Write;
    let (shown, cut) = match text.char_indices().nth(MAX_LINE_CHARS) {
        Some((end, _)) => (&text[..end], true),
        None => (text, skipped > 0),
    };
    let _ = write!(out, "{n:>6}\t{shown}");
    if cut {
        let _ = write!(
            out,
            "… [line cut: {} characters in all]",
            text.chars().count() as u64 + skipped
        );
    }
    out.push('\n');
    cut
}

/// Formats `lines` (starting at line number `first`) like Read does; used by
/// Edit for the snippet it returns.
pub(crate) fn numbered_snippet<'a>(first: u64, lines: impl Iterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for (i, l) in lines.enumerate() {
        push_numbered(
            &mut out,
            first + i as u64,
            l.strip_suffix('\r').unwrap_or(l),
        );
    }
    out
}

fn trim_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Counts the lines left in `reader` (a last line without `\n` counts).
fn count_remaining_lines(
    reader: &mut impl BufRead,
    cancelled: &dyn Fn() -> bool,
) -> std::io::Result<u64> {
    let mut count = 0u64;
    let mut last = b'\n';
    loop {
        if cancelled() {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            break;
        }
        count += buf.iter().filter(|&&b| b == b'\n').count() as u64;
        last = buf[buf.len() - 1];
        let n = buf.len();
        reader.consume(n);
    }
    if last != b'\n' {
        count += 1;
    }
    Ok(count)
}

/// The error for a missing file (for the user), and advice for the model:
/// look-alike names from its directory, or where to look instead.
fn not_found_message(path: &Path) -> (String, String) {
    let msg = format!("File does not exist: {}.", path.display());
    let Some(parent) = path.parent() else {
        return (msg, String::new());
    };
    if !parent.is_dir() {
        let advice = format!(
            "Its directory {} does not exist either; use Glob to find the file.",
            parent.display()
        );
        return (msg, advice);
    }
    let similar = similar_names(parent, path);
    let advice = if similar.is_empty() {
        "Use Glob to find the file.".to_string()
    } else {
        let shown: Vec<String> = similar.iter().map(|p| p.display().to_string()).collect();
        format!("Did you mean: {}?", shown.join(", "))
    };
    (msg, advice)
}

fn similar_names(dir: &Path, wanted: &Path) -> Vec<PathBuf> {
    let Some(name) = wanted.file_name().and_then(|n| n.to_str()) else {
        return Vec::new();
    };
    let name_lc = name.to_lowercase();
    let stem_lc = wanted
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(name)
        .to_lowercase();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut scored: Vec<(usize, PathBuf)> = entries
        .filter_map(Result::ok)
        .take(5000)
        .filter_map(|e| {
            let cand = e.file_name().to_str()?.to_lowercase();
            let cand_path = e.path();
            let cand_stem = cand_path.file_stem()?.to_str()?.to_lowercase();
            let score = if cand == name_lc || cand_stem == stem_lc {
                0
            } else {
                let d = edit_distance(&cand, &name_lc);
                if d > 2 {
                    return None;
                }
                d
            };
            Some((score, cand_path))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, p)| p).collect()
}

/// Levenshtein distance, bounded to short names to stay cheap.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len() > 64 || b.len() > 64 {
        return usize::MAX;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;
