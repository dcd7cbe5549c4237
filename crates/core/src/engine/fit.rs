//! Fitting a conversation back into the model's context window once the
//! provider has refused it as too long ("prompt is too long").
//!
//! The bulk of such a conversation is nearly always tool results (whole
//! files, long command output), so the largest results are cut to their
//! beginning, each with a note that says what was cut and how to get it
//! again, until the conversation is under a budget. Only the conversation
//! sent to the model is cut; the transcript keeps every result whole.
//! Compaction applies the same cut to the messages it keeps verbatim.

use catui_protocol::{ContentBlock, Message, ToolResultContent};

/// What a cut tool result keeps of its text, in characters.
pub const KEPT_CHARS: usize = 2_000;

/// Characters per token assumed for budgets. Prose and code run at about
/// four; two leaves room for dense data and for the system prompt and
/// tool definitions, which are not counted.
const CHARS_PER_TOKEN: usize = 2;

/// The size of `messages` in bytes of text, tool inputs and tool results
/// (what budgets are compared with).
pub fn size(messages: &[Message]) -> usize {
    messages
        .iter()
        .flat_map(|m| &m.content)
        .map(block_size)
        .sum()
}

fn block_size(block: &ContentBlock) -> usize {
    match block {
        ContentBlock::Text { text } => text.len(),
        ContentBlock::ToolUse { input, .. } => input.to_string().len(),
        ContentBlock::ToolResult { content, .. } => result_size(content),
        ContentBlock::Thinking { .. }
        | ContentBlock::RedactedThinking { .. }
        | ContentBlock::Reasoning { .. }
        | ContentBlock::Image { .. }
        | ContentBlock::Document { .. } => 0,
    }
}

fn result_size(content: &ToolResultContent) -> usize {
    match content {
        ToolResultContent::Text(text) => text.len(),
        ToolResultContent::Blocks(blocks) => blocks.iter().map(block_size).sum(),
    }
}

/// The budget, in bytes, for a window of `window_tokens` at the `step`-th
/// attempt to fit (1, 2, ...): each further attempt halves it.
pub fn budget(window_tokens: u64, step: u32) -> usize {
    let full = usize::try_from(window_tokens)
        .unwrap_or(usize::MAX)
        .saturating_mul(CHARS_PER_TOKEN);
    full.checked_shr(step.saturating_sub(1)).unwrap_or(0)
}

/// What [`cut_largest_tool_results`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cut {
    /// How many tool results were cut.
    pub results: usize,
    /// How many bytes they lost.
    pub bytes: usize,
}

/// Cuts the largest tool results in `messages`, largest first, to their
/// first [`KEPT_CHARS`] characters and a note, until the messages' size is
/// at most `budget` (or no result is longer than what a cut keeps).
pub fn cut_largest_tool_results(messages: &mut [Message], budget: usize) -> Cut {
    let mut total = size(messages);
    let mut done = Cut::default();
    if total <= budget {
        return done;
    }
    // (size, message, block) of every result a cut would shrink.
    let mut candidates: Vec<(usize, usize, usize)> = Vec::new();
    for (m, message) in messages.iter().enumerate() {
        for (b, block) in message.content.iter().enumerate() {
            if let ContentBlock::ToolResult { content, .. } = block {
                // A cut adds a note of about 300 bytes: not worth it below.
                // Results with images are left alone (a cut keeps text only).
                if !has_image(content) && content.as_text().chars().count() > KEPT_CHARS + 500 {
                    candidates.push((result_size(content), m, b));
                }
            }
        }
    }
    candidates.sort_by_key(|c| std::cmp::Reverse(c.0));
    for (size, m, b) in candidates {
        if total <= budget {
            break;
        }
        let Some(ContentBlock::ToolResult { content, .. }) = messages
            .get_mut(m)
            .and_then(|message| message.content.get_mut(b))
        else {
            continue;
        };
        let cut = cut_text(&content.as_text(), size);
        let new_size = cut.len();
        *content = ToolResultContent::Text(cut);
        if new_size < size {
            total -= size - new_size;
            done.results += 1;
            done.bytes += size - new_size;
        }
    }
    done
}

fn has_image(content: &ToolResultContent) -> bool {
    matches!(content, ToolResultContent::Blocks(blocks)
        if blocks.iter().any(|b| matches!(b, ContentBlock::Image { .. })))
}

/// What a cut did, in words for a notice.
pub fn describe(cut: Cut) -> String {
    format!(
        "cut the {} largest tool result(s) to their first {KEPT_CHARS} characters ({} KB left out; \
         the transcript keeps them whole)",
        cut.results,
        cut.bytes.div_ceil(1024)
    )
}

/// The budget for the `step`-th attempt after the provider refused a
/// prompt of `size` bytes of messages with `error_text`: when the text
/// gives the prompt's tokens and the limit (Anthropic "N tokens > M
/// maximum", OpenAI "maximum context length is M tokens ... resulted in N
/// tokens"), the size scaled by M/N with a margin for the system prompt
/// and tools; else [`budget`] of the window the catalog gives.
pub fn overflow_budget(error_text: &str, size: usize, window_tokens: u64, step: u32) -> usize {
    let Some((tokens, limit)) = token_counts(error_text) else {
        return budget(window_tokens, step);
    };
    let scaled = u128::try_from(size).unwrap_or(u128::MAX) * u128::from(limit) * 3
        / (u128::from(tokens) * 4);
    usize::try_from(scaled)
        .unwrap_or(usize::MAX)
        .checked_shr(step.saturating_sub(1))
        .unwrap_or(0)
}

/// (prompt tokens, limit) from an error text naming exactly two counts of
/// at least 1,000 (smaller numbers are status codes and the like).
fn token_counts(text: &str) -> Option<(u64, u64)> {
    let numbers: Vec<u64> = text
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .filter(|n| *n >= 1_000)
        .collect();
    match numbers[..] {
        [a, b] if a != b => Some((a.max(b), a.min(b))),
        _ => None,
    }
}

/// The first [`KEPT_CHARS`] characters of `text` and a note about the rest
/// (`size`: the result's original size in bytes).
fn cut_text(text: &str, size: usize) -> String {
    let end = text
        .char_indices()
        .nth(KEPT_CHARS)
        .map_or(text.len(), |(i, _)| i);
    format!(
        "{}\n\n[catui: the rest of this tool result was cut ({} of {size} bytes kept) because the \
         conversation no longer fit the model's context window. Run the tool again on a smaller \
         part (an offset and limit, a narrower search) if you need more of it.]",
        &text[..end],
        end
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn results(sizes: &[usize]) -> Vec<Message> {
        let mut messages = vec![Message::user_text("read them all")];
        for (i, n) in sizes.iter().enumerate() {
            messages.push(Message {
                role: catui_protocol::Role::User,
                content: vec![ContentBlock::tool_result(
                    format!("t{i}"),
                    "x".repeat(*n),
                    false,
                )],
            });
        }
        messages
    }

    fn result_text(m: &Message) -> String {
        match &m.content[0] {
            ContentBlock::ToolResult { content, .. } => content.as_text(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_largest_results_are_cut_first_until_the_budget_is_met() {
        let mut messages = results(&[100_000, 300_000, 5_000, 200_000]);
        let cut = cut_largest_tool_results(&mut messages, 320_000);
        // 605k: cutting 300k reaches 307k; the rest stays whole.
        assert_eq!(cut.results, 1);
        assert!(size(&messages) <= 320_000);
        let text = result_text(&messages[2]);
        assert!(text.starts_with(&"x".repeat(KEPT_CHARS)));
        assert!(
            text.contains("was cut (2000 of 300000 bytes kept)"),
            "{text}"
        );
        assert_eq!(result_text(&messages[1]).len(), 100_000);
        assert_eq!(result_text(&messages[4]).len(), 200_000);

        let cut = cut_largest_tool_results(&mut messages, 50_000);
        assert_eq!(cut.results, 2);
        // Small results are never cut, even when the budget is not met.
        assert_eq!(result_text(&messages[3]).len(), 5_000);
    }

    #[test]
    fn under_the_budget_nothing_changes() {
        let mut messages = results(&[10_000, 20_000]);
        let before = messages.clone();
        assert_eq!(
            cut_largest_tool_results(&mut messages, 1_000_000),
            Cut::default()
        );
        assert_eq!(messages, before);
    }

    #[test]
    fn cuts_keep_whole_characters() {
        let mut messages = results(&[]);
        messages.push(Message {
            role: catui_protocol::Role::User,
            content: vec![ContentBlock::tool_result("t", "é".repeat(50_000), false)],
        });
        let cut = cut_largest_tool_results(&mut messages, 10_000);
        assert_eq!(cut.results, 1);
        let text = result_text(&messages[1]);
        assert!(text.starts_with(&"é".repeat(KEPT_CHARS)));
    }

    #[test]
    fn budgets_follow_the_counts_the_provider_gives() {
        // Anthropic: tokens first; OpenAI: the limit first.
        let anthropic = "prompt is too long: 250000 tokens > 200000 maximum";
        assert_eq!(overflow_budget(anthropic, 1_000_000, 128_000, 1), 600_000);
        assert_eq!(overflow_budget(anthropic, 1_000_000, 128_000, 2), 300_000);
        let openai = "This model's maximum context length is 128000 tokens. However, your \
                      messages resulted in 256000 tokens.";
        assert_eq!(overflow_budget(openai, 1_000_000, 1, 1), 375_000);
        // Without two counts: the window's budget.
        let vague = "Your input exceeds the context window of this model.";
        assert_eq!(overflow_budget(vague, 1_000_000, 200_000, 1), 400_000);
        assert_eq!(overflow_budget("error 400", 1_000_000, 200_000, 1), 400_000);
    }

    #[test]
    fn budgets_halve_with_each_attempt() {
        assert_eq!(budget(200_000, 1), 400_000);
        assert_eq!(budget(200_000, 2), 200_000);
        assert_eq!(budget(200_000, 3), 100_000);
        assert_eq!(budget(200_000, 200), 0);
    }
}
