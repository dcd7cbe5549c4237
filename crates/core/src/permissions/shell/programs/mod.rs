//! Which programs only read, and with which flags: the judgement of one
//! simple command's words.
//!
//! Programs fall in four groups: those with no option that writes or runs
//! other programs (accepted with any arguments), those whose flags matter
//! (checked in [`flags`], [`git`], [`sed`],
//! [`python`], [`perl`] and [`super::builtins`]), wrappers that run
//! another command (`env`, `xargs`, `find -exec`, `timeout`...), which
//! [`wrappers`] judges on the command they run, and everything else,
//! which is not read-only.

mod awk;
mod flag_table;
mod flags;
mod git;
mod perl;
mod python;
mod sed;
mod wrappers;

pub(in crate::permissions) use wrappers::wrapped_command;

use super::builtins;
use super::words::Word;

/// How many wrappers (`env xargs timeout ...`) are followed.
const MAX_WRAPPER_DEPTH: usize = 8;

/// A read-only verdict on words: they only read, perhaps only while
/// confined, perhaps through git in some directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(in crate::permissions::shell) struct ReadOnly {
    /// Means to read, but runs code the project controls (a build
    /// configuration, a toolchain file): read-only only while the
    /// operating system confines it. Why.
    pub confined: Option<String>,
    /// Where git runs, relative to the command's directory (`.` for
    /// `git status`, `sub` for `git -C sub status`): the permission layer
    /// checks that it is the project's own repository.
    pub git_dirs: Vec<String>,
}

impl ReadOnly {
    /// Reads, whatever the machine.
    pub const ALWAYS: ReadOnly = ReadOnly {
        confined: None,
        git_dirs: Vec::new(),
    };

    /// Reads only while confined, because of `why`.
    pub fn when_confined(why: impl Into<String>) -> ReadOnly {
        ReadOnly {
            confined: Some(why.into()),
            git_dirs: Vec::new(),
        }
    }
}

/// `Err` says why the words are not read-only.
pub(in crate::permissions::shell) type Judged = Result<ReadOnly, String>;

/// Both verdicts at once: the stricter confinement, every git directory.
pub(in crate::permissions::shell) fn both(a: Judged, b: Judged) -> Judged {
    let (mut a, b) = (a?, b?);
    a.confined = a.confined.or(b.confined);
    a.git_dirs.extend(b.git_dirs);
    Ok(a)
}

/// Programs that have no option that writes a file or runs another program,
/// so any arguments are fine (including ones only known at run time).
const PLAIN_READERS: &[&str] = &[
    ":",
    "arch",
    "b2sum",
    "base32",
    "base64",
    "basename",
    "break",
    "cat",
    "cd",
    "cksum",
    "cmp",
    "column",
    "comm",
    "continue",
    "cut",
    "df",
    "diff",
    "dirname",
    "dirs",
    "du",
    "echo",
    "egrep",
    "exit",
    "expand",
    "expr",
    "factor",
    "false",
    "fgrep",
    "fold",
    "free",
    "getconf",
    "grep",
    "groups",
    "head",
    "hexdump",
    "id",
    "join",
    "jq",
    "locale",
    "ls",
    "md5sum",
    "nl",
    "nproc",
    "numfmt",
    "od",
    "paste",
    "pgrep",
    "popd",
    "printenv",
    "ps",
    "pstree",
    "pushd",
    "pwd",
    "readlink",
    "realpath",
    "rev",
    "seq",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "sleep",
    "stat",
    "strings",
    "sum",
    "tac",
    "tail",
    "tr",
    "true",
    "tsort",
    "type",
    "unexpand",
    "uname",
    "uptime",
    "wc",
    "which",
    "whoami",
];

/// Judges one simple command (assignments already removed).
pub(in crate::permissions::shell) fn judge(words: &[Word]) -> Judged {
    judge_at(words, 0)
}

pub(in crate::permissions::shell) fn judge_at(words: &[Word], depth: usize) -> Judged {
    if depth > MAX_WRAPPER_DEPTH {
        return Err("too many nested command wrappers to check".into());
    }
    let Some((program, args)) = words.split_first() else {
        return Ok(ReadOnly::ALWAYS);
    };
    if program.dynamic {
        return Err(format!(
            "the program `{}` is only known when the command runs",
            program.text
        ));
    }
    let name = program_name(&program.text)?;
    if PLAIN_READERS.contains(&name) {
        return Ok(ReadOnly::ALWAYS);
    }
    match name {
        "eval" | "exec" | "source" | "." => Err(format!(
            "`{name}` runs code that cannot be checked beforehand"
        )),
        "git" => git::check(args),
        "sed" => sed::check_sed(args).map(|()| ReadOnly::ALWAYS),
        "awk" | "gawk" | "mawk" | "nawk" => sed::check_awk(args).map(|()| ReadOnly::ALWAYS),
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
        "timeout" => wrappers::timeout(args, depth),
        "python" | "python3" => python::python(name, args),
        "perl" => perl::perl(args),
        "test" | "[" => builtins::test(args).map(|()| ReadOnly::ALWAYS),
        "set" => builtins::set(args).map(|()| ReadOnly::ALWAYS),
        "shopt" => builtins::shopt(args).map(|()| ReadOnly::ALWAYS),
        "read" => builtins::read(args).map(|()| ReadOnly::ALWAYS),
        "wait" => builtins::wait(args).map(|()| ReadOnly::ALWAYS),
        _ => flags::check(name, args),
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

/// Refuses words only known at run time before a `--`: GNU tools accept
/// options anywhere, so such a word could be any flag.
pub(in crate::permissions::shell) fn no_dynamic_options(
    program: &str,
    args: &[Word],
) -> Result<(), String> {
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
pub(in crate::permissions::shell) fn long_option_is(arg: &str, full: &str, min: usize) -> bool {
    let Some(body) = arg.strip_prefix("--") else {
        return false;
    };
    let name = body.split('=').next().unwrap_or_default();
    name.len() >= min.max(1) && full.starts_with(name)
}

/// The short-option letters of `-abc` (nothing for `--long` or `-`).
pub(in crate::permissions::shell) fn short_cluster(arg: &str) -> Option<&str> {
    let rest = arg.strip_prefix('-')?;
    if rest.is_empty() || rest.starts_with('-') {
        None
    } else {
        Some(rest)
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
        assert!(judge(&words(&["env", "-i", "foo=1", "ls"])).is_ok());
        assert!(judge(&words(&["env", "foo=1", "rm", "x"])).is_err());
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
