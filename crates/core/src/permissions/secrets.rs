//! The user's secret stores: the one list of places that hold credentials
//! (SSH and GPG keys, cloud and registry tokens, `.env` files outside the
//! project, `/etc/shadow`).
//!
//! Two layers use it and must agree: the permission layer (Read, Grep, Glob
//! and NotebookEdit on a secret ask in every mode but bypassPermissions) and
//! the sandbox (confined commands do not see them at all). Both ask
//! [`SecretStores`], built once per session from the defaults plus the
//! user's additions (settings `secretPaths`, which can only add).

use std::path::{Path, PathBuf};

use super::paths;

/// The secret stores every session hides, `~` meaning the home directory.
pub const DEFAULT_SECRET_PATHS: &[&str] = &[
    "~/.ssh",
    "~/.gnupg",
    "~/.aws",
    "~/.azure",
    "~/.config/gcloud",
    "~/.kube",
    "~/.docker/config.json",
    "~/.netrc",
    "~/.git-credentials",
    "~/.npmrc",
    "~/.pypirc",
    "~/.cargo/credentials",
    "~/.cargo/credentials.toml",
    "~/.config/gh/hosts.yml",
    "~/.password-store",
    "~/.local/share/keyrings",
    "/etc/shadow",
    "/etc/gshadow",
];

/// File names starting with this are secrets when outside the project
/// (`.env`, `.env.local`, `.envrc` included).
const ENV_FILE_PREFIX: &str = ".env";

/// Files under `/proc/<pid>/` (and `/proc/<pid>/task/<tid>/`) that expose
/// a process's environment or memory, and with them catui's own API keys.
const PROCESS_SECRETS: &[&str] = &["environ", "mem"];

/// Where the user's secrets are, resolved against one home directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecretStores {
    /// Absolute paths (files or directories); everything beneath a
    /// directory is secret too.
    paths: Vec<PathBuf>,
    /// Directories whose own `.env*` files are not secrets (the project's
    /// working directories).
    project_dirs: Vec<PathBuf>,
    /// The home directory `~` meant, kept for [`SecretStores::rebuilt`].
    home: Option<PathBuf>,
}

impl SecretStores {
    /// The defaults plus `extra` (same syntax: `~/x` or an absolute path;
    /// anything else is ignored with a debug log), with `home` for `~`.
    pub fn new(home: Option<&Path>, extra: &[String], project_dirs: &[PathBuf]) -> Self {
        let mut paths = Vec::new();
        for spec in DEFAULT_SECRET_PATHS
            .iter()
            .copied()
            .chain(extra.iter().map(String::as_str))
        {
            match expand(spec, home) {
                Some(path) => {
                    if !paths.contains(&path) {
                        paths.push(path);
                    }
                }
                None => tracing::debug!(spec, "secretPaths: not `~/...` or absolute; ignored"),
            }
        }
        let project_dirs = project_dirs
            .iter()
            .map(|d| paths::canonicalize(d, d).unwrap_or_else(|_| d.clone()))
            .collect();
        Self {
            paths,
            project_dirs,
            home: home.map(Path::to_path_buf),
        }
    }

    /// The same home directory with other additions and project
    /// directories (settings reloaded, working directories changed).
    pub fn rebuilt(&self, extra: &[String], project_dirs: &[PathBuf]) -> Self {
        Self::new(self.home.as_deref(), extra, project_dirs)
    }

    /// The home directory `~` stands for.
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// For the current user's home directory.
    pub fn for_user(extra: &[String], project_dirs: &[PathBuf]) -> Self {
        Self::new(dirs::home_dir().as_deref(), extra, project_dirs)
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

    /// Whether `path` (absolute; canonicalise first when it may hold
    /// symlinks or `..`) is, or lies inside, a secret store.
    pub fn is_secret(&self, path: &Path) -> bool {
        if self.paths.iter().any(|s| paths::is_within(path, s)) {
            return true;
        }
        is_process_secret(path) || self.is_outside_env_file(path)
    }

    /// The configured store that holds `path`, for messages (`None` for
    /// `.env*` files and process files, which are secret by rule).
    pub fn store_of(&self, path: &Path) -> Option<&Path> {
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
    /// hidden from a confined command: the configured stores, and the
    /// `.env*` files in the home directory and in every directory above a
    /// project directory (the places a command in the project would look).
    pub fn existing(&self, home: Option<&Path>) -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> = self
            .paths
            .iter()
            .filter(|p| std::fs::symlink_metadata(p).is_ok())
            .cloned()
            .collect();
        let mut dirs: Vec<PathBuf> = home.map(Path::to_path_buf).into_iter().collect();
        for project in &self.project_dirs {
            dirs.extend(project.ancestors().skip(1).map(Path::to_path_buf));
        }
        dirs.sort();
        dirs.dedup();
        for dir in dirs {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if entry
                    .file_name()
                    .to_str()
                    .is_some_and(|n| n.starts_with(ENV_FILE_PREFIX))
                    && self.is_outside_env_file(&path)
                    && !found.contains(&path)
                {
                    found.push(path);
                }
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
mod tests {
    use super::*;

    fn stores() -> SecretStores {
        SecretStores::new(
            Some(Path::new("/home/u")),
            &["~/.vault".into(), "/opt/keys/".into(), "relative".into()],
            &[PathBuf::from("/home/u/proj")],
        )
    }

    #[test]
    fn defaults_and_additions_are_secret_with_everything_beneath() {
        let s = stores();
        assert!(s.is_secret(Path::new("/home/u/.ssh/id_rsa")));
        assert!(s.is_secret(Path::new("/home/u/.ssh")));
        assert!(s.is_secret(Path::new("/home/u/.aws/credentials")));
        assert!(s.is_secret(Path::new("/etc/shadow")));
        assert!(s.is_secret(Path::new("/home/u/.vault/x")));
        assert!(s.is_secret(Path::new("/opt/keys/a.pem")));
        assert!(!s.is_secret(Path::new("/home/u/.sshx")));
        assert!(!s.is_secret(Path::new("/home/u/proj/src/main.rs")));
        assert!(!s.is_secret(Path::new("/home/u/relative")));
        assert_eq!(
            s.store_of(Path::new("/home/u/.aws/credentials")),
            Some(Path::new("/home/u/.aws"))
        );
    }

    #[test]
    fn other_processes_environment_and_memory_are_secret() {
        let s = stores();
        assert!(s.is_secret(Path::new("/proc/self/environ")));
        assert!(s.is_secret(Path::new("/proc/1234/environ")));
        assert!(s.is_secret(Path::new("/proc/1234/task/1235/mem")));
        assert!(!s.is_secret(Path::new("/proc/cpuinfo")));
        assert!(!s.is_secret(Path::new("/proc/self/status")));
        assert!(!s.is_secret(Path::new("/home/u/proj/environ")));
    }

    #[test]
    fn rebuilt_keeps_the_home_directory() {
        let s = stores().rebuilt(&["~/.other".into()], &[]);
        assert_eq!(s.home(), Some(Path::new("/home/u")));
        assert!(s.is_secret(Path::new("/home/u/.other/k")));
        assert!(!s.is_secret(Path::new("/home/u/.vault/x")));
        // No project any more: its `.env` is outside every project.
        assert!(s.is_secret(Path::new("/home/u/proj/.env")));
    }

    #[test]
    fn env_files_are_secret_only_outside_the_project() {
        let s = stores();
        assert!(s.is_secret(Path::new("/home/u/.env")));
        assert!(s.is_secret(Path::new("/home/u/other/.env.production")));
        assert!(!s.is_secret(Path::new("/home/u/proj/.env")));
        assert!(!s.is_secret(Path::new("/home/u/proj/sub/.env.local")));
    }

    #[test]
    fn a_search_of_home_would_walk_into_secrets_but_not_a_search_of_the_project() {
        let s = stores();
        assert!(s.has_secret_within(Path::new("/home/u")));
        assert!(s.has_secret_within(Path::new("/")));
        assert!(!s.has_secret_within(Path::new("/home/u/proj")));
        assert!(!s.has_secret_within(Path::new("/home/u/.ssh")));
    }

    #[test]
    fn existing_lists_stores_and_env_files_around_the_project() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let proj = home.join("code/proj");
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::create_dir_all(&proj).unwrap();
        std::fs::write(home.join(".env"), "A=1").unwrap();
        std::fs::write(home.join("code/.env.shared"), "B=1").unwrap();
        std::fs::write(proj.join(".env"), "C=1").unwrap();
        let s = SecretStores::new(Some(&home), &[], std::slice::from_ref(&proj));
        let found = s.existing(Some(&home));
        assert!(found.contains(&home.join(".ssh")));
        assert!(found.contains(&home.join(".env")));
        assert!(found.contains(&home.join("code/.env.shared")));
        assert!(!found.contains(&proj.join(".env")));
        assert!(!found.iter().any(|p| p.ends_with(".aws")));
    }
}
