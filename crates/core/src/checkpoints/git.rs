//! Running `git` against a shadow repository without anything of the
//! user's git set-up taking part: a cleared environment (no `GIT_*`
//! variable inherited, no system or global configuration), hooks pointed at
//! `/dev/null`, no fsmonitor, and attributes read from the empty tree, so
//! the project's `.gitattributes` cannot convert line endings or run
//! filters. The project's own `.git` is only ever read (its objects as
//! alternates, its exclude file copied); nothing is written there.
//!
//! Why spawn `git` rather than link a git library: git is where catui
//! already runs (it reads `git status` for the system prompt), its index
//! and untracked cache make "what changed since last time" cost one stat
//! per file, and spawning adds nothing to catui's binary. See
//! docs/CHECKPOINTS.md for the measurements.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::CheckpointError;

/// The empty tree's id: attributes are read from it, so there are none.
pub const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// The scheduling priority of checkpoint work done in the background.
const BACKGROUND_NICENESS: i32 = 19;

/// How to run git for one shadow repository.
#[derive(Debug, Clone)]
pub struct ShadowGit {
    /// The shadow repository (a bare layout in catui's data directory).
    pub git_dir: PathBuf,
    /// The project: the shadow repository's work tree.
    pub work_tree: PathBuf,
    /// The project's own object store, read as alternates (never written).
    pub alternates: Option<PathBuf>,
}

impl ShadowGit {
    /// A `git` command for this repository with `args`.
    pub fn command<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let mut cmd = Command::new("git");
        // The allow-list's environment (no credential of catui's), then
        // git pinned to the shadow repository below.
        cmd.env_clear().envs(
            catui_sandbox::child_env::EnvPolicy::default()
                .build(catui_sandbox::child_env::Tier::Confined),
        );
        cmd.env("LC_ALL", "C")
            .env("GIT_DIR", &self.git_dir)
            .env("GIT_WORK_TREE", &self.work_tree)
            .env("GIT_INDEX_FILE", self.git_dir.join("index"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_ATTR_SOURCE", EMPTY_TREE)
            .env("GIT_AUTHOR_NAME", "catui")
            .env("GIT_AUTHOR_EMAIL", "checkpoints@catui.invalid")
            .env("GIT_COMMITTER_NAME", "catui")
            .env("GIT_COMMITTER_EMAIL", "checkpoints@catui.invalid");
        if let Some(objects) = &self.alternates {
            cmd.env("GIT_ALTERNATE_OBJECT_DIRECTORIES", objects);
        }
        cmd.args([
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "core.fsmonitor=false",
            "-c",
            "core.bare=false",
            "-c",
            "core.autocrlf=false",
            "-c",
            "core.untrackedCache=true",
            // A snapshot rewrites only the entries it changed, not an index
            // of every file of the project.
            "-c",
            "core.splitIndex=true",
            "-c",
            "gc.auto=0",
            "-c",
            "advice.detachedHead=false",
        ]);
        cmd.args(args);
        cmd.current_dir(&self.work_tree);
        cmd.stdin(Stdio::null());
        cmd
    }

    /// Runs git with `args` and returns its standard output.
    pub fn run<S: AsRef<std::ffi::OsStr>>(&self, args: &[S]) -> Result<Vec<u8>, CheckpointError> {
        self.run_with_input(args, None)
    }

    /// Runs git with `args` and `input` on its standard input.
    pub fn run_with_input<S: AsRef<std::ffi::OsStr>>(
        &self,
        args: &[S],
        input: Option<&[u8]>,
    ) -> Result<Vec<u8>, CheckpointError> {
        let mut cmd = self.command(args);
        run_command(&mut cmd, input, &describe(args), false)
    }

    /// [`Self::run`] for output that is one line of text (an object id).
    pub fn run_line<S: AsRef<std::ffi::OsStr>>(
        &self,
        args: &[S],
    ) -> Result<String, CheckpointError> {
        let out = self.run(args)?;
        Ok(String::from_utf8_lossy(&out).trim().to_string())
    }

    /// Runs a maintenance command at the lowest priority, waiting for it.
    pub fn run_in_background<S: AsRef<std::ffi::OsStr>>(
        &self,
        args: &[S],
    ) -> Result<Vec<u8>, CheckpointError> {
        let mut cmd = self.command(args);
        run_command(&mut cmd, None, &describe(args), true)
    }

    /// The content of each blob in `ids`, in order, read by one
    /// `git cat-file --batch`.
    pub fn read_blobs(&self, ids: &[String]) -> Result<Vec<Vec<u8>>, CheckpointError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut input = String::new();
        for id in ids {
            input.push_str(id);
            input.push('\n');
        }
        let out = self.run_with_input(&["cat-file", "--batch"], Some(input.as_bytes()))?;
        parse_batch(&out, ids.len())
    }
}

fn describe<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> String {
    args.iter()
        .take(2)
        .map(|a| a.as_ref().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs `cmd`, feeding `input` from a thread (so a large output cannot
/// block a large input), and returns its standard output; a non-zero exit
/// is an error carrying git's own message.
fn run_command(
    cmd: &mut Command,
    input: Option<&[u8]>,
    what: &str,
    niced: bool,
) -> Result<Vec<u8>, CheckpointError> {
    if input.is_some() {
        cmd.stdin(Stdio::piped());
    }
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            CheckpointError::GitMissing
        } else {
            CheckpointError::Io {
                what: format!("start git {what}"),
                source: e,
            }
        }
    })?;
    if niced {
        // Maintenance must not slow down the session it serves (a failure
        // here changes nothing).
        let _ = rustix::process::setpriority_process(
            Some(rustix::process::Pid::from_child(&child)),
            BACKGROUND_NICENESS,
        );
    }
    let feeder = match (input, child.stdin.take()) {
        (Some(bytes), Some(mut stdin)) => {
            let bytes = bytes.to_vec();
            Some(std::thread::spawn(move || {
                let _ = stdin.write_all(&bytes);
            }))
        }
        _ => None,
    };
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    if let Some(mut out) = child.stdout.take() {
        let err = child.stderr.take();
        let err_thread = err.map(|mut e| {
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                let _ = e.read_to_end(&mut buf);
                buf
            })
        });
        let _ = out.read_to_end(&mut stdout);
        if let Some(t) = err_thread {
            stderr = t.join().unwrap_or_default();
        }
    }
    if let Some(f) = feeder {
        let _ = f.join();
    }
    let status = child.wait().map_err(|e| CheckpointError::Io {
        what: format!("wait for git {what}"),
        source: e,
    })?;
    if !status.success() {
        let message = String::from_utf8_lossy(&stderr).trim().to_string();
        return Err(CheckpointError::Git {
            command: what.to_string(),
            message: if message.is_empty() {
                format!("exited with {status}")
            } else {
                message
            },
        });
    }
    Ok(stdout)
}

/// Parses `git cat-file --batch` output: `<id> blob <size>\n<bytes>\n` per
/// object.
fn parse_batch(out: &[u8], count: usize) -> Result<Vec<Vec<u8>>, CheckpointError> {
    let mut blobs = Vec::with_capacity(count);
    let mut at = 0;
    while blobs.len() < count {
        let end = out[at..]
            .iter()
            .position(|b| *b == b'\n')
            .map(|p| at + p)
            .ok_or_else(|| batch_error("a header line is cut short"))?;
        let header = String::from_utf8_lossy(&out[at..end]).to_string();
        let mut parts = header.split(' ');
        let id = parts.next().unwrap_or_default().to_string();
        match (parts.next(), parts.next()) {
            (Some("missing") | None, _) => {
                return Err(CheckpointError::MissingObject(id));
            }
            (Some(_kind), Some(size)) => {
                let size: usize = size
                    .parse()
                    .map_err(|_| batch_error("an object size is not a number"))?;
                let start = end + 1;
                let stop = start + size;
                if stop > out.len() {
                    return Err(batch_error("an object is cut short"));
                }
                blobs.push(out[start..stop].to_vec());
                at = stop + 1;
            }
            (Some(_), None) => return Err(batch_error("a header has no size")),
        }
    }
    Ok(blobs)
}

fn batch_error(why: &str) -> CheckpointError {
    CheckpointError::Git {
        command: "cat-file --batch".into(),
        message: why.to_string(),
    }
}

/// The version of the `git` on PATH as `(major, minor)`, if it runs.
pub fn git_version() -> Option<(u32, u32)> {
    let out = Command::new("git").arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text.split_whitespace().nth(2)?;
    let mut parts = version.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

/// The object store and the git directory of the git repository whose
/// top level is `project` (a `.git` directory, or a `.git` file pointing
/// elsewhere as in worktrees and submodules).
pub fn project_git(project: &Path) -> Option<(PathBuf, PathBuf)> {
    let dot_git = project.join(".git");
    let meta = std::fs::symlink_metadata(&dot_git).ok()?;
    let git_dir = if meta.is_dir() {
        dot_git
    } else if meta.is_file() {
        let text = std::fs::read_to_string(&dot_git).ok()?;
        let target = text.strip_prefix("gitdir:")?.trim();
        let target = Path::new(target);
        if target.is_absolute() {
            target.to_path_buf()
        } else {
            project.join(target)
        }
    } else {
        return None;
    };
    // A linked worktree keeps its objects in the main repository.
    let common = match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(rel) => git_dir.join(rel.trim()),
        Err(_) => git_dir.clone(),
    };
    let objects = common.join("objects");
    objects.is_dir().then_some((objects, git_dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_output_is_split_into_blobs() {
        let out = b"aaa blob 3\nabc\nbbb blob 0\n\nccc blob 2\nx\n\n";
        let blobs = parse_batch(out, 3).unwrap();
        assert_eq!(blobs, vec![b"abc".to_vec(), Vec::new(), b"x\n".to_vec()]);
        assert!(matches!(
            parse_batch(b"ddd missing\n", 1),
            Err(CheckpointError::MissingObject(id)) if id == "ddd"
        ));
        assert!(parse_batch(b"aaa blob 9\nabc\n", 1).is_err());
    }
}
