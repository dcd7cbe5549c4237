//! Capturing a command's output with bounded memory: the first and last
//! parts are kept, the middle is counted and replaced by a marker.

/// Characters of output the model receives at most (head + tail).
pub const MAX_OUTPUT_CHARS: usize = 30_000;

/// Bytes kept at each end while capturing; generous enough that the
/// character limit, not this, decides what is shown (a char is ≤ 4 bytes).
const KEEP_BYTES: usize = MAX_OUTPUT_CHARS / 2 * 4;

/// Output collected so far.
#[derive(Debug, Default)]
pub struct OutputBuffer {
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    /// Characters dropped between `head` and `tail`.
    dropped_chars: usize,
    dropped_any: bool,
}

impl OutputBuffer {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, mut bytes: &[u8]) {
        if self.head.len() < KEEP_BYTES {
            let take = bytes.len().min(KEEP_BYTES - self.head.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        self.tail.extend(bytes);
        if self.tail.len() > KEEP_BYTES {
            let excess = self.tail.len() - KEEP_BYTES;
            self.dropped_chars += self
                .tail
                .drain(..excess)
                .filter(|b| !is_continuation(*b))
                .count();
            self.dropped_any = true;
        }
    }

    /// The captured text, cut to [`MAX_OUTPUT_CHARS`] with a
    /// `... [N characters cut] ...` marker when longer.
    pub fn render(&self) -> String {
        let half = MAX_OUTPUT_CHARS / 2;
        if !self.dropped_any {
            let mut all = self.head.clone();
            all.extend(self.tail.iter());
            let text = String::from_utf8_lossy(&all);
            let total = text.chars().count();
            if total <= MAX_OUTPUT_CHARS {
                return text.into_owned();
            }
            let head: String = text.chars().take(half).collect();
            let tail: String = text.chars().skip(total - half).collect();
            return join(&head, total - 2 * half, &tail);
        }
        let head_text = String::from_utf8_lossy(&self.head);
        let head_total = head_text.chars().count();
        let head: String = head_text.chars().take(half).collect();
        // The tail may start inside a character.
        let tail_bytes: Vec<u8> = self
            .tail
            .iter()
            .copied()
            .skip_while(|b| is_continuation(*b))
            .collect();
        let tail_text = String::from_utf8_lossy(&tail_bytes);
        let tail_total = tail_text.chars().count();
        let tail: String = tail_text
            .chars()
            .skip(tail_total.saturating_sub(half))
            .collect();
        let cut =
            head_total.saturating_sub(half) + self.dropped_chars + tail_total.saturating_sub(half);
        join(&head, cut, &tail)
    }
}

fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

fn join(head: &str, cut: usize, tail: &str) -> String {
    format!("{head}\n\n... [{cut} characters cut] ...\n\n{tail}")
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn short_output_is_kept_whole() {
        let mut b = OutputBuffer::new();
        b.push("héllo ".as_bytes());
        b.push(b"world");
        assert_eq!(b.render(), "héllo world");
    }

    #[test]
    fn long_output_keeps_head_and_tail() {
        let mut b = OutputBuffer::new();
        let line = "0123456789".repeat(10);
        for _ in 0..5_000 {
            b.push(line.as_bytes());
        }
        let out = b.render();
        let total = 5_000 * 100;
        let cut = total - MAX_OUTPUT_CHARS;
        assert!(
            out.contains(&format!("... [{cut} characters cut] ...")),
            "{}",
            &out[14_990..15_060]
        );
        assert!(out.starts_with("0123456789"));
        assert!(out.ends_with("0123456789"));
    }

    #[test]
    fn multibyte_counts_are_in_characters() {
        let mut b = OutputBuffer::new();
        for _ in 0..100_000 {
            b.push("é".as_bytes());
        }
        let out = b.render();
        assert!(out.contains(&format!("[{} characters cut]", 100_000 - MAX_OUTPUT_CHARS)));
        assert!(!out.contains('\u{fffd}'));
    }

    #[test]
    fn just_over_the_limit_without_dropping() {
        let mut b = OutputBuffer::new();
        b.push("x".repeat(MAX_OUTPUT_CHARS + 10).as_bytes());
        assert!(b.render().contains("[10 characters cut]"));
    }
}
