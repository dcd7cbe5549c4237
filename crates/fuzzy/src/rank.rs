//! Ranking the index for a query, incrementally: typing one more letter
//! looks again only at the paths the shorter query matched (a longer query
//! can match no others) plus any the walk added since, so each keystroke
//! on a large project costs less than the one before.

use std::cmp::Ordering;

use crate::score::{Entry, score};

/// The matches of the last query, to narrow down on the next one.
#[derive(Debug, Default)]
pub struct Matcher {
    /// The list the cache is about (see [`Matcher::rank`]).
    generation: u64,
    /// The last query, ASCII-lowercased.
    query: Vec<u8>,
    /// How many entries of the list the last query looked at.
    seen: usize,
    /// Which of those matched it.
    hits: Vec<usize>,
}

impl Matcher {
    /// Indices into `entries` of the best `limit` matches of `query`, best
    /// first (ties: the shorter path, then by name). `generation` names
    /// the list: it may only grow at its end while its generation stays
    /// the same; another generation starts over.
    pub fn rank(
        &mut self,
        entries: &[Entry],
        generation: u64,
        query: &str,
        limit: usize,
    ) -> Vec<usize> {
        let query = query.as_bytes().to_ascii_lowercase();
        let narrows = generation == self.generation
            && query.starts_with(&self.query)
            && self.seen <= entries.len();
        let (earlier, from) = if narrows {
            (std::mem::take(&mut self.hits), self.seen)
        } else {
            ((0..0).collect(), 0)
        };
        let candidates = earlier.into_iter().chain(from..entries.len());
        let mut scored: Vec<(i64, usize)> = candidates
            .filter_map(|i| score(&entries[i], &query).map(|s| (s, i)))
            .collect();
        // In list order already: the earlier hits, then the new tail.
        self.hits = scored.iter().map(|&(_, i)| i).collect();
        self.generation = generation;
        self.query = query;
        self.seen = entries.len();
        let order = |a: &(i64, usize), b: &(i64, usize)| better(entries, *a, *b);
        if scored.len() > limit && limit > 0 {
            scored.select_nth_unstable_by(limit - 1, order);
        }
        scored.truncate(limit);
        scored.sort_unstable_by(order);
        scored.into_iter().map(|(_, i)| i).collect()
    }

    /// How many entries the last query matched.
    pub fn matched(&self) -> usize {
        self.hits.len()
    }
}

/// Best first: the higher score, then the shorter path, then by name.
fn better(entries: &[Entry], a: (i64, usize), b: (i64, usize)) -> Ordering {
    let (pa, pb) = (entries[a.1].path(), entries[b.1].path());
    b.0.cmp(&a.0).then(pa.len().cmp(&pb.len())).then(pa.cmp(pb))
}
