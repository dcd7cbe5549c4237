//! The mock's prompt cache for the Anthropic wire, so that tests and
//! benchmarks can measure how much of each prompt a client gets served
//! from the cache.
//!
//! It follows the published rules closely enough to expose a client that
//! breaks its own prefix: a prompt is the sequence tools → system →
//! message blocks; a block carrying `cache_control` is a breakpoint, and
//! the prefix up to each breakpoint is written to the cache (per model).
//! A later request reads the longest cached prefix that ends on one of its
//! block boundaries, looking back at most [`LOOKBACK`] blocks from each of
//! its breakpoints. Tokens are estimated at four bytes each; there is no
//! minimum cacheable length and entries never expire.

use std::collections::HashSet;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;

use serde_json::Value;

/// How many blocks before a breakpoint are checked for a cache hit.
pub const LOOKBACK: usize = 20;

/// Cached prefixes, by hash of (model, prefix).
#[derive(Default)]
pub(crate) struct PromptCache {
    entries: Mutex<HashSet<u64>>,
}

/// One block of a prompt, as the cache sees it.
struct Segment {
    /// Hash of the whole prefix up to and including this block.
    prefix_hash: u64,
    /// Estimated tokens of the prefix up to and including this block.
    prefix_tokens: u64,
    breakpoint: bool,
}

impl PromptCache {
    /// Reads and writes the cache for one Messages API request body:
    /// returns (cache read tokens, cache creation tokens).
    pub fn account(&self, body: &Value) -> (u64, u64) {
        let segments = segments(body);
        let mut entries = catui_protocol::sync::lock(&self.entries);
        let mut hit: Option<usize> = None;
        let breakpoints = segments
            .iter()
            .enumerate()
            .filter(|(_, s)| s.breakpoint)
            .map(|(b, _)| b);
        for b in breakpoints {
            let from = b.saturating_sub(LOOKBACK - 1);
            if let Some(i) = (from..=b)
                .rev()
                .find(|i| entries.contains(&segments[*i].prefix_hash))
                && hit.is_none_or(|h| i > h)
            {
                hit = Some(i);
            }
        }
        let read = hit.map_or(0, |i| segments[i].prefix_tokens);
        let last_breakpoint = segments.iter().rposition(|s| s.breakpoint);
        let creation = match last_breakpoint {
            Some(l) if hit.is_none_or(|h| l > h) => segments[l].prefix_tokens - read,
            _ => 0,
        };
        for seg in segments.iter().filter(|s| s.breakpoint) {
            entries.insert(seg.prefix_hash);
        }
        (read, creation)
    }
}

/// The blocks of a request in cache order, each with its prefix hash and
/// size. `cache_control` itself is not part of what is cached.
fn segments(body: &Value) -> Vec<Segment> {
    let mut hasher = DefaultHasher::new();
    body.get("model").and_then(Value::as_str).hash(&mut hasher);
    let mut out = Vec::new();
    let mut tokens = 0u64;
    let mut push = |block: &Value, context: &str| {
        let breakpoint = block.get("cache_control").is_some();
        let mut block = block.clone();
        if let Some(map) = block.as_object_mut() {
            map.remove("cache_control");
        }
        let text = block.to_string();
        context.hash(&mut hasher);
        text.hash(&mut hasher);
        tokens += (text.len() as u64).div_ceil(4);
        out.push(Segment {
            prefix_hash: hasher.finish(),
            prefix_tokens: tokens,
            breakpoint,
        });
    };
    for tool in body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        push(tool, "tool");
    }
    match body.get("system") {
        Some(Value::Array(blocks)) => blocks.iter().for_each(|b| push(b, "system")),
        Some(text @ Value::String(_)) => push(text, "system"),
        _ => {}
    }
    for (i, m) in body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("");
        // A new message is a boundary the hash must see.
        let context = format!("message {i} {role}");
        match m.get("content") {
            Some(Value::Array(blocks)) => blocks.iter().for_each(|b| push(b, &context)),
            Some(text) => push(text, &context),
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(messages: Value) -> Value {
        json!({"model": "m", "system": [{"type": "text", "text": "S".repeat(400), "cache_control": {"type": "ephemeral"}}],
               "messages": messages})
    }

    fn user(text: &str, mark: bool) -> Value {
        let mut block = json!({"type": "text", "text": text});
        if mark {
            block["cache_control"] = json!({"type": "ephemeral"});
        }
        json!({"role": "user", "content": [block]})
    }

    #[test]
    fn a_growing_conversation_reads_its_prefix() {
        let cache = PromptCache::default();
        let first = body(json!([user(&"a".repeat(400), true)]));
        let (read, created) = cache.account(&first);
        assert_eq!(read, 0);
        assert!(created > 200, "{created}");

        // Same prefix, one more exchange: everything before is read.
        let second = body(json!([
            user(&"a".repeat(400), false),
            {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
            user("next", true)
        ]));
        let (read2, created2) = cache.account(&second);
        assert_eq!(read2, created, "the first prompt's prefix is read back");
        assert!(created2 > 0 && created2 < 20, "{created2}");

        // Changing an early block breaks the prefix: only the system prompt hits.
        let changed = body(json!([
            user(&"b".repeat(400), false),
            {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
            user("next", true)
        ]));
        let (read3, created3) = cache.account(&changed);
        assert!(read3 < 120, "only the system prompt: {read3}");
        assert!(created3 > 100);

        // Another model has its own cache.
        let mut other = first;
        other["model"] = json!("other");
        assert_eq!(cache.account(&other).0, 0);
    }

    #[test]
    fn hits_further_back_than_the_lookback_are_missed() {
        let cache = PromptCache::default();
        let mut messages = vec![user("start", true)];
        cache.account(&body(json!(messages.clone())));
        messages[0] = user("start", false);
        let blocks: Vec<Value> = (0..LOOKBACK + 2)
            .map(|i| json!({"type": "text", "text": format!("block {i}")}))
            .collect();
        let mut last = json!({"role": "user", "content": blocks});
        last["content"][LOOKBACK + 1]["cache_control"] = json!({"type": "ephemeral"});
        messages.push(json!({"role": "assistant", "content": "ok"}));
        messages.push(last);
        let (read, _) = cache.account(&body(json!(messages)));
        // Only the system prompt's own breakpoint still finds its entry.
        assert!(read > 0 && read < 120, "{read}");
    }
}
