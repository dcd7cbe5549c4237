//! Wrappers: commands that run another command (`find -exec`, `xargs`,
//! `env`, `command`, `nice`, `timeout`) are judged on the command they run,
//! after their own options are checked; and `read`, which only assigns.

use super::parse::Word;
use super::readonly_list::{is_sensitive_variable, judge_at, long_option_is, short_cluster};

pub(super) fn find(args: &[Word], depth: usize) -> Result<(), String> {
    // `--` ends only find's leading options, not its expression, so no
    // run-time word is acceptable anywhere.
    if let Some(w) = args.iter().find(|w| w.dynamic) {
        return Err(format!(
            "`find` gets an argument only known at run time (`{}`), which could be an action that writes",
            w.text
        ));
    }
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

pub(super) fn xargs(args: &[Word], depth: usize) -> Result<(), String> {
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

pub(super) fn env(args: &[Word], depth: usize) -> Result<(), String> {
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

pub(super) fn command_builtin(args: &[Word], depth: usize) -> Result<(), String> {
    match args.first() {
        // `command -v x` only looks a name up.
        Some(w) if !w.dynamic && (w.text == "-v" || w.text == "-V") => Ok(()),
        Some(w) if !w.dynamic && w.text == "-p" => judge_at(&args[1..], depth + 1),
        _ => judge_at(args, depth + 1),
    }
}

/// `read` only assigns shell variables; it is refused when it names a
/// sensitive one.
pub(super) fn read(args: &[Word]) -> Result<(), String> {
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

pub(super) fn nice(args: &[Word], depth: usize) -> Result<(), String> {
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

pub(super) fn timeout(args: &[Word], depth: usize) -> Result<(), String> {
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
