//! Approve and start clean: after a long planning session the
//! implementation starts in a fresh conversation that holds only the
//! approved plan and the project files the plan names.

use std::path::Path;

use crate::file_gate::FileGate;
use crate::permissions::secrets::SecretStores;

/// The largest named file read (its text is cut further below).
const MAX_NAMED_FILE_BYTES: u64 = 1024 * 1024;

/// At most this many named files are included...
const MAX_FILES: usize = 6;
/// ...each cut to this many characters...
const MAX_FILE_CHARS: usize = 8_000;
/// ...and this many characters in all.
const MAX_TOTAL_CHARS: usize = 30_000;

/// The first message of the fresh conversation: what happened, the
/// approval result (with the plan), and the files the plan names.
pub fn fresh_start_prompt(approved: &str, cwd: &Path) -> String {
    let mut out = format!(
        "This conversation was started fresh to implement a plan the user just approved; the planning \
conversation was cleared to free the context. Carry out the plan below.\n\n{approved}"
    );
    let files = named_files(approved, cwd);
    if !files.is_empty() {
        out.push_str("\n\n## Files the plan names (as they are now)\n");
        let mut total = 0;
        for (name, content) in files {
            if total >= MAX_TOTAL_CHARS {
                out.push_str(&format!(
                    "\n- {name} (not included: size limit reached; read it)\n"
                ));
                continue;
            }
            let cut: String = content.chars().take(MAX_FILE_CHARS).collect();
            total += cut.len();
            let more = if cut.len() < content.len() {
                "\n[... cut; read the file for the rest]"
            } else {
                ""
            };
            out.push_str(&format!("\n### {name}\n```\n{cut}\n```{more}\n"));
        }
    }
    out
}

/// Project files named in `text` (relative paths, possibly in backticks),
/// in order of first mention, read from `cwd` through the file gate: only
/// regular files that resolve inside `cwd`, never a secret store.
pub fn named_files(text: &str, cwd: &Path) -> Vec<(String, String)> {
    let Ok(root) = std::fs::canonicalize(cwd) else {
        return Vec::new();
    };
    let gate = FileGate::new(
        [root.clone()],
        SecretStores::for_user(&[], std::slice::from_ref(&root)),
    );
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for word in text.split(|c: char| {
        c.is_whitespace() || matches!(c, '`' | '(' | ')' | ',' | ':' | ';' | '"' | '\'')
    }) {
        let word = word.trim_end_matches('.');
        let looks_like_path = word.contains('/')
            || word.rsplit_once('.').is_some_and(|(_, ext)| {
                !ext.is_empty() && ext.len() <= 5 && ext.chars().all(|c| c.is_ascii_alphanumeric())
            });
        if word.is_empty()
            || !looks_like_path
            || word.starts_with('/')
            || seen.iter().any(|s| s == word)
        {
            continue;
        }
        seen.push(word.to_string());
        let path = root.join(word);
        if !path.is_file() {
            continue;
        }
        // Through the file gate: inside the project, no secret store.
        if let Ok(content) = gate.read_text(&path, MAX_NAMED_FILE_BYTES) {
            out.push((word.to_string(), content));
            if out.len() == MAX_FILES {
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_holds_the_plan_and_the_files_it_names() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/cli.py"), "print('hi')\n").unwrap();
        std::fs::write(dir.path().join("README.md"), "readme\n").unwrap();
        let plan = "## Approved Plan:\n1. Parse --json in `src/cli.py`.\n2. Mention it in README.md\n3. Not a file: json.dumps, /etc/passwd, ../outside.txt";
        let prompt = fresh_start_prompt(plan, dir.path());
        assert!(prompt.starts_with("This conversation was started fresh"));
        assert!(prompt.contains(plan));
        assert!(
            prompt.contains("### src/cli.py\n```\nprint('hi')\n"),
            "{prompt}"
        );
        assert!(prompt.contains("### README.md"), "{prompt}");
        assert!(!prompt.contains("### /etc/passwd") && !prompt.contains("### ../"));
        assert_eq!(named_files(plan, dir.path()).len(), 2);
    }
}
