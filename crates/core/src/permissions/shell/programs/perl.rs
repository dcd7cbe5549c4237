//! `perl -n/-p/-e` one-liners that only compute and print.
//!
//! The script is checked against an allow-list of words, with simple
//! variables, strings and regexes, and never code blocks inside them
//! (`(?{...})`, `@{[...]}`, `$x[...]` in a string), `s///e`, backticks or
//! `system`. File operands must be plain names, since perl's `<>` opens
//! `|cmd` and `>file` as a command and an output.

use super::python::listed;
use super::{Judged, ReadOnly};
use crate::permissions::shell::words::{Word, has_brace_expansion, has_glob, is_identifier};

/// Words perl accepts as one-liner code.
const PERL_WORDS: &str = "\
    print printf say if unless and or not length lc uc lcfirst ucfirst chomp chop split join \
    defined next last exit my local keys values scalar sprintf substr index rindex abs int \
    sort reverse eq ne lt gt le ge cmp x while for foreach BEGIN END STDOUT STDERR STDIN m q \
    qw qq s tr y exists push else elsif hex oct ord chr uniq";

/// `perl` one-liners: `-n`/`-p`/`-l`/`-a`/`-e` and a script checked by
/// [`perl_script`]; file operands must be plain names (perl's `<>` opens
/// `|cmd` and `>file` as commands and outputs).
///
/// Switches are read as perl reads them: a cluster goes on after a
/// switch's value (`-0777ne` is `-0777 -n -e`, `-l0i` is `-l0 -i`), and
/// `-F` takes the rest of its word as code-like text, so its value is
/// checked too.
pub(in crate::permissions::shell) fn perl(args: &[Word]) -> Judged {
    let mut scripts = Vec::new();
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if w.dynamic || !t.starts_with('-') || t == "-" {
            break;
        }
        i += 1;
        if t == "--" {
            break;
        }
        if t == "-v" || t == "--version" {
            continue;
        }
        let flags: Vec<char> = t[1..].chars().collect();
        let mut j = 0;
        while let Some(&c) = flags.get(j) {
            j += 1;
            match c {
                'n' | 'p' | 'a' | 'w' => {}
                // `-l[octal]` and `-0[octal]`: the digits are the value,
                // what follows them more switches.
                'l' | '0' => {
                    while flags.get(j).is_some_and(|d| d.is_digit(8)) {
                        j += 1;
                    }
                }
                'e' | 'E' => {
                    let rest: String = flags[j..].iter().collect();
                    let script = if rest.is_empty() {
                        let s = args.get(i).ok_or("`perl -e` without a script")?;
                        i += 1;
                        s.clone()
                    } else {
                        Word::lit(&rest)
                    };
                    scripts.push(script);
                    break;
                }
                'F' => {
                    split_pattern(&flags[j..])?;
                    break;
                }
                _ => {
                    return Err(format!(
                        "`perl -{c}` is an option the analysis does not know"
                    ));
                }
            }
        }
    }
    if scripts.is_empty() {
        return Err("`perl` without `-e` runs a script file".into());
    }
    for w in &args[i..] {
        let t = w.text.as_str();
        // Perl's 2-arg open trims all white space, then reads a leading
        // `<`, `>`, `+`, `|` or a trailing `|` as a mode; a word the shell
        // expands (a glob) could end in `|`.
        let plain = t == "-"
            || (!w.dynamic
                && !t.is_empty()
                && !t.starts_with(['|', '<', '>', '+', '-'])
                && !t.starts_with(char::is_whitespace)
                && !t.ends_with('|')
                && !t.ends_with(char::is_whitespace)
                && !has_glob(t)
                && !has_brace_expansion(t));
        if !plain {
            return Err(format!(
                "perl opens `{t}` with its magic `<>`, which can run commands or write"
            ));
        }
    }
    for s in scripts {
        if s.dynamic {
            return Err(format!(
                "the perl script `{}` is only known at run time",
                s.text
            ));
        }
        perl_script(&s.text)?;
    }
    Ok(ReadOnly::ALWAYS)
}

/// The value of `-F`, which perl pastes into the code it runs
/// (`our @F=split(VALUE)` when it starts with `/`, `'` or `"` and that
/// character comes again). Accepted: a pattern without white space (which
/// would start more switches), and when delimited, nothing but the one
/// delimited pattern with no interpolation or code in it.
fn split_pattern(value: &[char]) -> Result<(), String> {
    let text: String = value.iter().collect();
    if text.contains(char::is_whitespace) {
        return Err(format!(
            "`perl -F{text}` has white space, after which perl reads more switches"
        ));
    }
    let Some(&first) = value.first() else {
        return Ok(());
    };
    if !matches!(first, '/' | '\'' | '"') || !value[1..].contains(&first) {
        // Perl quotes it whole (`q\0...\0`): plain text.
        return Ok(());
    }
    let body = &value[1..value.len() - 1];
    let delimited = value.len() >= 2 && value[value.len() - 1] == first && !body.contains(&first);
    let harmless = body
        .iter()
        .all(|c| !matches!(c, '$' | '@' | '(' | ')' | '{' | '}' | ';'));
    if delimited && harmless {
        Ok(())
    } else {
        Err(format!(
            "`perl -F{text}` is pasted into the code perl runs, and this one is more than a pattern"
        ))
    }
}

/// Checks a perl one-liner: allowed words, simple variables, strings and
/// regexes without code blocks, no `s///e`, no backticks.
///
/// Where perl's own reading depends on what came before in ways this scan
/// does not follow, the script is refused rather than guessed: a `/` after
/// `}` (division after a subscript, a regex after a block), a word after
/// `->` or `&` (a method or sub call, whose arguments run first), a
/// quote-like operator whose delimiter closes a bracket (`$h{s}` is a
/// hash key, not a substitution), and a `#!` line (perl reads switches
/// such as `-i` from it).
pub(in crate::permissions::shell) fn perl_script(src: &str) -> Result<(), String> {
    for bad in [
        "${", "@{", "%{", "(?{", "(??{", "`", "::", "&$", "\\&", "*{", "#!",
    ] {
        if src.contains(bad) {
            return Err(format!("the perl script has `{bad}`, which can run code"));
        }
    }
    let s: Vec<char> = src.chars().collect();
    let mut i = 0;
    let mut operand = false;
    // Just after a `}`: a subscript or a block ended, perl knows which.
    let mut after_brace = false;
    while let Some(&c) = s.get(i) {
        i += 1;
        let brace_before = std::mem::take(&mut after_brace);
        match c {
            c if c.is_whitespace() || c == ';' => {
                if c == ';' {
                    operand = false;
                } else {
                    after_brace = brace_before;
                }
            }
            '/' if brace_before => {
                return Err(
                    "the perl script has a `/` after `}`, which perl reads as a regex or a division depending on the code before".into(),
                );
            }
            '#' => {
                while s.get(i).is_some_and(|&c| c != '\n') {
                    i += 1;
                }
            }
            '\'' | '"' => {
                let start = i;
                regex_part(&s, &mut i, c)?;
                if c == '"' {
                    interpolation(&s[start..i])?;
                }
                operand = true;
            }
            '$' | '@' | '%' if !operand || c != '%' => {
                variable(&s, &mut i, c)?;
                operand = true;
            }
            '/' if !operand => {
                let start = i;
                regex_part(&s, &mut i, '/')?;
                interpolation(&s[start..i])?;
                flags(&s, &mut i, false)?;
                operand = true;
            }
            c if c.is_ascii_alphabetic() || c == '_' => operand = word(&s, &mut i)?,
            c if c.is_ascii_digit() => {
                while s
                    .get(i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '_')
                {
                    i += 1;
                }
                operand = true;
            }
            ')' | ']' => operand = true,
            '}' => {
                operand = false;
                after_brace = true;
            }
            '<' if s.get(i) == Some(&'>') => {
                i += 1;
                operand = true;
            }
            '<' if s[i..].starts_with(&['S', 'T', 'D', 'I', 'N', '>']) => {
                i += 6;
                operand = true;
            }
            '-' | '+' if s.get(i) == Some(&c) => {
                i += 1;
            }
            '\\' => {
                return Err(
                    "the perl script takes a reference, which the analysis does not follow".into(),
                );
            }
            _ if "=!~<>&|?:,.*+-()[]{}^/%".contains(c) => operand = false,
            _ => {
                return Err(format!(
                    "the perl script has `{c}`, which is not understood"
                ));
            }
        }
    }
    Ok(())
}

/// A variable after its sigil `c`: a plain name or one of the punctuation
/// variables; never `@ARGV`, `%ENV`, `@INC` or `%SIG`.
fn variable(s: &[char], i: &mut usize, c: char) -> Result<(), String> {
    let start = *i;
    while s
        .get(*i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
    {
        *i += 1;
    }
    let name: String = s[start..*i].iter().collect();
    if name.is_empty() && c == '$' && s.get(*i).is_some_and(|c| "_.&/\\,;0".contains(*c)) {
        *i += 1;
    } else if name == "ARGV" || name == "ENV" || name == "INC" || name == "SIG" {
        return Err(format!("the perl script uses `{c}{name}`"));
    } else if name.is_empty() {
        return Err(format!(
            "the perl script has a `{c}` the analysis does not follow"
        ));
    }
    Ok(())
}

/// Words after which perl expects an operand (so a `/` starts a regex).
const EXPECTS_OPERAND: &[&str] = &[
    "print", "printf", "say", "if", "unless", "and", "or", "not", "split", "join", "return",
    "while", "for", "foreach", "eq", "ne", "lt", "gt", "le", "ge", "cmp", "x", "push",
];

/// A word whose first character is at `*i - 1`: one of [`PERL_WORDS`],
/// not called as a method or subroutine; a quote-like operator is read
/// with its delimited parts. Returns whether what follows is an operator.
fn word(s: &[char], i: &mut usize) -> Result<bool, String> {
    let start = *i - 1;
    while s
        .get(*i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
    {
        *i += 1;
    }
    let word: String = s[start..*i].iter().collect();
    if !listed(PERL_WORDS, word.as_str()) || !is_identifier(&word) {
        return Err(format!(
            "the perl script uses `{word}`, which is not known to be harmless"
        ));
    }
    if called(&s[..start]) {
        return Err(format!(
            "the perl script calls `{word}` as a method or subroutine, whose arguments run first"
        ));
    }
    if matches!(word.as_str(), "m" | "q" | "qw" | "qq" | "s" | "tr" | "y") {
        quote_like(s, i, &word)?;
        return Ok(true);
    }
    Ok(!EXPECTS_OPERAND.contains(&word.as_str()))
}

/// The delimited parts of `m`, `q`, `qw`, `qq`, `s`, `tr` or `y` (`word`)
/// and its flags: no interpolated code, no `s///e`.
fn quote_like(s: &[char], i: &mut usize, word: &str) -> Result<(), String> {
    let open = s
        .get(*i)
        .copied()
        .ok_or("a perl quote without a delimiter")?;
    if open.is_alphanumeric()
        || open.is_whitespace()
        || matches!(open, '=' | ',' | ')' | ']' | '}' | '>')
    {
        return Err(format!("`{word}` followed by `{open}` is not understood"));
    }
    *i += 1;
    let start = *i;
    let close = match open {
        '(' => ')',
        '[' => ']',
        '{' => '}',
        '<' => '>',
        d => d,
    };
    regex_part(s, i, close)?;
    if matches!(word, "s" | "tr" | "y") {
        if close != open {
            return Err("a perl substitution with bracket delimiters is not understood".into());
        }
        regex_part(s, i, close)?;
    }
    if !matches!(word, "q" | "qw" | "tr" | "y") {
        interpolation(&s[start..*i])?;
    }
    flags(s, i, word == "s")
}

/// Whether the text before a word makes it a call: `->` (a method) or a
/// lone `&` (a subroutine), white space allowed between.
fn called(before: &[char]) -> bool {
    let mut k = before.len();
    while k > 0 && before[k - 1].is_whitespace() {
        k -= 1;
    }
    let at = |n: usize| k.checked_sub(n).and_then(|x| before.get(x)).copied();
    (at(1) == Some('>') && at(2) == Some('-')) || (at(1) == Some('&') && at(2) != Some('&'))
}

/// Text perl interpolates (double quotes, regexes): a subscript or method
/// after a variable (`$x[...]`, `$h{...}`, `$o->...`) is evaluated as code.
fn interpolation(text: &[char]) -> Result<(), String> {
    let mut i = 0;
    while let Some(&c) = text.get(i) {
        i += 1;
        if c == '\\' {
            i += 1;
            continue;
        }
        if c != '$' && c != '@' {
            continue;
        }
        while text
            .get(i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
        {
            i += 1;
        }
        if matches!(text.get(i), Some('[' | '{')) || text[i..].starts_with(&['-', '>']) {
            return Err(
                "the perl script interpolates a subscript or method call, which runs code".into(),
            );
        }
    }
    Ok(())
}

/// Skips to the unescaped `close`.
fn regex_part(s: &[char], i: &mut usize, close: char) -> Result<(), String> {
    while let Some(&c) = s.get(*i) {
        *i += 1;
        if c == '\\' {
            *i += 1;
        } else if c == close {
            return Ok(());
        }
    }
    Err("an unterminated perl regex or quote".into())
}

fn flags(s: &[char], i: &mut usize, substitution: bool) -> Result<(), String> {
    while let Some(&c) = s.get(*i) {
        if !c.is_ascii_alphabetic() {
            break;
        }
        if substitution && c == 'e' {
            return Err("the perl substitution's `e` flag runs its replacement as code".into());
        }
        *i += 1;
    }
    Ok(())
}

#[cfg(test)]
mod unit {
    use super::*;

    fn pl(args: &[&str]) -> Judged {
        perl(&args.iter().map(|t| Word::lit(t)).collect::<Vec<_>>())
    }

    #[test]
    fn perl_one_liners() {
        assert!(pl(&["-ne", "print if /foo/", "f"]).is_ok());
        assert!(pl(&["-lne", "print $1 if /version = \"(.+)\"/", "Cargo.toml"]).is_ok());
        assert!(pl(&["-pe", "s/a/b/g", "f"]).is_ok());
        assert!(pl(&["-ane", "print $F[0]"]).is_ok());
        assert!(pl(&["-e", "print 1/2"]).is_ok());
        for bad in [
            &["-pi", "-e", "s/a/b/", "f"][..],
            &["-ne", "print if /(?{ system 1 })/"],
            &["-ne", "system 'x'"],
            &["-pe", "s/a/`x`/e"],
            &["-ne", "print", "|touch x"],
            &["-ne", "print", ">out"],
            &["-e", "open F, '>x'"],
            &["-e", "print \"@{[ 1 ]}\""],
            &["-e", "@ARGV = ('|x')"],
            &["script.pl"],
            &["-MPOSIX", "-e", "1"],
            &["-e", "print \"$x[system 1]\""],
            &["-ne", "print if /$h{x}/"],
            // `-F` is pasted into the code; white space starts switches.
            &["-F/x/;system q(touch p);/", "-ane", "print"],
            &["-F: -i", "-ane", "print", "f"],
            // Values of `-0`/`-l` end at their digits, switches follow.
            &["-0777i", "-ne", "print", "f"],
            &["-l0i", "-pe", "1", "f"],
            &["-00pi", "-e", "1", "f"],
            // 2-arg open trims all white space, and globs may end in `|`.
            &["-ne", "print", "\t>out"],
            &["-ne", "print", ">out\n"],
            &["-ne", "print", "src/*"],
            // Perl reads switches from a `#!` line.
            &["-pe", "#!perl -i.bak\ns/a/b/", "f"],
            // Readings that depend on what came before.
            &["-e", "print $h{1} / 2; system q(touch p); print 1 / 3"],
            &["-e", "print $h{s} ; system q(touch p); $h{s} ; $h{1}"],
            &["-e", "print $x->q(system q(touch p))"],
            &["-e", "print &q(system q(touch p))"],
        ] {
            assert!(pl(bad).is_err(), "{bad:?}");
        }
        for ok in [
            &["-F:", "-lane", "print $F[0]"][..],
            &["-F,", "-ane", "print $F[1]"],
            &["-F/\\s+/", "-ane", "print $F[1]"],
            &["-0777", "-ne", "print $1 if /x(.*)y/s", "f"],
            &["-l", "-ne", "print if $. > 1", "f"],
            &["-ne", "print if /a/ && /b/", "f"],
        ] {
            assert!(pl(ok).is_ok(), "{ok:?}");
        }
    }
}
