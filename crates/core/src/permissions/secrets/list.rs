//! The list of secret stores: where credentials live on a developer's
//! machine. One list for every layer (Read, Grep and Glob, the sandbox's
//! view of confined commands, the file gate); [`super::SecretStores`]
//! resolves it against one home directory and environment.
//!
//! A store is a file or a directory (everything beneath a directory is
//! secret too). Kinds, so that a new store finds its place:
//! keys and password managers, cloud and cluster credentials, package
//! registries, forges, other coding agents' logins and transcripts,
//! database clients, browsers and chat clients, and shell and REPL
//! histories (what a user typed, passwords included).

/// Stores in the home directory, relative to it.
pub const HOME_STORES: &[&str] = &[
    // Keys, agents and password managers.
    ".ssh",
    ".gnupg",
    ".password-store",
    ".pki",
    ".vault-token",
    ".authinfo",
    ".authinfo.gpg",
    ".netrc",
    ".git-credentials",
    ".sops",
    // Cloud and cluster command-line tools.
    ".aws",
    ".azure",
    ".oci",
    ".kube",
    ".minikube",
    ".talos",
    ".boto",
    ".s3cfg",
    ".passwd-s3fs",
    ".databrickscfg",
    ".snowflake",
    ".dbt",
    ".pulumi",
    ".terraform.d",
    ".terraformrc",
    ".fly",
    ".bluemix",
    ".ibmcloud",
    ".aliyun",
    ".tccli",
    ".linode-cli",
    ".wrangler",
    ".cloudflared",
    ".kaggle",
    ".huggingface",
    ".sentryclirc",
    ".ngrok2",
    ".travis",
    ".circleci",
    ".jfrog",
    ".vagrant.d",
    // Containers.
    ".docker",
    ".dockercfg",
    // Package registries and build tools.
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pypirc",
    ".pip/pip.conf",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".m2/settings.xml",
    ".m2/settings-security.xml",
    ".gradle/gradle.properties",
    ".nuget/NuGet/NuGet.Config",
    ".composer/auth.json",
    ".bundle/config",
    ".condarc",
    // Other coding agents: logins, settings with tokens, transcripts.
    ".claude.json",
    ".claude/.credentials.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".claude/projects",
    ".claude/history.jsonl",
    ".claude/shell-snapshots",
    ".codex/auth.json",
    ".codex/config.toml",
    ".codex/sessions",
    ".codex/history.jsonl",
    ".gemini/oauth_creds.json",
    ".gemini/google_accounts.json",
    ".gemini/settings.json",
    ".aider.conf.yml",
    ".continue/config.json",
    ".continue/config.yaml",
    ".cursor/mcp.json",
    ".copilot",
    // Browsers and mail (cookies, saved passwords).
    ".mozilla",
    ".thunderbird",
    // Database clients.
    ".pgpass",
    ".pg_service.conf",
    ".my.cnf",
    ".mylogin.cnf",
    ".mongoshrc.js",
    // Shell and REPL histories: what the user typed, passwords included.
    ".bash_history",
    ".zsh_history",
    ".zhistory",
    ".histfile",
    ".sh_history",
    ".ash_history",
    ".history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
    ".sqlite_history",
    ".rediscli_history",
    ".dbshell",
    ".irb_history",
    ".pry_history",
    ".Rhistory",
    ".lesshst",
    ".viminfo",
    ".wget-hsts",
];

/// Stores in the user's configuration directory (`$XDG_CONFIG_HOME`,
/// `~/.config` by default; both are covered when they differ).
pub const CONFIG_STORES: &[&str] = &[
    "gcloud",
    "gh",
    "glab-cli",
    "hub",
    "github-copilot",
    "git/credentials",
    "rclone",
    "doctl",
    "hcloud",
    "linode-cli",
    "scw",
    "exoscale",
    "netlify",
    "flyctl",
    "heroku",
    "stripe",
    "twilio-cli",
    "ngrok",
    "op",
    "doppler",
    "infisical",
    "jfrog",
    "sops",
    "age",
    "helm/registry",
    "containers/auth.json",
    "pip/pip.conf",
    "pypoetry/auth.toml",
    "composer/auth.json",
    "NuGet/NuGet.Config",
    "yarn",
    "goose/secrets.yaml",
    "fish/fish_history",
    "google-chrome",
    "chromium",
    "BraveSoftware",
    "microsoft-edge",
    "vivaldi",
    "opera",
    "Slack",
    "discord",
    "Signal",
    "keybase",
    "Code/User/globalStorage",
];

/// Stores in the user's data directory (`$XDG_DATA_HOME`,
/// `~/.local/share` by default; both are covered when they differ).
pub const DATA_STORES: &[&str] = &[
    "keyrings",
    "kwalletd",
    "fish/fish_history",
    "atuin",
    "opencode/auth.json",
    "gem/credentials",
    "com.vercel.cli",
    "python_keyring",
];

/// Stores in the user's cache directory (`$XDG_CACHE_HOME`, `~/.cache`).
pub const CACHE_STORES: &[&str] = &["huggingface/token"];

/// Stores outside the home directory.
pub const SYSTEM_STORES: &[&str] = &[
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/shadow-",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/ssh/ssh_host_rsa_key",
    "/etc/ssh/ssh_host_ecdsa_key",
    "/etc/ssh/ssh_host_ed25519_key",
    "/etc/ssl/private",
    // Docker and Kubernetes secrets mounted into containers.
    "/run/secrets",
    "/var/run/secrets",
];

/// Stores in the runtime directory (`$XDG_RUNTIME_DIR`).
pub const RUNTIME_STORES: &[&str] = &["containers/auth.json"];

/// Environment variables that name a store, and what in it: `None` for
/// the path itself (a `:`-separated list for `KUBECONFIG`), `Some(name)`
/// for a file in the directory it names.
pub const ENV_NAMED_STORES: &[(&str, Option<&str>)] = &[
    ("KUBECONFIG", None),
    ("AWS_SHARED_CREDENTIALS_FILE", None),
    ("AWS_CONFIG_FILE", None),
    ("GOOGLE_APPLICATION_CREDENTIALS", None),
    ("CLOUDSDK_CONFIG", None),
    ("AZURE_CONFIG_DIR", None),
    ("GNUPGHOME", None),
    ("PASSWORD_STORE_DIR", None),
    ("DOCKER_CONFIG", None),
    ("DOCKER_CERT_PATH", None),
    ("REGISTRY_AUTH_FILE", None),
    ("NPM_CONFIG_USERCONFIG", None),
    ("npm_config_userconfig", None),
    ("PIP_CONFIG_FILE", None),
    ("TF_CLI_CONFIG_FILE", None),
    ("RCLONE_CONFIG", None),
    ("GH_CONFIG_DIR", None),
    ("NETRC", None),
    ("KAGGLE_CONFIG_DIR", None),
    ("HF_TOKEN_PATH", None),
    ("HISTFILE", None),
    ("VAULT_CONFIG_PATH", None),
    ("SOPS_AGE_KEY_FILE", None),
    ("CARGO_HOME", Some("credentials")),
    ("CARGO_HOME", Some("credentials.toml")),
    ("HF_HOME", Some("token")),
    ("GEM_HOME", Some("credentials")),
    ("CLAUDE_CONFIG_DIR", Some(".credentials.json")),
    ("CODEX_HOME", Some("auth.json")),
];

/// The parts of catui's own directory (`$CATUI_CONFIG_DIR`) that are not
/// secret: what catui itself gives the model to read (plans, agents,
/// memory, skills, commands) and the git worktrees plans are dispatched
/// to (project code, worked on by a background agent whose working
/// directory they are). Everything else there — settings (their
/// `env` may hold tokens), transcripts (a secret the user let the model
/// read once is in them), trust answers, background output, whatever a
/// later version keeps there — is a store.
pub const CATUI_DIR_READABLE: &[&str] = &[
    "plans",
    "agents",
    "AGENTS.md",
    "CLAUDE.md",
    "skills",
    "commands",
    "worktrees",
];

/// File names starting with this are secrets when outside the project
/// (`.env`, `.env.local`, `.envrc` included).
pub const ENV_FILE_PREFIX: &str = ".env";

/// Files under `/proc/<pid>/` (and `/proc/<pid>/task/<tid>/`) that expose
/// a process's environment or memory, and with them catui's own API keys.
pub const PROCESS_SECRETS: &[&str] = &["environ", "mem", "pagemap"];
