//! What the model is told about its surroundings: the environment block
//! (working directory, platform, date, model) and a snapshot of the git
//! state taken when the session starts.
//!
//! The git snapshot runs two `git` commands concurrently, each bounded by
//! [`GIT_TIMEOUT`], so a slow or hung repository never delays start-up by
//! more than that; any failure just means "no git summary".

use std::fmt::Write as _;
use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long each git command may take.
pub const GIT_TIMEOUT: Duration = Duration::from_secs(2);

/// How many changed files the summary lists.
pub const MAX_STATUS_LINES: usize = 20;

/// How many recent commit subjects the summary lists.
pub const MAX_RECENT_COMMITS: usize = 5;

/// The state of the repository at session start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitSummary {
    /// The branch name, or `HEAD (detached)`.
    pub branch: String,
    /// Up to [`MAX_STATUS_LINES`] lines of `git status --short`.
    pub changes: Vec<String>,
    /// How many changed files were left out of `changes`.
    pub more_changes: usize,
    /// Subjects of the last commits, newest first.
    pub recent_commits: Vec<String>,
}

/// A summary of the git repository containing `cwd`; `None` when `cwd` is
/// not in a work tree, git is not installed, or git did not answer in time.
pub fn git_summary(cwd: &Path) -> Option<GitSummary> {
    let status = GitCommand::spawn(
        cwd,
        &[
            "status",
            "--porcelain=v1",
            "--branch",
            "--untracked-files=normal",
        ],
    );
    let log = GitCommand::spawn(
        cwd,
        &["log", "-n", &MAX_RECENT_COMMITS.to_string(), "--format=%s"],
    );
    let deadline = Instant::now() + GIT_TIMEOUT;
    let status = status?.finish(deadline);
    // A repository without commits has no log: that is not a failure.
    let log = log.and_then(|l| l.finish(deadline)).unwrap_or_default();
    let status = status?;

    let mut lines = status.lines();
    let branch = parse_branch(lines.next()?)?;
    let all_changes: Vec<String> = lines
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    let more_changes = all_changes.len().saturating_sub(MAX_STATUS_LINES);
    let changes = all_changes.into_iter().take(MAX_STATUS_LINES).collect();
    let recent_commits = log
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(MAX_RECENT_COMMITS)
        .map(str::to_string)
        .collect();
    Some(GitSummary {
        branch,
        changes,
        more_changes,
        recent_commits,
    })
}

/// The branch from the `## ...` header of `git status --branch`.
fn parse_branch(header: &str) -> Option<String> {
    let rest = header.strip_prefix("## ")?;
    for unborn in ["No commits yet on ", "Initial commit on "] {
        if let Some(name) = rest.strip_prefix(unborn) {
            return Some(name.trim().to_string());
        }
    }
    if rest.starts_with("HEAD (no branch)") {
        return Some("HEAD (detached)".to_string());
    }
    let name = rest.split("...").next()?.split_whitespace().next()?;
    Some(name.to_string())
}

/// A running git command whose output is drained by a thread (so a full
/// pipe cannot stall it) while the caller waits with a deadline.
struct GitCommand {
    child: Child,
    reader: JoinHandle<Vec<u8>>,
}

impl GitCommand {
    fn spawn(cwd: &Path, args: &[&str]) -> Option<Self> {
        let mut child = Command::new("git")
            .arg("-C")
            .arg(cwd)
            .args(["-c", "core.quotepath=off", "--no-optional-locks"])
            .args(args)
            // Never prompt, never page, never pick up a repository from
            // the parent process's environment.
            .env("GIT_TERMINAL_PROMPT", "0")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let mut stdout = child.stdout.take()?;
        let reader = std::thread::spawn(move || {
            let mut out = Vec::new();
            let _ = stdout.read_to_end(&mut out);
            out
        });
        Some(Self { child, reader })
    }

    /// The output when the command succeeded before `deadline`; kills it
    /// otherwise.
    fn finish(mut self, deadline: Instant) -> Option<String> {
        let mut pause = Duration::from_millis(1);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(20));
                }
                _ => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    return None;
                }
            }
        };
        let out = self.reader.join().ok()?;
        status
            .success()
            .then(|| String::from_utf8_lossy(&out).into_owned())
    }
}

/// The `# Environment` section.
pub(crate) fn render_environment(
    out: &mut String,
    cwd: &Path,
    is_git_repo: bool,
    platform: &str,
    date: &str,
    model: &str,
) {
    let _ = writeln!(out, "# Environment\n<env>");
    let _ = writeln!(out, "Working directory: {}", cwd.display());
    let _ = writeln!(
        out,
        "Is a git repository: {}",
        if is_git_repo { "yes" } else { "no" }
    );
    let _ = writeln!(out, "Platform: {platform}");
    let _ = writeln!(out, "Today's date: {date}");
    let _ = writeln!(out, "Model: {model}");
    let _ = writeln!(out, "</env>");
}

/// The `# Git status` section.
pub(crate) fn render_git(out: &mut String, git: &GitSummary) {
    let _ = writeln!(
        out,
        "# Git status\nA snapshot taken when the session started; it does not update as you work."
    );
    let _ = writeln!(out, "Current branch: {}", git.branch);
    if git.changes.is_empty() {
        let _ = writeln!(out, "Working tree: clean");
    } else {
        let _ = writeln!(out, "Working tree (git status --short):");
        for line in &git.changes {
            let _ = writeln!(out, "{line}");
        }
        if git.more_changes > 0 {
            let _ = writeln!(out, "... and {} more changed paths", git.more_changes);
        }
    }
    if git.recent_commits.is_empty() {
        let _ = writeln!(out, "Recent commits: none yet");
    } else {
        let _ = writeln!(out, "Recent commits:");
        for subject in &git.recent_commits {
            let _ = writeln!(out, "- {subject}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let ok = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args([
                "-c",
                "user.name=Test",
                "-c",
                "user.email=test@example.invalid",
                "-c",
                "commit.gpgsign=false",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?} failed");
    }

    #[test]
    fn branch_header_forms() {
        assert_eq!(parse_branch("## main").as_deref(), Some("main"));
        assert_eq!(
            parse_branch("## feat/x...origin/feat/x [ahead 2]").as_deref(),
            Some("feat/x")
        );
        assert_eq!(
            parse_branch("## No commits yet on trunk").as_deref(),
            Some("trunk")
        );
        assert_eq!(
            parse_branch("## HEAD (no branch)").as_deref(),
            Some("HEAD (detached)")
        );
        assert_eq!(parse_branch(" M file"), None);
    }

    #[test]
    fn not_a_repository_has_no_summary() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(git_summary(dir.path()), None);
        assert_eq!(git_summary(&dir.path().join("missing")), None);
    }

    #[test]
    fn summary_of_a_real_repository() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path();
        git(repo, &["init", "-q"]);

        let fresh = git_summary(repo).unwrap();
        assert_eq!(fresh.branch, "main");
        assert!(fresh.changes.is_empty());
        assert!(fresh.recent_commits.is_empty());

        for i in 1..=7 {
            std::fs::write(repo.join("f.txt"), format!("{i}")).unwrap();
            git(repo, &["add", "f.txt"]);
            git(repo, &["commit", "-q", "-m", &format!("commit number {i}")]);
        }
        git(repo, &["checkout", "-q", "-b", "topic"]);
        std::fs::write(repo.join("f.txt"), "changed").unwrap();
        for i in 0..23 {
            std::fs::write(repo.join(format!("new{i:02}.txt")), "x").unwrap();
        }

        let s = git_summary(repo).unwrap();
        assert_eq!(s.branch, "topic");
        assert_eq!(
            s.recent_commits,
            (3..=7)
                .rev()
                .map(|i| format!("commit number {i}"))
                .collect::<Vec<_>>()
        );
        assert_eq!(s.changes.len(), MAX_STATUS_LINES);
        assert_eq!(s.more_changes, 24 - MAX_STATUS_LINES);
        assert_eq!(s.changes[0], " M f.txt");
        assert!(s.changes[1].starts_with("?? new00.txt"));

        // Works from a subdirectory too.
        std::fs::create_dir(repo.join("sub")).unwrap();
        assert_eq!(git_summary(&repo.join("sub")).unwrap().branch, "topic");
    }
}
