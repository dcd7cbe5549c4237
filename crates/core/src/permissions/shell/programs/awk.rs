//! `awk` (and gawk, mawk, nawk): its options, and a scan of the program
//! text for what writes files (`print > "f"`) or runs programs (`system()`,
//! pipes, `@load`).
//!
//! The delicate part is telling a regular expression (`/a|b/`) from a
//! division (`4. / 2`), since a wrong guess hides code inside what looks
//! like a string or a regex. The scanner follows awk's rule (a `/` starts a
//! regex where an operand is expected: after an operator, a keyword, or
//! the condition of `if`/`while`/`for`), refuses the spots where awks
//! disagree (a `/` inside a bracket expression, after `++`), and looks for
//! `system` and `@` in the raw text whatever the tokens.

use super::no_dynamic_options;
use crate::permissions::shell::words::Word;

/// Judges `awk ARGS`.
pub(in crate::permissions::shell) fn check_awk(args: &[Word]) -> Result<(), String> {
    const FLAGS: &[&str] = &[
        "-b",
        "-c",
        "-M",
        "-n",
        "-N",
        "-O",
        "-P",
        "-r",
        "-s",
        "-S",
        "-t",
        "-V",
        "--posix",
        "--traditional",
        "--re-interval",
        "--characters-as-bytes",
        "--sandbox",
        "--version",
        "--help",
        "--bignum",
        "--lint",
    ];
    let mut programs: Vec<&Word> = Vec::new();
    let mut first_operand = None;
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        i += 1;
        if w.dynamic {
            // Options come before the program; a run-time word there could
            // be any option.
            no_dynamic_options("awk", std::slice::from_ref(w))?;
        }
        if t == "--" {
            first_operand = args.get(i);
            break;
        }
        if t == "-" || !t.starts_with('-') {
            first_operand = Some(w);
            break;
        }
        match t {
            "-F" | "-v" | "--field-separator" | "--assign" => i += 1,
            "-e" | "--source" => {
                programs.push(args.get(i).ok_or("`awk -e` without a program")?);
                i += 1;
            }
            _ if t.starts_with("-F") || t.starts_with("-v") => {}
            _ if t.starts_with("--field-separator=") || t.starts_with("--assign=") => {}
            _ if FLAGS.contains(&t) => {}
            _ => {
                return Err(format!(
                    "`awk {t}` loads code, writes files or is not understood"
                ));
            }
        }
    }
    if let Some(w) = args.iter().find(|w| w.text.contains("/inet")) {
        return Err(format!(
            "`awk` is given `{}`, which gawk opens as a network connection",
            w.text
        ));
    }
    if programs.is_empty() {
        programs.push(first_operand.ok_or("`awk` without a program")?);
    }
    for program in programs {
        if program.dynamic {
            return Err(format!(
                "the awk program `{}` is only known at run time",
                program.text
            ));
        }
        check_awk_program(&program.text)?;
    }
    Ok(())
}

/// What came before, for deciding what a `/` is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Prev {
    /// Start of a statement or after an operator: a `/` starts a regex.
    Operator,
    /// After a value: a `/` divides.
    Operand,
    /// Where awks disagree or the reading depends on the grammar around
    /// it (after `++`/`--`, after `getline`, which mawk takes for a value
    /// so that `getline / 1` divides): a `/` here is refused.
    Ambiguous,
}

/// Keywords after which a `/` can only start a regex (an expression
/// follows, or a statement).
const KEYWORDS: &[&str] = &[
    "if", "else", "while", "for", "do", "exit", "return", "print", "printf", "switch", "case",
];

/// Keywords and bare built-ins after which a `/` means different things
/// to different awks, or nothing sensible: refused there.
const AMBIGUOUS_BEFORE_SLASH: &[&str] = &[
    "BEGIN",
    "END",
    "BEGINFILE",
    "ENDFILE",
    "function",
    "func",
    "break",
    "continue",
    "next",
    "nextfile",
    "delete",
    "in",
    "getline",
    "default",
    "length",
];

/// Variables whose change makes awk open other files (`ARGV[1] = ...`),
/// which could be gawk's network files built out of pieces.
const ARGUMENT_VARIABLES: &[&str] = &["ARGV", "ARGC"];

/// Scans awk program text for output redirection inside `print`/`printf`,
/// pipes, `system()` and `@load`/`@include`.
pub(in crate::permissions::shell) fn check_awk_program(program: &str) -> Result<(), String> {
    raw_scan(program)?;
    let s: Vec<char> = program.chars().collect();
    let mut i = 0;
    // Open parens and brackets; true for the condition of if/while/for.
    let mut parens: Vec<bool> = Vec::new();
    // Paren depth at which the current print statement started.
    let mut print_depth: Option<usize> = None;
    let mut prev = Prev::Operator;
    // The last keyword or operator, for statements continued on the next
    // line and for `if (` conditions.
    let mut last_word = String::new();
    let mut last_sig = ' ';
    while let Some(&c) = s.get(i) {
        i += 1;
        let word_before = std::mem::take(&mut last_word);
        match c {
            '"' => {
                skip_string(&s, &mut i)?;
                prev = Prev::Operand;
            }
            '/' => match prev {
                Prev::Operator => {
                    skip_regex(&s, &mut i)?;
                    prev = Prev::Operand;
                }
                Prev::Operand => prev = Prev::Operator,
                Prev::Ambiguous => {
                    return Err("the awk program has a `/` after `++`, `--` or a keyword such as `getline`, which awks read differently".into());
                }
            },
            '#' => {
                while s.get(i).is_some_and(|&c| c != '\n') {
                    i += 1;
                }
                continue;
            }
            '\\' if s.get(i) == Some(&'\n') => {
                i += 1;
                continue;
            }
            '\\' => return Err("the awk program has a `\\` outside a string or regex".into()),
            '|' if s.get(i) == Some(&'|') => {
                i += 1;
                prev = Prev::Operator;
                last_word = "||".into();
            }
            '|' => return Err("the awk program pipes to or from a command".into()),
            '>' if print_depth == Some(parens.len()) => {
                print_redirect(&s, &mut i)?;
                prev = Prev::Operand;
            }
            '(' | '[' => {
                let condition = c == '(' && matches!(word_before.as_str(), "if" | "while" | "for");
                parens.push(condition);
                prev = Prev::Operator;
            }
            ')' | ']' => {
                let condition = parens.pop().unwrap_or(false);
                if print_depth.is_some_and(|d| d > parens.len()) {
                    print_depth = None;
                }
                prev = if condition {
                    Prev::Operator
                } else {
                    Prev::Operand
                };
            }
            '\n' => {
                // A statement goes on after a comma, `&&`, `||`, `{`,
                // `do` and `else`.
                let continues = matches!(last_sig, ',' | '{' | '&')
                    || matches!(word_before.as_str(), "||" | "do" | "else");
                if !continues && print_depth == Some(parens.len()) {
                    print_depth = None;
                }
                if !continues {
                    prev = Prev::Operator;
                }
                if continues {
                    last_word = word_before;
                }
                continue;
            }
            ';' | '{' | '}' => {
                if print_depth.is_some_and(|d| d >= parens.len()) {
                    print_depth = None;
                }
                prev = Prev::Operator;
            }
            '+' | '-' if s.get(i) == Some(&c) => {
                i += 1;
                prev = if prev == Prev::Operand {
                    Prev::Ambiguous
                } else {
                    Prev::Operator
                };
            }
            c if c.is_ascii_digit()
                || (c == '.' && s.get(i).is_some_and(|d| d.is_ascii_digit())) =>
            {
                skip_number(&s, &mut i);
                prev = Prev::Operand;
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let word = read_word(&s, &mut i);
                if matches!(word.as_str(), "print" | "printf") {
                    print_depth = Some(parens.len());
                }
                prev = check_word(&word, &s, i)?;
                last_word = word;
            }
            c if c.is_whitespace() => {
                last_word = word_before;
                continue;
            }
            _ => prev = Prev::Operator,
        }
        last_sig = c;
    }
    Ok(())
}

/// Skips the rest of a number (its first character read), including
/// `0x1f`, `1.5` and an exponent's sign (`1e+5`).
fn skip_number(s: &[char], i: &mut usize) {
    while s
        .get(*i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '.')
    {
        *i += 1;
    }
    if matches!(s.get(*i - 1), Some('e' | 'E')) && matches!(s.get(*i), Some('+' | '-')) {
        *i += 1;
        while s.get(*i).is_some_and(|c| c.is_ascii_digit()) {
            *i += 1;
        }
    }
}

/// The name or keyword whose first character is at `*i - 1`; `*i` ends
/// after it.
fn read_word(s: &[char], i: &mut usize) -> String {
    let start = *i - 1;
    while s
        .get(*i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
    {
        *i += 1;
    }
    s[start..*i].iter().collect()
}

/// Refuses the words that open other files (`ARGV`, a computed `getline`
/// source) and says how a `/` after this word reads.
fn check_word(word: &str, s: &[char], i: usize) -> Result<Prev, String> {
    if ARGUMENT_VARIABLES.contains(&word) {
        return Err(format!(
            "the awk program uses `{word}`, through which it can open other files"
        ));
    }
    if word == "getline" {
        getline_source(s, i)?;
    }
    Ok(if KEYWORDS.contains(&word) {
        Prev::Operator
    } else if AMBIGUOUS_BEFORE_SLASH.contains(&word) {
        Prev::Ambiguous
    } else {
        Prev::Operand
    })
}

/// A `>` or `>>` after `print`: allowed only to the terminal or
/// `/dev/null` ([`redirects_to_terminal`]).
fn print_redirect(s: &[char], i: &mut usize) -> Result<(), String> {
    if s.get(*i) == Some(&'>') {
        *i += 1;
    }
    while s.get(*i).is_some_and(|c| *c == ' ' || *c == '\t') {
        *i += 1;
    }
    if !redirects_to_terminal(s, i) {
        return Err("the awk program redirects output to a file".into());
    }
    Ok(())
}

/// `getline [var] < FILE`: the file must be a string literal (the raw scan
/// has checked that none names gawk's network files); a file computed at
/// run time could be `"/inet/tcp/..."`.
fn getline_source(s: &[char], mut i: usize) -> Result<(), String> {
    let skip_blanks = |i: &mut usize| {
        while s.get(*i).is_some_and(|c| *c == ' ' || *c == '\t') {
            *i += 1;
        }
    };
    skip_blanks(&mut i);
    while s
        .get(i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
    {
        i += 1;
    }
    skip_blanks(&mut i);
    if s.get(i) != Some(&'<') {
        return Ok(());
    }
    i += 1;
    skip_blanks(&mut i);
    if s.get(i) != Some(&'"') {
        return Err("the awk program reads with `getline <` from a file named at run time".into());
    }
    i += 1;
    skip_string(s, &mut i)?;
    skip_blanks(&mut i);
    // `getline < "a" "b"` concatenates in some awks.
    match s.get(i) {
        None | Some(';' | '}' | '\n' | ')' | '>' | '=' | '!' | '<' | '&' | '|') => Ok(()),
        Some(c) => Err(format!(
            "the awk program's `getline <` file goes on with `{c}`, which awks read differently"
        )),
    }
}

/// Looks at the raw text, whatever the tokens: `system`, gawk's network
/// files (`/inet/tcp/...`) and `@` (gawk's `@load`, `@include` and indirect
/// calls) are refused even inside strings.
fn raw_scan(program: &str) -> Result<(), String> {
    if program.contains("/inet") {
        return Err("the awk program names gawk's network files (`/inet/...`)".into());
    }
    let mut rest = program;
    while let Some(pos) = rest.find("system") {
        let before = rest[..pos].chars().next_back();
        let after = rest[pos + 6..].chars().next();
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ident(before) && !ident(after) {
            return Err("the awk program calls `system()`".into());
        }
        rest = &rest[pos + 6..];
    }
    if program.contains('@') {
        return Err(
            "the awk program loads code with `@load`/`@include` or calls indirectly".into(),
        );
    }
    Ok(())
}

/// After `print ... >`: only the terminal or nowhere, as a string literal
/// that ends the statement.
fn redirects_to_terminal(s: &[char], i: &mut usize) -> bool {
    for target in ["\"/dev/stdout\"", "\"/dev/stderr\"", "\"/dev/null\""] {
        let t: Vec<char> = target.chars().collect();
        if s[*i..].starts_with(&t) {
            let mut end = *i + t.len();
            while s.get(end).is_some_and(|c| *c == ' ' || *c == '\t') {
                end += 1;
            }
            if matches!(s.get(end), None | Some(';' | '}' | '\n')) {
                *i += t.len();
                return true;
            }
        }
    }
    false
}

fn skip_string(s: &[char], i: &mut usize) -> Result<(), String> {
    while let Some(&c) = s.get(*i) {
        *i += 1;
        match c {
            '\\' => *i += 1,
            '"' => return Ok(()),
            '\n' => break,
            _ => {}
        }
    }
    Err("the awk program has an unterminated string".into())
}

/// Skips a regex to its closing `/`. Awks differ on whether a `/` inside a
/// bracket expression ends the regex, so that is refused.
fn skip_regex(s: &[char], i: &mut usize) -> Result<(), String> {
    let mut bracket: Option<usize> = None;
    while let Some(&c) = s.get(*i) {
        let at = *i;
        *i += 1;
        match (c, bracket) {
            ('\\', _) => *i += 1,
            ('\n', _) => break,
            ('/', Some(_)) => {
                return Err(
                    "the awk program has a `/` inside a bracket expression of a regex".into(),
                );
            }
            ('/', None) => return Ok(()),
            ('[', None) => {
                bracket = Some(at);
                if s.get(*i) == Some(&'^') {
                    *i += 1;
                }
                // A `]` right after `[` or `[^` is a member.
                if s.get(*i) == Some(&']') {
                    *i += 1;
                }
            }
            ('[', Some(_)) if matches!(s.get(*i), Some(':' | '.' | '=')) => {
                let kind = s[*i];
                *i += 1;
                while let Some(&d) = s.get(*i) {
                    *i += 1;
                    if d == kind && s.get(*i) == Some(&']') {
                        *i += 1;
                        break;
                    }
                }
            }
            (']', Some(_)) => bracket = None,
            _ => {}
        }
    }
    Err("the awk program has an unterminated regex".into())
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn awk_programs() {
        for ok in [
            "{print $1}",
            "$3 > 10 { print $1 }",
            "{ if ($1 > 2) print }",
            "{ print ($1 > 2) }",
            "/a|b/ { n++ } END { print n }",
            "{ x = a || b; print x > \"/dev/stderr\" }",
            "{ n = $1 / 2; print n }",
            "{ print \"a > b | c\" }",
            "BEGIN { FS = \",\" } NR > 1 { s += $2 } END { printf \"%d\\n\", s }",
            "/^[[:space:]]*#/ { next } { print }",
            "/[]a]/",
            "{ print length($0) / 2 }",
            "NR==1, NR==5",
            "{ print $1,\n $2 }",
            "{ while ((getline line < \"a\") > 0) n++ } END { print n }",
            "BEGIN { getline; print $0 }",
        ] {
            assert!(check_awk_program(ok).is_ok(), "{ok}");
        }
        for bad in [
            "{print > \"f\"}",
            "{ print $1 >> out }",
            "{ printf(\"%s\", $0) > \"x\" }",
            "{ system(\"rm x\") }",
            "{ \"date\" | getline d }",
            "{ print | \"sort\" }",
            "@load \"x\"",
            "BEGIN { x = 4. / 2; print \"/\" ; y = 1 | 2 }",
            "{ if (1) print; else /\"/; print | \"sh\"; x=\"/\" }",
            "{ if ($1) /\"/; print | \"sh\"; x = \"/\" }",
            "/[/]/ { print | \"sh\" }",
            "{ print > \"/dev/stderr\" \"x\" }",
            "{ print $1,\n $2 > \"f\" }",
            "{ x++ / 2 }",
            "{ s = \"system\" }",
            // mawk divides after `getline`: the "regex" would hide code.
            "BEGIN { x = getline / 1; print \"a\" > \"out\"; y = 1 / 2 }",
            "BEGIN { getline line < \"/inet/tcp/0/127.0.0.1/9\" }",
            "BEGIN { f = \"/in\" \"et/tcp/0/127.0.0.1/9\"; getline l < f }",
            "BEGIN { ARGV[1] = \"x\"; ARGC = 2 } { print }",
            "{ n = length / 2; print > \"f\" }",
        ] {
            assert!(check_awk_program(bad).is_err(), "{bad}");
        }
    }
}
