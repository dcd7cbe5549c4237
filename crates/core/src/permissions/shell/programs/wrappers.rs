//! Wrappers: commands that run another command (`find -exec`, `xargs`,
//! `env`, `command`, `nice`, `timeout`) are judged on the command they run,
//! after their own options are checked. Words the wrapper fills in at run
//! time (`find`'s `{}`, what `xargs` reads) count as unknown words, which
//! the inner command must accept.

use super::{Judged, ReadOnly, both, judge_at, long_option_is, short_cluster};
use crate::permissions::shell::expand::check_assignment_name;
use crate::permissions::shell::words::{Word, is_identifier};

/// `nice`'s options that take the next word as their value.
const NICE_VALUED: &[&str] = &["-n", "--adjustment"];

/// `timeout`'s options that take the next word as their value.
const TIMEOUT_VALUED: &[&str] = &["-s", "--signal", "-k", "--kill-after"];

/// A command that runs the command after it, as permission rules see
/// through it: its names, its options that take a value, and how many
/// words come between its options and the command (`timeout`'s duration).
struct Wrapper {
    names: &'static [&'static str],
    valued: &'static [&'static str],
    positional: usize,
}

/// The wrappers a rule for `rm` also catches in `sudo rm`, `env X=1 rm`,
/// `timeout 5 rm` (see [`wrapped_command`]).
const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        names: &[
            "nohup", "time", "command", "builtin", "exec", "env", "stdbuf",
        ],
        valued: &[],
        positional: 0,
    },
    Wrapper {
        names: &["nice"],
        valued: NICE_VALUED,
        positional: 0,
    },
    Wrapper {
        names: &["timeout"],
        valued: TIMEOUT_VALUED,
        positional: 1,
    },
    Wrapper {
        names: &["sudo", "doas"],
        valued: &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"],
        positional: 0,
    },
];

/// The command a line of words runs, past leading `NAME=value` words and
/// the [`WRAPPERS`] with their options, so that a deny rule for `rm` also
/// catches `sudo rm` and `env X=1 rm`.
pub(in crate::permissions) fn wrapped_command(argv: &[String]) -> &[String] {
    let mut rest = argv;
    loop {
        while rest.first().is_some_and(|w| is_assignment(w)) {
            rest = &rest[1..];
        }
        let Some(first) = rest.first() else {
            return rest;
        };
        let name = std::path::Path::new(first)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some(wrapper) = WRAPPERS.iter().find(|w| w.names.contains(&name.as_str())) else {
            return rest;
        };
        rest = &rest[1..];
        while let Some(w) = rest.first() {
            if w == "--" {
                rest = &rest[1..];
                break;
            }
            if !w.starts_with('-') || w == "-" {
                break;
            }
            let takes_value = wrapper.valued.contains(&w.as_str());
            rest = &rest[(if takes_value { 2 } else { 1 }).min(rest.len())..];
        }
        rest = &rest[wrapper.positional.min(rest.len())..];
    }
}

/// `NAME=value`, a variable assignment before a command.
fn is_assignment(word: &str) -> bool {
    word.split_once('=')
        .is_some_and(|(name, _)| is_identifier(name))
}

/// `find`'s tests and options that take one value.
const FIND_WITH_VALUE: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-regextype",
    "-type",
    "-xtype",
    "-size",
    "-newer",
    "-anewer",
    "-cnewer",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-used",
    "-user",
    "-group",
    "-uid",
    "-gid",
    "-perm",
    "-links",
    "-inum",
    "-samefile",
    "-lname",
    "-ilname",
    "-fstype",
    "-context",
    "-maxdepth",
    "-mindepth",
    "-printf",
    "-files0-from",
    "-D",
];

/// `find`'s tests, options and actions without a value that only read.
const FIND_FLAGS: &[&str] = &[
    "-empty",
    "-nouser",
    "-nogroup",
    "-readable",
    "-writable",
    "-executable",
    "-true",
    "-false",
    "-depth",
    "-d",
    "-mount",
    "-xdev",
    "-follow",
    "-noleaf",
    "-ignore_readdir_race",
    "-noignore_readdir_race",
    "-daystart",
    "-warn",
    "-nowarn",
    "-print",
    "-print0",
    "-ls",
    "-prune",
    "-quit",
    "-a",
    "-and",
    "-o",
    "-or",
    "-not",
    "-L",
    "-P",
    "-H",
    "-O0",
    "-O1",
    "-O2",
    "-O3",
    "-help",
    "--help",
    "-version",
    "--version",
    "--",
];

pub(in crate::permissions::shell) fn find(args: &[Word], depth: usize) -> Judged {
    // `--` ends only find's leading options, not its expression, so no
    // run-time word is acceptable anywhere.
    if let Some(w) = args.iter().find(|w| w.dynamic) {
        return Err(format!(
            "`find` gets an argument only known at run time (`{}`), which could be an action that writes",
            w.text
        ));
    }
    let mut verdict = Ok(ReadOnly::ALWAYS);
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        i += 1;
        match t {
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                // `+` ends the command only right after `{}`; otherwise
                // find reads on to `;`.
                let end = (i..args.len())
                    .find(|&k| {
                        args[k].text == ";"
                            || (args[k].text == "+" && k > i && args[k - 1].text == "{}")
                    })
                    .ok_or_else(|| format!("`find {t}` has no terminating `;` or `{{}} +`"))?;
                let inner: Vec<Word> = args[i..end]
                    .iter()
                    .map(|w| {
                        if w.text.contains("{}") {
                            Word::unknown(&w.text)
                        } else {
                            w.clone()
                        }
                    })
                    .collect();
                if inner.is_empty() {
                    return Err(format!("`find {t}` names no command"));
                }
                let judged = judge_at(&inner, depth + 1)
                    .map_err(|why| format!("`find {t}` runs: {why}"))
                    .and_then(|r| {
                        // `-execdir` runs in each found file's directory,
                        // so git there may find any repository below.
                        if t.ends_with("dir") && !r.git_dirs.is_empty() {
                            Err(format!(
                                "`find {t}` runs git in every directory it finds, whose repository could be anyone's"
                            ))
                        } else {
                            Ok(r)
                        }
                    });
                verdict = both(verdict, judged);
                i = end + 1;
            }
            "-delete" => return Err("`find -delete` deletes files".into()),
            "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                return Err(format!("`find {t}` writes a file"));
            }
            "(" | ")" | "!" | "," => {}
            _ if FIND_WITH_VALUE.contains(&t) => i += 1,
            _ if FIND_FLAGS.contains(&t) => {}
            // `-newerXY REF`.
            _ if t.starts_with("-newer") && t.len() == 8 => i += 1,
            _ if t.starts_with('-') => {
                return Err(format!(
                    "`find {t}` is not an expression the analysis knows"
                ));
            }
            // Starting points.
            _ => {}
        }
    }
    verdict
}

pub(in crate::permissions::shell) fn xargs(args: &[Word], depth: usize) -> Judged {
    const LONG_WITH_VALUE: &[&str] = &[
        "arg-file",
        "delimiter",
        "max-lines",
        "max-args",
        "max-procs",
        "max-chars",
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
    let mut replace: Option<String> = None;
    let mut i = 0;
    while let Some(w) = args.get(i) {
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
            let (name, value) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (body, None),
            };
            if name == "replace" {
                replace = Some(value.unwrap_or("{}").to_string());
            } else if LONG_WITH_VALUE.contains(&name) {
                if value.is_none() && name != "eof" {
                    i += 1;
                }
            } else if !LONG_FLAGS.contains(&name) {
                return Err(format!(
                    "`xargs {t}` is an option the analysis does not know"
                ));
            }
        } else if let Some(cluster) = short_cluster(t) {
            let first = cluster.chars().next().unwrap_or_default();
            let attached = &cluster[first.len_utf8()..];
            match first {
                'I' => {
                    if attached.is_empty() {
                        i += 1;
                        replace = args.get(i).map(|w| w.text.clone());
                    } else {
                        replace = Some(attached.to_string());
                    }
                }
                'i' => replace = Some(if attached.is_empty() { "{}" } else { attached }.into()),
                'L' | 'n' | 'P' | 's' | 'd' | 'E' | 'a' => {
                    if attached.is_empty() {
                        i += 1;
                    }
                }
                'e' | 'l' => {}
                _ if cluster.chars().all(|c| "0rtpxo".contains(c)) => {}
                _ => {
                    return Err(format!(
                        "`xargs {t}` is an option the analysis does not know"
                    ));
                }
            }
        } else {
            break;
        }
        i += 1;
    }
    let mut inner: Vec<Word> = args.get(i..).unwrap_or_default().to_vec();
    if inner.is_empty() {
        // Without a command xargs runs `echo`.
        return Ok(ReadOnly::ALWAYS);
    }
    // The words xargs reads are added to the command, or replace the
    // placeholder: either way they are unknown here.
    match replace.filter(|r| !r.is_empty()) {
        Some(r) => {
            for w in inner.iter_mut() {
                if w.text.contains(&r) {
                    *w = Word::unknown(&w.text);
                }
            }
        }
        None => inner.push(Word::unknown("<words read by xargs>")),
    }
    judge_at(&inner, depth + 1).map_err(|why| format!("`xargs` runs: {why}"))
}

pub(in crate::permissions::shell) fn env(args: &[Word], depth: usize) -> Judged {
    let mut i = 0;
    // `-C DIR`: the command runs there (git's directory moves with it).
    let mut chdir: Option<String> = None;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if w.dynamic {
            return Err(format!(
                "`env` gets an argument only known at run time (`{t}`)"
            ));
        }
        match t {
            "-i" | "--ignore-environment" | "-0" | "--null" | "-v" | "--debug" | "-" => {}
            "-u" | "--unset" => i += 1,
            "-C" | "--chdir" => {
                let dir = args.get(i + 1).ok_or("`env -C` without a directory")?;
                if dir.dynamic {
                    return Err(format!(
                        "`env -C {}` runs in a directory only known at run time",
                        dir.text
                    ));
                }
                chdir = Some(dir.text.clone());
                i += 1;
            }
            "--" => {
                i += 1;
                break;
            }
            _ if t.starts_with("-S") || long_option_is(t, "split-string", 1) => {
                return Err(
                    "`env -S` splits a string into a command that cannot be checked".into(),
                );
            }
            _ if t.starts_with("--chdir=") => chdir = Some(t["--chdir=".len()..].to_string()),
            _ if t.starts_with("-C") => chdir = Some(t[2..].to_string()),
            _ if t.starts_with("--unset=") => {}
            _ if t.starts_with("-u") => {}
            _ if t.starts_with('-') => {
                return Err(format!("`env {t}` is an option the analysis does not know"));
            }
            _ => break,
        }
        i += 1;
    }
    // NAME=VALUE assignments, then the command.
    while let Some(w) = args.get(i) {
        let Some((name, value)) = w.text.split_once('=') else {
            break;
        };
        if !is_identifier(name) {
            break;
        }
        check_assignment_name(name, Some(value)).map_err(|why| format!("`env`: {why}"))?;
        i += 1;
    }
    let inner = args.get(i..).unwrap_or_default();
    if inner.is_empty() {
        return Ok(ReadOnly::ALWAYS);
    }
    let mut verdict = judge_at(inner, depth + 1).map_err(|why| format!("`env` runs: {why}"))?;
    if let Some(base) = chdir {
        for dir in &mut verdict.git_dirs {
            if !dir.starts_with('/') {
                *dir = format!("{base}/{dir}");
            }
        }
    }
    Ok(verdict)
}

pub(in crate::permissions::shell) fn command_builtin(args: &[Word], depth: usize) -> Judged {
    match args.first() {
        // `command -v x` only looks a name up.
        Some(w) if !w.dynamic && (w.text == "-v" || w.text == "-V") => Ok(ReadOnly::ALWAYS),
        Some(w) if !w.dynamic && w.text == "-p" => judge_at(&args[1..], depth + 1),
        _ => judge_at(args, depth + 1),
    }
}

pub(in crate::permissions::shell) fn nice(args: &[Word], depth: usize) -> Judged {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if w.dynamic {
            break;
        }
        if NICE_VALUED.contains(&t) {
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

pub(in crate::permissions::shell) fn timeout(args: &[Word], depth: usize) -> Judged {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if w.dynamic || !t.starts_with('-') {
            break;
        }
        match t {
            _ if TIMEOUT_VALUED.contains(&t) => i += 2,
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

#[cfg(test)]
mod unit {
    use super::*;

    fn w(s: &[&str]) -> Vec<Word> {
        s.iter().map(|t| Word::lit(t)).collect()
    }

    #[test]
    fn find_exec_ends_at_semicolon_or_braces_plus() {
        assert!(find(&w(&[".", "-exec", "grep", "-l", "x", "{}", "+"]), 0).is_ok());
        assert!(find(&w(&[".", "-exec", "wc", "-l", "{}", ";"]), 0).is_ok());
        // `+` not after `{}` does not end the command.
        assert!(find(&w(&[".", "-exec", "cat", "+", "-delete", ";"]), 0).is_ok());
        assert!(find(&w(&[".", "-exec", "cat", "+", "-delete"]), 0).is_err());
        // `{}` is a file name only known at run time.
        assert!(find(&w(&[".", "-exec", "rg", "x", "{}", ";"]), 0).is_err());
        assert!(find(&w(&[".", "-newermt", "2020-01-01", "-print"]), 0).is_ok());
        assert!(find(&w(&[".", "-fls", "x"]), 0).is_err());
        assert!(find(&w(&[".", "-unknown"]), 0).is_err());
    }

    #[test]
    fn xargs_adds_unknown_words() {
        assert!(xargs(&w(&["grep", "-l", "x"]), 0).is_ok());
        assert!(xargs(&w(&["find"]), 0).is_err());
        assert!(xargs(&w(&["rg", "x"]), 0).is_err());
        assert!(xargs(&w(&["-I{}", "cat", "{}"]), 0).is_ok());
        assert!(xargs(&w(&["-I", "X", "sed", "-n", "p", "X"]), 0).is_err());
        assert!(xargs(&w(&["sed", "-n", "p", "--"]), 0).is_ok());
    }
}
