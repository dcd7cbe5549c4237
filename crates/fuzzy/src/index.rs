//! The project's file list for the picker: one walk in the background the
//! first time it is wanted (gitignore, `.ignore` and git's exclude files
//! respected, `.git` itself left out, hidden files kept), batches added as
//! the walk's threads find them so the picker can show matches before it
//! ends, then kept. Opening the picker again after [`STALE_AFTER`] walks
//! again in the background and swaps the new list in when that walk ends,
//! so the picker never waits for a walk it already has an answer from.
//!
//! Paths are relative to the root, `/`-separated, directories with a
//! trailing `/`. Paths with white space or that are not UTF-8 are left
//! out: a mention ends at white space (see core's `engine::mentions`), so
//! the picker could not insert them in a form that attaches; so are names
//! with control characters, which no one types.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};

use crate::score::Entry;

/// Paths kept at most: a bound on memory for a huge tree (the walk stops
/// there and the picker says so).
pub const MAX_ENTRIES: usize = 500_000;
/// A list older than this is walked again when the picker opens.
pub const STALE_AFTER: Duration = Duration::from_secs(10);
/// Paths a walk thread collects before adding them to the shared list.
const BATCH: usize = 512;

/// Every walk gets its own generation, so a [`crate::Matcher`] never
/// narrows down on matches from another list.
static GENERATIONS: AtomicU64 = AtomicU64::new(1);

/// One walk of the tree and what it found so far.
#[derive(Debug)]
struct Walk {
    generation: u64,
    entries: Mutex<Vec<Entry>>,
    done: AtomicBool,
    truncated: AtomicBool,
    /// Set to stop the walk (the index was dropped).
    stop: AtomicBool,
    started: Instant,
}

impl Walk {
    fn entries(&self) -> MutexGuard<'_, Vec<Entry>> {
        // A walk thread that panicked leaves a list that is still whole.
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Where the list is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexStatus {
    /// Nothing asked for yet.
    NotStarted,
    /// The first walk runs; `found` paths so far.
    Walking { found: usize },
    /// A list is there (a newer walk may run behind it).
    Ready { paths: usize, truncated: bool },
}

/// The file list of one project root, walked on demand.
#[derive(Debug)]
pub struct FileIndex {
    root: PathBuf,
    /// The list served.
    current: Option<Arc<Walk>>,
    /// A newer walk, served once it ends.
    next: Option<Arc<Walk>>,
}

impl FileIndex {
    /// An index of `root`; nothing is walked until [`FileIndex::open`].
    pub fn new(root: impl Into<PathBuf>) -> FileIndex {
        FileIndex {
            root: root.into(),
            current: None,
            next: None,
        }
    }

    /// The picker opens: the first call starts the walk, a later one
    /// starts another when the list is older than [`STALE_AFTER`]. Never
    /// waits.
    pub fn open(&mut self) {
        self.swap_in_finished();
        match &self.current {
            None => self.current = Some(spawn_walk(&self.root)),
            Some(walk)
                if self.next.is_none()
                    && walk.done.load(Ordering::Acquire)
                    && walk.started.elapsed() >= STALE_AFTER =>
            {
                self.next = Some(spawn_walk(&self.root));
            }
            Some(_) => {}
        }
    }

    /// Calls `f` with the list served now and its generation (empty, 0
    /// before any walk). The list is locked meanwhile, so the walk's
    /// threads wait: keep `f` short.
    pub fn with_entries<T>(&mut self, f: impl FnOnce(&[Entry], u64) -> T) -> T {
        self.swap_in_finished();
        match &self.current {
            Some(walk) => f(&walk.entries(), walk.generation),
            None => f(&[], 0),
        }
    }

    /// Where the list served is.
    pub fn status(&self) -> IndexStatus {
        let Some(walk) = &self.current else {
            return IndexStatus::NotStarted;
        };
        let found = walk.entries().len();
        if walk.done.load(Ordering::Acquire) {
            IndexStatus::Ready {
                paths: found,
                truncated: walk.truncated.load(Ordering::Acquire),
            }
        } else {
            IndexStatus::Walking { found }
        }
    }

    /// Whether the list served has grown or changed since `seen` (its
    /// generation and length): the picker's matches are then out of date.
    pub fn changed_since(&self, seen: (u64, usize)) -> bool {
        let newer_done = self
            .next
            .as_ref()
            .is_some_and(|w| w.done.load(Ordering::Acquire));
        newer_done
            || self
                .current
                .as_ref()
                .is_some_and(|w| (w.generation, w.entries().len()) != seen)
    }

    fn swap_in_finished(&mut self) {
        if self
            .next
            .as_ref()
            .is_some_and(|w| w.done.load(Ordering::Acquire))
        {
            self.current = self.next.take();
        }
    }
}

impl Drop for FileIndex {
    fn drop(&mut self) {
        for walk in self.current.iter().chain(self.next.iter()) {
            walk.stop.store(true, Ordering::Release);
        }
    }
}

/// Starts walking `root` on a thread of its own (which runs the walker's
/// threads) and returns the shared list it fills.
fn spawn_walk(root: &Path) -> Arc<Walk> {
    let walk = Arc::new(Walk {
        generation: GENERATIONS.fetch_add(1, Ordering::Relaxed),
        entries: Mutex::new(Vec::new()),
        done: AtomicBool::new(false),
        truncated: AtomicBool::new(false),
        stop: AtomicBool::new(false),
        started: Instant::now(),
    });
    let shared = walk.clone();
    let root = root.to_path_buf();
    let started = std::thread::Builder::new()
        .name("catui-file-index".into())
        .spawn(move || {
            let walker = WalkBuilder::new(&root)
                .hidden(false)
                .require_git(false)
                .filter_entry(|e| e.file_name() != ".git")
                .build_parallel();
            walker.visit(&mut Visitors {
                root: &root,
                walk: &shared,
            });
            shared.done.store(true, Ordering::Release);
        });
    if started.is_err() {
        // No thread, no list: the picker shows nothing rather than fail.
        walk.done.store(true, Ordering::Release);
    }
    walk
}

struct Visitors<'a> {
    root: &'a Path,
    walk: &'a Arc<Walk>,
}

impl<'s> ParallelVisitorBuilder<'s> for Visitors<'_> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Collector {
            root: self.root.to_path_buf(),
            walk: self.walk.clone(),
            batch: Vec::with_capacity(BATCH),
        })
    }
}

/// One walk thread's batch of paths not yet added to the list.
struct Collector {
    root: PathBuf,
    walk: Arc<Walk>,
    batch: Vec<Entry>,
}

impl Collector {
    /// Adds the batch to the list; false once the list is full.
    fn flush(&mut self) -> bool {
        let mut entries = self.walk.entries();
        let room = MAX_ENTRIES.saturating_sub(entries.len());
        if self.batch.len() > room {
            self.batch.truncate(room);
            self.walk.truncated.store(true, Ordering::Release);
        }
        entries.append(&mut self.batch);
        entries.len() < MAX_ENTRIES
    }
}

impl ParallelVisitor for Collector {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        if self.walk.stop.load(Ordering::Acquire) {
            return WalkState::Quit;
        }
        // Unreadable entries are skipped, as a search skips them.
        let Ok(entry) = entry else {
            return WalkState::Continue;
        };
        if let Some(path) = relative(&self.root, &entry) {
            self.batch.push(Entry::new(path));
        }
        if self.batch.len() >= BATCH && !self.flush() {
            return WalkState::Quit;
        }
        WalkState::Continue
    }
}

impl Drop for Collector {
    fn drop(&mut self) {
        self.flush();
    }
}

/// The entry's path as the picker inserts it, or `None` for the root and
/// for paths a mention cannot name.
fn relative(root: &Path, entry: &DirEntry) -> Option<String> {
    let rel = entry.path().strip_prefix(root).ok()?.to_str()?;
    if rel.is_empty() || rel.contains(|c: char| c.is_whitespace() || c.is_control()) {
        return None;
    }
    let mut path = rel.replace(std::path::MAIN_SEPARATOR, "/");
    if entry.file_type().is_some_and(|t| t.is_dir()) {
        path.push('/');
    }
    Some(path)
}

#[cfg(test)]
#[path = "index_tests.rs"]
mod tests;
