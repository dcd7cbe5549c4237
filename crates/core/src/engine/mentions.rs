//! `@path` mentions in the user's input: each mentioned file that exists is
//! attached to the message as Read would show it (numbered lines, the same
//! line and size limits), a mentioned directory as its listing.
//!
//! Every mention passes the file gate (`file_gate`): the file must resolve
//! — after every symlink — inside the session's working directories (or
//! the repository they are in), outside the user's secret stores and off
//! kernel file systems. A refused mention is left out and the user is
//! told; a word after `@` that names nothing (an e-mail address, a
//! handle) is left alone. Only the main conversation's human input is
//! read this way: a prompt the model wrote for a sub-agent is not.

use std::path::{Path, PathBuf};

use crate::file_gate::{self, FileGate, Limit};
use crate::tools::ToolContext;
use crate::tools::read::{DEFAULT_LIMIT, MAX_LINE_CHARS};

/// Bytes of a mentioned file read at most (as Read's whole-answer cap).
const MAX_BYTES: u64 = 256 * 1024;
/// Entries of a mentioned directory listed at most.
const MAX_ENTRIES: usize = 200;
/// Mentions attached per input at most.
const MAX_MENTIONS: usize = 20;

/// What the mentions of one input gave: texts for the model, and what the
/// gate refused (for the user).
#[derive(Debug, Default)]
pub(super) struct Mentions {
    pub attached: Vec<String>,
    pub refused: Vec<String>,
}

/// The words of `text` that start with `@` (at the start or after white
/// space), without trailing punctuation, in order, each once.
pub(super) fn mentioned(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        let Some(path) = word.strip_prefix('@') else {
            continue;
        };
        let path = path.trim_end_matches([',', ';', ':', ')', '!', '?', '"', '\'']);
        if !path.is_empty() && !out.iter().any(|p| p == path) {
            out.push(path.to_string());
        }
    }
    out
}

/// Reads the mentions of `text` through the session's gate.
pub(super) fn read(text: &str, ctx: &ToolContext) -> Mentions {
    let mut found = Mentions::default();
    let words = mentioned(text);
    if words.is_empty() {
        return found;
    }
    let roots = ctx
        .working_dirs()
        .into_iter()
        .flat_map(|d| std::iter::once(d.clone()).chain(file_gate::repository_root(&d)));
    let gate = FileGate::new(roots, ctx.secret_stores());
    let cwd = ctx.cwd();
    for word in words.into_iter().take(MAX_MENTIONS) {
        // "see @notes.txt." ends a sentence: a name that exists wins.
        let path = [word.as_str(), word.trim_end_matches('.')]
            .into_iter()
            .map(|w| resolve(w, &cwd, gate.home()))
            .find(|p| p.symlink_metadata().is_ok());
        let Some(path) = path else {
            continue;
        };
        match attach(&gate, &word, &path) {
            Ok(text) => found.attached.push(text),
            Err(why) => found
                .refused
                .push(format!("@{word} was not attached: {why}")),
        }
    }
    found
}

/// `word` as a path: `~/` from home, relative ones from `cwd`.
fn resolve(word: &str, cwd: &Path, home: Option<&Path>) -> PathBuf {
    match (word.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => cwd.join(word),
    }
}

/// The model-facing text of one mention, or why the gate refused it.
fn attach(gate: &FileGate, word: &str, path: &Path) -> Result<String, String> {
    let resolved = gate.admits(path).map_err(|e| e.to_string())?;
    let body = if resolved.is_dir() {
        listing(&resolved)?
    } else {
        let file = gate
            .read(path, Limit::Prefix(MAX_BYTES))
            .map_err(|e| e.to_string())?;
        numbered(&file.text(), file.truncated)
    };
    Ok(catui_protocol::attachment::wrap_system_reminder(&format!(
        "The user mentioned @{word} ({}). As Read returns it:\n{body}",
        resolved.display()
    )))
}

/// Lines numbered as Read numbers them, within Read's default limits.
fn numbered(text: &str, truncated: bool) -> String {
    let total = text.lines().count();
    let shown = total.min(DEFAULT_LIMIT as usize);
    let cut = |l: &str| -> String {
        if l.chars().count() > MAX_LINE_CHARS {
            let mut s: String = l.chars().take(MAX_LINE_CHARS).collect();
            s.push('…');
            s
        } else {
            l.to_string()
        }
    };
    let mut out: String = text
        .lines()
        .take(shown)
        .enumerate()
        .map(|(i, l)| format!("{:>6}\t{}\n", i + 1, cut(l)))
        .collect();
    if shown < total || truncated {
        out.push_str(&format!(
            "(only the first {shown} lines; read the rest with Read and an offset)\n"
        ));
    }
    if total == 0 {
        out.push_str("(the file is empty)\n");
    }
    out
}

/// A directory's entries, sorted, sub-directories marked with `/`.
fn listing(dir: &Path) -> Result<String, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            match e.file_type() {
                Ok(t) if t.is_dir() => format!("{name}/"),
                _ => name,
            }
        })
        .collect();
    names.sort();
    let more = names.len().saturating_sub(MAX_ENTRIES);
    names.truncate(MAX_ENTRIES);
    let mut out = names.join("\n");
    if more > 0 {
        out.push_str(&format!("\n(and {more} more)"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_are_words_after_an_at_sign() {
        assert_eq!(
            mentioned("look at @src/main.rs, and @docs/ then @src/main.rs again; mail a@b.c"),
            vec!["src/main.rs", "docs/"]
        );
        assert!(mentioned("no mentions here @").is_empty());
    }

    #[test]
    fn lines_are_numbered_as_read_numbers_them() {
        assert_eq!(numbered("a\nb\n", false), "     1\ta\n     2\tb\n");
        assert!(numbered("a\n", true).contains("only the first 1 lines"));
    }
}
