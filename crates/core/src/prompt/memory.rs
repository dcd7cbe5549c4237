//! Memory files: instructions the user keeps for the agent in `AGENTS.md`
//! (and `CLAUDE.md`, read for compatibility with repositories set up for
//! other agents), and the files they import with `@path`.
//!
//! Order, least specific first so that later files win when they disagree:
//! the user's `$CATUI_CONFIG_DIR/AGENTS.md`, then every directory from `/`
//! down to the working directory (`AGENTS.md` before `CLAUDE.md` in each);
//! a file's imports come right after it. Each file is capped at
//! [`MEMORY_FILE_CAP_BYTES`] with a note when cut; a file reached twice
//! (symlinks, a config dir inside the project, an import cycle) is read
//! once.
//!
//! Every file is read through the [file gate](crate::file_gate): a memory
//! file in the project (or catui's directory) must resolve inside the
//! project or catui's directory; one found above the project (the user's
//! own `~/AGENTS.md`) inside the directory it was found in; imports stay
//! where their importing file may go. No secret store, no procfs or sysfs,
//! whatever a link says. A file the gate refuses is left out and said so
//! ([`MemoryLoad::refused`]: a start-up warning).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::file_gate::{FileGate, GateRefusal, Limit};

/// The names looked for in each directory, in the order they are included.
pub const MEMORY_FILE_NAMES: [&str; 2] = ["AGENTS.md", "CLAUDE.md"];

/// The most of one memory file that goes into the prompt.
pub const MEMORY_FILE_CAP_BYTES: usize = 40 * 1024;

/// How many imports deep a chain of `@path` imports is followed.
pub const MAX_IMPORT_DEPTH: usize = 5;

/// One memory file as it goes into the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryFile {
    pub path: PathBuf,
    /// The text, cut to the cap with a note when the file is larger.
    pub content: String,
    /// The memory file that imported this one (`@path`), if any.
    pub imported_by: Option<PathBuf>,
}

/// The memory files of a session and what was left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryLoad {
    pub files: Vec<MemoryFile>,
    /// One line per file the gate refused, for the user.
    pub refused: Vec<String>,
}

/// The memory files for a session in `cwd`, least specific first (see the
/// module docs), each read through `gate` (the session's).
pub fn load_memory_files(cwd: &Path, config_dir: &Path, gate: &FileGate) -> MemoryLoad {
    let cwd = std::path::absolute(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    let mut candidates = vec![config_dir.join(MEMORY_FILE_NAMES[0])];
    let dirs: Vec<&Path> = cwd.ancestors().collect();
    for dir in dirs.into_iter().rev() {
        for name in MEMORY_FILE_NAMES {
            candidates.push(dir.join(name));
        }
    }

    let mut loader = Loader {
        seen: HashSet::new(),
        load: MemoryLoad::default(),
    };
    for path in candidates {
        // Only what is there (a link counts, wherever it leads).
        if std::fs::symlink_metadata(&path).is_err() || path.is_dir() {
            continue;
        }
        let dir = path.parent().unwrap_or(Path::new("/"));
        // Above the project, a file may lead only within its own folder.
        let inside = gate.roots().iter().any(|r| dir.starts_with(r));
        let scope = if inside {
            gate.clone()
        } else {
            gate.within(dir)
        };
        loader.include(&path, None, &scope, 0);
    }
    loader.load
}

struct Loader {
    /// Resolved paths already included.
    seen: HashSet<PathBuf>,
    load: MemoryLoad,
}

impl Loader {
    /// Includes `path` (and, `depth` allowing, what it imports) if `gate`
    /// lets it through.
    fn include(&mut self, path: &Path, by: Option<&Path>, gate: &FileGate, depth: usize) {
        let file = match gate.read(path, Limit::Prefix(MEMORY_FILE_CAP_BYTES as u64)) {
            Ok(file) => file,
            Err(e) if e.is_not_found() => return,
            Err(e) => {
                self.refuse(by, &e);
                return;
            }
        };
        if !self.seen.insert(file.resolved.clone()) {
            return;
        }
        let content = capped_text(&file);
        let imports = if depth < MAX_IMPORT_DEPTH {
            import_paths(
                &content,
                path.parent().unwrap_or(Path::new("/")),
                gate.home(),
            )
        } else {
            Vec::new()
        };
        if !content.trim().is_empty() {
            self.load.files.push(MemoryFile {
                path: path.to_path_buf(),
                content,
                imported_by: by.map(Path::to_path_buf),
            });
        }
        for import in imports {
            if import.is_dir() {
                continue;
            }
            self.include(&import, Some(path), gate, depth + 1);
        }
    }

    fn refuse(&mut self, by: Option<&Path>, e: &GateRefusal) {
        let what = match by {
            Some(by) => format!("the memory file {} imports", by.display()),
            None => "memory file".into(),
        };
        let line = format!("{what} {e}; it is left out of the prompt");
        tracing::warn!("{line}");
        self.load.refused.push(line);
    }
}

/// The text of a memory file, with a note when it was cut at the cap (on
/// a character boundary).
fn capped_text(file: &crate::file_gate::GatedFile) -> String {
    let text = file.text();
    if !file.truncated {
        return text;
    }
    let mut end = MEMORY_FILE_CAP_BYTES.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n\n[catui: this file is {} bytes; only its first {end} bytes are included here.]",
        &text[..end],
        file.size
    )
}

/// The files `text` imports: words `@path` outside code (fenced blocks
/// and backtick spans), a path relative to `dir`, from `~/` (`home`), or
/// absolute.
/// A word that names no file is not an import (`@someone`).
fn import_paths(text: &str, dir: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for (i, segment) in line.split('`').enumerate() {
            // Odd segments are inside a backtick span.
            if i % 2 == 1 {
                continue;
            }
            for word in segment.split_whitespace() {
                let Some(spec) = word.strip_prefix('@') else {
                    continue;
                };
                let spec = spec.trim_end_matches([',', ';', ':', ')', '.']);
                if spec.is_empty() || !(spec.contains('/') || spec.contains('.')) {
                    continue;
                }
                let path = match spec.strip_prefix("~/") {
                    Some(rest) => match home {
                        Some(h) => h.join(rest),
                        None => continue,
                    },
                    None => dir.join(spec),
                };
                if std::fs::symlink_metadata(&path).is_ok() && !out.contains(&path) {
                    out.push(path);
                }
            }
        }
    }
    out
}

#[cfg(test)]
#[path = "memory_tests.rs"]
mod tests;
