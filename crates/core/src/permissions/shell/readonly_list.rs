//! Which programs only read, and with which flags: the judgement of one
//! simple command's words.
//!
//! Programs fall in three groups: those with no option that writes or runs
//! other programs (accepted with any arguments), those whose flags matter
//! (checked here, in [`super::git`] and in [`super::scripts`]), and
//! wrappers that run another command (`env`, `xargs`, `find -exec`,
//! `timeout`...), which are judged on the command they run. Everything else
//! is not read-only.

use super::parse::Word;
use super::{git, scripts};

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
        "find" => find(args, depth),
        "xargs" => xargs(args, depth),
        "env" => env(args, depth),
        "command" => command_builtin(args, depth),
        "builtin" => judge_at(args, depth + 1),
        "time" => match args.split_first() {
            Some((p, rest)) if !p.dynamic && p.text == "-p" => judge_at(rest, depth + 1),
            _ => judge_at(args, depth + 1),
        },
        "nice" => nice(args, depth),
        "read" => read(args),
        "timeout" => timeout(args, depth),
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
fn short_cluster(arg: &str) -> Option<&str> {
    let rest = arg.strip_prefix('-')?;
    if rest.is_empty() || rest.starts_with('-') {
        None
    } else {
        Some(rest)
    }
}

fn find(args: &[Word], depth: usize) -> Result<(), String> {
    no_dynamic_options("find", args)?;
    let mut i = 0;
    while i < args.len() {
        let t = args[i].text.as_str();
        match t {
            "-delete" => return Err("`find -delete` deletes files".into()),
            "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                return Err(format!("`find {t}` writes a file"));
            }
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let end = args[i + 1..]
                    .iter()
                    .position(|w| !w.dynamic && (w.text == ";" || w.text == "+"))
                    .map(|p| p + i + 1)
                    .ok_or_else(|| format!("`find {t}` has no terminating `;` or `+`"))?;
                let inner = &args[i + 1..end];
                if inner.is_empty() {
                    return Err(format!("`find {t}` names no command"));
                }
                judge_at(inner, depth + 1).map_err(|why| format!("`find {t}` runs: {why}"))?;
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

fn xargs(args: &[Word], depth: usize) -> Result<(), String> {
    const LONG_WITH_VALUE: &[&str] = &[
        "arg-file",
        "delimiter",
        "max-lines",
        "max-args",
        "max-procs",
        "max-chars",
        "process-slot-var",
        "eof",
        "replace",
    ];
    const LONG_FLAGS: &[&str] = &[
        "null",
        "no-run-if-empty",
        "verbose",
        "interactive",
        "exit",
        "open-tty",
        "show-limits",
    ];
    let mut i = 0;
    while i < args.len() {
        let w = &args[i];
        if w.dynamic {
            return Err(format!(
                "`xargs` gets an option only known at run time (`{}`)",
                w.text
            ));
        }
        let t = w.text.as_str();
        if t == "--" {
            i += 1;
            break;
        }
        if let Some(body) = t.strip_prefix("--") {
            let (name, has_value) = match body.split_once('=') {
                Some((n, _)) => (n, true),
                None => (body, false),
            };
            if LONG_WITH_VALUE.contains(&name) {
                if !has_value && name != "replace" && name != "eof" {
                    i += 1;
                }
            } else if !LONG_FLAGS.contains(&name) {
                return Err(format!(
                    "`xargs {t}` is an option the analysis does not know"
                ));
            }
        } else if let Some(cluster) = short_cluster(t) {
            let first = cluster.chars().next().unwrap_or_default();
            if "ILnPsdEa".contains(first) {
                if cluster.len() == 1 {
                    i += 1;
                }
            } else if !"eil".contains(first) && !cluster.chars().all(|c| "0rtpxo".contains(c)) {
                return Err(format!(
                    "`xargs {t}` is an option the analysis does not know"
                ));
            }
        } else {
            break;
        }
        i += 1;
    }
    let inner = args.get(i..).unwrap_or_default();
    if inner.is_empty() {
        // Without a command xargs runs `echo`.
        return Ok(());
    }
    judge_at(inner, depth + 1).map_err(|why| format!("`xargs` runs: {why}"))
}

fn env(args: &[Word], depth: usize) -> Result<(), String> {
    let mut i = 0;
    while i < args.len() {
        let w = &args[i];
        let t = w.text.as_str();
        if w.dynamic && (t.starts_with('-') || !t.contains('=')) {
            break;
        }
        match t {
            "-i" | "--ignore-environment" | "-0" | "--null" | "-v" | "--debug" | "-" => {}
            "-u" | "--unset" | "-C" | "--chdir" => i += 1,
            "--" => {
                i += 1;
                break;
            }
            _ if t.starts_with("-S") || long_option_is(t, "split-string", 1) => {
                return Err(
                    "`env -S` splits a string into a command that cannot be checked".into(),
                );
            }
            _ if t.starts_with("--unset=") || t.starts_with("--chdir=") => {}
            _ if t.starts_with("-u") || t.starts_with("-C") => {}
            _ if t.starts_with('-') => {
                return Err(format!("`env {t}` is an option the analysis does not know"));
            }
            _ => break,
        }
        i += 1;
    }
    // NAME=VALUE assignments, then the command.
    while let Some(w) = args.get(i) {
        let Some((name, _)) = w.text.split_once('=') else {
            break;
        };
        if !is_identifier(name) {
            break;
        }
        if is_sensitive_variable(name) {
            return Err(format!(
                "`env {name}=...` changes which programs run or how"
            ));
        }
        i += 1;
    }
    let inner = args.get(i..).unwrap_or_default();
    if inner.is_empty() {
        return Ok(());
    }
    judge_at(inner, depth + 1).map_err(|why| format!("`env` runs: {why}"))
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

fn command_builtin(args: &[Word], depth: usize) -> Result<(), String> {
    match args.first() {
        // `command -v x` only looks a name up.
        Some(w) if !w.dynamic && (w.text == "-v" || w.text == "-V") => Ok(()),
        Some(w) if !w.dynamic && w.text == "-p" => judge_at(&args[1..], depth + 1),
        _ => judge_at(args, depth + 1),
    }
}

/// `read` only assigns shell variables; it is refused when it names a
/// sensitive one.
fn read(args: &[Word]) -> Result<(), String> {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        i += 1;
        let t = w.text.as_str();
        if w.dynamic {
            return Err(format!(
                "`read` assigns a variable only known at run time (`{t}`)"
            ));
        }
        let name = match t {
            "-a" => {
                i += 1;
                args.get(i - 1).map(|w| w.text.as_str()).unwrap_or_default()
            }
            "-d" | "-n" | "-N" | "-p" | "-t" | "-u" | "-i" => {
                i += 1;
                continue;
            }
            _ if t.starts_with('-') => continue,
            _ => t,
        };
        if is_sensitive_variable(name) {
            return Err(format!("`read {name}` assigns to `{name}`"));
        }
    }
    Ok(())
}

fn nice(args: &[Word], depth: usize) -> Result<(), String> {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if w.dynamic {
            break;
        }
        if t == "-n" || t == "--adjustment" {
            i += 2;
        } else if t.starts_with("--adjustment=")
            || (t.starts_with('-') && t.len() > 1 && t[1..].chars().all(|c| c.is_ascii_digit()))
            || (t.starts_with("-n") && t.len() > 2)
        {
            i += 1;
        } else {
            break;
        }
    }
    judge_at(args.get(i..).unwrap_or_default(), depth + 1)
}

fn timeout(args: &[Word], depth: usize) -> Result<(), String> {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if w.dynamic || !t.starts_with('-') {
            break;
        }
        match t {
            "-s" | "--signal" | "-k" | "--kill-after" => i += 2,
            "--preserve-status" | "--foreground" | "-v" | "--verbose" => i += 1,
            _ if t.starts_with("--signal=")
                || t.starts_with("--kill-after=")
                || t.starts_with("-s")
                || t.starts_with("-k") =>
            {
                i += 1
            }
            _ => {
                return Err(format!(
                    "`timeout {t}` is an option the analysis does not know"
                ));
            }
        }
    }
    // The duration, then the command.
    match args.get(i + 1..) {
        Some(inner) if !inner.is_empty() => {
            judge_at(inner, depth + 1).map_err(|why| format!("`timeout` runs: {why}"))
        }
        _ => Err("`timeout` without a command".into()),
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
