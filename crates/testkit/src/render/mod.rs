//! Renders a [`Turn`](crate::Turn) into the frames of one wire format.
//! Both formats share the chunking rules here, so a script streams the
//! same pieces whichever client asks.

pub(crate) mod anthropic;
pub(crate) mod openai;
pub(crate) mod responses;

use bytes::Bytes;

use crate::script::{Block, Turn};

/// What a renderer needs to know about the request being answered.
pub(crate) struct RenderCtx {
    pub model: String,
    /// A unique id for this answer (`msg_mock_N` / `chatcmpl-mock-N`).
    pub serial: u64,
    /// Estimated prompt tokens, used when the turn sets no usage.
    pub input_estimate: u64,
    /// OpenAI `stream_options.include_usage`.
    pub include_usage: bool,
    /// Responses `include: ["reasoning.encrypted_content"]`.
    pub encrypted_reasoning: bool,
    /// (read, creation) from the mock's prompt cache, for turns that set
    /// no usage of their own.
    pub prompt_cache: Option<(u64, u64)>,
}

impl RenderCtx {
    /// (input, output) tokens to report; input excludes cached tokens.
    pub fn usage(&self, turn: &Turn, blocks: &[Block]) -> (u64, u64) {
        turn.usage.unwrap_or_else(|| {
            let out: usize = blocks.iter().map(Block::streamed_len).sum();
            let (read, creation) = self.prompt_cache.unwrap_or_default();
            (
                self.input_estimate.saturating_sub(read + creation),
                (out as u64).div_ceil(4).max(1),
            )
        })
    }

    /// (cache read, cache creation) tokens to report.
    pub fn cache(&self, turn: &Turn) -> (u64, u64) {
        turn.cache_usage.or(self.prompt_cache).unwrap_or_default()
    }
}

/// Splits text into pieces of about two words, keeping all whitespace, so
/// that streaming clients see several deltas.
pub(crate) fn split_text(text: &str) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut current = String::new();
    let mut words = 0;
    for word in text.split_inclusive(char::is_whitespace) {
        current.push_str(word);
        if !word.trim().is_empty() {
            words += 1;
        }
        if words == 2 {
            pieces.push(std::mem::take(&mut current));
            words = 0;
        }
    }
    if !current.is_empty() {
        pieces.push(current);
    }
    pieces
}

/// Splits tool input text into up to four pieces on character boundaries
/// (never in the middle of a UTF-8 sequence).
pub(crate) fn split_json(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return Vec::new();
    }
    let size = chars.len().div_ceil(4).max(1);
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

/// An SSE frame with an event name.
pub(crate) fn named_frame(event: &str, data: &serde_json::Value) -> Bytes {
    Bytes::from(format!("event: {event}\ndata: {data}\n\n"))
}

/// An SSE frame with only data.
pub(crate) fn data_frame(data: &str) -> Bytes {
    Bytes::from(format!("data: {data}\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_splits_into_pieces_that_rejoin() {
        let text = "The quick  brown fox\njumps over.";
        let pieces = split_text(text);
        assert!(pieces.len() >= 3, "{pieces:?}");
        assert_eq!(pieces.concat(), text);
        assert!(split_text("").is_empty());
    }

    #[test]
    fn json_splits_on_char_boundaries() {
        let text = r#"{"path":"é/ü.rs","n":1}"#;
        let pieces = split_json(text);
        assert_eq!(pieces.len(), 4);
        assert_eq!(pieces.concat(), text);
        assert_eq!(split_json("{}"), vec!["{", "}"]);
    }
}
