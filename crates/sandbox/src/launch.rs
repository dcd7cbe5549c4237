//! Turning a program and a [`Confinement`] into a command to spawn.
//!
//! With bubblewrap and an inner stage, the command line becomes
//! `bwrap <namespaces, mounts> -- <stage> <confinement> -- program args`:
//! bubblewrap builds the namespaces, the stage applies Landlock and
//! seccomp inside them (a Landlock-restricted process could not mount, so
//! they cannot come first) and `exec`s the program. Without an inner stage
//! (or without bubblewrap), Landlock and seccomp are applied between
//! `fork` and `exec` of the program itself.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::child_env::{EnvPolicy, Tier, is_provider_key};
use crate::{Confinement, Layers, Network, PROXY_PORT, env, stage};

/// Why a command could not be prepared; it was not run.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("cannot prepare the sandbox directory {path}: {source}. Check that it can be created.")]
    Directory {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot build the Landlock rules ({0}); the command was not run")]
    Landlock(String),
    #[error("cannot build the seccomp filter ({0}); the command was not run")]
    Seccomp(String),
    #[error("a dry run is not possible here: {0}; the command was not run")]
    DryRun(String),
}

/// The inner stage: a program that, given [`stage::STAGE_ARG`]-style
/// arguments after `args`, applies Landlock and seccomp and runs the
/// command (catui's own binary, or this crate's `catui-sandbox-stage`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stage {
    pub program: PathBuf,
    /// Arguments before the stage's own (catui's hidden mode).
    pub args: Vec<OsString>,
}

impl Stage {
    /// catui's binary at `exe`, whose `main` dispatches to the stage.
    pub fn catui(exe: PathBuf) -> Stage {
        Stage {
            program: exe,
            args: vec![stage::STAGE_ARG.into()],
        }
    }
}

/// The layers this machine offers and how to reach the inner stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    layers: Layers,
    stage: Option<Stage>,
}

impl Sandbox {
    /// The machine's layers ([`Layers::detect`]); bubblewrap is used only
    /// with an inner stage, because Landlock and seccomp must be applied
    /// inside its namespaces.
    pub fn new(stage: Option<Stage>) -> Sandbox {
        Sandbox::with_layers(Layers::detect(), stage)
    }

    /// Only `layers` (tests use this to check each layer alone).
    pub fn with_layers(mut layers: Layers, stage: Option<Stage>) -> Sandbox {
        if stage.is_none() {
            layers.bubblewrap = false;
        }
        Sandbox { layers, stage }
    }

    /// The layers confined commands get.
    pub fn layers(&self) -> Layers {
        self.layers
    }

    /// Whether an inner stage is configured (dry runs need it to mount
    /// their overlays).
    pub fn has_stage(&self) -> bool {
        self.stage.is_some()
    }

    /// A command that runs `program` with `args` in `cwd` under `c`.
    /// Set its standard streams, directory and extra environment on
    /// [`Launch::command`], then take it with [`Launch::finish`].
    pub fn launch(
        &self,
        program: &Path,
        args: &[OsString],
        cwd: &Path,
        c: &Confinement,
    ) -> Result<Launch, SandboxError> {
        let mut c = c.clone();
        for dir in c.temp_dir.iter().chain(c.dry_run.as_ref()) {
            private_dir(dir).map_err(|source| SandboxError::Directory {
                path: dir.clone(),
                source,
            })?;
        }
        if c.dry_run.is_some() && (!self.layers.bubblewrap || self.stage.is_none()) {
            return Err(SandboxError::DryRun(
                "overlays need bubblewrap and catui's inner stage".into(),
            ));
        }
        let layers = self.layers;
        let proxied = matches!(c.network, Network::Proxy { .. }) && layers.bubblewrap;
        if !layers.bubblewrap {
            // Without a network namespace the proxy cannot be the only way
            // out: no network at all.
            c.network = Network::Off;
        }
        let mut vars = env::confined(cwd, c.clean_environment);
        if let Some(temp) = &c.temp_dir {
            vars.push(("TMPDIR".into(), Some(temp.into())));
        }
        if proxied {
            let url = OsString::from(format!("http://127.0.0.1:{PROXY_PORT}"));
            for name in env::PROXY_VARS {
                vars.push((name.into(), Some(url.clone())));
            }
            for name in ["NO_PROXY", "no_proxy"] {
                vars.push((name.into(), None));
            }
        }
        let (cmd, restrictions) = match (&self.stage, layers.bubblewrap) {
            (Some(stage), true) => (self.through_bwrap(stage, program, args, &c)?, None),
            _ => self.direct(program, args, &c)?,
        };
        Ok(Launch {
            cmd,
            vars,
            layers,
            restrictions,
            tier: if c.clean_environment {
                Tier::Confined
            } else {
                Tier::Approved
            },
            environment: None,
        })
    }

    fn through_bwrap(
        &self,
        stage: &Stage,
        program: &Path,
        args: &[OsString],
        c: &Confinement,
    ) -> Result<tokio::process::Command, SandboxError> {
        let bwrap = crate::bwrap::program().unwrap_or(Path::new(crate::bwrap::CANDIDATES[0]));
        let mut cmd = tokio::process::Command::new(bwrap);
        match &c.dry_run {
            // A dry run writes its temp dir and, through the overlays the
            // stage mounts, its scratch area; the stage keeps its user
            // namespace's capabilities to mount them, and drops them all.
            Some(scratch) => {
                let mut writable: Vec<PathBuf> = c
                    .temp_dir
                    .iter()
                    .filter_map(|t| std::fs::canonicalize(t).ok())
                    .collect();
                writable.extend(std::fs::canonicalize(scratch).ok());
                cmd.args(crate::bwrap::dry_run_args(&writable, &c.hidden_paths()));
            }
            None => {
                cmd.args(crate::bwrap::args(&c.writable_dirs(), &c.hidden_paths()));
            }
        }
        let inner = Layers {
            bubblewrap: false,
            ..self.layers
        };
        if inner.landlock > 0 || inner.seccomp || c.proxy_socket().is_some() || c.dry_run.is_some()
        {
            cmd.arg(&stage.program);
            cmd.args(&stage.args);
            cmd.args(stage::encode(c, &inner));
        }
        cmd.arg(program).args(args);
        Ok(cmd)
    }

    /// The program itself, and the Landlock and seccomp restrictions it
    /// applies to itself before `exec` (none without those layers).
    fn direct(
        &self,
        program: &Path,
        args: &[OsString],
        c: &Confinement,
    ) -> Result<(tokio::process::Command, Option<Restrictions>), SandboxError> {
        let mut cmd = tokio::process::Command::new(program);
        cmd.args(args);
        #[cfg(target_os = "linux")]
        let restrictions = if self.layers.landlock > 0 || self.layers.seccomp {
            Some(crate::child::Restrictions::build(c, self.layers)?)
        } else {
            None
        };
        #[cfg(not(target_os = "linux"))]
        let restrictions = {
            let _ = c;
            None
        };
        Ok((cmd, restrictions))
    }
}

/// What a confined process applies to itself before `exec`.
#[cfg(target_os = "linux")]
type Restrictions = crate::child::Restrictions;
#[cfg(not(target_os = "linux"))]
type Restrictions = ();

/// Makes `dir` a private directory: created (with the directories on its
/// way that are missing) readable by its owner only, or, when it exists,
/// checked to be a real directory of this user that nobody else can
/// enter — never a symlink someone planted in a shared temp dir.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let made = std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir);
    let meta = std::fs::symlink_metadata(dir)?;
    // SAFETY: geteuid has no preconditions.
    #[allow(unsafe_code)]
    let uid = unsafe { libc::geteuid() };
    let private = meta.is_dir() && meta.uid() == uid && meta.mode() & 0o077 == 0;
    match made {
        Ok(()) if private => Ok(()),
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(e),
        _ => Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            "it exists but is not a private directory of this user (mode 0700)",
        )),
    }
}

/// A confined command being set up.
#[derive(Debug)]
pub struct Launch {
    cmd: tokio::process::Command,
    /// Set (or removed, `None`) last, over anything the caller set.
    vars: Vec<(OsString, Option<OsString>)>,
    layers: Layers,
    /// Applied in the child right before `exec`, after whatever the
    /// caller set up there (its new session first: the filter refuses
    /// `setsid`).
    restrictions: Option<Restrictions>,
    /// Whose environment the command gets (`clean_environment`: the
    /// confined tier).
    tier: Tier,
    /// The environment the caller built ([`Launch::environment`]).
    environment: Option<Vec<(OsString, OsString)>>,
}

impl Launch {
    /// The command, to set its streams and directory on. Variables set
    /// here are the caller's own plumbing and are kept (but for provider
    /// keys): the environment itself comes from [`Launch::environment`].
    pub fn command(&mut self) -> &mut tokio::process::Command {
        &mut self.cmd
    }

    /// The layers the command runs under.
    pub fn layers(&self) -> Layers {
        self.layers
    }

    /// The tier of the command's environment, for the caller's
    /// [`EnvPolicy::build`].
    pub fn tier(&self) -> Tier {
        self.tier
    }

    /// The command's environment, built by the caller from the session's
    /// [`EnvPolicy`] for [`Launch::tier`]. Without it, the allow-list
    /// alone over catui's environment.
    pub fn environment(&mut self, vars: Vec<(OsString, OsString)>) {
        self.environment = Some(vars);
    }

    /// The command to spawn: nothing inherited, the environment built from
    /// the allow-list (see [`crate::child_env`]), what the caller set on
    /// the command, then the confinement's own (git neutralised,
    /// `TMPDIR`, the proxy).
    pub fn finish(mut self) -> tokio::process::Command {
        #[cfg(target_os = "linux")]
        if let Some(restrictions) = self.restrictions.take() {
            // SAFETY: the closure runs in the forked child before exec and
            // only makes async-signal-safe system calls on memory and fds
            // it owns (built before the fork); it allocates nothing, takes
            // no lock, and builds errors from errno only.
            #[allow(unsafe_code)]
            unsafe {
                self.cmd.pre_exec(move || restrictions.apply());
            }
        }
        let environment = self
            .environment
            .take()
            .unwrap_or_else(|| EnvPolicy::default().build(self.tier));
        let explicit: Vec<(OsString, OsString)> = self
            .cmd
            .as_std()
            .get_envs()
            .filter_map(|(n, v)| Some((n.to_os_string(), v?.to_os_string())))
            .filter(|(n, _)| !n.to_str().is_some_and(is_provider_key))
            .collect();
        self.cmd.env_clear();
        self.cmd.envs(environment);
        self.cmd.envs(explicit);
        for (name, value) in &self.vars {
            match value {
                Some(v) => self.cmd.env(name, v),
                None => self.cmd.env_remove(name),
            };
        }
        self.cmd
    }
}
