//! The facts of the machine the model works on, sent once in the first
//! request of the main conversation (at most [`MAX_CHARS`]): the OS name
//! and version (`/etc/os-release`), the kernel, the package manager, the
//! versions of the toolchains the project's top-level files call for
//! (`cargo`, `python3`, `node`, `go`, `java`…), and a shallow listing of
//! the project's top level.
//!
//! Everything but the versions is a few file reads. The versions need the
//! programs to run, so they are probed on a thread of their own at the
//! lowest priority, each bounded by [`PROBE_TIMEOUT`], and remembered per
//! project (`machine.json` in the project's data directory) keyed by each
//! program's path and modification time: a later session of the project
//! probes nothing unless a toolchain changed. As for the git snapshot
//! ([`super::git`]), start-up never waits; the first request waits for the
//! probes at most [`PROBE_TIMEOUT`], and a version not known by then is
//! left out.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use catui_protocol::Attachment;
use serde::{Deserialize, Serialize};

use crate::engine::{AttachmentContext, AttachmentProvider};
use crate::sync::lock;

/// The longest the facts may be, in characters.
pub const MAX_CHARS: usize = 1_000;
/// How long the version probes may take together.
pub const PROBE_TIMEOUT: Duration = Duration::from_millis(1_500);
/// Entries of the top-level listing named at most.
const MAX_LISTED: usize = 40;
/// The first line of the rendered facts.
pub const MACHINE_HEADER: &str = "# Machine";
/// The cache file in the project's data directory.
const CACHE_FILE: &str = "machine.json";

/// Which programs a project's top-level file calls for, and how each
/// tells its version (`--version` unless said).
const TOOLCHAINS: &[(&str, &[&str])] = &[
    ("Cargo.toml", &["cargo", "rustc"]),
    ("package.json", &["node", "npm"]),
    ("pnpm-lock.yaml", &["pnpm"]),
    ("yarn.lock", &["yarn"]),
    ("bun.lockb", &["bun"]),
    ("deno.json", &["deno"]),
    ("pyproject.toml", &["python3", "pip3"]),
    ("requirements.txt", &["python3", "pip3"]),
    ("setup.py", &["python3", "pip3"]),
    ("uv.lock", &["uv"]),
    ("go.mod", &["go"]),
    ("pom.xml", &["java", "mvn"]),
    ("build.gradle", &["java", "gradle"]),
    ("build.gradle.kts", &["java", "gradle"]),
    ("Gemfile", &["ruby"]),
    ("composer.json", &["php"]),
    ("CMakeLists.txt", &["cmake", "cc"]),
    ("Makefile", &["make", "cc"]),
    ("mix.exs", &["elixir"]),
];

/// File extensions at the top level that call for a program.
const BY_EXTENSION: &[(&str, &str)] = &[("py", "python3"), ("rb", "ruby"), ("go", "go")];

/// Package managers, the first found on PATH is named.
const PACKAGE_MANAGERS: &[&str] = &[
    "apt-get", "dnf", "yum", "pacman", "apk", "zypper", "brew", "nix",
];

/// What is known about the machine and the project.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    /// `PRETTY_NAME` of `/etc/os-release` (or NAME and VERSION).
    pub os: Option<String>,
    pub kernel: Option<String>,
    pub package_manager: Option<String>,
    pub root: bool,
    /// Program → the first line of its version, in the order probed.
    pub versions: Vec<(String, String)>,
    /// The project's top-level entries (directories end with `/`).
    pub listing: Vec<String>,
    /// How many entries were not listed.
    pub more: usize,
}

/// One remembered version.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct Known {
    path: PathBuf,
    /// Seconds since the epoch of the program's modification.
    mtime: u64,
    version: String,
}

/// The facts being collected in the background.
pub struct MachineFacts {
    shared: Arc<Shared>,
}

struct Shared {
    /// What to probe, until probing starts (a deferred collection).
    pending: Mutex<Option<Job>>,
    state: Mutex<Option<Facts>>,
    done: Condvar,
}

struct Job {
    cwd: PathBuf,
    cache: Option<PathBuf>,
    path_var: Option<String>,
}

impl MachineFacts {
    /// Collects the facts of `cwd`, remembering versions in `cache_dir`;
    /// `started`: begin now (an interactive session, while the user types)
    /// rather than with the first request (a one-shot run).
    pub fn new(cwd: &Path, cache_dir: Option<PathBuf>, started: bool) -> MachineFacts {
        let facts = MachineFacts {
            shared: Arc::new(Shared {
                pending: Mutex::new(Some(Job {
                    cwd: cwd.to_path_buf(),
                    cache: cache_dir.map(|d| d.join(CACHE_FILE)),
                    path_var: std::env::var("PATH").ok(),
                })),
                state: Mutex::new(None),
                done: Condvar::new(),
            }),
        };
        if started {
            facts.ensure_started();
        }
        facts
    }

    fn ensure_started(&self) {
        let Some(job) = lock(&self.shared.pending).take() else {
            return;
        };
        let shared = self.shared.clone();
        let spawned = std::thread::Builder::new()
            .name("catui-machine-facts".into())
            .spawn(move || {
                let facts = collect(&job);
                *lock(&shared.state) = Some(facts);
                shared.done.notify_all();
            });
        if spawned.is_err() {
            *lock(&self.shared.state) = Some(Facts::default());
        }
    }

    /// Waits (at most `timeout`) for the facts; `None` when not ready.
    pub fn wait(&self, timeout: Duration) -> Option<Facts> {
        self.ensure_started();
        let deadline = Instant::now() + timeout;
        let mut state = lock(&self.shared.state);
        loop {
            if let Some(facts) = &*state {
                return Some(facts.clone());
            }
            let left = deadline.checked_duration_since(Instant::now())?;
            state = crate::sync::wait_timeout(&self.shared.done, state, left).0;
        }
    }
}

/// Everything in one go (on the collecting thread).
fn collect(job: &Job) -> Facts {
    let listing = top_level(&job.cwd);
    let wanted = toolchains(&listing.0);
    let path_var = job.path_var.as_deref().unwrap_or_default();
    let mut cache: BTreeMap<String, Known> = job
        .cache
        .as_deref()
        .and_then(|p| std::fs::read(p).ok())
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let deadline = Instant::now() + PROBE_TIMEOUT;
    let mut versions = Vec::new();
    let mut changed = false;
    for program in wanted {
        let Some(path) = find_program(program, path_var) else {
            continue;
        };
        let mtime = modified(&path);
        let remembered = cache
            .get(program)
            .filter(|k| k.path == path && k.mtime == mtime)
            .map(|k| k.version.clone());
        let version = match remembered {
            Some(v) => Some(v),
            None => {
                let probed = probe(&path, program, &job.cwd, deadline);
                if let Some(v) = &probed {
                    cache.insert(
                        program.to_string(),
                        Known {
                            path: path.clone(),
                            mtime,
                            version: v.clone(),
                        },
                    );
                    changed = true;
                }
                probed
            }
        };
        if let Some(v) = version {
            versions.push((program.to_string(), v));
        }
    }
    if changed && let Some(file) = &job.cache {
        remember(file, &cache);
    }
    Facts {
        os: os_name(),
        kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .ok()
            .map(|k| k.trim().to_string())
            .filter(|k| !k.is_empty()),
        package_manager: PACKAGE_MANAGERS
            .iter()
            .find(|p| find_program(p, path_var).is_some())
            .map(|p| p.to_string()),
        root: rustix::process::geteuid().is_root(),
        versions,
        listing: listing.0,
        more: listing.1,
    }
}

fn remember(file: &Path, cache: &BTreeMap<String, Known>) {
    if let Some(dir) = file.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Ok(bytes) = serde_json::to_vec_pretty(cache) {
        let _ = crate::tools::fs_atomic::write_atomic(file, &bytes);
    }
}

/// The name and version of the operating system, from `/etc/os-release`.
fn os_name() -> Option<String> {
    let text = std::fs::read_to_string("/etc/os-release")
        .or_else(|_| std::fs::read_to_string("/usr/lib/os-release"))
        .ok()?;
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
            .map(|v| v.trim().trim_matches('"').to_string())
            .filter(|v| !v.is_empty())
    };
    field("PRETTY_NAME").or_else(|| match (field("NAME"), field("VERSION")) {
        (Some(n), Some(v)) => Some(format!("{n} {v}")),
        (n, _) => n,
    })
}

/// The project's top-level names, sorted (directories with `/`), and how
/// many more there were.
fn top_level(cwd: &Path) -> (Vec<String>, usize) {
    let Ok(entries) = std::fs::read_dir(cwd) else {
        return (Vec::new(), 0);
    };
    let mut names: Vec<String> = entries
        .flatten()
        .take(10_000)
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            if name == ".git" {
                return None;
            }
            let dir = e.file_type().is_ok_and(|t| t.is_dir());
            Some(if dir { format!("{name}/") } else { name })
        })
        .collect();
    names.sort();
    let more = names.len().saturating_sub(MAX_LISTED);
    names.truncate(MAX_LISTED);
    (names, more)
}

/// The programs the top-level files call for, each once, in table order.
fn toolchains(listing: &[String]) -> Vec<&'static str> {
    let mut wanted: Vec<&'static str> = Vec::new();
    let mut add = |p: &'static str| {
        if !wanted.contains(&p) {
            wanted.push(p);
        }
    };
    for (file, programs) in TOOLCHAINS {
        if listing.iter().any(|n| n == file) {
            programs.iter().for_each(|p| add(p));
        }
    }
    for (ext, program) in BY_EXTENSION {
        if listing
            .iter()
            .any(|n| Path::new(n).extension().is_some_and(|e| e == *ext))
        {
            add(program);
        }
    }
    wanted
}

/// `program`'s path on `path_var`, when it is an executable file there.
fn find_program(program: &str, path_var: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    path_var
        .split(':')
        .filter(|d| !d.is_empty())
        .map(|d| Path::new(d).join(program))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

fn modified(path: &Path) -> u64 {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs())
}

/// The first line `program` prints about its version, or `None` when it
/// fails or is not done by `deadline` (then it is killed).
fn probe(path: &Path, program: &str, cwd: &Path, deadline: Instant) -> Option<String> {
    let arg = match program {
        "java" => "-version",
        "go" => "version",
        _ => "--version",
    };
    let mut cmd = Command::new(path);
    // The allow-list's environment, which keeps what version managers
    // (rustup, pyenv, nvm) read to pick the project's version and no
    // credential of catui's; git is neutralised as for confined commands,
    // and a toolchain the project names is never downloaded just to say
    // its version.
    cmd.env_clear().envs(
        catui_sandbox::child_env::EnvPolicy::default()
            .build(catui_sandbox::child_env::Tier::Confined),
    );
    for (name, value) in catui_sandbox::env::confined(cwd, true) {
        match value {
            Some(v) => cmd.env(name, v),
            None => cmd.env_remove(name),
        };
    }
    cmd.env("RUSTUP_AUTO_INSTALL", "0");
    let mut child = cmd
        .arg(arg)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        // java prints its version on stderr.
        .stderr(if program == "java" {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .spawn()
        .ok()?;
    let _ =
        rustix::process::setpriority_process(Some(rustix::process::Pid::from_child(&child)), 19);
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break,
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let mut out = String::new();
    if let Some(mut s) = child.stdout.take() {
        let _ = s.read_to_string(&mut out);
    }
    if let Some(mut s) = child.stderr.take() {
        let _ = s.read_to_string(&mut out);
    }
    let line = out.lines().find(|l| !l.trim().is_empty())?.trim();
    Some(line.chars().take(80).collect())
}

/// The facts as the model reads them, at most [`MAX_CHARS`].
pub fn render_machine(facts: &Facts) -> String {
    let mut out = format!("{MACHINE_HEADER}\n");
    let mut os = facts
        .os
        .clone()
        .unwrap_or_else(|| std::env::consts::OS.into());
    if let Some(kernel) = &facts.kernel {
        let _ = write!(os, ", kernel {kernel}");
    }
    let _ = writeln!(out, "OS: {os}");
    if let Some(pm) = &facts.package_manager {
        let root = if facts.root { " (running as root)" } else { "" };
        let _ = writeln!(out, "Package manager: {pm}{root}");
    }
    if !facts.versions.is_empty() {
        let list: Vec<String> = facts
            .versions
            .iter()
            .map(|(p, v)| format!("{p}: {v}"))
            .collect();
        let _ = writeln!(out, "Toolchains: {}", list.join("; "));
    }
    if facts.listing.is_empty() {
        let _ = writeln!(out, "Project top level: empty");
    } else {
        let more = if facts.more > 0 {
            format!(" … and {} more", facts.more)
        } else {
            String::new()
        };
        let _ = writeln!(out, "Project top level: {}{more}", facts.listing.join(", "));
    }
    out.truncate(out.trim_end().len());
    if out.chars().count() > MAX_CHARS {
        let cut: String = out.chars().take(MAX_CHARS - 1).collect();
        out = format!("{cut}…");
    }
    out
}

/// Hands the facts to the main conversation in its first request.
pub struct MachineAttachments {
    facts: Arc<MachineFacts>,
    sent: AtomicBool,
}

impl MachineAttachments {
    pub fn new(facts: Arc<MachineFacts>) -> Self {
        Self {
            facts,
            sent: AtomicBool::new(false),
        }
    }
}

impl AttachmentProvider for MachineAttachments {
    fn attachments(&self, _ctx: &AttachmentContext<'_>) -> Vec<Attachment> {
        if self.sent.swap(true, Ordering::Relaxed) {
            return Vec::new();
        }
        let facts = crate::sync::blocking_io(|| {
            self.facts.wait(PROBE_TIMEOUT + Duration::from_millis(500))
        });
        facts
            .map(|f| Attachment::Reminder {
                text: render_machine(&f),
            })
            .into_iter()
            .collect()
    }
}

#[cfg(test)]
#[path = "machine_tests.rs"]
mod tests;
