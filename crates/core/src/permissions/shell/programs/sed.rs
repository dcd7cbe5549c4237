//! `sed`: its options, and a scan of its script text for the commands that
//! write files (`w`, `W`, `s///w`) or run programs (`e`, `s///e`). The
//! scanner is strict: anything it does not recognise counts as not
//! read-only. `awk` is [`super::awk`].

use super::{long_option_is, no_dynamic_options};
use crate::permissions::shell::words::Word;

pub(in crate::permissions::shell) use super::awk::check_awk;

/// Judges `sed ARGS`.
pub(in crate::permissions::shell) fn check_sed(args: &[Word]) -> Result<(), String> {
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
pub(in crate::permissions::shell) fn check_sed_script(script: &str) -> Result<(), String> {
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
            // GNU sed ends a label at whitespace or `;`, so stop at the
            // first of either and read what follows as commands: reading
            // too much as commands can only find more.
            ':' | 'b' | 't' | 'T' | 'v' => {
                p.skip(|c| c == ' ' || c == '\t');
                p.skip(|c| !c.is_whitespace() && c != ';');
            }
            // Text to the end of the line; `r`/`R` only read their file.
            'a' | 'i' | 'c' | 'r' | 'R' => p.rest_of_line(),
            'w' | 'W' => return Err("the sed script's `w` command writes a file".into()),
            'e' => return Err("the sed script's `e` command runs a shell command".into()),
            's' => {
                let delim = p.delimiter()?;
                p.regex_until(delim)?;
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
    /// Skips a regex to its unescaped `delim`. GNU sed (since 4.3) does not
    /// end a regex at a delimiter inside a bracket expression (`/[/]/`),
    /// older and other seds do; where the two readings end in different
    /// places, what follows could be a command for one and regex text for
    /// the other, so the script is refused.
    fn regex_until(&mut self, delim: char) -> Result<(), String> {
        let plain = regex_end(self.s, self.i, delim, false);
        let bracketed = regex_end(self.s, self.i, delim, true);
        match (plain, bracketed) {
            (Some(a), Some(b)) if a == b => {
                self.i = a;
                Ok(())
            }
            (None, None) => Err("an unterminated sed expression".into()),
            _ => Err(format!(
                "the sed script has a `{delim}` inside a bracket expression, which seds read differently"
            )),
        }
    }
    /// Skips one address: `12`, `$`, `/re/I`, `\%re%`, `first~step`, `+N`, `~N`.
    fn address(&mut self) -> Result<(), String> {
        match self.peek() {
            Some('/') => {
                self.i += 1;
                self.regex_until('/')?;
                self.skip(|c| c == 'I' || c == 'M');
            }
            Some('\\') => {
                self.i += 1;
                let delim = self.delimiter()?;
                self.regex_until(delim)?;
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

/// Where a regex starting at `from` ends (just past its closing `delim`),
/// reading bracket expressions as GNU sed does when `brackets` (a `]` first
/// in the bracket is a member, `[:class:]` is skipped whole, a backslash
/// inside is literal), or ignoring them.
fn regex_end(s: &[char], from: usize, delim: char, brackets: bool) -> Option<usize> {
    let mut i = from;
    while let Some(&c) = s.get(i) {
        i += 1;
        if c == '\\' {
            i += 1;
        } else if c == delim {
            return Some(i);
        } else if c == '[' && brackets {
            if s.get(i) == Some(&'^') {
                i += 1;
            }
            if s.get(i) == Some(&']') {
                i += 1;
            }
            loop {
                let d = *s.get(i)?;
                i += 1;
                match d {
                    ']' => break,
                    '[' if matches!(s.get(i), Some(':' | '.' | '=')) => {
                        let kind = s[i];
                        i += 1;
                        while !(s.get(i) == Some(&kind) && s.get(i + 1) == Some(&']')) {
                            s.get(i)?;
                            i += 1;
                        }
                        i += 2;
                    }
                    _ => {}
                }
            }
        }
    }
    None
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
            "/[[:space:]]*#/d",
            "s/[\\/]/x/g",
            "/[]a]/p",
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
            ":a w out",
            ":a\tw out",
            "b a;w out",
            "t x w out",
            "v 4.2 w out",
            // GNU sed reads `[/s]` as one bracket and then `w`; others end
            // the address at the `/` inside it.
            "/[/s]/w ok.txt]]",
            "s/[/]/x/w out",
            "\\,[,],w out",
        ] {
            assert!(check_sed_script(bad).is_err(), "{bad}");
        }
    }
}
