//! `sed` and `awk`: their options, and a scan of their script text for the
//! commands that write files (`w`, `print > "f"`) or run programs (`e`,
//! `system()`, pipes). The scanners are strict: anything they do not
//! recognise counts as not read-only.

use super::parse::Word;
use super::readonly_list::{long_option_is, no_dynamic_options};

/// Judges `sed ARGS`.
pub(super) fn check_sed(args: &[Word]) -> Result<(), String> {
    no_dynamic_options("sed", args)?;
    let mut scripts: Vec<&str> = Vec::new();
    let mut operands: Vec<&Word> = Vec::new();
    let mut only_operands = false;
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        i += 1;
        if only_operands || t == "-" || !t.starts_with('-') {
            operands.push(w);
            continue;
        }
        if t == "--" {
            only_operands = true;
            continue;
        }
        if let Some(body) = t.strip_prefix("--") {
            let (name, value) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (body, None),
            };
            if long_option_is(t, "in-place", 1) {
                return Err("`sed --in-place` edits files".into());
            }
            match name {
                "expression" => match value {
                    Some(v) => scripts.push(v),
                    None => {
                        let v = args.get(i).ok_or("`sed --expression` without a script")?;
                        scripts.push(&v.text);
                        i += 1;
                    }
                },
                "line-length" if value.is_none() => i += 1,
                "quiet" | "silent" | "regexp-extended" | "separate" | "unbuffered"
                | "null-data" | "posix" | "debug" | "sandbox" | "follow-symlinks" | "binary"
                | "line-length" | "help" | "version" => {}
                "file" => return Err("`sed --file` reads a script that cannot be checked".into()),
                _ => return Err(format!("`sed {t}` is an option the analysis does not know")),
            }
            continue;
        }
        for (idx, c) in t.char_indices().skip(1) {
            match c {
                'n' | 'r' | 'E' | 's' | 'u' | 'z' | 'b' => {}
                'i' => return Err("`sed -i` edits files in place".into()),
                'f' => return Err("`sed -f` reads a script that cannot be checked".into()),
                'e' | 'l' => {
                    let attached = &t[idx + 1..];
                    let value = if attached.is_empty() {
                        let v = args.get(i).ok_or(format!("`sed -{c}` without a value"))?;
                        i += 1;
                        v.text.as_str()
                    } else {
                        attached
                    };
                    if c == 'e' {
                        scripts.push(value);
                    }
                    break;
                }
                _ => return Err(format!("`sed {t}` is an option the analysis does not know")),
            }
        }
    }
    if scripts.is_empty() {
        let script = operands.first().ok_or("`sed` without a script")?;
        if script.dynamic {
            return Err(format!(
                "the sed script `{}` is only known at run time",
                script.text
            ));
        }
        scripts.push(&script.text);
    }
    for script in scripts {
        check_sed_script(script)?;
    }
    Ok(())
}

/// Scans a sed script command by command.
pub(super) fn check_sed_script(script: &str) -> Result<(), String> {
    let s: Vec<char> = script.chars().collect();
    let mut p = Scan { s: &s, i: 0 };
    loop {
        p.skip(|c| c.is_whitespace() || c == ';');
        let Some(c) = p.peek() else {
            return Ok(());
        };
        if c == '#' {
            p.skip(|c| c != '\n');
            continue;
        }
        if c == '}' || c == '{' {
            p.i += 1;
            continue;
        }
        p.address()?;
        p.skip(|c| c == ' ' || c == '\t');
        if p.peek() == Some(',') {
            p.i += 1;
            p.skip(|c| c == ' ' || c == '\t');
            p.address()?;
        }
        p.skip(|c| c == ' ' || c == '\t' || c == '!');
        let cmd = p.next().ok_or("a sed address without a command")?;
        match cmd {
            '{' | '}' => {}
            '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x' | 'z' | 'F'
            | 'l' | 'q' | 'Q' | 'L' => p.skip(|c| c.is_ascii_digit() || c == ' '),
            ':' | 'b' | 't' | 'T' | 'v' => p.skip(|c| c != ';' && c != '\n'),
            // Text to the end of the line; `r`/`R` only read their file.
            'a' | 'i' | 'c' | 'r' | 'R' => p.rest_of_line(),
            'w' | 'W' => return Err("the sed script's `w` command writes a file".into()),
            'e' => return Err("the sed script's `e` command runs a shell command".into()),
            's' => {
                let delim = p.delimiter()?;
                p.until(delim)?;
                p.until(delim)?;
                loop {
                    match p.peek() {
                        Some('g' | 'p' | 'i' | 'I' | 'm' | 'M') => p.i += 1,
                        Some(c) if c.is_ascii_digit() => p.i += 1,
                        Some('w') => return Err("the sed `s///w` flag writes a file".into()),
                        Some('e') => return Err("the sed `s///e` flag runs a shell command".into()),
                        Some(c) if c.is_whitespace() || c == ';' || c == '}' => break,
                        None => break,
                        Some(c) => return Err(format!("the sed `s` flag `{c}` is not understood")),
                    }
                }
            }
            'y' => {
                let delim = p.delimiter()?;
                p.until(delim)?;
                p.until(delim)?;
            }
            other => return Err(format!("the sed command `{other}` is not understood")),
        }
    }
}

struct Scan<'a> {
    s: &'a [char],
    i: usize,
}

impl Scan<'_> {
    fn peek(&self) -> Option<char> {
        self.s.get(self.i).copied()
    }
    fn next(&mut self) -> Option<char> {
        let c = self.peek();
        self.i += 1;
        c
    }
    fn skip(&mut self, keep_going: impl Fn(char) -> bool) {
        while self.peek().is_some_and(&keep_going) {
            self.i += 1;
        }
    }
    fn rest_of_line(&mut self) {
        while let Some(c) = self.next() {
            match c {
                '\\' => self.i += 1,
                '\n' => break,
                _ => {}
            }
        }
    }
    /// Skips past the next unescaped `delim`.
    fn until(&mut self, delim: char) -> Result<(), String> {
        while let Some(c) = self.next() {
            if c == '\\' {
                self.i += 1;
            } else if c == delim {
                return Ok(());
            }
        }
        Err("an unterminated sed expression".into())
    }
    fn delimiter(&mut self) -> Result<char, String> {
        match self.next() {
            Some(c) if c != '\n' && c != '\\' => Ok(c),
            _ => Err("a sed command without a delimiter".into()),
        }
    }
    /// Skips one address: `12`, `$`, `/re/I`, `\%re%`, `first~step`, `+N`, `~N`.
    fn address(&mut self) -> Result<(), String> {
        match self.peek() {
            Some('/') => {
                self.i += 1;
                self.until('/')?;
                self.skip(|c| c == 'I' || c == 'M');
            }
            Some('\\') => {
                self.i += 1;
                let delim = self.delimiter()?;
                self.until(delim)?;
                self.skip(|c| c == 'I' || c == 'M');
            }
            Some('$') => self.i += 1,
            Some(c) if c.is_ascii_digit() || c == '+' || c == '~' => {
                self.i += 1;
                self.skip(|c| c.is_ascii_digit() || c == '~');
            }
            _ => {}
        }
        Ok(())
    }
}

/// Judges `awk ARGS` (and gawk/mawk/nawk).
pub(super) fn check_awk(args: &[Word]) -> Result<(), String> {
    no_dynamic_options("awk", args)?;
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
    let mut programs: Vec<&str> = Vec::new();
    let mut first_operand = None;
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        i += 1;
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
                programs.push(&args.get(i).ok_or("`awk -e` without a program")?.text);
                i += 1;
            }
            _ if t.starts_with("-F") || t.starts_with("-v") => {}
            _ if t.starts_with("--field-separator=") || t.starts_with("--assign=") => {}
            _ if t.starts_with("--source=") => programs.push(&t["--source=".len()..]),
            _ if FLAGS.contains(&t) => {}
            _ => {
                return Err(format!(
                    "`awk {t}` loads code, writes files or is not understood"
                ));
            }
        }
    }
    if programs.is_empty() {
        let program = first_operand.ok_or("`awk` without a program")?;
        if program.dynamic {
            return Err(format!(
                "the awk program `{}` is only known at run time",
                program.text
            ));
        }
        programs.push(&program.text);
    }
    for program in programs {
        check_awk_program(program)?;
    }
    Ok(())
}

/// Scans awk program text for output redirection inside `print`/`printf`,
/// pipes, `system()` and `@load`/`@include`.
pub(super) fn check_awk_program(program: &str) -> Result<(), String> {
    let s: Vec<char> = program.chars().collect();
    let mut i = 0;
    let mut depth: i32 = 0;
    // Paren depth at which the current print statement started.
    let mut print_depth: Option<i32> = None;
    // Whether the previous token ends an operand (then `/` divides).
    let mut after_operand = false;
    while let Some(&c) = s.get(i) {
        i += 1;
        match c {
            '"' => {
                skip_quoted(&s, &mut i, '"');
                after_operand = true;
            }
            '/' if !after_operand => {
                skip_regex(&s, &mut i);
                after_operand = true;
            }
            '#' => {
                while s.get(i).is_some_and(|&c| c != '\n') {
                    i += 1;
                }
            }
            '|' if s.get(i) == Some(&'|') => {
                i += 1;
                after_operand = false;
            }
            '|' => return Err("the awk program pipes to or from a command".into()),
            '@' => return Err("the awk program loads code with `@load`/`@include`".into()),
            '>' if print_depth == Some(depth) => {
                if s.get(i) == Some(&'>') {
                    i += 1;
                }
                while s.get(i).is_some_and(|c| *c == ' ' || *c == '\t') {
                    i += 1;
                }
                if !redirects_to_terminal(&s[i..]) {
                    return Err("the awk program redirects output to a file".into());
                }
                after_operand = false;
            }
            '(' | '[' => {
                depth += 1;
                after_operand = false;
            }
            ')' | ']' => {
                depth -= 1;
                after_operand = true;
            }
            ';' | '\n' | '{' | '}' => {
                print_depth = None;
                after_operand = false;
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
                match word.as_str() {
                    "system" => return Err("the awk program calls `system()`".into()),
                    "print" | "printf" => {
                        print_depth = Some(depth);
                        after_operand = false;
                    }
                    "return" | "in" | "getline" => after_operand = false,
                    _ => after_operand = true,
                }
            }
            c if c.is_ascii_digit() || c == '$' => after_operand = c != '$',
            c if c.is_whitespace() => {}
            _ => after_operand = false,
        }
    }
    Ok(())
}

fn redirects_to_terminal(rest: &[char]) -> bool {
    ["\"/dev/stdout\"", "\"/dev/stderr\"", "\"/dev/null\""]
        .iter()
        .any(|target| {
            let t: Vec<char> = target.chars().collect();
            rest.starts_with(&t)
        })
}

fn skip_quoted(s: &[char], i: &mut usize, quote: char) {
    while let Some(&c) = s.get(*i) {
        *i += 1;
        if c == '\\' {
            *i += 1;
        } else if c == quote {
            return;
        }
    }
}

fn skip_regex(s: &[char], i: &mut usize) {
    let mut in_class = false;
    while let Some(&c) = s.get(*i) {
        *i += 1;
        match c {
            '\\' => *i += 1,
            '[' => in_class = true,
            ']' => in_class = false,
            '/' if !in_class => return,
            '\n' => return,
            _ => {}
        }
    }
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn sed_scripts() {
        for ok in [
            "s/a/b/g",
            "1,5p",
            "/x/d;s|a|b|2",
            "$!N;P;D",
            "/^#/!{s/a/b/p}",
            "y/abc/xyz/",
            "1~2p",
            "a hello",
            "10q",
        ] {
            assert!(check_sed_script(ok).is_ok(), "{ok}");
        }
        for bad in [
            "w out",
            "s/a/b/w out",
            "s/a/b/e",
            "1e date",
            "/x/W f",
            "p;w f",
            "s/a/b",
            "k",
        ] {
            assert!(check_sed_script(bad).is_err(), "{bad}");
        }
    }

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
        ] {
            assert!(check_awk_program(bad).is_err(), "{bad}");
        }
    }
}
