//! Scoring one path against a query: the query's characters must appear in
//! the path in order (ASCII case ignored); the score rewards what people
//! mean when they type a few letters of a file — letters in the file's own
//! name, letters next to each other, letters that start a word (after `/`,
//! `_`, `-`, `.`, a space, or a lower-to-upper case change) — and costs a
//! little for gaps. Higher is better; `None` is no match.

/// One path of the index, with what scoring needs precomputed once: its
/// ASCII-lowercased bytes and where its last component starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    path: Box<str>,
    lower: Box<[u8]>,
    /// Byte offset of the last component (a directory's trailing `/`
    /// does not count as the end).
    base: usize,
}

impl Entry {
    /// `path` relative to the project, `/`-separated; a directory ends
    /// with `/`.
    pub fn new(path: impl Into<String>) -> Entry {
        let path: String = path.into();
        let lower = path.as_bytes().to_ascii_lowercase().into_boxed_slice();
        let trimmed = path.strip_suffix('/').unwrap_or(&path);
        let base = trimmed.rfind('/').map_or(0, |i| i + 1);
        Entry {
            path: path.into_boxed_str(),
            lower,
            base,
        }
    }

    pub fn path(&self) -> &str {
        &self.path
    }
}

/// Points for each matched character.
const MATCH: i64 = 16;
/// A matched character right after the previous one.
const CONSECUTIVE: i64 = 24;
/// A matched character that starts a word.
const BOUNDARY: i64 = 20;
/// The query's first character starting the name or a word.
const FIRST_AT_BOUNDARY: i64 = 16;
/// A query that matches within the file's own name.
const IN_NAME: i64 = 48;
/// A query that is the start of the file's own name.
const NAME_PREFIX: i64 = 40;
/// Cost per character skipped between two matched ones (capped per gap).
const GAP: i64 = 2;
const MAX_GAP_COST: i64 = 12;

/// How well `entry` matches `query` (already ASCII-lowercased bytes);
/// `None` when the query's characters are not all in it, in order. The
/// empty query matches everything with score 0.
pub fn score(entry: &Entry, query: &[u8]) -> Option<i64> {
    if query.is_empty() {
        return Some(0);
    }
    let whole = window_score(&entry.path, &entry.lower, 0, query)?;
    // Letters typed for a file's name should find the file, not the
    // first directory that happens to hold them: try the name alone.
    let name = window_score(&entry.path, &entry.lower, entry.base, query).map(|s| {
        let prefix = entry.lower[entry.base..].starts_with(query);
        s + IN_NAME + if prefix { NAME_PREFIX } else { 0 }
    });
    Some(name.map_or(whole, |n| n.max(whole)))
}

/// The score of the tightest match of `query` in `lower[from..]`: the
/// first place the whole query fits going forward, then the latest start
/// that still fits going back (so `mod` in `model/mod.rs` is not spread
/// over both words).
fn window_score(path: &str, lower: &[u8], from: usize, query: &[u8]) -> Option<i64> {
    let hay = lower.get(from..)?;
    let mut qi = 0;
    let mut end = None;
    for (i, &b) in hay.iter().enumerate() {
        if b == query[qi] {
            qi += 1;
            if qi == query.len() {
                end = Some(i);
                break;
            }
        }
    }
    let end = end?;
    let mut start = end;
    let mut qi = query.len();
    for i in (0..=end).rev() {
        if hay[i] == query[qi - 1] {
            qi -= 1;
            if qi == 0 {
                start = i;
                break;
            }
        }
    }
    let orig = path.as_bytes();
    let mut total = 0;
    let mut prev: Option<usize> = None;
    let mut qi = 0;
    for (i, &b) in hay.iter().enumerate().take(end + 1).skip(start) {
        if qi == query.len() || b != query[qi] {
            continue;
        }
        let at = from + i;
        total += MATCH;
        if starts_word(orig, at) {
            total += BOUNDARY;
            if qi == 0 {
                total += FIRST_AT_BOUNDARY;
            }
        }
        match prev {
            Some(p) if p + 1 == i => total += CONSECUTIVE,
            Some(p) => total -= ((i - p - 1) as i64 * GAP).min(MAX_GAP_COST),
            None => {}
        }
        prev = Some(i);
        qi += 1;
    }
    Some(total)
}

/// Whether the byte at `at` starts a word of the path.
fn starts_word(orig: &[u8], at: usize) -> bool {
    let Some(before) = at.checked_sub(1).map(|i| orig[i]) else {
        return true;
    };
    matches!(before, b'/' | b'_' | b'-' | b'.' | b' ')
        || (before.is_ascii_lowercase() && orig[at].is_ascii_uppercase())
}

#[cfg(test)]
#[path = "score_tests.rs"]
mod tests;
