//! Shell builtins that change how the shell itself behaves or assign
//! variables: `set` and `shopt` only with options that cannot make later
//! words run code; `test -v`, `read` and `wait -p` only with plain variable
//! names (a name like `a[$(cmd)]` runs `cmd`).

use super::expand::check_assignment_name;
use super::words::{Word, is_identifier};

/// `test`/`[`: `-v NAME` and `-R NAME` evaluate NAME's subscript.
pub(super) fn test(args: &[Word]) -> Result<(), String> {
    for pair in args.windows(2) {
        if !pair[0].dynamic && matches!(pair[0].text.as_str(), "-v" | "-R") {
            plain_name("test -v", &pair[1])?;
        }
    }
    Ok(())
}

/// A variable name given to a builtin: an identifier, or one with a
/// numeric subscript.
pub(super) fn plain_name(what: &str, w: &Word) -> Result<(), String> {
    let t = w.text.as_str();
    let ok = !w.dynamic
        && match t.split_once('[') {
            None => is_identifier(t),
            Some((name, sub)) => {
                is_identifier(name)
                    && sub
                        .strip_suffix(']')
                        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            }
        };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{what}` is given `{t}`, and a name that is not plain can run commands"
        ))
    }
}

/// `set`: error handling, tracing and positional parameters only. Not
/// `-k` (assignments anywhere on a command line go to its environment),
/// `-a`, `-T`, `-E` and the rest.
pub(super) fn set(args: &[Word]) -> Result<(), String> {
    const OPTIONS: &[&str] = &[
        "errexit",
        "nounset",
        "pipefail",
        "xtrace",
        "verbose",
        "noglob",
        "noclobber",
        "noexec",
    ];
    let mut i = 0;
    while let Some(w) = args.get(i) {
        i += 1;
        let t = w.text.as_str();
        if w.dynamic {
            return Err(format!("`set {t}` is only known when the command runs"));
        }
        if t == "--" || t == "-" {
            return Ok(());
        }
        let Some(flags) = t.strip_prefix('-').or_else(|| t.strip_prefix('+')) else {
            // Positional parameters.
            return Ok(());
        };
        for c in flags.chars() {
            match c {
                'e' | 'u' | 'x' | 'v' | 'f' | 'C' | 'n' => {}
                'o' => match args.get(i) {
                    Some(o) if !o.dynamic && OPTIONS.contains(&o.text.as_str()) => i += 1,
                    // `set -o` alone lists the options.
                    None => {}
                    Some(o) => {
                        return Err(format!(
                            "`set -o {}` changes how the shell runs later commands",
                            o.text
                        ));
                    }
                },
                _ => {
                    return Err(format!(
                        "`set {t}` changes how the shell runs later commands"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// `shopt`: queries, and the globbing options.
pub(super) fn shopt(args: &[Word]) -> Result<(), String> {
    const SETTABLE: &[&str] = &[
        "nullglob",
        "dotglob",
        "globstar",
        "nocaseglob",
        "failglob",
        "nocasematch",
        "lastpipe",
    ];
    let mut setting = false;
    for w in args {
        let t = w.text.as_str();
        if w.dynamic {
            return Err(format!("`shopt {t}` is only known when the command runs"));
        }
        match t {
            "-s" | "-u" => setting = true,
            "-p" | "-q" | "-o" => {}
            _ if t.starts_with('-') => {
                return Err(format!(
                    "`shopt {t}` is an option the analysis does not know"
                ));
            }
            _ if setting && !SETTABLE.contains(&t) => {
                return Err(format!(
                    "`shopt` changes `{t}`, which changes how the shell runs later commands"
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// `read`: assigns the named variables (which the walker records as not
/// holding numbers).
pub(super) fn read(args: &[Word]) -> Result<(), String> {
    let mut i = 0;
    while let Some(w) = args.get(i) {
        i += 1;
        let t = w.text.as_str();
        if w.dynamic {
            return Err(format!(
                "`read` is given `{t}`, only known when the command runs"
            ));
        }
        match t {
            "-a" => {
                let name = args.get(i).ok_or("`read -a` without a name")?;
                i += 1;
                plain_name("read -a", name)?;
                check_assignment_name(&name.text, None)?;
            }
            "-d" | "-n" | "-N" | "-p" | "-t" | "-u" | "-i" => i += 1,
            "-r" | "-s" | "-e" | "--" => {}
            _ if t.starts_with('-') => {
                return Err(format!(
                    "`read {t}` is an option the analysis does not know"
                ));
            }
            _ => {
                plain_name("read", w)?;
                check_assignment_name(t, None)?;
            }
        }
    }
    Ok(())
}

/// The variables `read` assigns (`REPLY` when none is named).
pub(super) fn read_targets(args: &[Word]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(w) = args.get(i) {
        i += 1;
        match w.text.as_str() {
            "-a" => {
                if let Some(n) = args.get(i) {
                    out.push(n.text.clone());
                }
                i += 1;
            }
            "-d" | "-n" | "-N" | "-p" | "-t" | "-u" | "-i" => i += 1,
            t if t.starts_with('-') => {}
            t => out.push(t.to_string()),
        }
    }
    if out.is_empty() {
        out.push("REPLY".into());
    }
    out
}

/// `wait`: not `-p NAME`, which assigns.
pub(super) fn wait(args: &[Word]) -> Result<(), String> {
    match args
        .iter()
        .find(|w| w.dynamic || (w.text.starts_with('-') && w.text.contains('p')))
    {
        Some(w) => Err(format!("`wait {}` assigns a variable", w.text)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod unit {
    use super::*;

    fn w(s: &[&str]) -> Vec<Word> {
        s.iter().map(|t| Word::lit(t)).collect()
    }

    #[test]
    fn set_options() {
        for ok in [
            &["-e"][..],
            &["-euo", "pipefail"],
            &["-x"],
            &["+x"],
            &["--", "a", "b"],
            &[],
            &["-o"],
        ] {
            assert!(set(&w(ok)).is_ok(), "{ok:?}");
        }
        for bad in [&["-k"][..], &["-a"], &["-o", "emacs"], &["-T"], &["-eT"]] {
            assert!(set(&w(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn names_given_to_builtins() {
        assert!(test(&w(&["-v", "x"])).is_ok());
        assert!(test(&w(&["-v", "a[1]"])).is_ok());
        assert!(test(&w(&["-v", "a[$(id)]"])).is_err());
        assert!(read(&w(&["-r", "line"])).is_ok());
        assert!(read(&w(&["a[$(id)]"])).is_err());
        assert!(read(&w(&["PATH"])).is_err());
        assert!(shopt(&w(&["-s", "nullglob"])).is_ok());
        assert!(shopt(&w(&["-s", "extdebug"])).is_err());
        assert!(wait(&w(&["-n"])).is_ok());
        assert!(wait(&w(&["-p", "x"])).is_err());
    }
}
