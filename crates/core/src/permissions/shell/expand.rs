//! Expansions that run code without looking like commands.
//!
//! Bash evaluates arithmetic (`$((x))`, `((x))`, `[[ x -eq y ]]`, array
//! subscripts, `${x:off:len}`) recursively: a variable whose value is the
//! text `a[$(cmd)]` runs `cmd` when it is used there. So arithmetic may only
//! name variables this command line gave numbers to, or the shell's own
//! numeric variables. Indirect (`${!x}`) and prompt (`${x@P}`) expansions,
//! and expansions that assign (`${x:=v}`), are refused outright.
//!
//! This module also owns which variable names a command line may assign:
//! an allow-list (lower-case names, which no program or the shell itself
//! reads, and a few harmless upper-case ones) rather than a list of
//! dangerous names, since any upper-case name may steer some program.

use std::collections::HashMap;

use super::words::is_identifier;

/// The shell's own variables that always hold numbers.
const NUMERIC_SPECIALS: &[&str] = &[
    "#",
    "?",
    "$",
    "!",
    "RANDOM",
    "SRANDOM",
    "SECONDS",
    "LINENO",
    "BASHPID",
    "EPOCHSECONDS",
    "PPID",
    "UID",
    "EUID",
];

/// Upper-case variables a command line may set: they change formatting,
/// locale or colours, never which program runs or where output goes.
const SAFE_UPPER: &[&str] = &[
    "LANG",
    "LANGUAGE",
    "TZ",
    "TERM",
    "COLUMNS",
    "LINES",
    "NO_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "FORCE_COLOR",
    "TIME_STYLE",
    "QUOTING_STYLE",
    "BLOCK_SIZE",
    "POSIXLY_CORRECT",
    "GREP_COLOR",
    "GREP_COLORS",
    "LS_COLORS",
    "JQ_COLORS",
    "GIT_TERMINAL_PROMPT",
    "GIT_OPTIONAL_LOCKS",
    "RUST_BACKTRACE",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONIOENCODING",
    "PYTHONUNBUFFERED",
];

/// Lower-case names the shell itself gives a meaning.
const SHELL_LOWER: &[&str] = &["histchars", "auto_resume"];

/// Whether a command line may assign `name` (with `value` when it is
/// known). `Err` says why not.
pub(super) fn check_assignment_name(name: &str, value: Option<&str>) -> Result<(), String> {
    let base = name.split('[').next().unwrap_or(name);
    if !is_identifier(base) {
        return Err(format!("it assigns to `{name}`, which is not a plain name"));
    }
    if base.len() < name.len() {
        check_subscript(&name[base.len()..])?;
    }
    let lower = base.starts_with(|c: char| c.is_ascii_lowercase() || c == '_');
    if lower && !SHELL_LOWER.contains(&base) && base != "_" {
        return Ok(());
    }
    if base.starts_with("LC_") || SAFE_UPPER.contains(&base) {
        return Ok(());
    }
    // A pager that only copies its input is the usual way to keep git and
    // friends from paging.
    if matches!(base, "PAGER" | "GIT_PAGER" | "MANPAGER" | "SYSTEMD_PAGER")
        && matches!(value, Some("" | "cat"))
    {
        return Ok(());
    }
    Err(format!(
        "it assigns to `{base}`, which may change which programs run or how"
    ))
}

/// `[...]` after a name: only a number, `@` or `*`.
fn check_subscript(sub: &str) -> Result<(), String> {
    let inner = sub
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .unwrap_or("?");
    if inner == "@"
        || inner == "*"
        || (!inner.is_empty() && inner.bytes().all(|b| b.is_ascii_digit()))
    {
        Ok(())
    } else {
        Err(format!(
            "the array subscript `{sub}` is evaluated as arithmetic, which can run commands"
        ))
    }
}

/// Variables assigned in the command line, and which of them only ever get
/// numbers; arithmetic may only read those.
#[derive(Debug, Default)]
pub(super) struct Vars {
    /// Name → true while every assignment seen gave it a number.
    numeric: HashMap<String, bool>,
    /// Names read by arithmetic, with where (for the message).
    arithmetic_reads: Vec<(String, String)>,
}

impl Vars {
    /// Records an assignment; `numeric` when the value is a number (or
    /// arithmetic, whose result is one).
    pub(super) fn assigned(&mut self, name: &str, numeric: bool) {
        let base = name.split('[').next().unwrap_or(name).to_string();
        let entry = self.numeric.entry(base).or_insert(true);
        *entry &= numeric;
    }

    fn read_in_arithmetic(&mut self, name: &str, context: &str) {
        self.arithmetic_reads
            .push((name.to_string(), context.to_string()));
    }

    /// Arithmetic that reads a variable which is not known to hold a
    /// number: the first one found, as a reason.
    pub(super) fn unsafe_arithmetic(&self) -> Option<String> {
        self.arithmetic_reads.iter().find_map(|(name, context)| {
            let numeric = NUMERIC_SPECIALS.contains(&name.as_str())
                || self.numeric.get(name).copied().unwrap_or(false);
            (!numeric).then(|| {
                format!(
                    "`{context}` evaluates `{name}` as arithmetic, and a value that is not a number there can run commands"
                )
            })
        })
    }
}

/// Checks arithmetic text (inside `$((...))`, `((...))`, a subscript, an
/// offset): numbers, operators and variable names only. Names assigned
/// here count as numeric; names read are checked later by [`Vars`].
pub(super) fn check_arithmetic(text: &str, context: &str, vars: &mut Vars) -> Result<(), String> {
    let s: Vec<char> = text.chars().collect();
    let mut i = 0;
    let refuse = |what: &str| {
        Err(format!(
            "`{context}` has {what} inside arithmetic, which the analysis does not follow"
        ))
    };
    while let Some(&c) = s.get(i) {
        if c.is_ascii_digit() {
            // Numbers, including `0x1f` and `16#ff`.
            while s
                .get(i)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '#' || *c == '_' || *c == '@')
            {
                i += 1;
            }
            continue;
        }
        if c == '$' {
            i += 1;
            let name = match s.get(i) {
                Some('{') => {
                    let end = s[i..].iter().position(|c| *c == '}').map(|p| p + i);
                    let Some(end) = end else {
                        return refuse("an unfinished `${`");
                    };
                    let inner: String = s[i + 1..end].iter().collect();
                    i = end + 1;
                    if let Some(len_of) = inner.strip_prefix('#')
                        && (is_identifier(len_of) || NUMERIC_SPECIALS.contains(&len_of))
                    {
                        continue;
                    }
                    inner
                }
                Some(c) if NUMERIC_SPECIALS.contains(&c.to_string().as_str()) => {
                    i += 1;
                    c.to_string()
                }
                _ => {
                    let start = i;
                    while s
                        .get(i)
                        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
                    {
                        i += 1;
                    }
                    s[start..i].iter().collect()
                }
            };
            if !is_identifier(&name) && !NUMERIC_SPECIALS.contains(&name.as_str()) {
                return refuse(&format!("`${name}`"));
            }
            vars.read_in_arithmetic(&name, context);
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while s
                .get(i)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
            {
                i += 1;
            }
            let name: String = s[start..i].iter().collect();
            if s.get(i) == Some(&'[') {
                return refuse(&format!("the array element `{name}[...]`"));
            }
            let before = prev_non_space(&s, start);
            let after = next_non_space(&s, i);
            let assigns = match after {
                Some(j) => {
                    let op: String = s[j..s.len().min(j + 3)].iter().collect();
                    (op.starts_with('=') && !op.starts_with("=="))
                        || op.starts_with("++")
                        || op.starts_with("--")
                        || ["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="]
                            .iter()
                            .any(|a| op.starts_with(a))
                }
                None => false,
            } || before
                .is_some_and(|j| j >= 1 && matches!((s[j - 1], s[j]), ('+', '+') | ('-', '-')));
            if assigns {
                check_assignment_name(&name, None)?;
                vars.assigned(&name, true);
            }
            vars.read_in_arithmetic(&name, context);
            continue;
        }
        if c.is_whitespace() || "+-*/%<>=!~&|^?:,()".contains(c) {
            i += 1;
            continue;
        }
        return refuse(&format!("`{c}`"));
    }
    Ok(())
}

fn next_non_space(s: &[char], from: usize) -> Option<usize> {
    (from..s.len()).find(|&j| !s[j].is_whitespace())
}

fn prev_non_space(s: &[char], before: usize) -> Option<usize> {
    (0..before).rev().find(|&j| !s[j].is_whitespace())
}

/// Checks the text of a `${...}` expansion (with its braces).
pub(super) fn check_braced(raw: &str, vars: &mut Vars) -> Result<(), String> {
    let Some(inner) = raw.strip_prefix("${").and_then(|s| s.strip_suffix('}')) else {
        return Err(format!("the expansion `{raw}` is not understood"));
    };
    if inner.starts_with('!') {
        return Err(format!(
            "`{raw}` is an indirect expansion, whose target is only known when the command runs"
        ));
    }
    if let Some(rest) = inner.strip_prefix('#')
        && (rest.is_empty() || param_len(rest) == rest.len() || subscripted_len(rest, vars)?)
    {
        return Ok(());
    }
    let name_len = param_len(inner);
    if name_len == 0 {
        return Err(format!("the expansion `{raw}` is not understood"));
    }
    let mut rest = &inner[name_len..];
    if rest.starts_with('[') {
        let close = rest
            .find(']')
            .ok_or_else(|| format!("the expansion `{raw}` is not understood"))?;
        let sub = &rest[1..close];
        if sub != "@" && sub != "*" {
            check_arithmetic(sub, raw, vars)?;
        }
        rest = &rest[close + 1..];
    }
    if rest.is_empty() {
        return Ok(());
    }
    if rest.starts_with(":=") || rest.starts_with('=') {
        return Err(format!("`{raw}` assigns a variable"));
    }
    if let Some(op) = rest.strip_prefix('@') {
        return match op {
            "Q" | "U" | "u" | "L" | "a" | "E" | "A" | "K" | "k" => Ok(()),
            _ => Err(format!(
                "`{raw}` transforms the value in a way that can run commands"
            )),
        };
    }
    let word_ops = [":-", ":+", ":?", "-", "+", "?", "#", "%", "/", "^", ","];
    if word_ops.iter().any(|op| rest.starts_with(op)) {
        // The words after these are expanded like any other; the nodes
        // inside are checked where they are walked.
        return Ok(());
    }
    if let Some(range) = rest.strip_prefix(':') {
        for part in range.splitn(2, ':') {
            check_arithmetic(part, raw, vars)?;
        }
        return Ok(());
    }
    Err(format!("the expansion `{raw}` is not understood"))
}

/// `a[...]` after `${#`: the length of an element or of the array.
fn subscripted_len(rest: &str, vars: &mut Vars) -> Result<bool, String> {
    let name = param_len(rest);
    let Some(sub) = rest[name..]
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
    else {
        return Ok(false);
    };
    if name == 0 {
        return Ok(false);
    }
    if sub != "@" && sub != "*" {
        check_arithmetic(sub, rest, vars)?;
    }
    Ok(true)
}

/// Length of the parameter name at the start of `s`: a variable name,
/// digits, or one special character.
fn param_len(s: &str) -> usize {
    let first = s.chars().next();
    match first {
        Some(c) if c == '_' || c.is_ascii_alphabetic() => s
            .find(|c: char| !(c == '_' || c.is_ascii_alphanumeric()))
            .unwrap_or(s.len()),
        Some(c) if c.is_ascii_digit() => s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()),
        Some('@' | '*' | '#' | '?' | '-' | '$' | '!' | '0') => 1,
        _ => 0,
    }
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn assignment_names() {
        for ok in [
            "x",
            "my_var",
            "camelCase",
            "LC_ALL",
            "LANG",
            "NO_COLOR",
            "a[1]",
        ] {
            assert!(check_assignment_name(ok, None).is_ok(), "{ok}");
        }
        assert!(check_assignment_name("GIT_PAGER", Some("cat")).is_ok());
        for bad in [
            "PATH",
            "PS4",
            "GIT_PAGER",
            "GIT_EXTERNAL_DIFF",
            "GIT_CONFIG_COUNT",
            "LD_PRELOAD",
            "BASH_ENV",
            "IFS",
            "FOO",
            "histchars",
            "a[i]",
            "a[$(id)]",
        ] {
            assert!(check_assignment_name(bad, None).is_err(), "{bad}");
        }
        assert!(check_assignment_name("PAGER", Some("evil")).is_err());
    }

    fn arith(text: &str, numeric: &[&str]) -> Result<(), String> {
        let mut vars = Vars::default();
        for n in numeric {
            vars.assigned(n, true);
        }
        check_arithmetic(text, text, &mut vars)?;
        match vars.unsafe_arithmetic() {
            Some(why) => Err(why),
            None => Ok(()),
        }
    }

    #[test]
    fn arithmetic() {
        for ok in [
            "1+2",
            "0x1f * 16#ff",
            "i=0, i<3, i++",
            "$# - 1",
            "${#x}",
            "n*2",
        ] {
            assert!(arith(ok, &["n"]).is_ok(), "{ok}");
        }
        for bad in ["x", "$x + 1", "a[1]", "$(id)", "`id`", "'a'", "x+", "${x}"] {
            assert!(arith(bad, &[]).is_err(), "{bad}");
        }
    }

    #[test]
    fn braced_expansions() {
        let mut vars = Vars::default();
        vars.assigned("n", true);
        for ok in [
            "${x}",
            "${x:-default}",
            "${x#*/}",
            "${x//a/b}",
            "${#x}",
            "${#a[@]}",
            "${a[@]}",
            "${a[1]}",
            "${x:1:2}",
            "${x: -2}",
            "${x:n}",
            "${x@Q}",
            "${x,,}",
            "${1}",
            "${@}",
        ] {
            assert!(check_braced(ok, &mut vars).is_ok(), "{ok}");
        }
        assert!(vars.unsafe_arithmetic().is_none());
        for bad in [
            "${!x}",
            "${!p*}",
            "${x@P}",
            "${x:=v}",
            "${x=v}",
            "${a[$(id)]}",
        ] {
            assert!(check_braced(bad, &mut Vars::default()).is_err(), "{bad}");
        }
        let mut vars = Vars::default();
        assert!(check_braced("${x:y}", &mut vars).is_ok());
        assert!(vars.unsafe_arithmetic().is_some());
    }
}
