//! What confinement adds to a command's environment (the environment
//! itself is built from the allow-list in [`crate::child_env`]).
//!
//! A command confined with `clean_environment` (those that run unasked)
//! gets git neutralised: through
//! `GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n` (command-line scope, which git
//! honours even for the keys it protects) repository discovery stops at
//! bare repositories (`safe.bareRepository=explicit`), no transport is
//! allowed, and every configured program is replaced by a harmless one:
//! fsmonitor, ssh, pager, hooks, credential helpers, GPG, the external
//! diff and the diff, filter and merge drivers the configuration defines
//! ([`configured_drivers`]).

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The variables that point programs at a proxy.
pub const PROXY_VARS: &[&str] = &[
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
];

/// Variables that make git (or ssh under it) run a program.
const PROGRAM_VARS: &[&str] = &[
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_EXTERNAL_DIFF",
    "GIT_PROXY_COMMAND",
    "GIT_CONFIG_PARAMETERS",
];

/// An external diff that prints a unified diff of the two files git
/// passes (old file second, new file fifth), whatever they differ in.
const PLAIN_DIFF: &str = "f() { diff -u -- \"$2\" \"$5\"; true; }; f";

/// The environment changes for a command in `cwd`: `Some` sets, `None`
/// removes. `clean` adds the credential scrub and git's neutralisation.
pub fn confined(cwd: &Path, clean: bool) -> Vec<(OsString, Option<OsString>)> {
    let mut out: Vec<(OsString, Option<OsString>)> = Vec::new();
    // Git then skips the index refresh `git status` would write.
    out.push(("GIT_OPTIONAL_LOCKS".into(), Some("0".into())));
    if !clean {
        return out;
    }
    for name in PROGRAM_VARS {
        out.push(((*name).into(), None));
    }
    for (name, value) in [
        ("GIT_TERMINAL_PROMPT", "0"),
        ("GIT_PAGER", "cat"),
        ("PAGER", "cat"),
        ("GIT_ALLOW_PROTOCOL", "none"),
    ] {
        out.push((name.into(), Some(value.into())));
    }
    let config = git_config(cwd);
    out.push((
        "GIT_CONFIG_COUNT".into(),
        Some(config.len().to_string().into()),
    ));
    for (i, (key, value)) in config.into_iter().enumerate() {
        out.push((format!("GIT_CONFIG_KEY_{i}").into(), Some(key.into())));
        out.push((format!("GIT_CONFIG_VALUE_{i}").into(), Some(value.into())));
    }
    out
}

/// The git settings of a confined command in `cwd`.
pub fn git_config(cwd: &Path) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = [
        ("safe.bareRepository", "explicit"),
        ("core.fsmonitor", "false"),
        ("core.sshCommand", "false"),
        ("core.gitProxy", "false"),
        ("core.askPass", "false"),
        ("core.pager", "cat"),
        ("core.hooksPath", "/dev/null"),
        ("credential.helper", ""),
        ("protocol.allow", "never"),
        ("log.showSignature", "false"),
        ("gpg.program", "false"),
        ("gpg.ssh.program", "false"),
        ("gpg.x509.program", "false"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    for protocol in ["file", "git", "ssh", "http", "https", "ext"] {
        out.push((format!("protocol.{protocol}.allow"), "never".into()));
    }
    for key in configured_drivers(cwd) {
        let value = match key.rsplit('.').next().unwrap_or_default() {
            "textconv" | "clean" | "smudge" => "cat",
            "process" => "",
            "driver" => "false",
            _ => PLAIN_DIFF, // diff.external, diff.<driver>.command
        };
        out.push((key, value.into()));
    }
    out
}

/// The program-running keys (`diff.external`, `diff.*.textconv`,
/// `diff.*.command`, `filter.*.clean|smudge|process`, `merge.*.driver`)
/// defined in the git configuration files a command in `cwd` would read:
/// system, global, and those of the repository found from `cwd` up
/// (following `include` and, whatever their condition, `includeIf`).
pub fn configured_drivers(cwd: &Path) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    let mut seen = BTreeSet::new();
    for file in config_files(cwd) {
        read_config(&file, 0, &mut seen, &mut keys);
    }
    keys
}

fn config_files(cwd: &Path) -> Vec<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let mut files = Vec::new();
    if var("GIT_CONFIG_NOSYSTEM").is_none() {
        files.push(var("GIT_CONFIG_SYSTEM").map_or_else(|| "/etc/gitconfig".into(), PathBuf::from));
    }
    match var("GIT_CONFIG_GLOBAL") {
        Some(global) => files.push(global.into()),
        None => {
            let home = var("HOME").map(PathBuf::from);
            match var("XDG_CONFIG_HOME") {
                Some(xdg) => files.push(PathBuf::from(xdg).join("git/config")),
                None => files.extend(home.as_ref().map(|h| h.join(".config/git/config"))),
            }
            files.extend(home.map(|h| h.join(".gitconfig")));
        }
    }
    let git_dir = match var("GIT_DIR") {
        Some(dir) => Some(cwd.join(dir)),
        None => cwd.ancestors().find_map(|d| git_dir_of(&d.join(".git"))),
    };
    if let Some(dir) = git_dir {
        let common = std::fs::read_to_string(dir.join("commondir"))
            .ok()
            .map(|c| dir.join(c.trim()));
        for d in [Some(dir), common].into_iter().flatten() {
            files.push(d.join("config"));
            files.push(d.join("config.worktree"));
        }
    }
    files
}

/// The repository directory `dot_git` (a `.git` directory, or a file
/// saying `gitdir: PATH`) stands for.
fn git_dir_of(dot_git: &Path) -> Option<PathBuf> {
    let meta = std::fs::metadata(dot_git).ok()?;
    if meta.is_dir() {
        return Some(dot_git.to_path_buf());
    }
    let text = std::fs::read_to_string(dot_git).ok()?;
    let target = text.trim().strip_prefix("gitdir:")?.trim();
    Some(dot_git.parent()?.join(target))
}

/// Collects the driver keys of one config file (and what it includes).
fn read_config(
    file: &Path,
    depth: usize,
    seen: &mut BTreeSet<PathBuf>,
    keys: &mut BTreeSet<String>,
) {
    if depth > 10 || !seen.insert(file.to_path_buf()) {
        return;
    }
    let Ok(text) = std::fs::read_to_string(file) else {
        return;
    };
    let mut section = (String::new(), String::new());
    for line in text.lines() {
        let mut line = line.trim();
        if let Some(rest) = line.strip_prefix('[') {
            let Some((header, after)) = rest.split_once(']') else {
                continue;
            };
            section = parse_header(header);
            line = after.trim();
        }
        let Some((name, value)) = line.split_once('=').map(|(n, v)| (n.trim(), v.trim())) else {
            continue;
        };
        let name = name.to_ascii_lowercase();
        let (sec, sub) = (&section.0, &section.1);
        match (sec.as_str(), name.as_str()) {
            ("include" | "includeif", "path") => {
                let value = value.trim_matches('"');
                let path = match value.strip_prefix("~/") {
                    Some(rest) => std::env::var_os("HOME").map(|h| PathBuf::from(h).join(rest)),
                    None => Some(file.parent().unwrap_or(Path::new("/")).join(value)),
                };
                if let Some(path) = path {
                    read_config(&path, depth + 1, seen, keys);
                }
            }
            ("diff", "external") if sub.is_empty() => {
                keys.insert("diff.external".into());
            }
            ("diff", "textconv" | "command")
            | ("filter", "clean" | "smudge" | "process")
            | ("merge", "driver")
                if !sub.is_empty() =>
            {
                keys.insert(format!("{sec}.{sub}.{name}"));
            }
            _ => {}
        }
    }
}

/// `section "sub"` or the old `section.sub`: the section name in lower
/// case and the subsection as written.
fn parse_header(header: &str) -> (String, String) {
    let header = header.trim();
    if let Some((name, rest)) = header.split_once(char::is_whitespace) {
        let sub = rest.trim().trim_matches('"').replace("\\\"", "\"");
        return (name.to_ascii_lowercase(), sub);
    }
    match header.split_once('.') {
        Some((name, sub)) => (name.to_ascii_lowercase(), sub.to_ascii_lowercase()),
        None => (header.to_ascii_lowercase(), String::new()),
    }
}

#[cfg(test)]
#[path = "env_tests.rs"]
mod tests;
