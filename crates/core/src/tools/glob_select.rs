//! Which of Glob's matches are listed, and in what order; the listing
//! itself ([`GlobResult`]).
//!
//! Up to [`MAX_TIME_SORTED`] matches are listed newest first. That needs the
//! modification time of every match: one `statx` each, which on Linux costs
//! about as much as everything else the walk does per file, so a glob over
//! a whole large tree would take twice as long as listing the files. Beyond
//! that many matches only [`MAX_RESULTS`] of them can be shown anyway, so
//! they are listed in path order instead, with no stat at all, and the
//! answer says so.
//!
//! During the walk each thread keeps its matches ([`ThreadMatches`]); a
//! thread that alone passes the limit keeps only its first paths in order
//! (pruned in batches, so memory stays flat however many files match).
//! After the walk, [`select`] stats the matches in parallel when there are
//! few enough, grouped by directory as the walk produced them.

use std::cmp::Ordering;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use tokio_util::sync::CancellationToken;

use super::walk::MtimeReader;

/// At most this many matches are ordered by modification time.
pub const MAX_TIME_SORTED: usize = 10_000;

/// At most this many paths are listed.
pub const MAX_RESULTS: usize = 100;

/// What Glob found: up to [`MAX_RESULTS`] matches in the order shown, and
/// how many matched in all.
#[derive(Debug)]
pub struct GlobResult {
    pub files: Vec<PathBuf>,
    pub total: usize,
    /// Newest first (else by path: too many matches to stat them all).
    pub by_time: bool,
}

impl GlobResult {
    /// The model-facing text: up to [`MAX_RESULTS`] paths and a note if cut.
    pub fn render(&self) -> String {
        if self.files.is_empty() {
            return "No files found".to_string();
        }
        let mut out: String = self
            .files
            .iter()
            .take(MAX_RESULTS)
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join("\n");
        let shown = self.files.len().min(MAX_RESULTS);
        let more = self.total.saturating_sub(shown);
        if more > 0 && !self.by_time {
            out.push_str(&format!(
                "\n(results truncated: {} files matched, more than {MAX_TIME_SORTED}, so these are \
                 the first {shown} by path rather than the most recently modified; use a more \
                 specific pattern or path)",
                self.total
            ));
        } else if more > 0 {
            out.push_str(&format!(
                "\n(results truncated: {more} more files not shown; use a more specific pattern \
                 or path)"
            ));
        }
        out
    }
}

/// An overflowing thread's list is cut back to the first [`MAX_RESULTS`]
/// paths when it reaches this length.
const PRUNE_AT: usize = 8 * MAX_RESULTS;

/// Below this many matches the stats run on the calling thread.
const PARALLEL_STAT_FROM: usize = 1_000;

/// One walker thread's matches.
#[derive(Default)]
pub(crate) struct ThreadMatches {
    /// Every match in walk order, or (once `overflow`) the first paths.
    found: Vec<PathBuf>,
    total: usize,
    overflow: bool,
}

impl ThreadMatches {
    pub(crate) fn push(&mut self, path: PathBuf, limit: usize) {
        self.total += 1;
        self.found.push(path);
        if !self.overflow && self.total > limit {
            self.overflow = true;
            keep_first_paths(&mut self.found);
        } else if self.overflow && self.found.len() >= PRUNE_AT {
            keep_first_paths(&mut self.found);
        }
    }
}

/// The listed matches out of every thread's, newest first when there are at
/// most `limit` of them, else by path.
pub(crate) fn select(
    threads: Vec<ThreadMatches>,
    limit: usize,
    cancel: &CancellationToken,
) -> GlobResult {
    let total: usize = threads.iter().map(|t| t.total).sum();
    let mut found: Vec<PathBuf> = Vec::with_capacity(threads.iter().map(|t| t.found.len()).sum());
    for t in threads {
        found.extend(t.found);
    }
    if total > limit {
        keep_first_paths(&mut found);
        found.sort_unstable_by(|a, b| path_order(a, b));
        return GlobResult {
            files: found,
            total,
            by_time: false,
        };
    }
    let mut timed = stat_all(found, cancel);
    if timed.len() > MAX_RESULTS {
        timed.select_nth_unstable_by(MAX_RESULTS, newest_order);
        timed.truncate(MAX_RESULTS);
    }
    timed.sort_unstable_by(newest_order);
    GlobResult {
        files: timed.into_iter().map(|(_, p)| p).collect(),
        total,
        by_time: true,
    }
}

/// Every path with its mtime, stat'ed on up to four threads.
fn stat_all(found: Vec<PathBuf>, cancel: &CancellationToken) -> Vec<(Option<SystemTime>, PathBuf)> {
    let stat_chunk = |chunk: Vec<PathBuf>| {
        let mut mtimes = MtimeReader::default();
        chunk
            .into_iter()
            .map(|p| {
                let t = if cancel.is_cancelled() {
                    None
                } else {
                    mtimes.mtime(&p)
                };
                (t, p)
            })
            .collect::<Vec<_>>()
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(4);
    if found.len() < PARALLEL_STAT_FROM || threads < 2 {
        return stat_chunk(found);
    }
    // Contiguous chunks keep each directory's files together.
    let per = found.len().div_ceil(threads);
    let mut chunks = Vec::with_capacity(threads);
    let mut rest = found;
    while rest.len() > per {
        let tail = rest.split_off(per);
        chunks.push(rest);
        rest = tail;
    }
    chunks.push(rest);
    std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| scope.spawn(move || stat_chunk(chunk)))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// Byte order of the paths.
fn path_order(a: &Path, b: &Path) -> Ordering {
    a.as_os_str()
        .as_encoded_bytes()
        .cmp(b.as_os_str().as_encoded_bytes())
}

/// Newest first; ties (and unknown times) in byte order of the path, for
/// stable output.
fn newest_order(a: &(Option<SystemTime>, PathBuf), b: &(Option<SystemTime>, PathBuf)) -> Ordering {
    b.0.cmp(&a.0).then_with(|| path_order(&a.1, &b.1))
}

/// Keeps the first [`MAX_RESULTS`] paths (in no particular order); linear.
fn keep_first_paths(found: &mut Vec<PathBuf>) {
    if found.len() > MAX_RESULTS {
        found.select_nth_unstable_by(MAX_RESULTS, |a, b| path_order(a, b));
        found.truncate(MAX_RESULTS);
    }
}
