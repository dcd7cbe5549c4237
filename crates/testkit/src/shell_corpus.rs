//! The public shell corpus (`corpus/shell.txt`): command lines with the
//! verdict expected of catui, and the throwaway world they run in
//! (`corpus/fixture.sh`), for the tests of the shell analysis, of the
//! permission decision and of the real binary.
//!
//! ```
//! let corpus = catui_testkit::shell_corpus::entries();
//! assert!(corpus.len() >= 300);
//! ```

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The corpus file's text.
pub const CORPUS: &str = include_str!("../corpus/shell.txt");
/// The script that builds the world the corpus runs in.
pub const FIXTURE: &str = include_str!("../corpus/fixture.sh");

/// What is expected of a command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    /// Only reads: runs without a prompt in every mode.
    Read,
    /// Reads, but runs code the project controls: without a prompt only
    /// where the OS can confine it.
    ReadConfined,
    /// Changes files inside the project only: allowed by acceptEdits.
    Edit,
    /// Changes something acceptEdits does not cover.
    Write,
    /// Not shown to write here, but not read-only.
    Ask,
    /// Only reads, but the analysis cannot prove it.
    FalseAsk,
}

impl Class {
    fn parse(word: &str) -> Option<Class> {
        Some(match word {
            "read" => Class::Read,
            "read-confined" => Class::ReadConfined,
            "edit" => Class::Edit,
            "write" => Class::Write,
            "ask" => Class::Ask,
            "false-ask" => Class::FalseAsk,
            _ => return None,
        })
    }

    /// Whether running it must change the fixture (proven before use).
    pub fn mutates(self) -> bool {
        matches!(self, Class::Edit | Class::Write)
    }

    /// Whether it only reads.
    pub fn reads(self) -> bool {
        matches!(self, Class::Read | Class::ReadConfined | Class::FalseAsk)
    }
}

/// One command line of the corpus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub class: Class,
    pub command: String,
    /// Where it starts in the corpus file (1-based).
    pub line: usize,
}

/// Every entry of the corpus. Panics on a malformed corpus file, which is
/// a test's own data.
pub fn entries() -> Vec<Entry> {
    match parse(CORPUS) {
        Ok(e) => e,
        Err(e) => panic!("corpus/shell.txt: {e}"),
    }
}

/// Parses corpus text (see the file's header for the format).
pub fn parse(text: &str) -> Result<Vec<Entry>, String> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        let line_no = n + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let (class, rest) = trimmed
            .split_once(char::is_whitespace)
            .ok_or_else(|| format!("line {line_no}: a class without a command"))?;
        let class = Class::parse(class)
            .ok_or_else(|| format!("line {line_no}: unknown class `{class}`"))?;
        let command = if rest.trim() == "<<<" {
            let mut body = Vec::new();
            loop {
                match lines.next() {
                    Some((_, ">>>")) => break,
                    Some((_, l)) => body.push(l),
                    None => return Err(format!("line {line_no}: `<<<` without `>>>`")),
                }
            }
            body.join("\n")
        } else {
            rest.trim().to_string()
        };
        out.push(Entry {
            class,
            command,
            line: line_no,
        });
    }
    Ok(out)
}

/// The throwaway world: `root/project` (a git repository, the working
/// directory), `root/home` (HOME) and `root/outside`.
#[derive(Debug, Clone)]
pub struct World {
    pub root: PathBuf,
    pub project: PathBuf,
    pub home: PathBuf,
    pub outside: PathBuf,
}

impl World {
    /// Builds the world under `root` (which should be empty) with bash.
    pub fn build(root: &Path) -> io::Result<World> {
        let status = Command::new("bash")
            .arg("-c")
            .arg(FIXTURE)
            .arg("fixture.sh")
            .arg(root)
            .env("HOME", root.join("home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .status()?;
        if !status.success() {
            return Err(io::Error::other(format!("fixture.sh failed: {status}")));
        }
        Ok(World::at(root))
    }

    /// The world's paths under `root` (already built).
    pub fn at(root: &Path) -> World {
        World {
            root: root.to_path_buf(),
            project: root.join("project"),
            home: root.join("home"),
            outside: root.join("outside"),
        }
    }

    /// A copy of this world under `to` (`cp -a`, which keeps times and
    /// modes).
    pub fn copy_to(&self, to: &Path) -> io::Result<World> {
        let status = Command::new("cp")
            .arg("-a")
            .arg(&self.root)
            .arg(to)
            .status()?;
        if !status.success() {
            return Err(io::Error::other(format!("cp -a failed: {status}")));
        }
        Ok(World::at(to))
    }

    /// Runs `command` with bash, unconfined, in the project with HOME set,
    /// under a 10-second limit, with `GIT_OPTIONAL_LOCKS=0`. The exit status
    /// does not matter.
    pub fn run(&self, command: &str) -> io::Result<()> {
        Command::new("timeout")
            .arg("10")
            .arg("bash")
            .arg("-c")
            .arg(command)
            .current_dir(&self.project)
            .env("HOME", &self.home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            // As catui runs read-only commands: `git status` then does not
            // refresh the index behind the user's back.
            .env("GIT_OPTIONAL_LOCKS", "0")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()?;
        Ok(())
    }

    /// Every path under the root with its content, mode and modification
    /// time (not the access time).
    pub fn snapshot(&self) -> BTreeMap<PathBuf, String> {
        snapshot(&self.root)
    }
}

/// Every path under `root` with its content, mode and modification time.
pub fn snapshot(root: &Path) -> BTreeMap<PathBuf, String> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<PathBuf, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap_or(&p).to_path_buf();
            let Ok(meta) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            use std::os::unix::fs::MetadataExt;
            let stamp = format!("mode {:o}", meta.mode());
            if meta.is_dir() {
                out.insert(rel, format!("<dir> {stamp}"));
                walk(&p, root, out);
            } else if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&p).unwrap_or_default();
                out.insert(rel, format!("<link {}>", target.display()));
            } else {
                let content = std::fs::read(&p).unwrap_or_default();
                out.insert(
                    rel,
                    format!(
                        "{stamp} mtime {}.{} {}",
                        meta.mtime(),
                        meta.mtime_nsec(),
                        String::from_utf8_lossy(&content)
                    ),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// The paths that differ between two snapshots.
pub fn changed(a: &BTreeMap<PathBuf, String>, b: &BTreeMap<PathBuf, String>) -> Vec<PathBuf> {
    let keys: std::collections::BTreeSet<&PathBuf> = a.keys().chain(b.keys()).collect();
    keys.into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_parses_and_is_large_enough() {
        let all = entries();
        assert!(all.len() >= 300, "{}", all.len());
        assert!(all.iter().any(|e| e.command.contains('\n')));
        assert!(parse("nope ls").is_err());
        assert!(parse("read <<<\nls").is_err());
    }
}
