//! The value of one shell word as the analysis sees it: quotes removed
//! when the value is fixed, the source text kept when it is only known
//! when the shell runs (expansions, substitutions, brace expansion and
//! globs that could expand to something that looks like an option).

use tree_sitter::Node;

/// One shell word as the analysis sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Word {
    /// The unquoted value when `dynamic` is false; the source text otherwise.
    pub text: String,
    /// The value is only known when the shell runs (expansions,
    /// substitutions, brace expansion, globs, words injected by `xargs`).
    pub dynamic: bool,
}

impl Word {
    pub(super) fn lit(text: &str) -> Word {
        Word {
            text: text.to_string(),
            dynamic: false,
        }
    }

    pub(super) fn unknown(text: &str) -> Word {
        Word {
            text: text.to_string(),
            dynamic: true,
        }
    }
}

/// The value of a word-like node of `src`.
pub(super) fn word(node: Node, src: &[u8]) -> Word {
    let raw = node.utf8_text(src).unwrap_or_default().to_string();
    match node.kind() {
        "word" => {
            if has_brace_expansion(&raw) || glob_may_look_like_option(&raw) {
                Word::unknown(&raw)
            } else {
                Word::lit(&unescape_unquoted(&raw))
            }
        }
        "number" if node.named_child_count() == 0 => Word::lit(&raw),
        "raw_string" => Word::lit(&strip_quotes(&raw, 1)),
        "string" => {
            let mut cursor = node.walk();
            let plain = node
                .named_children(&mut cursor)
                .all(|c| c.kind() == "string_content");
            if plain {
                Word::lit(&unescape_double(&strip_quotes(&raw, 1)))
            } else {
                Word::unknown(&raw)
            }
        }
        "translated_string" => match node.named_child(0) {
            Some(inner) if inner.kind() == "string" => word(inner, src),
            _ => Word::unknown(&raw),
        },
        "ansi_c_string" => match decode_ansi_c(&raw) {
            Some(text) => Word::lit(&text),
            None => Word::unknown(&raw),
        },
        "concatenation" => concatenation(node, src, raw),
        _ => Word::unknown(&raw),
    }
}

fn concatenation(node: Node, src: &[u8], raw: String) -> Word {
    let mut text = String::new();
    let mut unquoted = String::new();
    let mut dynamic = false;
    let mut end = node.start_byte();
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.start_byte() != end {
            // Pieces the grammar did not name: do not guess their value.
            dynamic = true;
        }
        end = child.end_byte();
        let part = word(child, src);
        dynamic |= part.dynamic;
        if child.kind() == "word" {
            unquoted.push_str(child.utf8_text(src).unwrap_or_default());
        }
        text.push_str(&part.text);
    }
    if end != node.end_byte() || has_brace_expansion(&unquoted) || has_glob(&unquoted) {
        dynamic = true;
    }
    if dynamic {
        Word::unknown(&raw)
    } else {
        Word::lit(&text)
    }
}

/// `{a,b}` and `{1..3}` turn one word into several, so the word's value is
/// not what it looks like.
pub(super) fn has_brace_expansion(unquoted: &str) -> bool {
    match (unquoted.find('{'), unquoted.rfind('}')) {
        (Some(open), Some(close)) if open < close => {
            let inner = &unquoted[open..close];
            inner.contains(',') || inner.contains("..")
        }
        _ => false,
    }
}

/// Whether unquoted text has a glob character the shell would expand
/// (`*`, `?`, or a `[...]` bracket), ignoring escaped ones.
pub(super) fn has_glob(unquoted: &str) -> bool {
    let mut chars = unquoted.chars().peekable();
    let mut open_bracket = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '*' | '?' => return true,
            '[' => open_bracket = true,
            ']' if open_bracket => return true,
            _ => {}
        }
    }
    false
}

/// A glob whose matches could be any file name, including ones that start
/// with `-` and so read as options (`*`, `?x`, `[-]*`). A glob after a
/// fixed first character other than `-` (`src/*.rs`, `./*`) cannot.
fn glob_may_look_like_option(raw: &str) -> bool {
    if !has_glob(raw) {
        return false;
    }
    match raw.chars().next() {
        Some('*' | '?' | '[' | '-' | '\\') | None => true,
        Some(_) => false,
    }
}

pub(super) fn strip_quotes(raw: &str, n: usize) -> String {
    if raw.len() >= 2 * n {
        raw.get(n..raw.len() - n).unwrap_or_default().to_string()
    } else {
        String::new()
    }
}

/// Removes the backslashes of an unquoted word (`a\ b` → `a b`).
pub(super) fn unescape_unquoted(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('\n') | None => {}
                Some(next) => out.push(next),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Removes the backslashes that are special inside double quotes.
fn unescape_double(inner: &str) -> String {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => {
                    if let Some(next) = chars.next() {
                        out.push(next);
                    }
                }
                Some('\n') => {
                    chars.next();
                }
                _ => out.push(c),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Decodes `$'...'` for the common escapes; `None` for the rest (the word is
/// then treated as unknown).
fn decode_ansi_c(raw: &str) -> Option<String> {
    let inner = raw.strip_prefix("$'")?.strip_suffix('\'')?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let decoded = match chars.next()? {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'a' => '\u{7}',
            'b' => '\u{8}',
            'e' | 'E' => '\u{1b}',
            'f' => '\u{c}',
            'v' => '\u{b}',
            c @ ('\\' | '\'' | '"' | '?') => c,
            _ => return None,
        };
        out.push(decoded);
    }
    Some(out)
}

/// Whether `s` is a shell variable name.
pub(super) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn brace_expansion_is_detected() {
        assert!(has_brace_expansion("{a,b}"));
        assert!(has_brace_expansion("x{1..3}"));
        assert!(!has_brace_expansion("{}"));
        assert!(!has_brace_expansion("HEAD@{1}"));
    }

    #[test]
    fn globs_that_could_be_options() {
        assert!(glob_may_look_like_option("*"));
        assert!(glob_may_look_like_option("*.rs"));
        assert!(glob_may_look_like_option("[-a]*"));
        assert!(glob_may_look_like_option("?"));
        assert!(!glob_may_look_like_option("src/*.rs"));
        assert!(!glob_may_look_like_option("./*"));
        assert!(!glob_may_look_like_option("a\\*"));
        assert!(!glob_may_look_like_option("HEAD~1"));
        assert!(!glob_may_look_like_option("["));
    }
}
