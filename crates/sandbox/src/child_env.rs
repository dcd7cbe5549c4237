//! The environment of every child catui starts — confined commands,
//! commands someone allowed, hooks, MCP servers: built from an allow-list,
//! never inherited whole. One builder, [`EnvPolicy::build`], for all of
//! them.
//!
//! A name passes when it is on the list of what programs need to run
//! (where things are, language and terminal, the toolchains' own settings:
//! [`BASE`], [`BASE_PREFIXES`]); a child someone allowed (an asked command,
//! a hook, an MCP server: [`Tier::Approved`]) also gets what reaches out in
//! the user's name on their behalf ([`APPROVED`]: the SSH agent for a
//! `git push`, the proxy). Everything else catui was started with stays
//! with catui: provider keys (which only catui's own HTTP client uses),
//! `GITHUB_TOKEN`, `DATABASE_URL`, `AWS_SECRET_ACCESS_KEY`, webhooks, DSNs —
//! whatever a credential happens to be called.
//!
//! The user widens it in their settings: `env` sets variables for every
//! child, and `passEnv` names variables of catui's own environment
//! (`GITHUB_TOKEN`, or `AWS_*`) that children someone allowed may see. A
//! provider key never passes either way ([`is_provider_key`]).

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};

/// Who the child is, for its environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    /// A command that runs unasked (judged read-only, or an acceptEdits
    /// edit), confined: the base list only.
    Confined,
    /// A command someone allowed, a hook, an MCP server: the base list,
    /// [`APPROVED`], and the user's `passEnv`.
    Approved,
}

/// Variables every child may see.
pub const BASE: &[&str] = &[
    // Who and where.
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "HOSTNAME",
    "TMPDIR",
    "TMP",
    "TEMP",
    "TZ",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    "XDG_STATE_HOME",
    "XDG_CONFIG_DIRS",
    "XDG_DATA_DIRS",
    "XDG_RUNTIME_DIR",
    // Language and terminal.
    "LANG",
    "LANGUAGE",
    "TERM",
    "COLORTERM",
    "TERM_PROGRAM",
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "COLUMNS",
    "LINES",
    "EDITOR",
    "VISUAL",
    "CI",
    // Trust anchors (a company's CA) for whatever does TLS.
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
    "GIT_SSL_CAINFO",
    // Git's identity for commits.
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    // Rust.
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "RUSTC",
    "RUSTC_WRAPPER",
    "RUSTDOC",
    "RUSTFLAGS",
    "RUSTDOCFLAGS",
    "CARGO_TARGET_DIR",
    "CARGO_BUILD_TARGET",
    "CARGO_BUILD_JOBS",
    "CARGO_INCREMENTAL",
    "CARGO_TERM_COLOR",
    "CARGO_NET_OFFLINE",
    "RUST_BACKTRACE",
    "RUST_LOG",
    "RUST_MIN_STACK",
    // C and C++.
    "CC",
    "CXX",
    "AR",
    "LD",
    "CFLAGS",
    "CXXFLAGS",
    "CPPFLAGS",
    "LDFLAGS",
    "MAKEFLAGS",
    "PKG_CONFIG_PATH",
    "CMAKE_PREFIX_PATH",
    "LD_LIBRARY_PATH",
    "LIBRARY_PATH",
    "C_INCLUDE_PATH",
    "CPLUS_INCLUDE_PATH",
    "CCACHE_DIR",
    // Go.
    "GOPATH",
    "GOROOT",
    "GOBIN",
    "GOFLAGS",
    "GOCACHE",
    "GOMODCACHE",
    "GOTOOLCHAIN",
    "GOOS",
    "GOARCH",
    "CGO_ENABLED",
    "GOPROXY",
    "GOPRIVATE",
    "GONOPROXY",
    "GONOSUMDB",
    "GOSUMDB",
    // JavaScript.
    "NODE_PATH",
    "NODE_OPTIONS",
    "NODE_ENV",
    "NVM_DIR",
    "NVM_BIN",
    "NVM_INC",
    "VOLTA_HOME",
    "PNPM_HOME",
    "BUN_INSTALL",
    "DENO_DIR",
    "DENO_INSTALL",
    "COREPACK_HOME",
    "NPM_CONFIG_PREFIX",
    "NPM_CONFIG_CACHE",
    // Python.
    "PYTHONPATH",
    "PYTHONHOME",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONUNBUFFERED",
    "PYTHONIOENCODING",
    "PYTHONUTF8",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "CONDA_EXE",
    "CONDA_SHLVL",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "PIPX_HOME",
    "PIPX_BIN_DIR",
    "POETRY_HOME",
    "UV_CACHE_DIR",
    "UV_PYTHON",
    // Ruby, Perl.
    "GEM_HOME",
    "GEM_PATH",
    "RBENV_ROOT",
    "RBENV_VERSION",
    "BUNDLE_PATH",
    "BUNDLE_GEMFILE",
    "PERL5LIB",
    "PERL_LOCAL_LIB_ROOT",
    // JVM, .NET, Android.
    "JAVA_HOME",
    "JDK_HOME",
    "GRADLE_USER_HOME",
    "MAVEN_HOME",
    "M2_HOME",
    "SDKMAN_DIR",
    "KOTLIN_HOME",
    "ANDROID_HOME",
    "ANDROID_SDK_ROOT",
    "DOTNET_ROOT",
    "NUGET_PACKAGES",
    // Version managers and package systems.
    "ASDF_DIR",
    "ASDF_DATA_DIR",
    "MISE_DATA_DIR",
    "MISE_CONFIG_DIR",
    "PROTO_HOME",
    "NIX_PATH",
    "NIX_PROFILES",
    "NIX_SSL_CERT_FILE",
    "HOMEBREW_PREFIX",
    "HOMEBREW_CELLAR",
    "HOMEBREW_REPOSITORY",
    "MANPATH",
    "INFOPATH",
];

/// Families of variables every child may see, by prefix: the locale.
pub const BASE_PREFIXES: &[&str] = &["LC_"];

/// What a child someone allowed also sees: what acts in the user's name
/// on their behalf when they approved it (the SSH and GPG agents for a
/// `git push` or a signed commit, the proxy the network goes through, the
/// display for a browser).
pub const APPROVED: &[&str] = &[
    "SSH_AUTH_SOCK",
    "SSH_AGENT_PID",
    "GPG_AGENT_INFO",
    "GPG_TTY",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
    "DISPLAY",
    "WAYLAND_DISPLAY",
];

/// catui's own provider credentials.
pub const PROVIDER_KEYS: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY",
];

/// Whether `name` is one of catui's own provider credentials: only
/// catui's HTTP client uses them, so no child gets one, not even through
/// settings `env` or `passEnv` (another service's `*_API_KEY` is the
/// user's to pass).
pub fn is_provider_key(name: &str) -> bool {
    PROVIDER_KEYS.contains(&name)
}

/// Whether `name` is on the list for `tier`.
pub fn allowed(name: &str, tier: Tier) -> bool {
    BASE.contains(&name)
        || BASE_PREFIXES.iter().any(|p| name.starts_with(p))
        || (tier == Tier::Approved && APPROVED.contains(&name))
}

/// What the user's settings add to the list: variables to set (`env`) and
/// names of catui's environment to pass (`passEnv`, `NAME` or `PREFIX*`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvPolicy {
    /// Settings `env`: set in every child (provider keys excepted).
    pub set: Vec<(String, String)>,
    /// Settings `passEnv`: passed to children someone allowed.
    pub pass: Vec<String>,
}

impl EnvPolicy {
    /// The environment of a `tier` child, from catui's own environment.
    pub fn build(&self, tier: Tier) -> Vec<(OsString, OsString)> {
        self.build_from(tier, std::env::vars_os())
    }

    /// The environment of a `tier` child, from `parent` (catui's own
    /// environment; tests pass their own): the allow-listed names, then
    /// `passEnv` (children someone allowed), then settings `env`.
    pub fn build_from(
        &self,
        tier: Tier,
        parent: impl IntoIterator<Item = (OsString, OsString)>,
    ) -> Vec<(OsString, OsString)> {
        let mut out: BTreeMap<OsString, OsString> = BTreeMap::new();
        for (name, value) in parent {
            let Some(text) = name.to_str() else {
                continue;
            };
            if is_provider_key(text) {
                continue;
            }
            let passed = tier == Tier::Approved && self.passes(text);
            if allowed(text, tier) || passed {
                out.insert(name, value);
            }
        }
        for (name, value) in &self.set {
            if !is_provider_key(name) {
                out.insert(name.into(), value.into());
            }
        }
        out.into_iter().collect()
    }

    /// Whether `passEnv` names `name`.
    fn passes(&self, name: &str) -> bool {
        self.pass.iter().any(|p| match p.strip_suffix('*') {
            Some(prefix) => !prefix.is_empty() && name.starts_with(prefix),
            None => p == name,
        })
    }

    /// Whether a variable named `name` is one settings `env` sets.
    pub fn sets(&self, name: &OsStr) -> bool {
        self.set.iter().any(|(n, _)| OsStr::new(n) == name)
    }
}

#[cfg(test)]
#[path = "child_env_tests.rs"]
mod tests;
