//! A running tool's latest lines of output, kept so front ends can show
//! them while it runs (the engine reads them a few times a second; see
//! `engine::progress`). Bash feeds it; other tools may.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use crate::sync::lock;

/// Complete lines kept (front ends show fewer).
const KEEP_LINES: usize = 20;
/// Bytes of an unfinished line kept; a longer one is shown cut.
const MAX_PARTIAL: usize = 4096;

/// The tail of one call's output, shared between the tool and the engine
/// (set per call in the [`ToolContext`](super::ToolContext)'s values).
#[derive(Debug, Clone, Default)]
pub struct LiveOutput(Arc<Mutex<Tail>>);

#[derive(Debug, Default)]
struct Tail {
    lines: VecDeque<String>,
    partial: Vec<u8>,
    /// Complete lines seen in all.
    total: u64,
    /// Bumped by every push, so readers can tell when something changed.
    version: u64,
}

/// What a reader sees of the tail.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LiveSnapshot {
    pub version: u64,
    /// The last lines, oldest first (an unfinished last line included).
    pub lines: Vec<String>,
    /// Lines printed in all (the unfinished one included).
    pub total_lines: u64,
}

impl LiveOutput {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds output as it arrives (any chunking; `\r\n` and `\r`-redrawn
    /// progress bars end up as their last state).
    pub fn push(&self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let mut tail = lock(&self.0);
        tail.version += 1;
        for &b in bytes {
            if b == b'\n' {
                let line = take_line(&mut tail.partial);
                tail.lines.push_back(line);
                tail.total += 1;
                if tail.lines.len() > KEEP_LINES {
                    tail.lines.pop_front();
                }
            } else if tail.partial.len() < MAX_PARTIAL {
                tail.partial.push(b);
            }
        }
    }

    pub fn snapshot(&self) -> LiveSnapshot {
        let tail = lock(&self.0);
        let mut lines: Vec<String> = tail.lines.iter().cloned().collect();
        let mut total = tail.total;
        if !tail.partial.is_empty() {
            let mut partial = tail.partial.clone();
            lines.push(take_line(&mut partial));
            total += 1;
        }
        LiveSnapshot {
            version: tail.version,
            lines,
            total_lines: total,
        }
    }
}

/// The text of a finished line: what follows its last `\r` (a redrawn
/// progress line), without the `\r` of a `\r\n` ending.
fn take_line(bytes: &mut Vec<u8>) -> String {
    let raw = std::mem::take(bytes);
    let trimmed = raw.strip_suffix(b"\r").unwrap_or(&raw);
    let shown = match trimmed.iter().rposition(|&b| b == b'\r') {
        Some(at) => &trimmed[at + 1..],
        None => trimmed,
    };
    String::from_utf8_lossy(shown).into_owned()
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn keeps_the_last_lines_and_the_unfinished_one() {
        let live = LiveOutput::new();
        live.push(b"one\r\ntw");
        live.push(b"o\nprogress 10%\rprogress 90%\nhalf");
        let s = live.snapshot();
        assert_eq!(s.lines, ["one", "two", "progress 90%", "half"]);
        assert_eq!(s.total_lines, 4);
        for i in 0..100 {
            live.push(format!("line {i}\n").as_bytes());
        }
        let s = live.snapshot();
        assert_eq!(s.lines.len(), KEEP_LINES);
        assert_eq!(s.lines.last().map(String::as_str), Some("line 99"));
        assert_eq!(s.total_lines, 103);
    }
}
