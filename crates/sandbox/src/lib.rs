//! catui's sandbox for shell commands.
//!
//! One type says what a confined command may do: [`Confinement`]. Three
//! layers enforce it, each on its own and all together, so that one
//! missing layer never opens the door (see `README.md` for what each one
//! stops):
//!
//! - [`bwrap`]: Linux namespaces through bubblewrap — no network, its own
//!   process tree and `/proc`, the file system read-only except the
//!   writable directories, the secret stores covered;
//! - [`landlock`]: file access as an allow-list (writes only where allowed,
//!   reads everywhere but the secret stores), no TCP, and the scopes that
//!   keep signals and abstract unix sockets inside the sandbox;
//! - [`seccomp`]: a system-call filter — no sockets, no `io_uring`, no
//!   `ptrace`, no metadata changes, no mounts or namespaces, no terminal
//!   injection — and every capability dropped.
//!
//! [`Sandbox`] knows which layers this machine has ([`Layers`]) and turns
//! a program and a [`Confinement`] into a command to spawn ([`Launch`]):
//! under bubblewrap, through the *inner stage* ([`stage`]), a program that
//! applies Landlock and seccomp inside the namespaces and then runs the
//! command; without an inner stage, Landlock and seccomp are applied in the
//! child before `exec`. [`child_env`] builds the environment of every
//! child catui starts from an allow-list, [`env`] adds what confinement
//! needs (git unable to run configured programs), and
//! [`proxy`] is the domain allow-list that approved commands may reach the
//! network through.

use std::path::{Path, PathBuf};

pub mod bwrap;
pub mod child_env;
pub mod env;
mod launch;
pub mod layers;
pub mod overlay;
pub mod procs;
pub mod proxy;
pub mod stage;

#[cfg(target_os = "linux")]
mod child;
#[cfg(target_os = "linux")]
mod forward;
#[cfg(target_os = "linux")]
pub mod landlock;
#[cfg(target_os = "linux")]
pub mod seccomp;

pub use launch::{Launch, Sandbox, SandboxError, Stage, private_dir};
pub use layers::{Guarantee, Layer, Layers};

/// What a confined command may do. Whatever is not granted here is
/// refused; some things are refused to every confined command: tracing or
/// signalling processes outside its own tree, reading their environment,
/// `io_uring`, mounting, new namespaces, loading kernel code, and pushing
/// input into a terminal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Confinement {
    /// Directories beneath which the command may create, change and
    /// delete files. `/dev/null` is always writable.
    pub writable: Vec<PathBuf>,
    /// A private scratch directory: created when missing, writable, and
    /// exported as `TMPDIR`.
    pub temp_dir: Option<PathBuf>,
    /// Files and directories the command must not read (the secret
    /// stores); paths that do not exist are ignored.
    pub hidden: Vec<PathBuf>,
    /// Whether the command may change modes, owners, times and extended
    /// attributes of files it may write.
    pub metadata: bool,
    /// Whether the command may create unix sockets and connect to them.
    pub unix_sockets: bool,
    /// How the command may reach the network.
    pub network: Network,
    /// Whether the command runs unasked: its environment is the confined
    /// tier of the allow-list ([`child_env::Tier::Confined`]) and git
    /// cannot run the programs its configuration names or reach a remote
    /// (see [`env`]). Without it, the tier of commands someone allowed.
    pub clean_environment: bool,
    /// A dry run: `writable` is not written at all but seen through
    /// copy-on-write overlays whose upper layers live beneath this scratch
    /// directory (see [`overlay`]); only the copy changes.
    pub dry_run: Option<PathBuf>,
    /// At most this many processes (threads included) at once inside the
    /// sandbox (`RLIMIT_NPROC`, set by the inner stage in bubblewrap's
    /// own user namespace, so it counts only the sandbox's): a fork bomb
    /// stalls at the limit instead of filling the machine.
    pub max_processes: Option<u64>,
}

/// How a confined command may reach the network.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Network {
    /// Not at all: no socket of an internet family, no DNS.
    #[default]
    Off,
    /// Only through the HTTP proxy listening on this unix socket (see
    /// [`proxy`]); inside the sandbox it is reached at
    /// `http://127.0.0.1:`[`PROXY_PORT`], which the usual proxy variables
    /// name. Needs bubblewrap (a network namespace); without it the
    /// command has no network.
    Proxy { socket: PathBuf },
}

/// The port the in-sandbox forwarder listens on, in the sandbox's own
/// network namespace.
pub const PROXY_PORT: u16 = 3128;

impl Confinement {
    /// For a command that runs only because it was judged read-only:
    /// writes only to `temp_dir` and `/dev/null`, no metadata changes, no
    /// sockets, no network, `hidden` unreadable.
    pub fn read_only(temp_dir: PathBuf, hidden: Vec<PathBuf>) -> Self {
        Confinement {
            writable: Vec::new(),
            temp_dir: Some(temp_dir),
            hidden,
            metadata: false,
            unix_sockets: false,
            network: Network::Off,
            clean_environment: true,
            dry_run: None,
            max_processes: None,
        }
    }

    /// For a command the user approved, confined to its working
    /// directories: writes (and metadata changes) beneath `writable`,
    /// unix sockets allowed, the network as `network` says.
    pub fn workspace(writable: Vec<PathBuf>, network: Network) -> Self {
        Confinement {
            writable,
            temp_dir: None,
            hidden: Vec::new(),
            metadata: true,
            unix_sockets: true,
            network,
            clean_environment: false,
            dry_run: None,
            max_processes: None,
        }
    }

    /// For a line acceptEdits let run because every write it names lands
    /// inside the working directories: writes (and metadata changes) only
    /// beneath `writable` and `temp_dir`, so that a link the line itself
    /// creates cannot lead a write out; otherwise as [`Self::read_only`]
    /// (no sockets, no network, `hidden` unreadable, a clean environment).
    pub fn edits(writable: Vec<PathBuf>, temp_dir: PathBuf, hidden: Vec<PathBuf>) -> Self {
        Confinement {
            writable,
            temp_dir: Some(temp_dir),
            hidden,
            metadata: true,
            unix_sockets: false,
            network: Network::Off,
            clean_environment: true,
            dry_run: None,
            max_processes: None,
        }
    }

    /// For a dry run: `dirs` seen through overlays whose changes land
    /// beneath `scratch` and are thrown away with it; otherwise as
    /// [`Self::edits`] (no sockets, no network, `hidden` unreadable, a
    /// clean environment).
    pub fn dry_run(
        dirs: Vec<PathBuf>,
        scratch: PathBuf,
        temp_dir: PathBuf,
        hidden: Vec<PathBuf>,
    ) -> Self {
        Confinement {
            dry_run: Some(scratch),
            ..Confinement::edits(dirs, temp_dir, hidden)
        }
    }

    /// The overlays of a dry run (none otherwise).
    pub fn overlays(&self) -> Vec<overlay::Layer> {
        let Some(scratch) = &self.dry_run else {
            return Vec::new();
        };
        let dirs: Vec<PathBuf> = self
            .writable
            .iter()
            .filter_map(|d| std::fs::canonicalize(d).ok())
            .collect();
        overlay::layout(scratch, &dirs)
    }

    /// Every directory the command may write beneath that exists now:
    /// `writable` and the temp dir, canonical.
    pub fn writable_dirs(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        for dir in self.writable.iter().chain(self.temp_dir.as_ref()) {
            if let Ok(dir) = std::fs::canonicalize(dir)
                && !out.contains(&dir)
            {
                out.push(dir);
            }
        }
        out
    }

    /// The hidden paths that exist now: each as given and canonical, so
    /// that a store reached through a symlink is hidden where it really
    /// is (the symlink itself is left alone). Hiding wins over writing: a
    /// hidden path inside a writable directory stays hidden.
    pub fn hidden_paths(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        for path in &self.hidden {
            for p in [Some(path.clone()), std::fs::canonicalize(path).ok()]
                .into_iter()
                .flatten()
            {
                if std::fs::symlink_metadata(&p).is_ok_and(|m| !m.file_type().is_symlink())
                    && !out.contains(&p)
                {
                    out.push(p);
                }
            }
        }
        out
    }

    /// The unix socket of the proxy, when the network goes through one.
    pub fn proxy_socket(&self) -> Option<&Path> {
        match &self.network {
            Network::Off => None,
            Network::Proxy { socket } => Some(socket),
        }
    }
}

#[cfg(test)]
#[path = "lib_tests.rs"]
mod tests;
