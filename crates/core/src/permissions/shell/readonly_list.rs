//! Which programs only read, and with which flags: the judgement of one
//! simple command's words.
//!
//! Programs fall in three groups: those with no option that writes or runs
//! other programs (accepted with any arguments), those whose flags matter
//! (checked here, in [`super::git`] and in [`super::scripts`]), and
//! wrappers that run another command (`env`, `xargs`, `find -exec`,
//! `timeout`...), which [`super::wrappers`] judges on the command they run.
//! Everything else is not read-only.

use super::parse::Word;
use super::{git, scripts, wrappers};

/// How many wrappers (`env xargs timeout ...`) are followed.
const MAX_WRAPPER_DEPTH: usize = 8;

/// Programs that have no option that writes a file or runs another program,
/// so any arguments are fine (including ones only known at run time).
const PLAIN_READERS: &[&str] = &[
    ":",
    "[",
    "arch",
    "b2sum",
    "basename",
    "cat",
    "cd",
    "cksum",
    "cmp",
    "column",
    "comm",
    "cut",
    "df",
    "diff",
    "dirname",
    "dirs",
    "du",
    "echo",
    "egrep",
    "expr",
    "false",
    "fgrep",
    "fold",
    "grep",
    "groups",
    "head",
    "hexdump",
    "id",
    "jq",
    "locale",
    "ls",
    "md5sum",
    "nl",
    "nproc",
    "od",
    "paste",
    "popd",
    "printenv",
    "pushd",
    "pwd",
    "readlink",
    "realpath",
    "rev",
    "seq",
    "set",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "shopt",
    "sleep",
    "stat",
    "tac",
    "tail",
    "test",
    "tr",
    "true",
    "type",
    "uname",
    "wait",
    "wc",
    "which",
    "whoami",
];

/// True for variables whose value changes which programs run or how the
/// shell and common tools behave, so assigning them is never read-only.
pub(super) fn is_sensitive_variable(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "PATH",
        "BASH_ENV",
        "ENV",
        "PROMPT_COMMAND",
        "IFS",
        "SHELLOPTS",
        "BASHOPTS",
        "PS4",
        "PAGER",
        "EDITOR",
        "VISUAL",
        "LESSOPEN",
        "LESSCLOSE",
        "MANPAGER",
        "HOME",
        "XDG_CONFIG_HOME",
        "TMPDIR",
        "RUSTC",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "RIPGREP_CONFIG_PATH",
        "BASH_LOADABLES_PATH",
    ];
    const PREFIXES: &[&str] = &["LD_", "DYLD_", "GIT_", "CARGO_", "BASH_FUNC_"];
    EXACT.contains(&name) || PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Judges one simple command (assignments already removed). `Err` says why
/// it is not read-only.
pub(super) fn judge(words: &[Word]) -> Result<(), String> {
    judge_at(words, 0)
}

pub(super) fn judge_at(words: &[Word], depth: usize) -> Result<(), String> {
    if depth > MAX_WRAPPER_DEPTH {
        return Err("too many nested command wrappers to check".into());
    }
    let Some((program, args)) = words.split_first() else {
        return Ok(());
    };
    if program.dynamic {
        return Err(format!(
            "the program `{}` is only known when the command runs",
            program.text
        ));
    }
    let name = program_name(&program.text)?;
    if PLAIN_READERS.contains(&name) {
        return Ok(());
    }
    match name {
        "eval" | "exec" | "source" | "." => Err(format!(
            "`{name}` runs code that cannot be checked beforehand"
        )),
        "git" => git::check(args),
        "sed" => scripts::check_sed(args),
        "awk" | "gawk" | "mawk" | "nawk" => scripts::check_awk(args),
        "find" => wrappers::find(args, depth),
        "xargs" => wrappers::xargs(args, depth),
        "env" => wrappers::env(args, depth),
        "command" => wrappers::command_builtin(args, depth),
        "builtin" => judge_at(args, depth + 1),
        "time" => match args.split_first() {
            Some((p, rest)) if !p.dynamic && p.text == "-p" => judge_at(rest, depth + 1),
            _ => judge_at(args, depth + 1),
        },
        "nice" => wrappers::nice(args, depth),
        "read" => wrappers::read(args),
        "timeout" => wrappers::timeout(args, depth),
        _ => flag_checked(name, args),
    }
}

/// The program's name; paths are accepted only into the system's binary
/// directories (a `./ls` in the project could be anything).
fn program_name(text: &str) -> Result<&str, String> {
    if !text.contains('/') {
        return Ok(text);
    }
    for dir in ["/bin/", "/usr/bin/", "/usr/local/bin/"] {
        if let Some(rest) = text.strip_prefix(dir)
            && !rest.is_empty()
            && !rest.contains('/')
        {
            return Ok(rest);
        }
    }
    Err(format!(
        "`{text}` is a program outside the system directories, so what it does is unknown"
    ))
}

/// Programs whose flags decide whether they write.
fn flag_checked(name: &str, args: &[Word]) -> Result<(), String> {
    match name {
        "printf" => match args.first() {
            Some(w) if w.dynamic => Err(format!(
                "`printf` with a first argument only known at run time (`{}`) could be `-v`",
                w.text
            )),
            Some(w) if w.text.starts_with("-v") => Err("`printf -v` assigns a variable".into()),
            _ => Ok(()),
        },
        "sort" => sort(args),
        "uniq" => uniq(args),
        "fd" | "fdfind" => fd(args),
        "rg" => rg(args),
        "tree" => tree(args),
        "file" => file(args),
        "date" => date(args),
        "hostname" => hostname(args),
        "cargo" => cargo(args),
        "rustc" => version_only(name, args, &["--version", "-V", "-vV", "--verbose", "-v"]),
        "node" | "npm" | "pnpm" | "yarn" => version_only(name, args, &["--version", "-v"]),
        "python" | "python3" => version_only(name, args, &["--version", "-V"]),
        "go" => version_only(name, args, &["version"]),
        _ => Err(format!("`{name}` is not a known read-only command")),
    }
}

/// Refuses words only known at run time before a `--`: GNU tools accept
/// options anywhere, so such a word could be any flag.
pub(super) fn no_dynamic_options(program: &str, args: &[Word]) -> Result<(), String> {
    for w in args {
        if !w.dynamic && w.text == "--" {
            return Ok(());
        }
        if w.dynamic {
            return Err(format!(
                "`{program}` gets an argument only known at run time (`{}`), which could be a flag that writes",
                w.text
            ));
        }
    }
    Ok(())
}

/// True if `arg` is `--NAME` or `--NAME=...` where NAME is an abbreviation
/// of `full` at least `min` characters long (GNU getopt accepts those).
pub(super) fn long_option_is(arg: &str, full: &str, min: usize) -> bool {
    let Some(body) = arg.strip_prefix("--") else {
        return false;
    };
    let name = body.split('=').next().unwrap_or_default();
    name.len() >= min.max(1) && full.starts_with(name)
}

/// The short-option letters of `-abc` (nothing for `--long` or `-`).
pub(super) fn short_cluster(arg: &str) -> Option<&str> {
    let rest = arg.strip_prefix('-')?;
    if rest.is_empty() || rest.starts_with('-') {
        None
    } else {
        Some(rest)
    }
}

fn sort(args: &[Word]) -> Result<(), String> {
    no_dynamic_options("sort", args)?;
    let mut skip_next = false;
    for w in args {
        let t = w.text.as_str();
        if std::mem::take(&mut skip_next) {
            continue;
        }
        if t == "--" {
            break;
        }
        if long_option_is(t, "output", 1) {
            return Err("`sort -o` writes a file".into());
        }
        if long_option_is(t, "compress-program", 2) {
            return Err("`sort --compress-program` runs a program".into());
        }
        if let Some(cluster) = short_cluster(t) {
            for (idx, c) in cluster.char_indices() {
                match c {
                    'o' => return Err("`sort -o` writes a file".into()),
                    'k' | 't' | 'S' | 'T' => {
                        skip_next = idx + 1 == cluster.len();
                        break;
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(())
}

fn uniq(args: &[Word]) -> Result<(), String> {
    no_dynamic_options("uniq", args)?;
    let mut operands = 0;
    let mut only_operands = false;
    let mut skip_next = false;
    for w in args {
        let t = w.text.as_str();
        if std::mem::take(&mut skip_next) {
            continue;
        }
        if only_operands || t == "-" || !t.starts_with('-') {
            operands += 1;
        } else if t == "--" {
            only_operands = true;
        } else if matches!(t, "-f" | "-s" | "-w")
            || matches!(t, "--skip-fields" | "--skip-chars" | "--check-chars")
        {
            skip_next = true;
        }
    }
    if operands > 1 {
        return Err("`uniq` with a second file operand writes to that file".into());
    }
    Ok(())
}

fn fd(args: &[Word]) -> Result<(), String> {
    no_dynamic_options("fd", args)?;
    for w in args {
        let t = w.text.as_str();
        if t == "--" {
            break;
        }
        let execs = t == "--exec"
            || t == "--exec-batch"
            || t.starts_with("--exec=")
            || t.starts_with("--exec-batch=")
            || short_cluster(t).is_some_and(|c| c.contains(['x', 'X']));
        if execs {
            return Err("`fd --exec` runs a command for each match".into());
        }
    }
    Ok(())
}

fn rg(args: &[Word]) -> Result<(), String> {
    no_dynamic_options("rg", args)?;
    for w in args {
        let t = w.text.as_str();
        if t == "--" {
            break;
        }
        if t == "--pre" || t.starts_with("--pre=") {
            return Err("`rg --pre` runs a program on every file".into());
        }
        if t == "--hostname-bin" || t.starts_with("--hostname-bin=") {
            return Err("`rg --hostname-bin` runs a program".into());
        }
    }
    Ok(())
}

fn tree(args: &[Word]) -> Result<(), String> {
    no_dynamic_options("tree", args)?;
    let mut skip_next = false;
    for w in args {
        let t = w.text.as_str();
        if std::mem::take(&mut skip_next) {
            continue;
        }
        if t == "--" {
            break;
        }
        if let Some(cluster) = short_cluster(t) {
            if cluster.contains(['o', 'R']) {
                return Err(format!("`tree {t}` writes files"));
            }
            skip_next = cluster.ends_with(['L', 'P', 'I', 'H', 'T']);
        } else if matches!(t, "--charset" | "--filelimit" | "--timefmt" | "--sort") {
            skip_next = true;
        }
    }
    Ok(())
}

fn file(args: &[Word]) -> Result<(), String> {
    no_dynamic_options("file", args)?;
    for w in args {
        let t = w.text.as_str();
        if t == "--" {
            break;
        }
        if long_option_is(t, "compile", 3) || short_cluster(t).is_some_and(|c| c.contains('C')) {
            return Err("`file -C` writes a compiled magic file".into());
        }
    }
    Ok(())
}

fn date(args: &[Word]) -> Result<(), String> {
    no_dynamic_options("date", args)?;
    let mut skip_next = false;
    for w in args {
        let t = w.text.as_str();
        if std::mem::take(&mut skip_next) {
            continue;
        }
        if long_option_is(t, "set", 1) {
            return Err("`date --set` changes the system clock".into());
        }
        if let Some(cluster) = short_cluster(t) {
            if cluster.contains('s') {
                return Err("`date -s` changes the system clock".into());
            }
            skip_next = matches!(cluster, "d" | "f" | "r");
        } else if matches!(t, "--date" | "--file" | "--reference") {
            skip_next = true;
        } else if !t.starts_with('+') && !t.starts_with("--") {
            return Err(format!("`date {t}` sets the system clock"));
        }
    }
    Ok(())
}

fn hostname(args: &[Word]) -> Result<(), String> {
    const QUERIES: &[&str] = &[
        "-f",
        "-s",
        "-d",
        "-i",
        "-I",
        "-A",
        "-a",
        "-y",
        "-V",
        "-h",
        "--fqdn",
        "--long",
        "--short",
        "--domain",
        "--ip-address",
        "--all-ip-addresses",
        "--all-fqdns",
        "--alias",
        "--nis",
        "--version",
        "--help",
    ];
    match args
        .iter()
        .find(|w| w.dynamic || !QUERIES.contains(&w.text.as_str()))
    {
        Some(w) => Err(format!("`hostname {}` can set the host name", w.text)),
        None => Ok(()),
    }
}

fn cargo(args: &[Word]) -> Result<(), String> {
    no_dynamic_options("cargo", args)?;
    let args = match args.first() {
        Some(w) if w.text.starts_with('+') => &args[1..],
        _ => args,
    };
    if args.iter().any(|w| {
        w.text == "--config" || w.text.starts_with("--config=") || w.text.starts_with("-Z")
    }) {
        return Err("`cargo --config` can make cargo run other programs".into());
    }
    match args.first().map(|w| w.text.as_str()) {
        Some("metadata" | "tree" | "--version" | "-V" | "-Vv" | "version") => Ok(()),
        Some(sub) => Err(format!("`cargo {sub}` builds, runs or changes files")),
        None => Ok(()),
    }
}

fn version_only(name: &str, args: &[Word], allowed: &[&str]) -> Result<(), String> {
    if !args.is_empty()
        && args
            .iter()
            .all(|w| !w.dynamic && allowed.contains(&w.text.as_str()))
    {
        Ok(())
    } else {
        Err(format!(
            "`{name}` runs code; only its version query is read-only"
        ))
    }
}

#[cfg(test)]
mod unit {
    use super::*;

    fn words(s: &[&str]) -> Vec<Word> {
        s.iter().map(|t| Word::lit(t)).collect()
    }

    #[test]
    fn long_option_abbreviations() {
        assert!(long_option_is("--out=x", "output", 1));
        assert!(long_option_is("--output", "output", 1));
        assert!(!long_option_is("--outputx", "output", 1));
        assert!(!long_option_is("-o", "output", 1));
    }

    #[test]
    fn wrappers_are_followed() {
        assert!(judge(&words(&["env", "-i", "FOO=1", "ls"])).is_ok());
        assert!(judge(&words(&["env", "FOO=1", "rm", "x"])).is_err());
        assert!(judge(&words(&["env", "PATH=/tmp", "ls"])).is_err());
        assert!(judge(&words(&["timeout", "5", "ls"])).is_ok());
        assert!(judge(&words(&["timeout", "-s", "KILL", "5", "rm", "x"])).is_err());
        assert!(judge(&words(&["nice", "-n", "5", "cat", "f"])).is_ok());
        assert!(judge(&words(&["command", "-v", "rm"])).is_ok());
        assert!(judge(&words(&["command", "rm", "x"])).is_err());
        assert!(judge(&words(&["xargs", "-0", "-n1", "grep", "x"])).is_ok());
        assert!(judge(&words(&["xargs", "-I", "{}", "rm", "{}"])).is_err());
    }

    #[test]
    fn paths_to_programs() {
        assert!(judge(&words(&["/usr/bin/ls"])).is_ok());
        assert!(judge(&words(&["./ls"])).is_err());
        assert!(judge(&words(&["/tmp/ls"])).is_err());
    }
}
