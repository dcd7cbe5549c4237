//! The parallel, gitignore-aware directory walk shared by Glob and Grep:
//! per-thread state (e.g. a Searcher) and per-thread result lists that are
//! merged once at the end, so the hot path takes no locks.

use crate::sync::lock;
use std::sync::Mutex;

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

struct Builder<'a, T, M, F> {
    make_state: &'a M,
    visit: &'a F,
    out: &'a Mutex<Vec<T>>,
    cancel: &'a CancellationToken,
}

impl<'a, T, S, M, F> ParallelVisitorBuilder<'a> for Builder<'a, T, M, F>
where
    T: Send + 'a,
    S: Send + 'a,
    M: Fn() -> S + Sync,
    F: Fn(&mut S, DirEntry, &mut Vec<T>) + Sync,
{
    fn build(&mut self) -> Box<dyn ParallelVisitor + 'a> {
        Box::new(Visitor {
            state: (self.make_state)(),
            local: Vec::new(),
            visit: self.visit,
            out: self.out,
            cancel: self.cancel,
        })
    }
}

struct Visitor<'a, T, S, F> {
    state: S,
    local: Vec<T>,
    visit: &'a F,
    out: &'a Mutex<Vec<T>>,
    cancel: &'a CancellationToken,
}

impl<T: Send, S: Send, F> ParallelVisitor for Visitor<'_, T, S, F>
where
    F: Fn(&mut S, DirEntry, &mut Vec<T>) + Sync,
{
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        if self.cancel.is_cancelled() {
            return WalkState::Quit;
        }
        if let Ok(entry) = entry {
            (self.visit)(&mut self.state, entry, &mut self.local);
        }
        WalkState::Continue
    }
}

impl<T, S, F> Drop for Visitor<'_, T, S, F> {
    fn drop(&mut self) {
        let mut out = lock(self.out);
        out.append(&mut self.local);
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
