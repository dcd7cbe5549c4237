//! The user's secret stores: the one list of places that hold credentials
//! (keys, cloud and registry tokens, other agents' logins, shell
//! histories, `.env` files outside the project, catui's own settings and
//! transcripts; the list itself is in [`list`]).
//!
//! Every layer asks [`SecretStores`] and so agrees: the permission layer
//! (Read, Grep, Glob and NotebookEdit on a secret ask in every mode but
//! bypassPermissions; searches leave stores out), the file gate (catui
//! never reads one for the model by itself) and the sandbox (confined
//! commands do not see them). It is built once per session from the list,
//! the environment catui started with (variables that name a store, such
//! as `KUBECONFIG`), catui's own directory, and the user's additions
//! (settings `secretPaths`, which can only add).

pub mod env_files;
pub mod list;

use std::path::{Path, PathBuf};

use super::paths;
use list::{ENV_FILE_PREFIX, PROCESS_SECRETS};

/// Where the user's secrets are, resolved against one home directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecretStores {
    /// Absolute paths (files or directories); everything beneath a
    /// directory is secret too. The first `base_len` come from the list,
    /// the environment and catui's directory; the rest from `secretPaths`.
    paths: Vec<PathBuf>,
    base_len: usize,
    /// Paths inside a store that are not secret (the parts of catui's own
    /// directory the model reads: plans, agents...).
    readable: Vec<PathBuf>,
    /// Directories whose own `.env*` files are not secrets (the project's
    /// working directories).
    project_dirs: Vec<PathBuf>,
    /// The home directory `~` meant, kept for [`SecretStores::rebuilt`].
    home: Option<PathBuf>,
}

/// The environment a session's stores are resolved in: `HOME` aside,
/// variables that move a store (`XDG_CONFIG_HOME`, `KUBECONFIG`, ...).
pub type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

impl SecretStores {
    /// The listed stores under `home` plus `extra` (same syntax: `~/x` or
    /// an absolute path; anything else is ignored with a debug log).
    /// Variables that name stores are not consulted: see
    /// [`SecretStores::with_environment`].
    pub fn new(home: Option<&Path>, extra: &[String], project_dirs: &[PathBuf]) -> Self {
        let mut stores = Self {
            home: home.map(Path::to_path_buf),
            ..Self::default()
        };
        stores.add_listed(&|_| None);
        stores.rebuilt_in_place(extra, project_dirs);
        stores
    }

    /// The stores as [`SecretStores::new`], with `lookup` giving the
    /// environment catui started with: the XDG directories and the
    /// variables that name a store (`KUBECONFIG`, `DOCKER_CONFIG`,
    /// `GOOGLE_APPLICATION_CREDENTIALS`, ...) add where they point.
    pub fn with_environment(mut self, lookup: EnvLookup<'_>) -> Self {
        self.add_listed(lookup);
        for (name, file) in list::ENV_NAMED_STORES {
            let Some(value) = lookup(name).filter(|v| !v.trim().is_empty()) else {
                continue;
            };
            // KUBECONFIG is a list; the others name one path.
            for part in value.split(':').filter(|p| !p.is_empty()) {
                let base = Path::new(part);
                if !base.is_absolute() {
                    continue;
                }
                let path = match file {
                    Some(file) => base.join(file),
                    None => base.to_path_buf(),
                };
                self.add_base(path);
            }
        }
        self
    }

    /// Adds catui's own directory as a store, except the parts catui gives
    /// the model to read ([`list::CATUI_DIR_READABLE`]) and `readable`
    /// (this session's own files, such as its spilled command output).
    pub fn with_catui_dir(mut self, config_dir: &Path, readable: &[PathBuf]) -> Self {
        let dir = absolute(config_dir);
        // Named as given and as resolved: a link to the directory is
        // the directory.
        let resolved = paths::canonicalize(&dir, &dir).unwrap_or_else(|_| dir.clone());
        for root in [dir, resolved] {
            self.add_base(root.clone());
            for part in list::CATUI_DIR_READABLE {
                self.add_readable(root.join(part));
            }
        }
        for path in readable {
            self.add_readable(absolute(path));
        }
        self
    }

    /// The same stores with other additions and project directories
    /// (settings reloaded, working directories changed).
    pub fn rebuilt(&self, extra: &[String], project_dirs: &[PathBuf]) -> Self {
        let mut out = self.clone();
        out.rebuilt_in_place(extra, project_dirs);
        out
    }

    fn rebuilt_in_place(&mut self, extra: &[String], project_dirs: &[PathBuf]) {
        self.paths.truncate(self.base_len);
        for spec in extra {
            match expand(spec, self.home.as_deref()) {
                Some(path) if !self.paths.contains(&path) => self.paths.push(path),
                Some(_) => {}
                None => tracing::debug!(spec, "secretPaths: not `~/...` or absolute; ignored"),
            }
        }
        self.project_dirs = project_dirs
            .iter()
            .map(|d| paths::canonicalize(d, d).unwrap_or_else(|_| d.clone()))
            .collect();
    }

    /// The listed stores, with the XDG directories from `lookup`.
    fn add_listed(&mut self, lookup: EnvLookup<'_>) {
        let home = self.home.clone();
        if let Some(home) = &home {
            for rel in list::HOME_STORES {
                self.add_base(home.join(rel));
            }
        }
        let xdg = [
            ("XDG_CONFIG_HOME", ".config", list::CONFIG_STORES),
            ("XDG_DATA_HOME", ".local/share", list::DATA_STORES),
            ("XDG_CACHE_HOME", ".cache", list::CACHE_STORES),
        ];
        for (var, default, stores) in xdg {
            let mut bases: Vec<PathBuf> = home.iter().map(|h| h.join(default)).collect();
            if let Some(dir) = lookup(var).map(PathBuf::from).filter(|d| d.is_absolute()) {
                bases.push(dir);
            }
            for base in bases {
                for rel in stores {
                    self.add_base(base.join(rel));
                }
            }
        }
        if let Some(dir) = lookup("XDG_RUNTIME_DIR")
            .map(PathBuf::from)
            .filter(|d| d.is_absolute())
        {
            for rel in list::RUNTIME_STORES {
                self.add_base(dir.join(rel));
            }
        }
        for path in list::SYSTEM_STORES {
            self.add_base(PathBuf::from(path));
        }
    }

    /// A store of the list, the environment or catui's directory (kept
    /// before the user's additions, which a rebuild replaces).
    fn add_base(&mut self, path: PathBuf) {
        if !self.paths[..self.base_len].contains(&path) {
            self.paths.insert(self.base_len, path);
            self.base_len += 1;
        }
    }

    fn add_readable(&mut self, path: PathBuf) {
        if !self.readable.contains(&path) {
            self.readable.push(path);
        }
    }

    /// The home directory `~` stands for.
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// For the current user's home directory and environment.
    pub fn for_user(extra: &[String], project_dirs: &[PathBuf]) -> Self {
        Self::new(dirs::home_dir().as_deref(), extra, project_dirs)
            .with_environment(&|name| std::env::var(name).ok())
    }

    /// `~/x` for a path in the home directory, else the path: how stores
    /// are named to the user and the model.
    pub fn shown(&self, path: &Path) -> String {
        match self.home().and_then(|h| path.strip_prefix(h).ok()) {
            Some(rest) => format!("~/{}", rest.display()),
            None => path.display().to_string(),
        }
    }

    /// The configured store paths (existing or not).
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// The project's directories (whose own `.env*` files are not secret).
    pub fn project_dirs(&self) -> &[PathBuf] {
        &self.project_dirs
    }

    /// Whether `path` (absolute; canonicalise first when it may hold
    /// symlinks or `..`) is, or lies inside, a secret store.
    pub fn is_secret(&self, path: &Path) -> bool {
        if self.store_of(path).is_some() {
            return true;
        }
        is_process_secret(path) || self.is_outside_env_file(path)
    }

    /// The configured store that holds `path`, for messages (`None` for
    /// `.env*` files and process files, which are secret by rule).
    pub fn store_of(&self, path: &Path) -> Option<&Path> {
        if self.readable.iter().any(|r| paths::is_within(path, r)) {
            return None;
        }
        self.paths
            .iter()
            .find(|s| paths::is_within(path, s))
            .map(PathBuf::as_path)
    }

    /// Whether some secret store lies inside `dir` (a search of `dir` would
    /// walk into it).
    pub fn has_secret_within(&self, dir: &Path) -> bool {
        self.paths
            .iter()
            .any(|s| paths::is_within(s, dir) && !paths::same_path(s, dir))
    }

    /// A `.env*` file (or anything beneath a `.env*` directory) that is not
    /// inside one of the project's directories.
    fn is_outside_env_file(&self, path: &Path) -> bool {
        let env_named = path.components().any(|c| {
            c.as_os_str()
                .to_str()
                .is_some_and(|name| name.starts_with(ENV_FILE_PREFIX))
        });
        env_named && !self.project_dirs.iter().any(|d| paths::is_within(path, d))
    }

    /// The secret files and directories that exist now and should be
    /// hidden from a confined command: the configured stores (whole: the
    /// readable parts of catui's directory are for catui's own reads, not
    /// for commands), and the `.env*` files outside the project directories
    /// ([`env_files`]: in the home directory, beside and above the
    /// project, in the usual service directories), with whatever the walk
    /// had no budget left for. `keep` (the command's writable directories)
    /// is never hidden whole.
    pub fn existing(&self, home: Option<&Path>, keep: &[PathBuf]) -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> = self
            .paths
            .iter()
            .filter(|p| std::fs::symlink_metadata(p).is_ok())
            .cloned()
            .collect();
        let home = home.map(|h| paths::canonicalize(h, h).unwrap_or_else(|_| h.to_path_buf()));
        let keep: Vec<PathBuf> = keep
            .iter()
            .map(|k| paths::canonicalize(k, k).unwrap_or_else(|_| k.clone()))
            .collect();
        let roots = env_files::roots(home.as_deref(), &self.project_dirs);
        let scan = env_files::scan(&roots, &self.project_dirs, &keep, env_files::ENTRY_BUDGET);
        for path in scan.found.into_iter().chain(scan.unreached) {
            if !found.contains(&path) {
                found.push(path);
            }
        }
        found
    }
}

/// `/proc/<pid>/environ`, `/proc/self/task/<tid>/mem`...: what another
/// process (catui itself above all) keeps in its environment and memory.
fn is_process_secret(path: &Path) -> bool {
    let mut parts = path.components();
    let under_proc = matches!(parts.next(), Some(std::path::Component::RootDir))
        && parts.next().is_some_and(|c| c.as_os_str() == "proc");
    under_proc
        && path.components().count() >= 4
        && path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| PROCESS_SECRETS.contains(&n))
}

/// `path` made absolute against the current directory, by text.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// `~/x` against `home`, or an absolute path as it is.
fn expand(spec: &str, home: Option<&Path>) -> Option<PathBuf> {
    let spec = spec.trim();
    if spec == "~" {
        return None; // the whole home directory is not a secret store
    }
    if let Some(rest) = spec.strip_prefix("~/") {
        return home.map(|h| h.join(rest.trim_end_matches('/')));
    }
    let path = Path::new(spec);
    path.is_absolute()
        .then(|| PathBuf::from(spec.trim_end_matches('/')))
        .filter(|p| p != Path::new("/") && !p.as_os_str().is_empty())
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
