//! The search engine behind Grep: ripgrep's own crates (`grep-regex`,
//! `grep-searcher`, `ignore`) driven the way ripgrep drives them. One
//! Searcher and matcher per walker thread, results gathered per thread and
//! merged once, and the output for a file is only built when it matches.

use std::borrow::Cow;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{
    BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch,
};
use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;
use ignore::types::TypesBuilder;
use tokio_util::sync::CancellationToken;

use super::ToolError;
use super::walk::{collect_parallel, split_globs};
use crate::permissions::secret_search::SecretWalk;

/// The most memory the searcher may use for one file (its line buffer, or
/// the whole file in multiline mode); larger needs skip the file.
const SEARCH_HEAP_LIMIT: usize = 64 * 1024 * 1024;

/// Output lines longer than this (in bytes) are cut, so one minified line
/// cannot flood the answer.
pub const MAX_LINE_BYTES: usize = 500;

/// What the search reports per file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Paths of matching files (stops at a file's first match).
    FilesWithMatches,
    /// `path:line:text` lines, with context lines as `path-line-text`.
    Content,
    /// Number of matching lines per file.
    Count,
}

/// A fully resolved search.
#[derive(Debug, Clone)]
pub struct SearchRequest {
    pub pattern: String,
    /// A file or a directory.
    pub root: PathBuf,
    /// Glob filter(s), gitignore-style, e.g. `*.rs` or `*.{ts,tsx}`.
    pub glob: Option<String>,
    /// A ripgrep file type name, e.g. `rust`.
    pub file_type: Option<String>,
    pub case_insensitive: bool,
    pub line_numbers: bool,
    pub before: usize,
    pub after: usize,
    pub multiline: bool,
    pub mode: Mode,
    /// The user's secret stores the walk leaves out (and remembers).
    pub secrets: Option<Arc<SecretWalk>>,
}

/// One file with at least one match.
#[derive(Debug, Clone)]
pub struct FileHit {
    pub path: PathBuf,
    /// Set in files_with_matches mode (for sorting newest first).
    pub mtime: Option<SystemTime>,
    /// Matching lines (count mode) or output lines (content mode).
    pub count: u64,
    /// Content mode, from a [`ContentReader`] only: the formatted lines,
    /// each ending in `\n`. The search itself only counts them, so its
    /// memory grows with the number of matching files, never with the
    /// text matched (which the answer cuts to a page anyway).
    pub text: Vec<u8>,
}

/// Formats the output lines of content mode for the files of the page
/// that is shown: the search counted them, this reads them again.
pub struct ContentReader<'r> {
    worker: Option<Worker<'r>>,
}

impl<'r> ContentReader<'r> {
    pub fn new(req: &'r SearchRequest) -> Self {
        ContentReader {
            worker: build_matcher(req).ok().map(|m| Worker::new(req, m, true)),
        }
    }

    /// The file's output lines (empty if it no longer matches or cannot
    /// be read).
    pub fn text(&mut self, path: &Path) -> Vec<u8> {
        let Some(worker) = self.worker.as_mut() else {
            return Vec::new();
        };
        let mut hits = Vec::new();
        worker.search_file(path, false, &mut hits);
        hits.pop().map(|h| h.text).unwrap_or_default()
    }
}

/// Runs the search; hits come back in no particular order.
pub fn search(req: &SearchRequest, cancel: &CancellationToken) -> Result<Vec<FileHit>, ToolError> {
    let matcher = build_matcher(req)?;
    if !req.root.exists() {
        return Err(ToolError::failed(format!(
            "The path {} does not exist. Give an existing file or directory, or leave path out to \
             search the project root.",
            req.root.display()
        )));
    }
    if let Some(kind) = crate::safe_fs::special_file_kind(&req.root).filter(|k| *k != "a directory")
    {
        return Err(ToolError::failed(format!(
            "{} is {kind}, not a regular file or directory; Grep only searches regular files.",
            req.root.display()
        )));
    }
    if req.root.is_file() {
        // An explicitly named file is searched whatever the filters say, as rg does.
        let mut worker = Worker::new(req, matcher, false);
        let mut hits = Vec::new();
        worker.search_file(&req.root, false, &mut hits);
        return Ok(hits);
    }

    let mut walk = WalkBuilder::new(&req.root);
    if let Some(spec) = req.glob.as_deref().filter(|s| !s.trim().is_empty()) {
        let mut ob = OverrideBuilder::new(&req.root);
        for g in split_globs(spec) {
            ob.add(&g)
                .map_err(|e| ToolError::invalid(format!("Invalid glob filter {g:?}: {e}.")))?;
        }
        let overrides = ob
            .build()
            .map_err(|e| ToolError::invalid(format!("Invalid glob filter {spec:?}: {e}.")))?;
        walk.overrides(overrides);
    }
    if let Some(name) = req.file_type.as_deref().filter(|s| !s.trim().is_empty()) {
        let mut tb = TypesBuilder::new();
        tb.add_defaults();
        tb.select(name);
        let types = tb.build().map_err(|_| {
            ToolError::invalid(format!(
                "Unknown file type {name:?}. Use a ripgrep type name such as rust, py, js, ts, \
                 go, java, c, cpp, md, json or yaml, or filter with glob (e.g. \"*.ext\") instead."
            ))
        })?;
        walk.types(types);
    }
    if let Some(secrets) = req.secrets.clone() {
        walk.filter_entry(move |e| secrets.keeps(e.path()));
    }
    let hits = collect_parallel(
        walk.build_parallel(),
        cancel,
        || Worker::new(req, matcher.clone(), false),
        |worker, entry, out| {
            if entry.file_type().is_some_and(|t| t.is_file()) {
                worker.search_file(entry.path(), true, out);
            }
        },
    );
    Ok(hits)
}

fn build_matcher(req: &SearchRequest) -> Result<RegexMatcher, ToolError> {
    let mut b = RegexMatcherBuilder::new();
    // As rg: `^`/`$` match at line boundaries; line-oriented searches let the
    // matcher skip straight to candidate lines.
    b.case_insensitive(req.case_insensitive).multi_line(true);
    if req.multiline {
        b.dot_matches_new_line(true);
    } else {
        b.line_terminator(Some(b'\n'));
    }
    b.build(&req.pattern).map_err(|e| {
        let hint = if !req.multiline && e.to_string().contains("\\n") {
            " To match across lines, set multiline to true."
        } else {
            " Grep uses Rust regex syntax (as ripgrep): escape literal special characters such \
             as ( ) [ ] { } . * + ? with a backslash."
        };
        ToolError::invalid(format!(
            "Invalid regex pattern {:?}: {e}.{hint}",
            req.pattern
        ))
    })
}

/// Per-thread search state.
struct Worker<'r> {
    req: &'r SearchRequest,
    matcher: RegexMatcher,
    searcher: Searcher,
    /// Reused output buffer for content mode.
    scratch: Vec<u8>,
    /// Content mode: format the lines (else only count them).
    keep_text: bool,
}

impl<'r> Worker<'r> {
    fn new(req: &'r SearchRequest, matcher: RegexMatcher, keep_text: bool) -> Self {
        let content = req.mode == Mode::Content;
        let searcher = SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(b'\x00'))
            .line_number(content && req.line_numbers)
            .multi_line(req.multiline)
            .before_context(if content { req.before } else { 0 })
            .after_context(if content { req.after } else { 0 })
            // A giant line (or a whole file in multiline mode) would
            // otherwise be held in memory entire; past this the file is
            // skipped.
            .heap_limit(Some(SEARCH_HEAP_LIMIT))
            .build();
        Worker {
            req,
            matcher,
            searcher,
            scratch: Vec::new(),
            keep_text,
        }
    }

    /// `walked`: the walk reported `path` as a regular file just now.
    fn search_file(&mut self, path: &Path, walked: bool, out: &mut Vec<FileHit>) {
        self.scratch.clear();
        let mut sink = FileSink {
            mode: self.req.mode,
            path: path_bytes(path),
            out: &mut self.scratch,
            keep_text: self.keep_text,
            count: 0,
            binary: false,
        };
        // Unreadable files are skipped, as rg does (it only reports them on
        // stderr); so are FIFOs and devices, which could block or never end.
        let opened = if walked {
            crate::safe_fs::open_walked_regular(path)
        } else {
            crate::safe_fs::open_regular(path)
        };
        let Ok((file, meta)) = opened else {
            return;
        };
        if self
            .searcher
            .search_file(&self.matcher, &file, &mut sink)
            .is_err()
        {
            return;
        }
        let (count, binary) = (sink.count, sink.binary);
        if count == 0 || binary {
            return;
        }
        let mtime = if self.req.mode == Mode::FilesWithMatches {
            meta.modified().ok()
        } else {
            None
        };
        let text = if self.req.mode == Mode::Content && self.keep_text {
            self.scratch.clone()
        } else {
            Vec::new()
        };
        out.push(FileHit {
            path: path.to_path_buf(),
            mtime,
            count,
            text,
        });
    }
}

struct FileSink<'a> {
    mode: Mode,
    path: Cow<'a, [u8]>,
    out: &'a mut Vec<u8>,
    keep_text: bool,
    /// Matching lines (count / files mode) or output lines (content mode).
    count: u64,
    binary: bool,
}

impl FileSink<'_> {
    fn push_line(&mut self, sep: u8, line_number: Option<u64>, line: &[u8]) {
        self.count += 1;
        if !self.keep_text {
            return;
        }
        let out = &mut *self.out;
        out.extend_from_slice(&self.path);
        out.push(sep);
        if let Some(n) = line_number {
            let buf = itoa_buf(n);
            out.extend_from_slice(buf.as_bytes());
            out.push(sep);
        }
        let line = trim_eol(line);
        if line.len() > MAX_LINE_BYTES {
            let mut end = MAX_LINE_BYTES;
            // Back off to a UTF-8 character boundary.
            while end > 0 && (line[end] & 0xC0) == 0x80 {
                end -= 1;
            }
            out.extend_from_slice(&line[..end]);
            out.extend_from_slice(" … [line truncated]".as_bytes());
        } else {
            out.extend_from_slice(line);
        }
        out.push(b'\n');
    }
}

impl Sink for FileSink<'_> {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, io::Error> {
        match self.mode {
            Mode::FilesWithMatches => {
                self.count = 1;
                Ok(false)
            }
            Mode::Count => {
                self.count += mat.lines().count().max(1) as u64;
                Ok(true)
            }
            Mode::Content => {
                let first = mat.line_number();
                for (i, line) in mat.lines().enumerate() {
                    self.push_line(b':', first.map(|n| n + i as u64), line);
                }
                Ok(true)
            }
        }
    }

    fn context(&mut self, _: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, io::Error> {
        if self.mode == Mode::Content && !matches!(ctx.kind(), SinkContextKind::Other) {
            self.push_line(b'-', ctx.line_number(), ctx.bytes());
        }
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, io::Error> {
        if self.mode == Mode::Content {
            if self.keep_text {
                self.out.extend_from_slice(b"--\n");
            }
            self.count += 1;
        }
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _offset: u64) -> Result<bool, io::Error> {
        // Binary files are skipped entirely, like rg does for files it finds
        // while walking.
        self.binary = true;
        Ok(false)
    }
}

fn trim_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// A path's bytes without re-encoding where the OS allows it.
fn path_bytes(path: &Path) -> Cow<'_, [u8]> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Cow::Borrowed(path.as_os_str().as_bytes())
    }
    #[cfg(not(unix))]
    {
        match path.to_string_lossy() {
            Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
            Cow::Owned(s) => Cow::Owned(s.into_bytes()),
        }
    }
}

/// Formats a line number without allocating.
struct NumBuf {
    buf: [u8; 20],
    start: usize,
}

impl NumBuf {
    fn as_bytes(&self) -> &[u8] {
        &self.buf[self.start..]
    }
}

fn itoa_buf(mut n: u64) -> NumBuf {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    NumBuf { buf, start: i }
}
