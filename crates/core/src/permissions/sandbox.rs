//! The session's side of the sandbox (crate `catui-sandbox`): which
//! confinement a shell command runs under, and what the session has to
//! enforce it with.
//!
//! A [`SandboxPolicy`] is the session's choice: none, read-only (commands
//! allowed only because they were judged read-only, and plan mode), or the
//! working directories (the `sandbox` setting, for approved commands).
//! [`SessionSandbox`] turns it into a [`Confinement`] for one command —
//! adding the secret stores that exist right now, and starting the network
//! proxy the first time an approved command may use it — and knows the
//! layers this session has (`init.sandbox`). The layers themselves, and
//! what each one stops, are documented in `crates/sandbox/README.md` and
//! `docs/SECURITY.md`.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub use catui_sandbox::{Confinement, Layers, Network, Stage};

use super::secrets::SecretStores;
use crate::sync::lock;

/// The `sandbox` setting's network part: what approved commands confined
/// to the working directories may reach.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum SandboxNetwork {
    /// Nothing.
    #[default]
    Off,
    /// These hosts (`example.com`, or `*.example.com` for its subdomains)
    /// through catui's proxy; nothing else.
    AllowedDomains(Vec<String>),
}

/// How the `init.sandbox` entry saying dry runs cannot run here starts;
/// the reason follows ([`SessionSandbox::report`]).
pub const NO_DRY_RUNS: &str = "no dry runs: ";

/// How a shell command is confined.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum SandboxPolicy {
    /// Not at all.
    #[default]
    None,
    /// Reading only: writes only into a private temporary directory
    /// (created when missing, exported as `TMPDIR`) and `/dev/null`, no
    /// network, no sockets, the secret stores hidden.
    ReadOnlyExceptTemp { temp_dir: PathBuf },
    /// A line acceptEdits allowed for its edits: writes beneath the
    /// working directories `writable` and the private `temp_dir`, judged
    /// by the kernel on the path really written (links the line creates
    /// lead nowhere else); no network, no sockets, the secret stores
    /// hidden.
    Edits {
        writable: Vec<PathBuf>,
        temp_dir: PathBuf,
    },
    /// A dry run: the working directories (and the home directory) seen
    /// through copy-on-write overlays whose changes land beneath `scratch`
    /// and are thrown away with it; its temp dir is inside `scratch` too;
    /// otherwise as [`SandboxPolicy::Edits`] (no network, no sockets, the
    /// secret stores hidden).
    DryRun {
        dirs: Vec<PathBuf>,
        scratch: PathBuf,
        /// At most this many processes at once (`dryRun.maxProcesses`).
        max_processes: u64,
    },
    /// Writes beneath these directories; the network as `network` says.
    WorkingDirs {
        writable: Vec<PathBuf>,
        network: SandboxNetwork,
    },
}

impl SandboxPolicy {
    /// The directories writes are confined to, or `None` when unconfined.
    pub fn writable_paths(&self) -> Option<Vec<PathBuf>> {
        match self {
            SandboxPolicy::None => None,
            SandboxPolicy::ReadOnlyExceptTemp { temp_dir } => Some(vec![temp_dir.clone()]),
            SandboxPolicy::Edits { writable, temp_dir } => {
                let mut dirs = writable.clone();
                dirs.push(temp_dir.clone());
                Some(dirs)
            }
            SandboxPolicy::WorkingDirs { writable, .. } => Some(writable.clone()),
            // Nothing real is written; the copies of these directories are.
            SandboxPolicy::DryRun { dirs, .. } => Some(dirs.clone()),
        }
    }
}

/// What a session confines commands with: its layers and inner stage, the
/// user's secret stores, the policy for approved commands, and the network
/// proxy (started when first needed).
#[derive(Debug)]
pub struct SessionSandbox {
    sandbox: catui_sandbox::Sandbox,
    secrets: SecretStores,
    home: Option<PathBuf>,
    approved: SandboxPolicy,
    proxy: Mutex<Option<catui_sandbox::proxy::Proxy>>,
}

impl SessionSandbox {
    /// With this machine's layers (bubblewrap only when `stage`, the inner
    /// stage, is given), hiding `secrets` (`home` is where their `~` and
    /// `.env` files are).
    pub fn new(
        stage: Option<Stage>,
        secrets: SecretStores,
        home: Option<PathBuf>,
        approved: SandboxPolicy,
    ) -> Self {
        Self::with_sandbox(catui_sandbox::Sandbox::new(stage), secrets, home, approved)
    }

    /// With the given layers (tests).
    pub fn with_sandbox(
        sandbox: catui_sandbox::Sandbox,
        secrets: SecretStores,
        home: Option<PathBuf>,
        approved: SandboxPolicy,
    ) -> Self {
        SessionSandbox {
            sandbox,
            secrets,
            home,
            approved,
            proxy: Mutex::new(None),
        }
    }

    /// No inner stage, the user's default secret stores around `project`,
    /// approved commands unconfined.
    pub fn for_project(project: &Path) -> Self {
        let home = dirs::home_dir();
        Self::new(
            None,
            SecretStores::new(home.as_deref(), &[], &[project.to_path_buf()]),
            home,
            SandboxPolicy::None,
        )
    }

    /// The layers confined commands get.
    pub fn layers(&self) -> Layers {
        self.sandbox.layers()
    }

    /// Whether every guarantee of the read-only sandbox is enforced here
    /// (else commands judged read-only must ask).
    pub fn complete(&self) -> bool {
        self.layers().complete()
    }

    /// Whether writes can be confined to given directories here (lines
    /// acceptEdits allows for their edits run so; without it, lines that
    /// could create links or move trees ask).
    pub fn confines_writes(&self) -> bool {
        self.layers().confines_writes()
    }

    /// Why a dry run cannot run here, if it cannot: overlays need
    /// bubblewrap's namespaces and catui's inner stage to mount them, and
    /// every other layer, since a dry run runs unasked.
    pub fn dry_run_unavailable(&self) -> Option<String> {
        if !self.sandbox.has_stage() {
            return Some("catui's inner sandbox stage is not available".into());
        }
        let layers = self.layers();
        if !layers.bubblewrap {
            return Some("bubblewrap does not work here (overlays need its namespaces)".into());
        }
        if !layers.complete() {
            return Some("the sandbox lacks a layer".into());
        }
        None
    }

    /// What `init.sandbox` reports: the layer names, and — when dry runs
    /// are wanted (`dry_runs`) but overlays cannot be mounted here — one
    /// more entry, `no dry runs: <reason>`, so a client knows why plan
    /// mode refuses commands that are not read-only.
    pub fn report(&self, dry_runs: bool) -> Vec<String> {
        let mut out = self.layers().names();
        if dry_runs && let Some(why) = self.dry_run_unavailable() {
            out.push(format!("{NO_DRY_RUNS}{why}"));
        }
        out
    }

    /// The policy for commands someone allowed (the `sandbox` setting).
    pub fn approved_policy(&self) -> SandboxPolicy {
        self.approved.clone()
    }

    /// The secret stores this sandbox was built with: what it hides when
    /// the caller has no session to ask (see
    /// `ToolContext::secret_stores`, which prefers the session's).
    pub fn secrets(&self) -> &SecretStores {
        &self.secrets
    }

    /// The confinement of one command under `policy`, hiding `secrets`
    /// (the session's current stores: settings `secretPaths` may have
    /// grown since the session started); `None` unconfined.
    pub fn confinement(
        &self,
        policy: &SandboxPolicy,
        secrets: &SecretStores,
    ) -> std::io::Result<Option<Confinement>> {
        Ok(match policy {
            SandboxPolicy::None => None,
            SandboxPolicy::ReadOnlyExceptTemp { temp_dir } => Some(Confinement::read_only(
                temp_dir.clone(),
                secrets.existing(self.home.as_deref(), std::slice::from_ref(temp_dir)),
            )),
            SandboxPolicy::Edits { writable, temp_dir } => {
                let mut keep = writable.clone();
                keep.push(temp_dir.clone());
                Some(Confinement::edits(
                    writable.clone(),
                    temp_dir.clone(),
                    secrets.existing(self.home.as_deref(), &keep),
                ))
            }
            SandboxPolicy::DryRun {
                dirs,
                scratch,
                max_processes,
            } => {
                let mut dirs = dirs.clone();
                // Build caches and tools' own files live in the home
                // directory: its copy may be written too.
                if let Some(home) = self.home.as_deref().and_then(|h| h.canonicalize().ok())
                    && home.parent().is_some()
                    && catui_sandbox::overlay::unusable(&home, scratch).is_none()
                    && !dirs.iter().any(|d| home.starts_with(d))
                {
                    dirs.push(home);
                }
                let temp = scratch.join("tmp");
                let mut keep = dirs.clone();
                keep.push(temp.clone());
                let hidden = secrets.existing(self.home.as_deref(), &keep);
                Some(Confinement {
                    max_processes: Some(*max_processes),
                    ..Confinement::dry_run(dirs, scratch.clone(), temp, hidden)
                })
            }
            SandboxPolicy::WorkingDirs { writable, network } => {
                let network = match network {
                    SandboxNetwork::AllowedDomains(domains)
                        if !domains.is_empty() && self.layers().bubblewrap =>
                    {
                        Network::Proxy {
                            socket: self.proxy_socket(domains)?,
                        }
                    }
                    _ => Network::Off,
                };
                Some(Confinement::workspace(writable.clone(), network))
            }
        })
    }

    /// A command running `program` with `args` in `cwd` under `c`.
    pub fn launch(
        &self,
        program: &Path,
        args: &[std::ffi::OsString],
        cwd: &Path,
        c: &Confinement,
    ) -> Result<catui_sandbox::Launch, catui_sandbox::SandboxError> {
        self.sandbox.launch(program, args, cwd, c)
    }

    /// The proxy's socket, starting the proxy on first use.
    fn proxy_socket(&self, domains: &[String]) -> std::io::Result<PathBuf> {
        let mut slot = lock(&self.proxy);
        if let Some(proxy) = slot.as_ref() {
            return Ok(proxy.socket().to_path_buf());
        }
        let dir = std::env::temp_dir().join(format!(
            "catui-proxy-{}-{}",
            std::process::id(),
            uuid::Uuid::new_v4().simple()
        ));
        std::fs::create_dir_all(&dir)?;
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))?;
        }
        let proxy = catui_sandbox::proxy::Proxy::start(dir.join("proxy.sock"), domains.to_vec())?;
        let socket = proxy.socket().to_path_buf();
        *slot = Some(proxy);
        Ok(socket)
    }
}

impl Drop for SessionSandbox {
    fn drop(&mut self) {
        if let Some(proxy) = lock(&self.proxy).take() {
            let dir = proxy.socket().parent().map(Path::to_path_buf);
            drop(proxy);
            if let Some(dir) = dir {
                let _ = std::fs::remove_dir(dir);
            }
        }
    }
}
