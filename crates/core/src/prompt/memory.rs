//! Memory files: instructions the user keeps for the agent in `AGENTS.md`
//! (and `CLAUDE.md`, read for compatibility with repositories set up for
//! other agents).
//!
//! Order, least specific first so that later files win when they disagree:
//! the user's `$CATUI_CONFIG_DIR/AGENTS.md`, then every directory from `/`
//! down to the working directory (`AGENTS.md` before `CLAUDE.md` in each).
//! Each file is capped at [`MEMORY_FILE_CAP_BYTES`] with a note when cut; a
//! file reached twice (symlinks, a config dir inside the project) is read
//! once.

use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The names looked for in each directory, in the order they are included.
pub const MEMORY_FILE_NAMES: [&str; 2] = ["AGENTS.md", "CLAUDE.md"];

/// The most of one memory file that goes into the prompt.
pub const MEMORY_FILE_CAP_BYTES: usize = 40 * 1024;

/// One memory file as it goes into the prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryFile {
    pub path: PathBuf,
    /// The text, cut to the cap with a note when the file is larger.
    pub content: String,
}

/// The memory files for a session in `cwd`, least specific first (see the
/// module docs). Unreadable files are skipped with a warning in the log;
/// empty files are skipped.
pub fn load_memory_files(cwd: &Path, config_dir: &Path) -> Vec<MemoryFile> {
    let cwd = std::path::absolute(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    let mut candidates = vec![config_dir.join(MEMORY_FILE_NAMES[0])];
    let dirs: Vec<&Path> = cwd.ancestors().collect();
    for dir in dirs.into_iter().rev() {
        for name in MEMORY_FILE_NAMES {
            candidates.push(dir.join(name));
        }
    }

    let mut seen = HashSet::new();
    let mut files = Vec::new();
    for path in candidates {
        if !path.is_file() {
            continue;
        }
        let identity = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if !seen.insert(identity) {
            continue;
        }
        match read_capped(&path) {
            Ok(content) if content.trim().is_empty() => {}
            Ok(content) => files.push(MemoryFile { path, content }),
            Err(err) => tracing::warn!("skipping memory file {}: {err}", path.display()),
        }
    }
    files
}

/// Reads at most the cap (plus a little, to know whether there is more)
/// and cuts on a character boundary.
fn read_capped(path: &Path) -> std::io::Result<String> {
    let (file, meta) = crate::safe_fs::open_regular(path).map_err(std::io::Error::other)?;
    let total = meta.len();
    let mut bytes = Vec::new();
    file.take(MEMORY_FILE_CAP_BYTES as u64 + 4)
        .read_to_end(&mut bytes)?;
    let text = String::from_utf8_lossy(&bytes);
    if bytes.len() <= MEMORY_FILE_CAP_BYTES {
        return Ok(text.into_owned());
    }
    let mut end = MEMORY_FILE_CAP_BYTES.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    Ok(format!(
        "{}\n\n[catui: this file is {total} bytes; only its first {end} bytes are included here.]",
        &text[..end]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn user_file_first_then_root_down_to_cwd() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let cfg = root.join("cfg");
        let repo = root.join("repo");
        let cwd = repo.join("crates/app");
        std::fs::create_dir_all(&cwd).unwrap();
        write(&cfg.join("AGENTS.md"), "user");
        write(&root.join("CLAUDE.md"), "outer claude");
        write(&repo.join("AGENTS.md"), "repo agents");
        write(&repo.join("CLAUDE.md"), "repo claude");
        write(&cwd.join("AGENTS.md"), "nearest");
        // Neither an empty file nor a directory with the name counts.
        write(&repo.join("crates/AGENTS.md"), "  \n");
        std::fs::create_dir_all(repo.join("crates/CLAUDE.md")).unwrap();

        let files = load_memory_files(&cwd, &cfg);
        let got: Vec<(PathBuf, &str)> = files
            .iter()
            .map(|f| (f.path.clone(), f.content.as_str()))
            .collect();
        // Files above the temp dir (e.g. a real /AGENTS.md) may come first;
        // everything under it must be in exactly this order.
        let ours: Vec<(PathBuf, &str)> = got
            .into_iter()
            .filter(|(p, _)| p.starts_with(&root))
            .collect();
        assert_eq!(
            ours,
            vec![
                (cfg.join("AGENTS.md"), "user"),
                (root.join("CLAUDE.md"), "outer claude"),
                (repo.join("AGENTS.md"), "repo agents"),
                (repo.join("CLAUDE.md"), "repo claude"),
                (cwd.join("AGENTS.md"), "nearest"),
            ]
        );
        assert_eq!(files[0].path, cfg.join("AGENTS.md"));
        assert_eq!(files.last().unwrap().path, cwd.join("AGENTS.md"));
    }

    #[test]
    fn a_file_reached_twice_is_included_once() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().canonicalize().unwrap().join("repo");
        write(&repo.join("AGENTS.md"), "shared rules");
        std::os::unix::fs::symlink(repo.join("AGENTS.md"), repo.join("CLAUDE.md")).unwrap();
        // The config dir is the repo itself: its AGENTS.md is the same file.
        let files = load_memory_files(&repo, &repo);
        let ours: Vec<&MemoryFile> = files.iter().filter(|f| f.path.starts_with(&repo)).collect();
        assert_eq!(ours.len(), 1);
        assert_eq!(ours[0].content, "shared rules");
    }

    #[test]
    fn large_files_are_cut_with_a_note() {
        let tmp = tempfile::tempdir().unwrap();
        let cwd = tmp.path().canonicalize().unwrap();
        // Multi-byte characters straddle the cap: the cut must not split one.
        let big = "é".repeat(MEMORY_FILE_CAP_BYTES);
        write(&cwd.join("AGENTS.md"), &big);
        let files = load_memory_files(&cwd, &cwd.join("no-config"));
        let file = files.iter().find(|f| f.path.starts_with(&cwd)).unwrap();
        let (kept, note) = file.content.split_once("\n\n[catui:").unwrap();
        assert_eq!(kept.len(), MEMORY_FILE_CAP_BYTES);
        assert!(kept.chars().all(|c| c == 'é'));
        assert!(note.contains(&format!("{} bytes", big.len())));
    }

    #[test]
    fn small_files_are_kept_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let cwd = tmp.path().canonicalize().unwrap();
        let exact = "a".repeat(MEMORY_FILE_CAP_BYTES);
        write(&cwd.join("CLAUDE.md"), &exact);
        let files = load_memory_files(&cwd, &cwd.join("no-config"));
        let file = files.iter().find(|f| f.path.starts_with(&cwd)).unwrap();
        assert_eq!(file.content, exact);
    }
}
