//! The parallel, gitignore-aware directory walk shared by Glob and Grep:
//! per-thread state (e.g. a Searcher, or Glob's newest matches so far) that
//! is merged once at the end, so the hot path takes no locks.

use crate::sync::lock;
use std::path::Path;
use std::sync::Mutex;
use std::time::SystemTime;
#[cfg(target_os = "linux")]
use std::time::{Duration, UNIX_EPOCH};

use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkParallel, WalkState};
use tokio_util::sync::CancellationToken;

/// Walks with every thread of `walker`. Each thread builds its own state
/// with `make_state` and calls `visit` for every entry, pushing results into
/// its own list; the lists are concatenated at the end (in no particular
/// order). Unreadable entries are skipped, like ripgrep does without
/// `--debug`. Stops early when `cancel` fires.
pub(crate) fn collect_parallel<T, S, M, F>(
    walker: WalkParallel,
    cancel: &CancellationToken,
    make_state: M,
    visit: F,
) -> Vec<T>
where
    T: Send,
    S: Send,
    M: Fn() -> S + Sync,
    F: Fn(&mut S, DirEntry, &mut Vec<T>) + Sync,
{
    let states = fold_parallel(
        walker,
        cancel,
        || (make_state(), Vec::new()),
        |(state, out): &mut (S, Vec<T>), entry| visit(state, entry, out),
    );
    let mut all = Vec::with_capacity(states.iter().map(|(_, out)| out.len()).sum());
    for (_, mut out) in states {
        all.append(&mut out);
    }
    all
}

/// Walks with every thread of `walker`, each folding the entries it sees
/// into its own state (built by `make_state`); returns every thread's final
/// state, in no particular order. Unreadable entries are skipped. Stops
/// early when `cancel` fires.
pub(crate) fn fold_parallel<S, M, F>(
    walker: WalkParallel,
    cancel: &CancellationToken,
    make_state: M,
    visit: F,
) -> Vec<S>
where
    S: Send,
    M: Fn() -> S + Sync,
    F: Fn(&mut S, DirEntry) + Sync,
{
    let out = Mutex::new(Vec::new());
    let mut builder = Builder {
        make_state: &make_state,
        visit: &visit,
        out: &out,
        cancel,
    };
    walker.visit(&mut builder);
    crate::sync::into_inner(out)
}

struct Builder<'a, S, M, F> {
    make_state: &'a M,
    visit: &'a F,
    out: &'a Mutex<Vec<S>>,
    cancel: &'a CancellationToken,
}

impl<'a, S, M, F> ParallelVisitorBuilder<'a> for Builder<'a, S, M, F>
where
    S: Send + 'a,
    M: Fn() -> S + Sync,
    F: Fn(&mut S, DirEntry) + Sync,
{
    fn build(&mut self) -> Box<dyn ParallelVisitor + 'a> {
        Box::new(Visitor {
            state: Some((self.make_state)()),
            visit: self.visit,
            out: self.out,
            cancel: self.cancel,
        })
    }
}

struct Visitor<'a, S, F> {
    /// `None` only after the state was handed over in `drop`.
    state: Option<S>,
    visit: &'a F,
    out: &'a Mutex<Vec<S>>,
    cancel: &'a CancellationToken,
}

impl<S: Send, F> ParallelVisitor for Visitor<'_, S, F>
where
    F: Fn(&mut S, DirEntry) + Sync,
{
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        if self.cancel.is_cancelled() {
            return WalkState::Quit;
        }
        if let (Ok(entry), Some(state)) = (entry, self.state.as_mut()) {
            (self.visit)(state, entry);
        }
        WalkState::Continue
    }
}

impl<S, F> Drop for Visitor<'_, S, F> {
    fn drop(&mut self) {
        let Some(state) = self.state.take() else {
            return;
        };
        lock(self.out).push(state);
    }
}

/// Reads modification times cheaply for paths that come grouped by
/// directory (as a walk produces them). On Linux each directory is opened
/// once (`O_PATH`) and each file is stat'ed relative to it with `statx`
/// asking for the mtime only: one path component to resolve instead of the
/// whole path. Anywhere else, or when that fails, it falls back to
/// `symlink_metadata`. Symbolic links report their own time.
#[derive(Default)]
pub(crate) struct MtimeReader {
    #[cfg(target_os = "linux")]
    dir: Option<(std::path::PathBuf, rustix::fd::OwnedFd)>,
}

impl MtimeReader {
    pub(crate) fn mtime(&mut self, path: &Path) -> Option<SystemTime> {
        #[cfg(target_os = "linux")]
        if let Some(t) = self.mtime_at(path) {
            return Some(t);
        }
        std::fs::symlink_metadata(path)
            .ok()
            .and_then(|m| m.modified().ok())
    }

    #[cfg(target_os = "linux")]
    fn mtime_at(&mut self, path: &Path) -> Option<SystemTime> {
        use rustix::fs::{AtFlags, Mode, OFlags, StatxFlags};
        let (parent, name) = (path.parent()?, path.file_name()?);
        // Byte comparison: `Path`'s `==` compares component by component.
        let cached = matches!(&self.dir, Some((dir, _))
            if dir.as_os_str().as_encoded_bytes() == parent.as_os_str().as_encoded_bytes());
        if !cached {
            let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
            let fd = rustix::fs::open(parent, flags, Mode::empty()).ok()?;
            self.dir = Some((parent.to_path_buf(), fd));
        }
        let (_, fd) = self.dir.as_ref()?;
        let st = rustix::fs::statx(fd, name, AtFlags::SYMLINK_NOFOLLOW, StatxFlags::MTIME).ok()?;
        if !StatxFlags::from_bits_retain(st.stx_mask).contains(StatxFlags::MTIME) {
            return None;
        }
        let t = st.stx_mtime;
        let nanos = Duration::from_nanos(u64::from(t.tv_nsec));
        match u64::try_from(t.tv_sec) {
            Ok(secs) => UNIX_EPOCH.checked_add(Duration::from_secs(secs) + nanos),
            Err(_) => UNIX_EPOCH
                .checked_sub(Duration::from_secs(t.tv_sec.unsigned_abs()))?
                .checked_add(nanos),
        }
    }
}

/// Splits a filter like `"*.rs *.toml"` or `"*.rs,*.toml"` into globs,
/// keeping commas inside braces (`"*.{ts,tsx}"` stays one glob).
pub(crate) fn split_globs(spec: &str) -> Vec<String> {
    let mut globs = Vec::new();
    let mut cur = String::new();
    let mut depth = 0usize;
    for c in spec.chars() {
        match c {
            '{' => {
                depth += 1;
                cur.push(c);
            }
            '}' => {
                depth = depth.saturating_sub(1);
                cur.push(c);
            }
            ',' if depth == 0 => globs.push(std::mem::take(&mut cur)),
            c if c.is_whitespace() && depth == 0 => globs.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    globs.push(cur);
    globs.retain(|g| !g.is_empty());
    globs
}

/// Whether the entry is a regular file (or a link to one, which the walk
/// reports as a symlink).
pub(crate) fn is_file_like(entry: &DirEntry) -> bool {
    entry
        .file_type()
        .is_some_and(|t| t.is_file() || (t.is_symlink() && entry.path().is_file()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_globs_outside_braces() {
        assert_eq!(split_globs("*.rs"), vec!["*.rs"]);
        assert_eq!(split_globs("*.{ts,tsx}"), vec!["*.{ts,tsx}"]);
        assert_eq!(split_globs("*.rs, *.toml"), vec!["*.rs", "*.toml"]);
        assert_eq!(split_globs("*.rs *.{a,b}"), vec!["*.rs", "*.{a,b}"]);
    }

    #[test]
    fn collects_from_all_threads() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..50 {
            std::fs::write(dir.path().join(format!("f{i}.txt")), "x").unwrap();
        }
        let walker = ignore::WalkBuilder::new(dir.path())
            .threads(4)
            .build_parallel();
        let mut found = collect_parallel(
            walker,
            &CancellationToken::new(),
            || 0usize,
            |seen, entry, out| {
                *seen += 1;
                if is_file_like(&entry) {
                    out.push(entry.into_path());
                }
            },
        );
        found.sort();
        assert_eq!(found.len(), 50);
    }
}
