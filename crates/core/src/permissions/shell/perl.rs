//! `perl -n/-p/-e` one-liners that only compute and print.
//!
//! The script is checked against an allow-list of words, with simple
//! variables, strings and regexes, and never code blocks inside them
//! (`(?{...})`, `@{[...]}`, `$x[...]` in a string), `s///e`, backticks or
//! `system`. File operands must be plain names, since perl's `<>` opens
//! `|cmd` and `>file` as a command and an output.

use super::python::listed;
use super::readonly_list::{Judged, ReadOnly};
use super::words::{Word, is_identifier};

/// Words perl accepts as one-liner code.
const PERL_WORDS: &str = "\
    print printf say if unless and or not length lc uc lcfirst ucfirst chomp chop split join \
    defined next last exit my local keys values scalar sprintf substr index rindex abs int \
    sort reverse eq ne lt gt le ge cmp x while for foreach BEGIN END STDOUT STDERR STDIN m q \
    qw qq s tr y exists push else elsif hex oct ord chr uniq";

/// `perl` one-liners: `-n`/`-p`/`-l`/`-a`/`-e` and a script checked by
/// [`perl_script`]; file operands must be plain names (perl's `<>` opens
/// `|cmd` and `>file` as commands and outputs).
pub(super) fn perl(args: &[Word]) -> Judged {
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
                'n' | 'p' | 'l' | 'a' | 'w' | 'C' => {}
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
                // `-F:` and `-0777` carry their value.
                'F' | '0' => break,
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
        let plain = !w.dynamic
            && !t.is_empty()
            && !t.starts_with(['|', '<', '>', '+', ' ', '-'])
            && !t.ends_with(['|', ' '])
            || t == "-";
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
    Ok(ReadOnly::Always)
}

/// Checks a perl one-liner: allowed words, simple variables, strings and
/// regexes without code blocks, no `s///e`, no backticks.
pub(super) fn perl_script(src: &str) -> Result<(), String> {
    for bad in [
        "${", "@{", "%{", "(?{", "(??{", "`", "::", "&$", "\\&", "*{",
    ] {
        if src.contains(bad) {
            return Err(format!("the perl script has `{bad}`, which can run code"));
        }
    }
    let s: Vec<char> = src.chars().collect();
    let mut i = 0;
    let mut operand = false;
    while let Some(&c) = s.get(i) {
        i += 1;
        match c {
            c if c.is_whitespace() || c == ';' => {
                if c == ';' {
                    operand = false;
                }
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
                let start = i;
                while s
                    .get(i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
                {
                    i += 1;
                }
                let name: String = s[start..i].iter().collect();
                if name.is_empty() && c == '$' && s.get(i).is_some_and(|c| "_.&/\\,;0".contains(*c))
                {
                    i += 1;
                } else if name == "ARGV" || name == "ENV" || name == "INC" || name == "SIG" {
                    return Err(format!("the perl script uses `{c}{name}`"));
                } else if name.is_empty() {
                    return Err(format!(
                        "the perl script has a `{c}` the analysis does not follow"
                    ));
                }
                operand = true;
            }
            '/' if !operand => {
                let start = i;
                regex_part(&s, &mut i, '/')?;
                interpolation(&s[start..i])?;
                flags(&s, &mut i, false)?;
                operand = true;
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let start = i - 1;
                while s
                    .get(i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
                {
                    i += 1;
                }
                let word: String = s[start..i].iter().collect();
                if !listed(PERL_WORDS, word.as_str()) || !is_identifier(&word) {
                    return Err(format!(
                        "the perl script uses `{word}`, which is not known to be harmless"
                    ));
                }
                let quote_like =
                    matches!(word.as_str(), "m" | "q" | "qw" | "qq" | "s" | "tr" | "y");
                if quote_like {
                    let open = s
                        .get(i)
                        .copied()
                        .ok_or("a perl quote without a delimiter")?;
                    if open.is_alphanumeric() || open.is_whitespace() || open == '=' || open == ','
                    {
                        return Err(format!("`{word}` followed by `{open}` is not understood"));
                    }
                    i += 1;
                    let start = i;
                    let close = match open {
                        '(' => ')',
                        '[' => ']',
                        '{' => '}',
                        '<' => '>',
                        d => d,
                    };
                    regex_part(&s, &mut i, close)?;
                    if matches!(word.as_str(), "s" | "tr" | "y") {
                        if close != open {
                            return Err(
                                "a perl substitution with bracket delimiters is not understood"
                                    .into(),
                            );
                        }
                        regex_part(&s, &mut i, close)?;
                    }
                    if !matches!(word.as_str(), "q" | "qw" | "tr" | "y") {
                        interpolation(&s[start..i])?;
                    }
                    flags(&s, &mut i, word == "s")?;
                    operand = true;
                } else {
                    operand = !matches!(
                        word.as_str(),
                        "print"
                            | "printf"
                            | "say"
                            | "if"
                            | "unless"
                            | "and"
                            | "or"
                            | "not"
                            | "split"
                            | "join"
                            | "return"
                            | "while"
                            | "for"
                            | "foreach"
                            | "eq"
                            | "ne"
                            | "lt"
                            | "gt"
                            | "le"
                            | "ge"
                            | "cmp"
                            | "x"
                            | "push"
                    );
                }
            }
            c if c.is_ascii_digit() => {
                while s
                    .get(i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '_')
                {
                    i += 1;
                }
                operand = true;
            }
            ')' | ']' | '}' => operand = c != '}',
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
        ] {
            assert!(pl(bad).is_err(), "{bad:?}");
        }
    }
}
