//! Trust binds what runs, not only what the settings say: a hook's command
//! or an MCP server's command line that names a file of the project
//! (`sh scripts/hook.sh`, `node ./server.js`,
//! `"$CLAUDE_PROJECT_DIR"/.catui/hooks/check.py`) is covered by the trust
//! only as that file is now. A `git pull` that changes the script changes
//! the piece's digest, so it waits for the user again like any other
//! changed setting.
//!
//! The files are found by their names in the command's words: each word
//! (and the part after `=` of `--opt=value`) that resolves, from the
//! project's root (where hooks and servers run), to a regular file inside
//! the project. A script that the named one runs in turn is not followed:
//! the named file is what the user looked at when trusting.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The variables a hook's command may name the project's root with.
const ROOT_VARS: &[&str] = &["CATUI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"];

/// The command lines of a held-back `value` of `group` that run programs:
/// each hook's `command`, a server's `command` with its `args` and the
/// values of its `env`. Empty for every other group.
pub fn command_words(group: &str, value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    match group {
        "hooks" => {
            // One matcher group: `{"matcher": .., "hooks": [{"command": ..}]}`.
            for hook in value
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(command) = hook.get("command").and_then(Value::as_str) {
                    out.extend(words(command));
                }
            }
        }
        "mcpServers" => {
            if let Some(command) = value.get("command").and_then(Value::as_str) {
                out.extend(words(command));
            }
            let args = value.get("args").and_then(Value::as_array);
            for arg in args.into_iter().flatten().filter_map(Value::as_str) {
                out.extend(words(arg));
            }
            let env = value.get("env").and_then(Value::as_object);
            for v in env
                .into_iter()
                .flat_map(|e| e.values())
                .filter_map(Value::as_str)
            {
                out.extend(words(v));
            }
        }
        _ => {}
    }
    out
}

/// The words of a shell command line, loosely: split at blanks and shell
/// operators, quotes removed, `--opt=value` also giving `value`. Loose is
/// enough: a word that is not a file of the project binds nothing.
pub fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    for raw in command.split(|c: char| c.is_whitespace() || ";|&()<>`".contains(c)) {
        let word: String = raw.chars().filter(|c| *c != '"' && *c != '\'').collect();
        if word.is_empty() {
            continue;
        }
        if let Some((_, value)) = word.split_once('=')
            && !value.is_empty()
        {
            out.push(value.to_string());
        }
        out.push(word);
    }
    out
}

/// The project's files among `words`: regular files inside
/// `project_root`, each once, by canonical path, sorted.
pub fn project_files(project_root: &Path, words: &[String]) -> Vec<PathBuf> {
    let Ok(root) = std::fs::canonicalize(project_root) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = Vec::new();
    for word in words {
        let named = expand_root(word, &root);
        let path = if Path::new(&named).is_absolute() {
            PathBuf::from(&named)
        } else {
            root.join(&named)
        };
        let Ok(real) = std::fs::canonicalize(&path) else {
            continue;
        };
        if real.starts_with(&root) && real.is_file() && !out.contains(&real) {
            out.push(real);
        }
    }
    out.sort();
    out
}

/// `$CLAUDE_PROJECT_DIR/x`, `${CATUI_PROJECT_DIR}/x` with the root put in.
fn expand_root(word: &str, root: &Path) -> String {
    let root = root.display().to_string();
    let mut text = word.to_string();
    for var in ROOT_VARS {
        text = text
            .replace(&format!("${{{var}}}"), &root)
            .replace(&format!("${var}"), &root);
    }
    text
}

/// A digest of the project files `value` runs (see [`command_words`]):
/// their paths and contents. `None` when it names none.
pub fn files_digest(project_root: &Path, group: &str, value: &Value) -> Option<String> {
    let words = command_words(group, value);
    if words.is_empty() {
        return None;
    }
    let files = project_files(project_root, &words);
    if files.is_empty() {
        return None;
    }
    // Relative to the root as resolved, so that the digest is the same
    // whichever name of the project it was computed from.
    let root = std::fs::canonicalize(project_root).unwrap_or_else(|_| project_root.to_path_buf());
    let mut hasher = Sha256::new();
    for file in &files {
        let shown = file.strip_prefix(&root).unwrap_or(file);
        hasher.update(shown.as_os_str().as_encoded_bytes());
        hasher.update([0]);
        match content_digest(file) {
            Some(d) => hasher.update(d.as_bytes()),
            // Unreadable now: bound to being unreadable.
            None => hasher.update(b"unreadable"),
        }
        hasher.update([0]);
    }
    Some(hex(&hasher.finalize()))
}

/// SHA-256 of a file's content.
fn content_digest(path: &Path) -> Option<String> {
    let mut file = std::fs::File::open(path).ok()?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Some(hex(&hasher.finalize()))
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Binds `item` (a piece of the project's configuration whose value is
/// `value`) to the project files it runs: its digest changes with them.
pub fn bind(item: &mut super::ConfigItem, project_root: &Path, value: &Value) {
    if let Some(files) = files_digest(project_root, &item.group, value) {
        let mut hasher = Sha256::new();
        hasher.update(item.digest.as_bytes());
        hasher.update([0]);
        hasher.update(files.as_bytes());
        item.digest = hex(&hasher.finalize());
    }
}

#[cfg(test)]
#[path = "files_tests.rs"]
mod tests;
